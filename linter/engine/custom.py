"""Declarative custom rules (config ``custom-rules``, cli.md): no Python needed.

Each entry becomes a :class:`CustomRule` (a :class:`~kqlint.engine.rule.Rule`), compiled once per
process for the same definition: config validation compiles it and the run reuses it::

    - code: X001                       # letters + digits, must not start with KQ
      slug: gpu-jobs-need-team-label
      severity: warning
      message: "GPU workloads must carry a team label"
      match: {kinds: [Job, PyTorchJob], apiVersions: ["batch/v1", "kubeflow.org/*"]}
      when: "spec.template.spec.containers[?resources.limits.\\"nvidia.com/gpu\\"]"
      assert: "metadata.labels.team"

Semantics (documented in docs/configuration.md):

- ``match.kinds`` are exact kinds; ``match.apiVersions`` are ``fnmatch`` globs on the
  object's ``apiVersion``. Both optional.
- ``when`` and ``assert`` are JMESPath expressions, compiled once, evaluated on the object
  as plain JSON-like data. JMESPath truthiness applies: ``null``, ``false``, ``""``, ``[]``
  and ``{}`` are false, every number (also ``0``) is true. The rule applies when ``when``
  is true (absent: always) and reports the object when ``assert`` is false. An expression
  that fails at evaluation (a function given the wrong type) counts as ``null``; for
  ``assert`` the finding says so.
- Location: when ``assert`` is a plain field path (``metadata.labels.team``,
  ``spec.template.spec.containers[0].image``, or one negated as a whole:
  ``!(spec.hostNetwork)``; note ``!a.b`` means ``(!a).b`` in JMESPath), the finding
  points at the deepest node of that path that exists (for a missing label: ``labels:``,
  or ``metadata:`` when there are no labels); otherwise at the object's ``metadata:`` key.
- Message: ``<Kind> <namespace>/<name>: <message>``.

JMESPath is a query language without side effects: a custom rule cannot run code,
read files or reach the network. Plugins (``plugins:``) are Python and can. Each
evaluation runs under a budget (kqlint.engine.jmespath_budget: steps, seconds, sizes of
intermediate values); a rule that goes over it stops the run with a configuration error
(exit 2), so the worst a custom rule can do is cost about two seconds per object it is
evaluated on before that error.
"""
from __future__ import annotations

import fnmatch
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from kqlint.domain.fields import plain
from kqlint.engine.rule import RuleBase, RuleContext, RuleMeta
from kqlint.errors import ConfigError
from kqlint.model import Finding, Location, Severity

if TYPE_CHECKING:
    from kqlint.domain.objects import K8sObject


MAX_EXPRESSION_LENGTH = 10_000


class ExpressionError(ValueError):
    """A JMESPath expression that does not compile."""


def compile_expression(text: str) -> Any:
    """Compile a JMESPath expression once; raise ExpressionError with the parser's reason."""
    import jmespath
    from jmespath.exceptions import JMESPathError

    if not isinstance(text, str) or not text.strip():
        raise ExpressionError("a JMESPath expression must be a non-empty string")
    if len(text) > MAX_EXPRESSION_LENGTH:
        raise ExpressionError(f"a JMESPath expression longer than {MAX_EXPRESSION_LENGTH} characters")
    try:
        return jmespath.compile(text)
    except RecursionError:
        raise ExpressionError("invalid JMESPath expression: nested too deeply") from None
    except JMESPathError as exc:
        column = getattr(exc, "lex_position", None)
        where = f" at character {column + 1}" if isinstance(column, int) else ""
        reason = getattr(exc, "msg", None) or str(exc).splitlines()[0]
        raise ExpressionError(f"invalid JMESPath expression {text!r}{where}: {reason}") from None


