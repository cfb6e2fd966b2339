"""Mappings and sequences with packed positions, as the walker builds them.

Mappings become :class:`Map` and sequences :class:`Seq`; each carries one array ``pos`` of
packed ``(line << 20) | column`` ints (1-based; read them with :func:`positions_of`): for a
Map two per key (key, value), for a Seq one per item. The bits above 40 of the same int say where that node ends (see
:func:`end_of`), so keeping ends costs no extra list, append or array. Positions are decoded
only when a finding or a fix needs them.
"""
from __future__ import annotations

from array import array
from typing import Any

COL_BITS = 20
COL_MASK = (1 << COL_BITS) - 1


def positions_of(node: Any) -> Any:
    """A node's packed positions, indexable as ints: ``pos`` itself (an array, or a tuple where
    built by hand), or, for a node unpickled from the cache or a worker, a view of its bytes."""
    pos = getattr(node, "pos", ())
    return memoryview(pos).cast("Q") if pos.__class__ is bytes else pos


class Map(dict):  # type: ignore[type-arg]
    """A YAML mapping with packed positions: pos[2*i] key, pos[2*i+1] value."""

    __slots__ = ("pos",)
    pos: Any  # an array of packed positions (a tuple where built by hand)

    def __reduce__(self) -> Any:  # fast pickling for --jobs and the cache (the default path is 3x slower)
        # An array pickles as its bytes (its own reducer costs as much again as the whole
        # document) and comes back as bytes (positions_of reads them): the state is a slot
        # dict, so unpickling sets it in C, with no Python call per node.
        pos = self.pos
        return (Map, (), (None, {"pos": pos.tobytes() if pos.__class__ is array else pos}), None, iter(self.items()))


class Seq(list):  # type: ignore[type-arg]
    """A YAML sequence with packed positions: pos[i] for item i."""

    __slots__ = ("pos",)
    pos: Any

    def __reduce__(self) -> Any:  # as Map's
        pos = self.pos
        return (Seq, (), (None, {"pos": pos.tobytes() if pos.__class__ is array else pos}), iter(self))


START_BITS = 2 * COL_BITS          # a packed int: start line and column in the low 40 bits,
START_MASK = (1 << START_BITS) - 1  # then the end: 8 bits of line delta, 16 of column + 1
_LINE_MASK = (1 << COL_BITS) - 1


def unpack(packed: int) -> tuple[int, int]:
    return (packed >> COL_BITS) & _LINE_MASK, packed & COL_MASK


def end_of(packed: int) -> int:
    """The end kept in ``packed`` as a packed 1-based (line, column) just past the node, or 0
    when not kept (a plain key: its start plus its length; or too far to encode)."""
    code = packed >> START_BITS
    if not code:
        return 0
    return (((packed >> COL_BITS) & _LINE_MASK) + (code >> 16)) << COL_BITS | (code & 0xFFFF)


def with_end(start: int, line: int, mark: Any) -> int:
    """``start`` (of a node on 0-based ``line``) with the node's end ``mark`` encoded above it
    (written out inline in the walker's loops, where a call per node would cost)."""
    delta: int = mark.line - line
    column: int = mark.column
    if delta < 256 and column < 0xFFFF:
        return start | ((delta << 16 | (column + 1)) << START_BITS)
    return start

