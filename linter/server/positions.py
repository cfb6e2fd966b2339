"""kqlint positions (1-based line and column, columns in characters, lines broken as the YAML
parser breaks them, a byte-order mark not counted) to LSP positions (0-based line and
character, characters in the negotiated unit: UTF-16 code units by default; lines broken at
``\\r\\n``, ``\\r`` and ``\\n`` only), both through character offsets in the buffer's text."""
from __future__ import annotations

import re
from bisect import bisect_right

from kqlint.fix.text import BOM, BREAKS

_LSP_BREAKS = re.compile(r"\r\n|\r|\n")
UTF16, UTF8, UTF32 = "utf-16", "utf-8", "utf-32"


class LineIndex:
    """The line starts of one text, as kqlint and as an LSP client count them."""

    def __init__(self, text: str, encoding: str = UTF16) -> None:
        self.text = text
        self.encoding = encoding
        self.bom = 1 if text.startswith(BOM) else 0
        body = text[self.bom:]
        self.kqlint_starts = [self.bom] + [self.bom + m.end() for m in BREAKS.finditer(body)]
        self.lsp_starts = [0] + [m.end() for m in _LSP_BREAKS.finditer(text)]

    def offset(self, line: int, column: int) -> int:
        """The character offset of kqlint's ``line``:``column``, kept inside that line."""
        start = self.kqlint_starts[min(max(line, 1), len(self.kqlint_starts)) - 1]
        found = BREAKS.search(self.text, start)
        return min(start + max(column, 1) - 1, found.start() if found else len(self.text))

    def position(self, offset: int) -> tuple[int, int]:
        """The LSP (line, character) of a character offset."""
        offset = min(max(offset, 0), len(self.text))
        line = bisect_right(self.lsp_starts, offset) - 1
        return line, self.units(self.text[self.lsp_starts[line]:offset])

    def lsp(self, line: int, column: int) -> tuple[int, int]:
        """kqlint's ``line``:``column`` as an LSP (line, character)."""
        return self.position(self.offset(line, column))

    def offset_of(self, line: int, character: int) -> int:
        """The character offset of an LSP position (past the line's end: its end)."""
        if line >= len(self.lsp_starts):
            return len(self.text)
        start = self.lsp_starts[max(line, 0)]
        end = self.lsp_starts[line + 1] if line + 1 < len(self.lsp_starts) else len(self.text)
        counted = 0
        for offset in range(start, end):
            if counted >= character:
                return offset
            counted += self.units(self.text[offset])
        return end

    def units(self, text: str) -> int:
        if self.encoding == UTF32:
            return len(text)
        if self.encoding == UTF8:
            return len(text.encode("utf-8", "surrogatepass"))
        return len(text.encode("utf-16-le", "surrogatepass")) // 2
