"""The CEL evaluator behind KQ002's CEL pass: cel-python (``celpy``), imported on first use.

- :func:`program`: an expression compiled once per process, or why it cannot be (a string).
- :func:`to_cel`: JSON-like data as CEL values, with the schema's ``default`` values applied as
  the API server applies them before it validates (an absent property, or an explicit null,
  that has a ``default`` reads as that default, also inside defaulted values; any other null
  is pruned). Mappings convert their values when a rule reads them: a rule on a JobSet's
  ``spec`` reads a field or two of a large pod template.
- :func:`evaluate`: a rule's outcome: True/False, the data error the API server would name
  (``no such key: nodeLabels``), or the exception when the evaluator itself failed.

cel-python's interpreted runner is used: its compiled runner (0.5.0) mis-evaluates ``!has(x)``
and fails to translate some conditionals.
"""
from __future__ import annotations

import copy
import re
from collections.abc import Callable
from typing import Any

Resolve = Callable[[Any], dict[str, Any]]  # a schema node, following a local $ref
MAX_TEXT = 5000  # longer expressions are not compiled (the API server's own limit on a rule)
_DATA_ERRORS = (
    (re.compile(r"no such member in mapping: '((?:[^'\\]|\\.)*)'"), "no such key: {0}"),
    (re.compile(r"no such key"), "no such key"),
    (re.compile(r"IndexError|index out of range"), "index out of bounds"),
    (re.compile(r"overflow"), "integer overflow"),
    (re.compile(r"ZeroDivisionError|divide by zero|modulus by zero"), "division by zero"),
)
_PROGRAMS: dict[str, Any] = {}  # expression -> program, or why it does not compile (a string)
_LIBRARY: dict[str, Any] = {}   # "env", "types", "LazyMap": built on first use


def program(expression: str) -> Any:
    if expression not in _PROGRAMS:
        _PROGRAMS[expression] = _compile(expression)
    return _PROGRAMS[expression]


def _compile(expression: str) -> Any:
    if len(expression) > MAX_TEXT:
        return f"longer than {MAX_TEXT} characters"
    env = _library()["env"]
    try:
        return env.program(env.compile(expression))
    except Exception as exc:  # the library's parser and compiler raise many kinds
        return f"does not compile: {type(exc).__name__}: {exc}"


def _library() -> dict[str, Any]:
    if not _LIBRARY:
        import logging

        import celpy
        from celpy import celtypes

        quiet = logging.getLogger("celpy")  # celpy logs every evaluation error it returns
        quiet.addHandler(logging.NullHandler())
        quiet.propagate = False
        _LIBRARY.update(env=celpy.Environment(), types=celtypes, LazyMap=_lazy_map_class(celtypes))
    return _LIBRARY


def evaluate(compiled: Any, value: Any, want: type = bool) -> Any:
    """True/False (or a string, ``want=str``); the data error as the API server names it (a
    string); or the exception when the evaluator failed (never raised)."""
    try:
        result = compiled.evaluate({"self": value})
    except Exception as exc:  # CELEvalError, and anything the library itself trips on
        return data_error(exc) or exc
    if want is bool and isinstance(result, _library()["types"].BoolType):
        return bool(result)
    if want is str and isinstance(result, str):
        return str(result)
    return data_error(result) or TypeError(f"the expression gave {type(result).__name__}, not {want.__name__}")


def data_error(outcome: Any) -> str | None:
    """The API server's words for an evaluation error the data causes; None for other failures."""
    if not isinstance(outcome, Exception):
        return None
    text = repr(outcome)
    for pattern, wording in _DATA_ERRORS:
        match = pattern.search(text)
        if match:
            return wording.format(*match.groups())
    return None


# ------------------------------------------------------------------ data -> CEL values, defaulted

def to_cel(value: Any, schema: dict[str, Any], resolve: Resolve) -> Any:
    types = _library()["types"]
    if value.__class__ is bool:
        return types.BoolType(value)
    if value.__class__ is int:
        return types.IntType(value)
    if value.__class__ is float:
        return types.DoubleType(value)
    if value.__class__ is str:
        return types.StringType(value)
    if isinstance(value, dict):
        return _library()["LazyMap"](value, schema, resolve)
    if isinstance(value, list):
        items = schema.get("items")
        node = resolve(items) if isinstance(items, dict) else {}
        return types.ListType([to_cel(item, node, resolve) for item in value])
    return None if value is None else types.StringType(str(value))


def _lazy_map_class(celtypes: Any) -> Any:
    class _Raw:
        __slots__ = ("value", "schema")

        def __init__(self, value: Any, schema: dict[str, Any]) -> None:
            self.value, self.schema = value, schema

    class LazyMap(celtypes.MapType):  # type: ignore[misc]
        """A defaulted mapping whose values become CEL values when read."""

        def __init__(self, raw: dict[Any, Any], schema: dict[str, Any], resolve: Resolve) -> None:
            dict.__init__(self)
            self._resolve = resolve
            properties = schema.get("properties")
            properties = properties if isinstance(properties, dict) else {}
            additional = schema.get("additionalProperties")
            for key, item in raw.items():
                node = properties.get(key, additional)
                node = resolve(node) if isinstance(node, dict) else {}
                if item is None:
                    item = copy.deepcopy(node.get("default"))
                if item is not None:
                    dict.__setitem__(self, to_cel(key, {}, resolve), _Raw(item, node))
            for key, node in properties.items():
                node = resolve(node)
                if key not in raw and node.get("default") is not None:
                    dict.__setitem__(self, to_cel(key, {}, resolve), _Raw(copy.deepcopy(node["default"]), node))

        def __getitem__(self, key: Any) -> Any:
            item = super().__getitem__(key)
            if item.__class__ is _Raw:
                item = to_cel(item.value, item.schema, self._resolve)
                dict.__setitem__(self, key, item)
            return item

        def get(self, key: Any, default: Any = None) -> Any:
            return self[key] if key in self else default

        def values(self) -> Any:
            return [self[key] for key in self]

        def items(self) -> Any:
            return [(key, self[key]) for key in self]

    return LazyMap
