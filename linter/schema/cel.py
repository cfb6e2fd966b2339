"""KQ002's CEL pass: the ``x-kubernetes-validations`` rules of a kind's CRD schema, evaluated on
an object as the API server does on create.

- The object is read with the schema's ``default`` values applied (``cel_runtime.to_cel``): the
  API server defaults, then validates.
- A rule runs on every non-null value at the node it sits on (each list item, each map value);
  a rule at the root sees ``metadata`` as ``name`` and ``generateName`` only, and is skipped
  when it reads ``metadata.name`` of an object that has only ``generateName``.
- Skipped: rules that read ``oldSelf`` (transition rules run on update only) and rules on
  ``status`` (kqlint's schemas do not keep them).
- False is a rejection with the rule's ``messageExpression`` (when it evaluates to a non-blank
  string), else its ``message``, else ``failed rule: <rule>``. An evaluation error the data
  causes (no such key, index out of bounds, overflow, division by zero) is a rejection too, as
  the API server reports it: ``<error> evaluating rule: <message>``.
- A rule kqlint's evaluator cannot compile or run is never a finding: it is counted
  (:func:`not_evaluated`) and named once per process on stderr.

The evaluator (``cel_runtime``, cel-python) is imported only when an object of a kind with CEL
rules is checked; each expression is compiled once per process. A rule reading only fields of
``self`` (``self.a``, ``has(self.b)``) sees only those fields: the rest is neither converted nor
hashed. A rule's verdict (and message) is remembered per the part of the value the rule has read
so far (``cel_runtime.Reads``): manifests repeat the same blocks, and a rule that reads a field
or two of a large pod template gives every template alike there the same answer.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from kqlint.schema import cel_runtime
from kqlint.schema.cel_runtime import Resolve
from kqlint.schema.crd import CEL_RULES

ITEMS, VALUES = "[]", "{}"  # location steps: every list item, every map value
MAX_RULE_DEPTH = 60         # schema nodes below this are not searched for rules
# A rule that walks its own list inside a walk of it (`self.filter(i, size(self.filter(j, j ==
# i)) > 1)`, `self.all(a, self.exists_one(b, …))`) costs n^k evaluations on n items for k such
# macros, each tens of microseconds in the interpreter: past this many it is not evaluated (a
# hostile manifest of 600 Topology levels took 20 s). The bundled CRDs cap such lists at 16
# items or fewer, and the API server stops a rule at its own cost limit.
MAX_NESTED_STEPS = 20_000
_SELF_MACRO = re.compile(r"(?<![\w.])self\s*\.\s*(?:all|exists|exists_one|map|filter)\s*\(")
REASONS = {"FieldValueInvalid": "Invalid value", "FieldValueForbidden": "Forbidden",
           "FieldValueRequired": "Required value", "FieldValueDuplicate": "Duplicate value"}
_OLD_SELF = re.compile(r"\boldSelf\b")
_READS_NAME = re.compile(r"\bmetadata\s*\.\s*name\b")
_SELF = re.compile(r"(?<![\w.])self\b")
_SELF_FIELD = re.compile(r"\s*\.\s*([A-Za-z_][A-Za-z0-9_]*)")
_FIELD_STEP = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)|\[\s*'([^']*)'\s*\]|\[\s*\"([^\"]*)\"\s*\]|\[\s*(\d+)\s*\]")


@dataclass(frozen=True)
class CelRule:
    where: tuple[str, ...]          # property names, ITEMS, VALUES: where the rule sits in the schema
    rule: str
    message: str | None = None
    message_expression: str | None = None
    field_path: str | None = None
    reason: str = "FieldValueInvalid"
    reads: frozenset[str] | None = None  # the fields of `self` it reads (None: possibly all)
    self_walks: int = 0             # macros over `self` itself (two: a walk inside a walk, MAX_NESTED_STEPS)


@dataclass(frozen=True)
class CelViolation:
    path: tuple[Any, ...]           # the node the rule ran on, from the object's root
    field: tuple[Any, ...] | None   # the rule's fieldPath under it, when that field is present
    rule: CelRule
    message: str                    # the API server's text for it (message, or error + message)

    @property
    def reason(self) -> str:
        return REASONS.get(self.rule.reason, "Invalid value")


def rules_of(document: dict[str, Any], resolve: Resolve) -> tuple[CelRule, ...]:
    """Every create-time CEL rule of a kqlint schema document, in schema order."""
    found: list[CelRule] = []
    _collect(resolve(document), (), resolve, found)
    return tuple(found)


def _collect(node: dict[str, Any], where: tuple[str, ...], resolve: Resolve, found: list[CelRule]) -> None:
    if len(where) > MAX_RULE_DEPTH or where[:1] == ("status",):
        return
    for entry in node.get(CEL_RULES) or ():
        rule = _rule(entry, where)
        if rule is not None:
            found.append(rule)
    for name, child in (node.get("properties") or {}).items():
        _collect(resolve(child), where + (str(name),), resolve, found)
    if isinstance(node.get("items"), dict):
        _collect(resolve(node["items"]), where + (ITEMS,), resolve, found)
    if isinstance(node.get("additionalProperties"), dict):
        _collect(resolve(node["additionalProperties"]), where + (VALUES,), resolve, found)


def _rule(entry: Any, where: tuple[str, ...]) -> CelRule | None:
    if not isinstance(entry, dict) or not isinstance(entry.get("rule"), str) or _OLD_SELF.search(entry["rule"]):
        return None
    text = {k: entry.get(k) if isinstance(entry.get(k), str) else None
            for k in ("message", "messageExpression", "fieldPath", "reason")}
    reads = _reads(entry["rule"])
    more = _reads(text["messageExpression"]) if text["messageExpression"] else frozenset()
    return CelRule(where, entry["rule"], text["message"], text["messageExpression"], text["fieldPath"],
                   text["reason"] or "FieldValueInvalid", None if reads is None or more is None else reads | more,
                   len(_SELF_MACRO.findall(entry["rule"])))


class CelSchema:
    """One kind's CEL rules, with the schema they are defaulted against."""

    def __init__(self, document: dict[str, Any], resolve: Resolve, source: str) -> None:
        self.document, self.resolve, self.source = document, resolve, source
        self.rules = rules_of(document, resolve)
        self._reads: dict[CelRule, cel_runtime.Reads] = {}
        self._verdicts: dict[CelRule, dict[str, str | None]] = {}  # rule -> part read, as JSON -> message
        self._remembered = 0

    def compile(self) -> None:
        """Every rule's programs, compiled now (once per process: kqlint.schema.cel_runtime); a
        rule that does not compile is said so when an object reaches it, as before."""
        for rule in self.rules:
            cel_runtime.program(rule.rule)
            if rule.message_expression:
                cel_runtime.program(rule.message_expression)

    def violations(self, data: dict[str, Any]) -> list[CelViolation]:
        """Every rule the object breaks, in schema order, then document order."""
        found: list[CelViolation] = []
        root = self.resolve(self.document)
        for rule in self.rules:
            for path, value, schema in _nodes(data, root, rule.where, (), self.resolve):
                if not path and not _root_readable(rule, value):
                    continue
                seen = _projected(value, rule)
                message = self._verdict(rule, _root_view(seen) if not path else seen, schema)
                if message is not None:
                    found.append(CelViolation(path, _field(value, rule.field_path), rule, message))
        return found

    def _verdict(self, rule: CelRule, value: Any, schema: dict[str, Any]) -> str | None:
        """The API server's message when the rule rejects ``value``, else None; remembered per
        rule and the part of the value it read. When a run reads more than the rule had read
        before, the verdicts keyed by less are dropped: they were keyed by a different part."""
        reads = self._reads.setdefault(rule, cel_runtime.Reads())
        known = self._verdicts.setdefault(rule, {})
        key = _canonical(reads.of(value))
        if key in known:
            return known[key]
        before = reads.changes
        verdict = self._judge(rule, value, schema, reads)
        if reads.changes != before:
            self._remembered -= len(known)
            known.clear()
            key = _canonical(reads.of(value))
        if self._remembered >= MAX_VERDICTS:
            for verdicts in self._verdicts.values():
                verdicts.clear()
            self._remembered = 0
        known[key] = verdict
        self._remembered += 1
        return verdict

    def _judge(self, rule: CelRule, value: Any, schema: dict[str, Any], reads: cel_runtime.Reads) -> str | None:
        compiled = self._program(rule.rule, rule)
        if compiled is None:
            return None
        walks, size = rule.self_walks, len(value) if isinstance(value, (list, dict)) else 0
        if walks > 1 and size ** walks > MAX_NESTED_STEPS:
            _not_evaluated(rule, self.source, f"on {size} items its {walks} walks of them would take up to "
                           f"{size}^{walks} evaluations (the API server stops a rule at its cost limit)")
            return None
        cel_value = cel_runtime.to_cel(value, schema, self.resolve, reads)
        outcome = cel_runtime.evaluate(compiled, cel_value)
        if outcome is True:
            return None
        if outcome is False:
            return self._message(rule, cel_value)
        if isinstance(outcome, str):
            return f"{outcome} evaluating rule: {rule.message or rule.rule}"
        _not_evaluated(rule, self.source, f"evaluation: {_plain_error(outcome)}")
        return None

    def _message(self, rule: CelRule, cel_value: Any) -> str:
        if rule.message_expression:
            compiled = self._program(rule.message_expression, rule)
            text = cel_runtime.evaluate(compiled, cel_value, want=str) if compiled is not None else None
            if isinstance(text, str) and text.strip() and "\n" not in text.strip():
                return text.strip()
        return rule.message or f"failed rule: {rule.rule}"

    def _program(self, expression: str, rule: CelRule) -> Any:
        compiled = cel_runtime.program(expression)
        if isinstance(compiled, str):
            _not_evaluated(rule, self.source, compiled)
            return None
        return compiled