def field_path(compiled: Any) -> tuple[Any, ...] | None:
    """The field path of a plain path expression (``a.b[0]."c.d"``, or one negated as a
    whole: ``!(a.b)``), else None."""
    node = getattr(compiled, "parsed", None)
    if isinstance(node, dict) and node.get("type") == "not_expression" and len(node.get("children") or []) == 1:
        node = node["children"][0]
    return _ast_path(node)


def _ast_path(node: Any) -> tuple[Any, ...] | None:
    if not isinstance(node, dict):
        return None
    kind, children = node.get("type"), node.get("children") or []
    if kind == "field":
        return (node.get("value"),)
    if kind == "index" and isinstance(node.get("value"), int):
        return (node["value"],)
    if kind in ("subexpression", "index_expression") and children:
        parts = [_ast_path(child) for child in children]
        if any(part is None for part in parts):
            return None
        return tuple(step for part in parts for step in part)  # type: ignore[union-attr]
    return None


def truthy(value: Any) -> bool:
    """JMESPath truthiness: null, false, empty string/list/object are false; numbers are true."""
    if value is None or value is False:
        return False
    if isinstance(value, (str, list, dict)):
        return len(value) > 0
    return True


@dataclass(frozen=True)
class CustomRuleSpec:
    code: str
    slug: str
    severity: Severity
    message: str
    kinds: frozenset[str] | None
    api_versions: tuple[str, ...]
    when: Any          # compiled JMESPath or None
    assertion: Any     # compiled JMESPath
    when_text: str
    assert_text: str
    summary: str
    description: str

    def applies_to(self, obj: K8sObject) -> bool:
        if self.kinds is not None and obj.kind not in self.kinds:
            return False
        return not self.api_versions or any(fnmatch.fnmatchcase(obj.api_version, p) for p in self.api_versions)


def _search(spec: CustomRuleSpec, key: str, data: Any, obj: K8sObject) -> tuple[Any, str | None]:
    """Evaluate ``spec``'s ``when``/``assert`` on ``data`` within the budget
    (kqlint.engine.jmespath_budget): over it, the whole run stops with a configuration error."""
    from jmespath.exceptions import JMESPathError
    from kqlint.engine.jmespath_budget import BudgetExceeded, _Over, search

    compiled = spec.when if key == "when" else spec.assertion
    try:
        return search(compiled, data), None
    except (_Over, RecursionError) as exc:
        reason = str(exc) if isinstance(exc, _Over) else "nesting too deep"
        text = spec.when_text if key == "when" else spec.assert_text
        raise BudgetExceeded(f"custom rule {spec.code} ({spec.slug}): {key} `{_short(text)}` went over the "
                             f"evaluation budget ({reason}) on {obj.display()}; simplify the expression") from None
    except (JMESPathError, TypeError, ValueError, ArithmeticError) as exc:
        return None, str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def _short(text: str) -> str:
    from kqlint.sanitize import shorten

    return shorten(text, 80)


def _location(spec: CustomRuleSpec, obj: K8sObject) -> Location:
    path = field_path(spec.assertion)
    if path and obj.has(path[0]):
        return obj.at(*path)  # the deepest existing node of the asserted path
    return obj.at("metadata") if obj.has("metadata") else obj.location()


