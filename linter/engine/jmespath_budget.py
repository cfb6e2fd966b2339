"""Evaluate a custom rule's JMESPath expression under a budget.

JMESPath has no side effects, but a short expression can still ask for exponential work:
``to_string(@|[@,@]|[@,@]|…)`` serialises a value that doubles at each step (a 333-byte
rule used 6 GB). Every evaluation here is bounded:

- at most :data:`MAX_STEPS` interpreter steps and :data:`MAX_SECONDS` seconds;
- no intermediate list or object longer than :data:`MAX_ITEMS` (``[]`` flattening is
  sized before it is built);
- no string longer than :data:`MAX_STRING` (``to_string`` and ``join`` are sized first).

A rule that goes over its budget raises :class:`BudgetExceeded`, a configuration error
(exit 2) naming the rule: the rule is broken for every object, not just one.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

from kqlint.errors import ConfigError

_Method = TypeVar("_Method", bound=Callable[..., Any])

MAX_STEPS = 1_000_000
MAX_SECONDS = 2.0
MAX_ITEMS = 100_000
MAX_STRING = 4 * 1024 * 1024


class BudgetExceeded(ConfigError):
    """A custom rule's expression needed more time or memory than any rule should."""


class _Over(Exception):
    """Raised inside the interpreter; turned into BudgetExceeded by :func:`search`."""


def search(compiled: Any, data: Any) -> Any:
    """``compiled.search(data)`` under the budget; raises _Over when exceeded."""
    interpreter = _interpreter_class()(_options())
    return interpreter.visit(compiled.parsed, data)


def json_size(value: Any, limit: int) -> int:
    """The length of ``value`` as compact JSON, counted up to just over ``limit`` (shared
    sub-values count once per use, as serialising them would)."""
    size = 0
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            size += len(item) + 2
        elif isinstance(item, dict):
            size += 2 + len(item)
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            size += 2 + len(item)
            stack.extend(item)
        else:
            size += 8
        if size > limit:
            return size
    return size


_CACHE: dict[str, Any] = {}


def _options() -> Any:
    options = _CACHE.get("options")
    if options is None:
        from jmespath import Options

        options = _CACHE["options"] = Options(custom_functions=_functions_class()())
    return options


def _functions_class() -> Any:
    cls = _CACHE.get("functions")
    if cls is not None:
        return cls
    from jmespath import functions

    # jmespath ships no type hints; typed here so the decorated methods keep their signatures.
    signature: Callable[..., Callable[[_Method], _Method]] = functions.signature

    class BudgetFunctions(functions.Functions):  # type: ignore[misc]
        @signature({"types": []})
        def _func_to_string(self, arg: Any) -> Any:
            if not isinstance(arg, str) and json_size(arg, MAX_STRING) > MAX_STRING:
                raise _Over(f"to_string() of a value over {MAX_STRING} characters")
            return super()._func_to_string(arg)

        @signature({"types": ["string"]}, {"types": ["array-string"]})
        def _func_join(self, separator: str, array: list[str]) -> Any:
            if sum(len(item) for item in array) + len(separator) * len(array) > MAX_STRING:
                raise _Over(f"join() of more than {MAX_STRING} characters")
            return super()._func_join(separator, array)

    _CACHE["functions"] = BudgetFunctions
    return BudgetFunctions


def _interpreter_class() -> Any:
    cls = _CACHE.get("interpreter")
    if cls is not None:
        return cls
    from jmespath.visitor import TreeInterpreter

    class BudgetInterpreter(TreeInterpreter):  # type: ignore[misc]
        def __init__(self, options: Any) -> None:
            super().__init__(options)
            self.steps = 0
            self.deadline = time.monotonic() + MAX_SECONDS

        def visit(self, node: Any, *args: Any, **kwargs: Any) -> Any:
            self.steps += 1
            if self.steps > MAX_STEPS:
                raise _Over(f"more than {MAX_STEPS} evaluation steps")
            if not self.steps & 1023 and time.monotonic() > self.deadline:
                raise _Over(f"more than {MAX_SECONDS:g} seconds")
            result = super().visit(node, *args, **kwargs)
            if isinstance(result, (list, dict)) and len(result) > MAX_ITEMS:
                raise _Over(f"an intermediate value of more than {MAX_ITEMS} items")
            return result

        def visit_flatten(self, node: Any, value: Any) -> Any:
            base = self.visit(node["children"][0], value)
            if isinstance(base, list):
                size = sum(len(item) if isinstance(item, list) else 1 for item in base)
                if size > MAX_ITEMS:
                    raise _Over(f"an intermediate value of more than {MAX_ITEMS} items")
            return super().visit_flatten({"children": [{"type": "current"}]}, base)

    _CACHE["interpreter"] = BudgetInterpreter
    return BudgetInterpreter


__all__ = ["BudgetExceeded", "search", "json_size", "MAX_STEPS", "MAX_SECONDS", "MAX_ITEMS", "MAX_STRING"]
