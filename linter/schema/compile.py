"""A kqlint JSON Schema compiled into nested closures, one per schema node: the subset the
schemas use (type, enum, properties, additionalProperties, items, local ``$ref``). A check
returns its problems with the path collected child-first while unwinding (only on errors);
``null`` is valid for a field or a map value (Kubernetes treats an explicit null as "unset"), and
for a list item except where the list is marked ``x-kqlint-null-items: false`` (a CRD's list,
kqlint.schema.crd: the API server rejects the null item)."""
from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

UNKNOWN_FIELD, WRONG_TYPE, NOT_IN_ENUM = "unknown-field", "wrong-type", "not-in-enum"
OUT_OF_BOUNDS = "out-of-bounds"  # a size, range or pattern the API server checks (kqlint.schema.crd)
NULL_ITEMS = "x-kqlint-null-items"  # false: a null item of the list is invalid (kqlint.schema.crd)
Check = Callable[[Any], list["Problem"] | None]


@dataclass(frozen=True)
class Violation:
    path: tuple[Any, ...]          # from the object's root; the last step is the offending key/item
    problem: str                   # UNKNOWN_FIELD, WRONG_TYPE, NOT_IN_ENUM or OUT_OF_BOUNDS
    value: Any                     # the unknown key, or the offending value
    expected: tuple[Any, ...]      # valid names / JSON types / enum values / (complaint, what the value must be)
    hint: str = ""                 # "did you mean `x`?", "values are case-sensitive: `Never`", ...


class Problem:
    """A violation while unwinding: the path is collected child-first (only on errors)."""

    __slots__ = ("problem", "value", "node", "rev", "detail")

    def __init__(self, problem: str, value: Any, node: dict[str, Any], detail: tuple[str, str] = ("", "")) -> None:
        self.problem, self.value, self.node, self.detail = problem, value, node, detail
        self.rev: list[Any] = []


# ------------------------------------------------------------------ type tests

# The loader yields exactly these classes for scalars, so a class-set membership test is the
# whole type check for most values; only an integral float needs a second look for "integer".
_CLASSES: dict[str, frozenset[type]] = {
    "string": frozenset({str}), "integer": frozenset({int}), "number": frozenset({int, float}),
    "boolean": frozenset({bool}),
}


def _classes(types: Any) -> frozenset[type] | None:
    """Accepted scalar classes for a leaf ``type`` (None: not a pure scalar type)."""
    names = [types] if isinstance(types, str) else types if isinstance(types, list) else []
    if not names or any(name not in _CLASSES for name in names):
        return None
    return frozenset().union(*(_CLASSES[name] for name in names))


def _type_ok(value: Any, types: Any) -> bool:
    names = [types] if isinstance(types, str) else types if isinstance(types, list) else []
    for name in names:
        classes = _CLASSES.get(name)
        if classes is not None and value.__class__ in classes:
            return True
        if name == "integer" and value.__class__ is float and value.is_integer():
            return True
        if (name == "object" and isinstance(value, dict)) or (name == "array" and isinstance(value, list)):
            return True
    return not names


# ------------------------------------------------------------------ compiler

class Compiler:
    """Turns one schema document into nested closures (one per schema node, shared $defs once).

    A leaf check carries ``.classes`` (accepted scalar classes) when it has no enum: its
    parent then tests ``value.__class__ in classes`` inline and calls it only on a mismatch.
    """

    def __init__(self, document: dict[str, Any]) -> None:
        defs = document.get("$defs")
        self.defs: dict[str, Any] = defs if isinstance(defs, dict) else {}
        self.refs: dict[str, Check | None] = {}

    def resolve(self, node: Any) -> dict[str, Any]:
        """The schema node itself, following a local ``$ref``."""
        while isinstance(node, dict) and isinstance(node.get("$ref"), str):
            node = self.defs.get(node["$ref"].rpartition("/")[2], {})
        return node if isinstance(node, dict) else {}

    def compile(self, node: Any) -> Check | None:
        """None means "anything goes" (the caller skips the call)."""
        if isinstance(node, dict) and isinstance(node.get("$ref"), str):
            return self._ref(node["$ref"])
        node = node if isinstance(node, dict) else {}
        if isinstance(node.get("properties"), dict) or isinstance(node.get("additionalProperties"), (dict, bool)):
            return self._object(node)
        if isinstance(node.get("items"), dict):
            null_item = self.resolve(node["items"]) if node.get(NULL_ITEMS) is False else None
            return _array_check(node, self.compile(node["items"]), null_item)
        types, enum = node.get("type"), node.get("enum")
        if types is None and not isinstance(enum, list):
            return None
        return _leaf(node, types, tuple(enum) if isinstance(enum, list) else None)

    def _ref(self, ref: str) -> Check | None:
        if ref not in self.refs:
            self.refs[ref] = None  # a (never generated) cycle validates as "anything"
            self.refs[ref] = self.compile(self.resolve({"$ref": ref}))
        return self.refs[ref]

    def _object(self, node: dict[str, Any]) -> Check | None:
        additional = node.get("additionalProperties")
        checks = {key: self.compile(child) for key, child in (node.get("properties") or {}).items()}
        extra = self.compile(additional) if isinstance(additional, dict) else None
        if not checks and extra is None and additional is not False and node.get("type") is None:
            return None
        return _object_check(node, checks, extra, closed=additional is False)