@dataclass(frozen=True)
class CustomRule(RuleBase):
    """A rule from the config's ``custom-rules``: JMESPath ``when``/``assert`` per object."""

    meta: RuleMeta
    spec: CustomRuleSpec
    doc: str
    options_type: type | None = None
    origin: str = "kqlint.engine.custom"

    def check(self, obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
        spec = self.spec
        if not spec.applies_to(obj):
            return
        data = plain(obj.data)
        if spec.when is not None and not truthy(_search(spec, "when", data, obj)[0]):
            return
        value, error = _search(spec, "assert", data, obj)
        if truthy(value):
            return
        note = f" (assert `{spec.assert_text}` could not be evaluated: {error})" if error else ""
        yield ctx.finding(at=_location(spec, obj), message=f"{obj.display()}: {spec.message}{note}")


class CustomRuleError(ConfigError):
    """A custom-rules entry that cannot be compiled; ``index`` and ``key`` say where."""

    def __init__(self, index: int, key: str, reason: str) -> None:
        super().__init__(f"custom-rules[{index}].{key}: {reason}")
        self.index, self.key, self.reason = index, key, reason


def _error(index: int, key: str, message: str) -> CustomRuleError:
    return CustomRuleError(index, key, message)


def _text(entry: Mapping[str, Any], index: int, key: str, required: bool = True) -> str:
    value = entry.get(key)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or not value.strip():
        raise _error(index, key, "must be a non-empty string")
    return value


def _spec(entry: Mapping[str, Any], index: int) -> CustomRuleSpec:
    code, slug = _text(entry, index, "code"), _text(entry, index, "slug")
    if code.upper().startswith("KQ"):
        raise _error(index, "code", "custom rule codes must not start with KQ (reserved for built-in rules)")
    try:
        severity = Severity.parse(_text(entry, index, "severity"))
    except KeyError:
        raise _error(index, "severity", "must be error, warning or info") from None
    match = entry.get("match") or {}
    kinds = match.get("kinds") if isinstance(match, Mapping) else None
    api_versions = match.get("apiVersions") if isinstance(match, Mapping) else None
    compiled = {}
    for key in ("when", "assert"):
        text = _text(entry, index, key, required=key == "assert")
        try:
            compiled[key] = compile_expression(text) if text else None
        except ExpressionError as exc:
            raise _error(index, key, str(exc)) from None
    message = _text(entry, index, "message")
    return CustomRuleSpec(
        code=code, slug=slug, severity=severity, message=message,
        kinds=frozenset(str(k) for k in kinds) if kinds else None,
        api_versions=tuple(str(v) for v in api_versions or ()),
        when=compiled["when"], assertion=compiled["assert"],
        when_text=str(entry.get("when") or ""), assert_text=str(entry["assert"]),
        summary=str(entry.get("summary") or message), description=str(entry.get("description") or ""))


def _doc(spec: CustomRuleSpec) -> str:
    kinds = ", ".join(sorted(spec.kinds)) if spec.kinds else "every kind"
    versions = f" with apiVersion matching {', '.join(spec.api_versions)}" if spec.api_versions else ""
    when = f"when `{spec.when_text}` is true, " if spec.when is not None else ""
    return (f"## What it catches\n{spec.description or spec.message}\n\n"
            f"## Definition\nA declarative rule from the configuration (`custom-rules`). For objects of "
            f"{kinds}{versions}, {when}it reports the object when `{spec.assert_text}` is false "
            f"(JMESPath).\n")


def custom_rule(entry: Mapping[str, Any], index: int = 0) -> CustomRule:
    """The rule of one ``custom-rules`` entry (CustomRuleError when it does not compile)."""
    if not isinstance(entry, Mapping):
        raise _error(index, "code", "a custom rule must be a mapping")
    return _compiled(index, json.dumps(entry, sort_keys=True, default=str))


@lru_cache(maxsize=256)
def _compiled(index: int, definition: str) -> CustomRule:
    spec = _spec(json.loads(definition), index)
    meta = RuleMeta(code=spec.code, slug=spec.slug, severity=spec.severity, summary=spec.summary,
                    kinds=spec.kinds, scope="object")
    return CustomRule(meta, spec, _doc(spec))


def custom_rules(entries: Iterable[Mapping[str, Any]]) -> list[CustomRule]:
    """Rules for the config's ``custom-rules`` entries, compiled once per process for the
    same definitions (config validation compiles them; the run gets the same rules)."""
    return [custom_rule(entry, index) for index, entry in enumerate(entries or ())]


__all__ = ["CustomRule", "CustomRuleError", "custom_rules", "custom_rule", "compile_expression", "field_path",
           "truthy", "ExpressionError"]
