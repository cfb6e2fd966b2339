"""One kind's compiled schema: every violation of an object in document order, each with a
hint (the closest field name, possibly deeper; a case-only difference; the right type)."""
from __future__ import annotations

from typing import Any

from kqlint.domain.fields import is_integer
from kqlint.schema.compile import (
    NOT_IN_ENUM,
    OUT_OF_BOUNDS,
    UNKNOWN_FIELD,
    WRONG_TYPE,
    Compiler,
    Problem,
    Violation,
)
from kqlint.schema.hints import enum_hint, type_hint
from kqlint.spelling import closest, dotted


class Validator:
    """One kind's compiled schema. ``validate(data)`` lists every violation in document order."""

    def __init__(self, document: dict[str, Any]) -> None:
        self.document = document
        self._compiler = Compiler(document)
        self._check = self._compiler.compile(document)

    def validate(self, data: Any) -> list[Violation]:
        if self._check is None or data is None:
            return []
        problems = self._check(data) or []
        return [self._violation(p) for p in problems]

    def resolve(self, node: Any) -> dict[str, Any]:
        """A schema node of this document, following a local ``$ref``."""
        return self._compiler.resolve(node)

    def schema_at(self, path: tuple[Any, ...]) -> dict[str, Any] | None:
        """The schema node for the field (or item) at ``path``; None when the schema has none."""
        node = self._compiler.resolve(self.document)
        for step in path:
            child = _child_schema(node, step)
            if child is None:
                return None
            node = self._compiler.resolve(child)
        return node

    def accepts(self, path: tuple[Any, ...], value: Any) -> bool:
        """Whether the field at ``path`` exists here and its enum (if any) allows ``value``."""
        node = self.schema_at(path)
        if node is None:
            return False
        enum = node.get("enum")
        return not isinstance(enum, list) or value in enum

    def _violation(self, problem: Problem) -> Violation:
        path = tuple(reversed(problem.rev))
        node = problem.node
        if problem.problem == UNKNOWN_FIELD:
            names = tuple(sorted(str(k) for k in (node.get("properties") or {})))
            return Violation(path, UNKNOWN_FIELD, problem.value, names,
                             self._field_hint(str(problem.value), node, path[:-1]))
        if problem.problem == OUT_OF_BOUNDS:
            return Violation(path, OUT_OF_BOUNDS, problem.value, problem.detail)
        if problem.problem == NOT_IN_ENUM:
            choices = tuple(node.get("enum") or ())
            return Violation(path, NOT_IN_ENUM, problem.value, choices, enum_hint(problem.value, choices))
        types = node.get("type")
        expected = tuple(types) if isinstance(types, list) else (types,)
        return Violation(path, WRONG_TYPE, problem.value, expected, type_hint(problem.value, expected))

    def _field_hint(self, key: str, node: dict[str, Any], parent: tuple[Any, ...]) -> str:
        names = [str(k) for k in (node.get("properties") or {})]
        exact = [n for n in names if n.lower() == key.lower()]
        if exact:
            return f"field names are case-sensitive: `{exact[0]}`"
        close = closest(key, names, 0.8, ignore_case=True)
        if close:
            return f"did you mean `{close}`?"
        deeper = self._find_below(node, key)
        if deeper:
            return f"did you mean `{dotted(parent + deeper)}`?"
        close = closest(key, names, ignore_case=True)
        return f"did you mean `{close}`?" if close else ""

    def _find_below(self, node: dict[str, Any], key: str, depth: int = 3) -> tuple[Any, ...] | None:
        """The shortest path below ``node`` to a field named ``key`` (lists step through [0])."""
        frontier: list[tuple[tuple[Any, ...], dict[str, Any]]] = [((), node)]
        for _ in range(depth):
            next_frontier = []
            for prefix, current in frontier:
                for name, child in (current.get("properties") or {}).items():
                    if prefix and name == key:
                        return prefix + (name,)
                    next_frontier.append(self._descend(prefix + (name,), child))
            frontier = next_frontier
        for prefix, current in frontier:
            if key in (current.get("properties") or {}):
                return prefix + (key,)
        return None

    def _descend(self, prefix: tuple[Any, ...], child: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
        node = self._compiler.resolve(child)
        if isinstance(node.get("items"), dict):
            return prefix + (0,), self._compiler.resolve(node["items"])
        return prefix, node


def _child_schema(node: dict[str, Any], step: Any) -> Any:
    if is_integer(step):
        return node.get("items") if isinstance(node.get("items"), dict) else None
    properties = node.get("properties") or {}
    if step in properties:
        return properties[step]
    additional = node.get("additionalProperties")
    if isinstance(additional, dict):
        return additional
    return {} if node.get("x-kubernetes-preserve-unknown-fields") else None