def _leaf(node: dict[str, Any], types: Any, enum: tuple[Any, ...] | None) -> Check:
    bound = bound_test(node)

    def check(value: Any) -> list[Problem] | None:
        if not _type_ok(value, types):
            return [Problem(WRONG_TYPE, value, node)]
        if enum is not None and not isinstance(value, (dict, list)) and value not in enum:
            return [Problem(NOT_IN_ENUM, value, node)]
        if bound is not None and (verdict := bound(value)):
            return [Problem(OUT_OF_BOUNDS, value, node, verdict)]
        return None
    if enum is None and bound is None:
        check.classes = _classes(types)  # type: ignore[attr-defined]
    return check


def _scalar_classes(check: Check | None) -> frozenset[type] | None:
    return getattr(check, "classes", None) if check is not None else None


def _object_check(node: dict[str, Any], checks: dict[Any, Check | None], extra: Check | None,
                  closed: bool) -> Check:
    scalars = {key: c for key, sub in checks.items() if (c := _scalar_classes(sub)) is not None}
    extra_classes = _scalar_classes(extra)
    typed = node.get("type") == "object"
    bound = bound_test(node)

    def check(value: Any) -> list[Problem] | None:
        if not isinstance(value, dict):
            return [Problem(WRONG_TYPE, value, node)] if typed else None
        problems = None
        if bound is not None and (verdict := bound(value)):
            problems = [Problem(OUT_OF_BOUNDS, value, node, verdict)]
        for key, child in value.items():
            if child is None:
                continue
            classes = scalars.get(key)
            if classes is not None:
                if child.__class__ in classes:
                    continue
                found = checks[key](child)  # type: ignore[misc]
            elif key in checks:
                sub = checks[key]
                if sub is None:
                    continue
                found = sub(child)
            elif extra is not None:
                if extra_classes is not None and child.__class__ in extra_classes:
                    continue
                found = extra(child)
            elif closed and not (isinstance(key, str) and key.startswith("$")):  # $patch & co.
                found = [Problem(UNKNOWN_FIELD, key, node)]
            else:
                continue
            if found:
                for problem in found:
                    problem.rev.append(key)
                problems = found if problems is None else problems + found
        return problems
    return check


def _array_check(node: dict[str, Any], items: Check | None, null_item: dict[str, Any] | None) -> Check:
    """``null_item``: the item schema a null item violates (None: a null item is valid)."""
    classes = _scalar_classes(items)
    bound = bound_test(node)

    def check(value: Any) -> list[Problem] | None:
        if not isinstance(value, list):
            return [Problem(WRONG_TYPE, value, node)] if node.get("type") == "array" else None
        problems = [Problem(OUT_OF_BOUNDS, value, node, verdict)] if bound is not None and (verdict := bound(value)) \
            else None
        if items is None and null_item is None:
            return problems
        for index, item in enumerate(value):
            found: list[Problem] | None
            if item is None:
                if null_item is None:
                    continue
                found = [Problem(WRONG_TYPE, None, null_item)]
            elif items is None or (classes is not None and item.__class__ in classes):
                continue
            else:
                found = items(item)
            if found:
                for problem in found:
                    problem.rev.append(index)
                problems = found if problems is None else problems + found
        return problems
    return check


# ------------------------------------------------------------------ bounds

