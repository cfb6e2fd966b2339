"""Lines of the files findings point into, read once and bounded, for SARIF regions (where a
token ends) and the text report's code frame."""
from __future__ import annotations

import os
import re

_LINE_BREAK = re.compile(r"\r\n|[\n\r\x85\u2028\u2029]")
_MAX_SOURCE = 5 * 1024 * 1024


class SourceLines:
    """Lines of the files results point into, read once, to find where a token ends."""

    def __init__(self) -> None:
        self.lines: dict[str, list[str] | None] = {}

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

    def line(self, file: str, line: int) -> str | None:
        lines = self._read(file)
        if lines is None or not 1 <= line <= len(lines):
            return None
        return lines[line - 1]

    def token_end(self, file: str, line: int, column: int) -> int | None:
        lines = self._read(file)
        if lines is None or not 1 <= line <= len(lines):
            return None
        return token_end(lines[line - 1], column)


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