def _nodes(value: Any, schema: dict[str, Any], where: tuple[str, ...], path: tuple[Any, ...],
           resolve: Resolve) -> list[tuple[tuple[Any, ...], Any, dict[str, Any]]]:
    """The non-null values at a rule's location (an absent field on the way counts as its
    ``default``), with their paths and schema nodes."""
    if value is None:
        return []
    if not where:
        return [(path, value, schema)]
    step, rest = where[0], where[1:]
    if step == ITEMS:
        items, node = value if isinstance(value, list) else [], _child(schema, "items", resolve)
        return [n for i, item in enumerate(items) for n in _nodes(item, node, rest, path + (i,), resolve)]
    if not isinstance(value, dict):
        return []
    if step == VALUES:
        node = _child(schema, "additionalProperties", resolve)
        return [n for key, child in value.items() for n in _nodes(child, node, rest, path + (key,), resolve)]
    node = resolve((schema.get("properties") or {}).get(step, {}))
    child = value.get(step)
    if child is None and node.get("default") is not None:
        child = node["default"]
    return _nodes(child, node, rest, path + (step,), resolve)


def _child(schema: dict[str, Any], key: str, resolve: Resolve) -> dict[str, Any]:
    node = schema.get(key)
    return resolve(node) if isinstance(node, dict) else {}