# (the API server's complaint, what the value must be): a bound's verdict on a value
Verdict = tuple[str, str]
Bound = Callable[[Any], Verdict | None]
MAX_PATTERN_INPUT = 1 << 16  # longer strings are not matched (no pattern of the CRDs allows one)
# the CRDs' common patterns, in words
KNOWN_PATTERNS = {
    r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$":
        "a quantity such as `4`, `500m` or `16Gi`",
    r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$":
        "a DNS-1123 subdomain (lowercase letters, digits, '-' and '.')",
    r"^$|^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$":
        "empty or a DNS-1123 subdomain (lowercase letters, digits, '-' and '.')",
    r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$": "a DNS-1123 label (lowercase letters, digits and '-')",
    r"^[a-z0-9]([a-z0-9-]*[a-z0-9])?$": "a DNS-1123 label (lowercase letters, digits and '-')",
    r"^([0-9]{1,5}(h|m|s|ms)){1,4}$": "a duration such as `30s` or `1h30m`",
}


def bound_test(node: dict[str, Any]) -> Bound | None:
    """The node's sizes, range and pattern as one test returning the API server's complaint
    (kube-openapi's validator, as apiextensions words it) and what the value must be, or None
    when the node has none. Each applies to its own type only: a pattern or length to a
    string, a range to a number, a size to a list or map."""
    tests: list[Bound] = [test for key, make in _BOUNDS.items() if key in node
                          if (test := make(node[key])) is not None]
    if not tests:
        return None
    if len(tests) == 1:
        return tests[0]
    return lambda value: next((found for test in tests if (found := test(value))), None)


def _count(limit: Any) -> int | None:
    return limit if isinstance(limit, int) and not isinstance(limit, bool) and limit >= 0 else None


def _size(kind: type[list[Any]] | type[dict[Any, Any]], most: bool, noun: str) -> Callable[[Any], Bound | None]:
    def make(limit: Any) -> Bound | None:
        bound = _count(limit)
        if bound is None:
            return None

        def test(value: Any) -> Verdict | None:
            if not isinstance(value, kind):
                return None
            # a null map value is unset (the API server prunes it before it validates); a null item is not
            size = sum(v is not None for v in value.values()) if isinstance(value, dict) else len(value)
            if most and size > bound:
                return f"Too many: {size}: must have at most {bound} items", f"have at most {bound} {noun}"
            if not most and size < bound:
                return f"Invalid value: {size}: should have at least {bound} {noun}", f"have at least {bound} {noun}"
            return None
        return test
    return make


def _length(most: bool) -> Callable[[Any], Bound | None]:
    def make(limit: Any) -> Bound | None:
        bound = _count(limit)
        if bound is None:
            return None
        if most:
            return lambda value: ((f"Too long: may not be more than {bound} characters ({len(value)})",
                                   f"be at most {bound} characters long")
                                  if isinstance(value, str) and len(value) > bound else None)
        return lambda value: ((f"Invalid value: {json.dumps(value)}: should be at least {bound} chars long",
                               f"be at least {bound} characters long")
                              if isinstance(value, str) and len(value) < bound else None)
    return make


def _range(above: bool, strict: bool) -> Callable[[Any], Bound | None]:
    words = ("greater" if above else "less") + (" than" if strict else " than or equal to")

    def make(limit: Any) -> Bound | None:
        if not isinstance(limit, (int, float)) or isinstance(limit, bool):
            return None

        def test(value: Any) -> Verdict | None:
            if not isinstance(value, (int, float)) or isinstance(value, bool):
                return None
            inside = (value > limit if strict else value >= limit) if above else \
                (value < limit if strict else value <= limit)
            return None if inside else (f"Invalid value: {value}: should be {words} {limit}", f"be {words} {limit}")
        return test
    return make


def _pattern(pattern: Any) -> Bound | None:
    if not isinstance(pattern, str):
        return None
    try:
        compiled = re.compile(pattern, re.ASCII)
    except (re.error, RecursionError, OverflowError):
        return None
    known = KNOWN_PATTERNS.get(pattern)
    expected = f"be {known}" if known else f"match '{pattern}'"

    def test(value: Any) -> Verdict | None:
        if not isinstance(value, str) or len(value) > MAX_PATTERN_INPUT or compiled.search(value) is not None:
            return None
        shown = json.dumps(value if len(value) <= 80 else value[:80] + "…")
        return f"Invalid value: {shown}: " + (f"not {known}" if known else f"should match '{pattern}'"), expected
    return test


_BOUNDS: dict[str, Callable[[Any], Bound | None]] = {
    "maxItems": _size(list, True, "items"), "minItems": _size(list, False, "items"),
    "maxProperties": _size(dict, True, "entries"), "minProperties": _size(dict, False, "entries"),
    "maxLength": _length(True), "minLength": _length(False),
    "minimum": _range(True, False), "exclusiveMinimum": _range(True, True),
    "maximum": _range(False, False), "exclusiveMaximum": _range(False, True),
    "pattern": _pattern,
}
