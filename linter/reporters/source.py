"""Lines of the files findings point into, read once and bounded, for the text report's code
frame (where a token ends). What was read from stdin is shown from the stream's own text."""
from __future__ import annotations

import os
import re
from collections.abc import Iterable

from kqlint.model import ObjectRef, StreamText

_LINE_BREAK = re.compile(r"\r\n|[\n\r\x85\u2028\u2029]")
_MAX_SOURCE = 5 * 1024 * 1024


class SourceLines:
    """Lines of the files results point into, read once, to find where a token ends. A file
    named by ``streams`` (stdin) is never read from disk: its line is the stream's (of the
    document holding the finding's object, when several documents carry one template's name;
    shown only where they agree otherwise)."""

    def __init__(self, streams: Iterable[StreamText] = ()) -> None:
        self.lines: dict[str, list[str] | None] = {}
        self.streams: dict[str, list[tuple[frozenset[ObjectRef], list[str]]]] = {}
        for stream in streams:
            self.streams.setdefault(stream.file, []).append((stream.objects, _split(stream.data)))

    def _read(self, file: str) -> list[str] | None:
        if file not in self.lines:
            self.lines[file] = None
            try:
                if os.path.isfile(file) and os.path.getsize(file) <= _MAX_SOURCE:
                    with open(file, encoding="utf-8", errors="replace", newline="") as handle:
                        self.lines[file] = _LINE_BREAK.split(handle.read())
            except OSError:
                pass
        return self.lines[file]

    def line(self, file: str, line: int, obj: ObjectRef | None = None) -> str | None:
        if file in self.streams:
            return self._stream_line(file, line, obj)
        lines = self._read(file)
        if lines is None or not 1 <= line <= len(lines):
            return None
        return lines[line - 1]

    def _stream_line(self, file: str, line: int, obj: ObjectRef | None) -> str | None:
        documents = self.streams[file]
        holding = [lines for objects, lines in documents if obj is not None and obj in objects]
        texts = {lines[line - 1] if 1 <= line <= len(lines) else None
                 for lines in (holding if len(holding) == 1 else [lines for _, lines in documents])}
        return texts.pop() if len(texts) == 1 else None

    def token_end(self, file: str, line: int, column: int, obj: ObjectRef | None = None) -> int | None:
        text = self.line(file, line, obj)
        return token_end(text, column) if text is not None else None


def _split(data: bytes) -> list[str]:
    if len(data) > _MAX_SOURCE:
        return []
    return _LINE_BREAK.split(data.decode("utf-8", "replace"))


def token_end(text: str, column: int) -> int | None:
    """The 1-based column just past the YAML token starting at ``column`` (a key, a plain or
    quoted scalar, a ``-`` item marker), or None when nothing starts there."""
    start = column - 1
    if start < 0 or start >= len(text) or text[start] in " \t":
        return None
    char = text[start]
    if char == "#":  # a comment (a suppression): to the end of the line
        return len(text.rstrip(" \t")) + 1
    if char in "\"'":
        end = _quoted_end(text, start)
        return end + 1 if end is not None else None
    if char in "-?" and (start + 1 == len(text) or text[start + 1] in " \t"):
        return start + 2
    end = start
    while end < len(text):
        if text[end] == ":" and (end + 1 == len(text) or text[end + 1] in " \t"):
            break
        if text[end] == "#" and end > start and text[end - 1] in " \t":
            break
        if text[end] in ",]}" and end > start:
            break
        end += 1
    end = len(text[:end].rstrip(" \t"))
    return end + 1 if end > start else None


def _quoted_end(text: str, start: int) -> int | None:
    quote_char = text[start]
    index = start + 1
    while index < len(text):
        if quote_char == '"' and text[index] == "\\":
            index += 2
            continue
        if text[index] == quote_char:
            if quote_char == "'" and index + 1 < len(text) and text[index + 1] == "'":
                index += 2
                continue
            return index + 1
        index += 1
    return None
