"""A file's text as the YAML parser counts its lines, and text edits applied to it."""
from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass

from kqlint.loader import unpack

BOM = "\ufeff"
BREAKS = re.compile(r"\r\n|[\r\n\x85\u2028\u2029]")


class NotApplicable(Exception):
    """An edit that cannot be written safely as text (the fix is then not applied)."""


@dataclass(frozen=True)
class TextEdit:
    """Replace ``text[start:end]`` by ``content`` (offsets in characters, BOM excluded)."""

    start: int
    end: int
    content: str

    def overlaps(self, other: TextEdit) -> bool:
        if self.start == other.start:
            # two inserts (or an insert and a change) at one point: order is ambiguous; an insert
            # just before a deletion is not (either order gives the same text)
            return not (_insert_then_delete(self, other) or _insert_then_delete(other, self))
        return max(self.start, other.start) < min(self.end, other.end) or \
            (self.start == self.end and other.start < self.start < other.end) or \
            (other.start == other.end and self.start < other.start < self.end)


def _insert_then_delete(insert: TextEdit, deletion: TextEdit) -> bool:
    return insert.start == insert.end and deletion.end > deletion.start and not deletion.content


class Text:
    """A file's text with line starts as the YAML parser counts lines."""

    def __init__(self, raw: bytes) -> None:
        decoded = raw.decode("utf-8")
        self.bom = decoded.startswith(BOM)
        self.text = decoded[1:] if self.bom else decoded
        self.newline = "\r\n" if "\r\n" in self.text else "\n"
        self.starts = [0] + [m.end() for m in BREAKS.finditer(self.text)]

    def offset(self, packed: int) -> int:
        line, column = unpack(packed)
        if not 1 <= line <= len(self.starts):
            raise NotApplicable("position outside the file")
        return self.starts[line - 1] + column - 1

    def position(self, offset: int) -> tuple[int, int]:
        line = bisect_right(self.starts, offset)
        return line, offset - self.starts[line - 1] + 1

    def line_start(self, offset: int) -> int:
        return self.starts[bisect_right(self.starts, offset) - 1]

    def next_line(self, offset: int) -> int:
        """Start of the line after the one holding ``offset`` (the end of the text at the end)."""
        match = BREAKS.search(self.text, offset)
        return match.end() if match else len(self.text)

    def line_end(self, offset: int) -> int:
        match = BREAKS.search(self.text, offset)
        return match.start() if match else len(self.text)

    def encoded(self, text: str) -> bytes:
        return ((BOM if self.bom else "") + text).encode("utf-8")


def apply_text(text: str, edits: list[TextEdit]) -> str:
    """``text`` with ``edits`` applied, as if one by one from the end (inserts at one point:
    the deeper one first), built in one pass (linear in the text and the edits)."""
    ordered = sorted(edits, key=lambda e: (e.start, e.end, -_indent(e.content)))
    pieces: list[str] = []
    cursor = 0
    for edit in ordered:
        if edit.start < cursor:  # overlapping edits (never planned): keep the one-by-one result
            return _apply_one_by_one(text, ordered)
        pieces += (text[cursor:edit.start], edit.content)
        cursor = edit.end
    pieces.append(text[cursor:])
    return "".join(pieces)


def _apply_one_by_one(text: str, ordered: list[TextEdit]) -> str:
    for edit in reversed(ordered):
        text = text[:edit.start] + edit.content + text[edit.end:]
    return text


def _indent(content: str) -> int:
    line = content.lstrip("\r\n")
    return len(line) - len(line.lstrip(" "))
