"""What ``kqlint check -`` reads: one YAML stream from stdin, named for the reports.

- Empty stdin (nothing but whitespace) is a usage error (exit 2): a failed ``helm template``
  or ``kubectl kustomize`` upstream must not leave CI green.
- ``--stdin-filename PATH`` reports the whole stream against PATH.
- Otherwise Helm's ``# Source: chart/templates/x.yaml`` comments attribute each document to
  its template file. Lines count from the line after the ``# Source:`` comment, so they are
  the template's own line numbers wherever it renders line for line (and the line in the
  rendered document otherwise). Documents without a ``# Source:`` comment stay ``<stdin>``.
"""
from __future__ import annotations

import re
import sys
from typing import TYPE_CHECKING, NamedTuple

from kqlint.loader import SourceFile, parse_bytes

if TYPE_CHECKING:
    from kqlint.config import Config

STDIN_NAME = "<stdin>"
_DOCUMENT_START = re.compile(rb"^---(?:[ \t].*)?$")
_SOURCE = re.compile(rb"^#\s*Source:\s*(\S.*?)\s*$")


class EmptyStdin(Exception):
    pass


class StdinPart(NamedTuple):
    """One source read from stdin: the whole stream, or one document of a Helm stream."""

    source: SourceFile
    data: bytes   # the bytes it was parsed from (its line 1 is the source's line 1)
    whole: bool   # the entire stream


def read_stdin(config: Config) -> list[StdinPart]:
    from kqlint.loader import MAX_FILE_SIZE, refused
    from kqlint.project.bounded import ReadRefused, read_stream

    name = getattr(config, "stdin_filename", None)
    try:
        data = read_stream(sys.stdin.buffer, getattr(config, "max_file_size", MAX_FILE_SIZE))
    except ReadRefused as exc:  # over the size limit: one KQ001, like an oversized file
        return [StdinPart(refused(name or STDIN_NAME, str(exc)), b"", True)]
    if not data.strip():
        raise EmptyStdin("stdin (-) is empty: nothing to lint (did the command before `| kqlint check -` fail?)")
    if name:
        from kqlint.project.discover import display_path

        return [StdinPart(parse_bytes(display_path(name), data), data, True)]
    chunks = helm_sources(data)
    if chunks is None:
        return [StdinPart(parse_bytes(STDIN_NAME, data), data, True)]
    return [StdinPart(parse_bytes(path, chunk), chunk, False) for path, chunk in chunks]


def helm_sources(data: bytes) -> list[tuple[str, bytes]] | None:
    """[(template path, document bytes)] when the stream carries Helm ``# Source:`` comments;
    None otherwise. Consecutive documents of one template are kept apart (their lines differ)."""
    documents: list[list[bytes]] = [[]]
    for line in data.splitlines(keepends=True):
        if _DOCUMENT_START.match(line.rstrip(b"\r\n")):
            documents.append([])
        else:
            documents[-1].append(line)
    result: list[tuple[str, bytes]] = []
    found = False
    for lines in documents:
        path, body = _source_of(lines)
        if path is None and not b"".join(body).strip():
            continue
        found = found or path is not None
        result.append((path or STDIN_NAME, b"".join(body)))
    return result if found else None


def _source_of(lines: list[bytes]) -> tuple[str | None, list[bytes]]:
    for index, line in enumerate(lines):
        stripped = line.strip()
        if not stripped:
            continue
        match = _SOURCE.match(stripped)
        if match is None:
            return None, lines
        path = match.group(1).decode("utf-8", "replace")
        return path, lines[index + 1:]
    return None, lines
