"""The fix model: what a rule proposes to change, as edits of nodes inside one object.

A rule never writes text. It names nodes by their path inside the object (the same paths
``obj.at(...)`` takes) and says what to do with them; the engine turns these edits into exact
text replacements of the source, keeping every other byte (comments, quoting, key order,
indentation, line endings). Modelled on ruff's ``Fix``/``Edit``/``Applicability``.

- ``Edit.replace(path, value)``: the scalar at ``path`` becomes ``value``.
- ``Edit.rename(path, key)``: the mapping key that ends ``path`` becomes ``key`` (value kept).
- ``Edit.remove(path)``: the entry (key and value, or list item) at ``path`` goes.
- ``Edit.insert(path, key, value)``: the mapping at ``path`` gets ``key: value``; ``value`` may
  be a scalar, a mapping or a list (written in block style at the mapping's indentation).

The object the paths start from is the one the finding's location points into (the
``Location`` from ``obj.at(...)`` passed to ``ctx.finding``). Edits of one fix must not touch
the same node twice; inserts at one point are written deepest first.

Added by the engine, not by rules: ``Fix.text``, the edits as text ranges of the file
(:class:`TextRange`), filled in by ``kqlint.fix.resolve`` for the JSON and SARIF
reports; empty until then.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Any, Literal

Path = tuple[Any, ...]
Op = Literal["replace", "rename", "remove", "insert"]


class Applicability(str, Enum):
    SAFE = "safe"  # applied by --fix: keeps the manifest's intent
    UNSAFE = "unsafe"  # applied only with --unsafe-fixes: changes what the workload does


@dataclass(frozen=True)
class Edit:
    op: Op
    path: Path
    value: Any = None
    key: str | None = None

    @classmethod
    def replace(cls, path: Path, value: Any) -> Edit:
        return cls("replace", tuple(path), value)

    @classmethod
    def rename(cls, path: Path, key: str) -> Edit:
        return cls("rename", tuple(path), key=key)

    @classmethod
    def remove(cls, path: Path) -> Edit:
        return cls("remove", tuple(path))

    @classmethod
    def insert(cls, path: Path, key: str, value: Any) -> Edit:
        return cls("insert", tuple(path), value, key)


@dataclass(frozen=True)
class TextRange:
    """One text edit: replace from (line, column) to (end_line, end_column), 1-based, columns
    in characters, end exclusive (equal for an insertion), by ``content``."""

    line: int
    column: int
    end_line: int
    end_column: int
    content: str


@dataclass(frozen=True)
class Fix:
    title: str  # imperative, short: "Set minMember to 4"
    edits: tuple[Edit, ...]
    applicability: Applicability
    text: tuple[TextRange, ...] = ()  # the engine's: the edits as text of the file

    @classmethod
    def safe(cls, title: str, *edits: Edit) -> Fix:
        return cls(title, edits, Applicability.SAFE)

    @classmethod
    def unsafe(cls, title: str, *edits: Edit) -> Fix:
        return cls(title, edits, Applicability.UNSAFE)


def removals(get: Callable[..., Any], paths: list[Path]) -> list[Edit]:
    """Edits that remove the entries at ``paths`` of one object (``get(*path)`` reads it); a
    mapping they leave empty goes with them (a key with nothing under it would read as null,
    not as an empty mapping), up to the nearest mapping that keeps something."""
    return [Edit.remove(path) for path in _emptied(get, paths)]


def _emptied(get: Callable[..., Any], paths: list[Path]) -> list[Path]:
    by_parent: dict[Path, set[Any]] = {}
    for path in paths:
        by_parent.setdefault(path[:-1], set()).add(path[-1])
    found: list[Path] = []
    for parent, keys in by_parent.items():
        mapping = get(*parent)
        whole = isinstance(mapping, dict) and set(mapping) <= keys and parent and isinstance(parent[-1], str)
        if whole and parent[:-1] and isinstance(get(*parent[:-1]), dict):
            found += _emptied(get, [parent])
        else:
            found += [parent + (key,) for key in sorted(keys, key=str)]
    return found