def _projected(value: Any, rule: CelRule) -> Any:
    """Of a mapping, the fields the rule can read (all of them when that is not known)."""
    if rule.reads is None or not isinstance(value, dict):
        return value
    return {key: value[key] for key in rule.reads if key in value}


def _reads(expression: str) -> frozenset[str] | None:
    """The fields of ``self`` an expression reads, when every use of ``self`` is a field access
    (``self.a``, ``has(self.a)``); None when it uses ``self`` whole (``self.all(…)``, ``size(self)``)."""
    names = []
    for match in _SELF.finditer(expression):
        field = _SELF_FIELD.match(expression, match.end())
        if field is None or expression[field.end():].lstrip().startswith("("):
            return None
        names.append(field.group(1))
    return frozenset(names)


def _root_view(obj: dict[str, Any]) -> dict[str, Any]:
    """The object as a root-level rule sees it: of ``metadata``, only name and generateName."""
    metadata = obj.get("metadata")
    seen = {k: metadata[k] for k in ("name", "generateName")
            if isinstance(metadata, dict) and isinstance(metadata.get(k), str)}
    return {**obj, "metadata": seen}


def _root_readable(rule: CelRule, document: Any) -> bool:
    metadata = document.get("metadata") if isinstance(document, dict) else None
    has_name = isinstance(metadata, dict) and isinstance(metadata.get("name"), str)
    return has_name or not _READS_NAME.search(rule.rule)


MAX_VERDICTS = 100_000  # remembered per schema; past it, forgotten
_NOT_EVALUATED: dict[tuple[str, str], str] = {}  # (source, rule) -> why; named once on stderr


def _canonical(value: Any) -> str:
    import json

    try:
        return json.dumps(value, sort_keys=True, separators=(",", ":"), default=repr)
    except (TypeError, ValueError):  # keys of mixed types cannot be sorted
        return repr(value)


def _field(value: Any, field_path: str | None) -> tuple[Any, ...] | None:
    """``fieldPath`` (``.a.b``, ``['a.b']``, ``[0]``) under the rule's node, when it is there."""
    if not field_path:
        return None
    steps: list[Any] = []
    at = 0
    for match in _FIELD_STEP.finditer(field_path):
        if match.start() != at:
            return None
        at = match.end()
        name, single, double, index = match.groups()
        steps.append(int(index) if index is not None else next(s for s in (name, single, double) if s is not None))
    if at != len(field_path) or not steps:
        return None
    current = value
    for step in steps:
        if isinstance(step, int) and isinstance(current, list) and step < len(current):
            current = current[step]
        elif isinstance(step, str) and isinstance(current, dict) and step in current:
            current = current[step]
        else:
            return None
    return tuple(steps)


def _not_evaluated(rule: CelRule, source: str, why: str) -> None:
    key = (source, rule.rule)
    if key in _NOT_EVALUATED:
        return
    _NOT_EVALUATED[key] = why
    where = ".".join(rule.where) or "the object"
    from kqlint.sanitize import terminal_safe

    note = (f"kqlint: note: a CEL rule of {source} was not evaluated (kqlint's evaluator cannot run it; the "
            f"API server may still reject what kqlint accepts): `{where}`: `{_short(rule.rule)}`: {_short(why)}")
    from kqlint.errors import note_once

    note_once(terminal_safe(note))  # once per run, also from --jobs workers


def not_evaluated() -> dict[tuple[str, str], str]:
    """The rules this process could not evaluate: (schema source, rule) -> why."""
    return dict(_NOT_EVALUATED)


def _plain_error(error: Any) -> str:
    """An evaluator error as its name and first argument (cel-python's CELEvalError repr spells
    out every argument: ``CELEvalError(*("...", <class 'TypeError'>, (...)))``)."""
    if not isinstance(error, BaseException):
        return repr(error)
    first = error.args[0] if error.args else ""
    return f"{type(error).__name__}: {first}" if first != "" else type(error).__name__


def _short(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "…"
