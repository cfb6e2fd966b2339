"""A kqlint JSON Schema compiled into nested closures, one per schema node: the subset the
schemas use (type, enum, properties, additionalProperties, items, local ``$ref``). A check
returns its problems with the path collected child-first while unwinding (only on errors);
``null`` is valid for a field or a map value (Kubernetes treats an explicit null as "unset"), and
for a list item except where the list is marked ``x-kqlint-null-items: false`` (a CRD's list,
kqlint.schema.crd: the API server rejects the null item)."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

UNKNOWN_FIELD, WRONG_TYPE, NOT_IN_ENUM = "unknown-field", "wrong-type", "not-in-enum"
NULL_ITEMS = "x-kqlint-null-items"  # false: a null item of the list is invalid (kqlint.schema.crd)
Check = Callable[[Any], list["Problem"] | None]


@dataclass(frozen=True)
class Violation:
    path: tuple[Any, ...]          # from the object's root; the last step is the offending key/item
    problem: str                   # UNKNOWN_FIELD, WRONG_TYPE or NOT_IN_ENUM
    value: Any                     # the unknown key, or the offending value
    expected: tuple[Any, ...]      # valid names / JSON types / enum values
    hint: str = ""                 # "did you mean `x`?", "values are case-sensitive: `Never`", ...


class Problem:
    """A violation while unwinding: the path is collected child-first (only on errors)."""

    __slots__ = ("problem", "value", "node", "rev")

    def __init__(self, problem: str, value: Any, node: dict[str, Any]) -> None:
        self.problem, self.value, self.node = problem, value, node
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
    def check(value: Any) -> list[Problem] | None:
        if not _type_ok(value, types):
            return [Problem(WRONG_TYPE, value, node)]
        if enum is not None and not isinstance(value, (dict, list)) and value not in enum:
            return [Problem(NOT_IN_ENUM, value, node)]
        return None
    if enum is None:
        check.classes = _classes(types)  # type: ignore[attr-defined]
    return check


def _scalar_classes(check: Check | None) -> frozenset[type] | None:
    return getattr(check, "classes", None) if check is not None else None


def _object_check(node: dict[str, Any], checks: dict[Any, Check | None], extra: Check | None,
                  closed: bool) -> Check:
    scalars = {key: c for key, sub in checks.items() if (c := _scalar_classes(sub)) is not None}
    extra_classes = _scalar_classes(extra)
    typed = node.get("type") == "object"

    def check(value: Any) -> list[Problem] | None:
        if not isinstance(value, dict):
            return [Problem(WRONG_TYPE, value, node)] if typed else None
        problems = None
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

    def check(value: Any) -> list[Problem] | None:
        if not isinstance(value, list):
            return [Problem(WRONG_TYPE, value, node)] if node.get("type") == "array" else None
        if items is None and null_item is None:
            return None
        problems = None
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
