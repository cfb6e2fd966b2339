"""Mappings and sequences with packed positions, as the walker builds them.

Mappings become :class:`Map` and sequences :class:`Seq`; each carries one array ``pos`` of
packed ``(line << 20) | column`` ints (1-based): for a Map two per key (key, value), for a
Seq one per item. The bits above 40 of the same int say where that node ends (see
:func:`end_of`), so keeping ends costs no extra list, append or array. Positions are decoded
only when a finding or a fix needs them.
"""
from __future__ import annotations

from array import array
from typing import Any

COL_BITS = 20
COL_MASK = (1 << COL_BITS) - 1


def _unpickled(state: Any) -> Any:
    if state.__class__ is bytes:
        pos = array("Q")
        pos.frombytes(state)
        return pos
    return state


class Map(dict):  # type: ignore[type-arg]
    """A YAML mapping with packed positions: pos[2*i] key, pos[2*i+1] value."""

    __slots__ = ("pos",)
    pos: Any  # an array of packed positions (a tuple where built by hand)

    def __reduce__(self) -> Any:  # fast pickling for --jobs (the default path is 3x slower)
        pos = self.pos  # an array pickles as its bytes: one string, not through the array's own
        # reducer (which costs as much again as the whole document; --jobs and the cache pickle)
        return (Map, (), pos.tobytes() if pos.__class__ is array else pos, None, iter(self.items()))

    def __setstate__(self, state: Any) -> None:
        self.pos = _unpickled(state)


class Seq(list):  # type: ignore[type-arg]
    """A YAML sequence with packed positions: pos[i] for item i."""

    __slots__ = ("pos",)
    pos: Any

    def __reduce__(self) -> Any:
        pos = self.pos
        return (Seq, (), pos.tobytes() if pos.__class__ is array else pos, iter(self))

    def __setstate__(self, state: Any) -> None:
        self.pos = _unpickled(state)


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

