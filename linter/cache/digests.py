"""Per-document digests of a cached file, taken from its text (kqlint.cache.entries).

A document's digest hashes its index, the line it starts on and its lines: from the line
after the previous document's content to the line its own content ends on
(``SourceFile.document_ends``, kept by the loader). Its content is a function of those lines
where they start (what comes before them only ends the previous document), so an equal
digest means the same data at the same positions; text after the last document's content
(a comment appended to the file) changes no digest. A document whose end is not known runs
to the end of the file.

Its projection's digest hashes the same lines with the values of kqlint.cache.masks blanked.
A value is blanked only where the rest of its line is that value as written (plain or
quoted; a comment may follow): then it moves nothing else, and its length and text are all
that is hidden. Anything else (a value in a flow collection, folded over lines, written as
``0x10``) stays in the projection.

Files whose line breaks the YAML parser counts differently from ``\\n`` (a lone ``\\r``, NEL,
LS, PS) and files whose documents' ends are unknown are digested whole, per document.
"""
from __future__ import annotations

import hashlib
from typing import Any

from kqlint.loader.nodes import unpack
from kqlint.loader.positions import value_start

_OTHER_BREAKS = (b"\xc2\x85", b"\xe2\x80\xa8", b"\xe2\x80\xa9")  # NEL, LS, PS: YAML 1.1 line breaks
_BLANKED = "\x00"  # what a masked value's rest of line reads in a projection (never YAML text)


def document_digests(text: bytes, ends: list[int], masks: dict[int, list[Any]]
                     ) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(digests, projection digests), one per document of ``ends``. ``text``: what the parser
    read (kqlint.loader.decode.to_utf8); ``masks``: per document index, its mask sites
    (kqlint.cache.masks.mask_sites)."""
    if not _lines_as_parsed(text):
        whole = [_digest(b"%d:whole\n" % index, text) for index in range(len(ends))]
        return tuple(whole), tuple(whole)
    lines = text.split(b"\n")
    digests, projections = [], []
    start = 1
    for index, end in enumerate(ends):
        last = end or len(lines)
        span = lines[start - 1:last]
        prefix = b"%d:%d\n" % (index, start)
        digest = _digest(prefix, b"\n".join(span))
        blanked = _blanked(span, start, masks.get(index, ()))
        digests.append(digest)
        projections.append(digest if blanked is None else _digest(prefix, b"\n".join(blanked)))
        if end:
            start = end + 1
    return tuple(digests), tuple(projections)


def _lines_as_parsed(text: bytes) -> bool:
    """The parser's line numbers are ``text.split(b"\\n")``'s."""
    if b"\r" in text and text.count(b"\r") != text.count(b"\r\n"):
        return False
    return text.isascii() or not any(brk in text for brk in _OTHER_BREAKS)


def _blanked(span: list[bytes], start: int, sites: Any) -> list[bytes] | None:
    """``span`` (lines from 1-based line ``start``) with each masked value blanked where it
    is the rest of its line; None when nothing was."""
    blanked: list[bytes] | None = None
    for parent, key, _ in sites:
        packed = value_start(parent, key)
        if not packed:
            continue
        line, column = unpack(packed)
        if not start <= line < start + len(span):
            continue
        row = (blanked or span)[line - start].decode("utf-8", "surrogateescape")
        if _written_as(row[column - 1:], parent[key]):
            if blanked is None:
                blanked = list(span)
            blanked[line - start] = (row[:column - 1] + _BLANKED).encode("utf-8", "surrogateescape")
    return blanked


def _written_as(rest: str, value: Any) -> bool:
    """``rest`` of a line is ``value`` as written, plain or quoted (a comment may follow)."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return False
    text = rest.rstrip()
    for mark in (" #", "\t#"):
        cut = text.find(mark)
        if cut >= 0:
            text = text[:cut].rstrip()
    written = str(value)
    if text == written:
        return True
    return isinstance(value, str) and len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'" \
        and text[1:-1] == value


def _digest(*parts: bytes) -> str:
    digest = hashlib.blake2b(digest_size=16)
    for part in parts:
        digest.update(part)
    return digest.hexdigest()
