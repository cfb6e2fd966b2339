"""The CEL evaluator behind KQ002's CEL pass: cel-python (``celpy``), imported on first use.

- :func:`program`: an expression compiled once per process, or why it cannot be (a string).
- :func:`to_cel`: JSON-like data as CEL values, with the schema's ``default`` values applied as
  the API server applies them before it validates (an absent property, or an explicit null,
  that has a ``default`` reads as that default, also inside defaulted values; any other null
  is pruned). Mappings convert their values when a rule reads them: a rule on a JobSet's
  ``spec`` reads a field or two of a large pod template.
- :class:`Reads`: what a rule read of the values it ran on (recorded by :func:`to_cel`'s
  mappings), so that a verdict can be reused for a value alike in every part read.
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


# ------------------------------------------------------------------ what a rule read

class Reads:
    """What one rule read of the values it ran on, merged over its runs: the keys of a mapping
    it looked up or tested, what it read of their values and of a list's items, or all of a
    mapping (``whole``: it iterated, sized, compared or printed it).

    CEL is deterministic and reads its input only through these mappings, so two values alike
    in every part a rule read of the first get the same verdict and message from it (the
    second would be read the same way): :meth:`of` is that part, a memo key."""

    __slots__ = ("keys", "items", "whole", "root", "changes")

    def __init__(self, root: Reads | None = None) -> None:
        self.keys: dict[str, Reads] = {}
        self.items: Reads | None = None
        self.whole = False
        self.root: Reads = root or self
        self.changes = 0  # on the root: how often what was read grew

    def key(self, name: Any) -> Reads:
        if self.whole:
            return Reads()  # beneath a mapping read whole: nothing more to record
        if not isinstance(name, str):  # JSON mappings have string keys; any other lookup reads it all
            self.everything()
            return Reads()
        found = self.keys.get(str(name))
        if found is None:
            found = self.keys[str(name)] = Reads(self.root)
            self.root.changes += 1
        return found

    def item(self) -> Reads:
        if self.items is None:
            self.items = Reads(self.root)
            self.root.changes += 1
        return self.items

    def everything(self) -> None:
        if not self.whole:
            self.whole = True
            self.root.changes += 1

    def of(self, value: Any) -> Any:
        """The part of ``value`` (as written, before defaults: they follow from it) read: of a
        mapping the keys read that it has, of a list every item, anything else whole."""
        if self.whole:
            return value
        if isinstance(value, dict):
            return {name: reads.of(value[name]) for name, reads in self.keys.items() if name in value}
        if isinstance(value, list):
            inner = self.items or Reads()
            return [inner.of(item) for item in value]
        return value


# ------------------------------------------------------------------ data -> CEL values, defaulted

def to_cel(value: Any, schema: dict[str, Any], resolve: Resolve, reads: Reads) -> Any:
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
        return _library()["LazyMap"](value, schema, resolve, reads)
    if isinstance(value, list):
        items = schema.get("items")
        node = resolve(items) if isinstance(items, dict) else {}
        return types.ListType([to_cel(item, node, resolve, reads.item()) for item in value])
    return None if value is None else types.StringType(str(value))


def _lazy_map_class(celtypes: Any) -> Any:
    class _Raw:
        __slots__ = ("value", "schema")

        def __init__(self, value: Any, schema: dict[str, Any]) -> None:
            self.value, self.schema = value, schema

    class LazyMap(celtypes.MapType):  # type: ignore[misc]
        """A defaulted mapping whose values become CEL values when read; what is read of it is
        recorded in ``reads`` (every way in is overridden: a key, or everything)."""

        def __init__(self, raw: dict[Any, Any], schema: dict[str, Any], resolve: Resolve, reads: Reads) -> None:
            dict.__init__(self)
            self._resolve, self._reads = resolve, reads
            properties = schema.get("properties")
            properties = properties if isinstance(properties, dict) else {}
            additional = schema.get("additionalProperties")
            for key, item in raw.items():
                node = properties.get(key, additional)
                node = resolve(node) if isinstance(node, dict) else {}
                if item is None:
                    item = copy.deepcopy(node.get("default"))
                if item is not None:
                    dict.__setitem__(self, to_cel(key, {}, resolve, Reads()), _Raw(item, node))
            for key, node in properties.items():
                node = resolve(node)
                if key not in raw and node.get("default") is not None:
                    dict.__setitem__(self, to_cel(key, {}, resolve, Reads()),
                                     _Raw(copy.deepcopy(node["default"]), node))

        def __getitem__(self, key: Any) -> Any:
            reads = self._reads.key(key)
            item = super().__getitem__(key)
            if item.__class__ is _Raw:
                item = to_cel(item.value, item.schema, self._resolve, reads)
                dict.__setitem__(self, key, item)
            return item

        def __contains__(self, key: Any) -> bool:
            self._reads.key(key)
            return dict.__contains__(self, key)

        def get(self, key: Any, default: Any = None) -> Any:
            return self[key] if key in self else default

        def _all(self) -> list[Any]:
            self._reads.everything()
            return list(dict.__iter__(self))

        def __iter__(self) -> Any:
            return iter(self._all())

        def __len__(self) -> int:
            return len(self._all())

        def keys(self) -> Any:
            self._reads.everything()
            return dict.keys(self)

        def values(self) -> Any:
            return [self[key] for key in self._all()]

        def items(self) -> Any:
            return [(key, self[key]) for key in self._all()]

        def __eq__(self, other: Any) -> Any:  # MapType's answer as it is (a bool, or its overload error)
            self._reads.everything()
            return super().__eq__(other)

        def __ne__(self, other: Any) -> Any:
            self._reads.everything()
            return super().__ne__(other)

        def __repr__(self) -> str:
            self._reads.everything()
            return str(super().__repr__())


    return LazyMap
