"""Bytes to documents with positions, YAML as kubectl reads it (engine finding KQ001).

The only place a file is read and parsed (engine finding KQ001).

The stages, one module each:

- ``decode``: raw bytes -> UTF-8 (byte-order marks, UTF-16; binary and invalid files refused);
- ``compose``: ruamel.yaml's C composer (``ruamel.yaml.clib``) with a lean YAML 1.1 resolver,
  and the pure-Python parser as the fallback for what the C one refuses and kubectl reads;
- ``walker``: a composed document -> :class:`Map` / :class:`Seq` / scalars with packed
  positions and node ends (``nodes``), values read as go-yaml v2 does;
- ``documents`` (+ ``duplicates``): the stream -> documents, with what kubectl refuses as KQ001
  and an unrendered template as KQ006;
- ``positions``: node path -> line, column and end, decoded only when a finding or fix needs it.

Position-keeping costs at or below PyYAML's C ``load_all`` (shared/reference/performance.md).
The ``# kqlint:`` comments are collected here, in one pass over the bytes, for kqlint.engine.suppress.
"""
from __future__ import annotations

import sys
from types import ModuleType

from kqlint.loader.comments import comment_lines
from kqlint.loader.compose import FAST_PATH as FAST_PATH
from kqlint.loader.compose import too_deep
from kqlint.loader.decode import to_utf8
from kqlint.loader.documents import compose_with_fallback, record_parse_error
from kqlint.loader.nodes import COL_BITS as COL_BITS
from kqlint.loader.nodes import COL_MASK as COL_MASK
from kqlint.loader.nodes import START_MASK as START_MASK
from kqlint.loader.nodes import Map as Map
from kqlint.loader.nodes import Seq as Seq
from kqlint.loader.nodes import end_of as end_of
from kqlint.loader.nodes import positions_of as positions_of
from kqlint.loader.nodes import unpack as unpack
from kqlint.loader.placeholders import may_hold_placeholders
from kqlint.loader.positions import iter_paths as iter_paths
from kqlint.loader.positions import locate as locate
from kqlint.loader.positions import node_end as node_end
from kqlint.loader.positions import position as position
from kqlint.loader.positions import value_start as value_start
from kqlint.loader.source import MAX_DEPTH as MAX_DEPTH
from kqlint.loader.source import MAX_EXPANDED_NODES as MAX_EXPANDED_NODES
from kqlint.loader.source import MAX_FILE_SIZE as MAX_FILE_SIZE
from kqlint.loader.source import LoadProblem as LoadProblem
from kqlint.loader.source import SourceFile as SourceFile
from kqlint.loader.source import is_k8s_object as is_k8s_object
from kqlint.loader.walker import exact_spans as exact_spans
from ruamel.yaml.error import MarkedYAMLError, YAMLError


def _modules() -> tuple[ModuleType, ...]:
    from kqlint.loader import (
        comments,
        compose,
        decode,
        documents,
        duplicates,
        goyaml,
        nodes,
        objectmeta,
        placeholders,
        positions,
        source,
        walker,
    )

    return (sys.modules[__name__], compose, decode, documents, duplicates, nodes, positions, source, walker,
            goyaml, objectmeta, placeholders, comments)


# Every module whose code decides what a file loads to: the cache key hashes their source.
SOURCE_MODULES = _modules()


def read_bytes(path: str, max_size: int = MAX_FILE_SIZE) -> tuple[bytes | None, str | None]:
    """Read a regular file without blocking on FIFOs or reading oversized files whole."""
    from kqlint.project.bounded import ReadRefused, read_file

    try:
        return read_file(path, max_size), None
    except ReadRefused as exc:
        return None, str(exc)
    except (OSError, ValueError) as exc:
        return None, f"cannot read file: {getattr(exc, 'strerror', None) or exc}"


def parse_bytes(display: str, raw: bytes, consumer: str | None = None) -> SourceFile:
    """Parse a YAML/JSON stream into documents. Never raises. ``consumer`` names the tool
    that reads a non-Kubernetes file (duplicate keys are worded for it; see kqlint.loader.duplicates)."""
    source = SourceFile(display)
    data, error = to_utf8(raw)
    if data is None:
        line, column, message = error or (1, 1, "unreadable")
        source.problems.append(LoadProblem(display, line, column, message))
        return source
    deep = too_deep(data)
    if deep is not None:
        source.problems.append(LoadProblem(display, deep[0], deep[1],
                                           f"document nests deeper than {MAX_DEPTH} levels; not parsed"))
        return source
    if b"kqlint:" in data:
        source.comment_lines = comment_lines(data)
    source.placeholder_hint = may_hold_placeholders(data)
    if not data.endswith((b"\n", b"\r")):
        data += b"\n"  # as go-yaml reads a block scalar that ends the file: with its line break
    try:
        compose_with_fallback(source, data, consumer)
    except MarkedYAMLError as exc:
        if json_values_without_objects(data):
            return SourceFile(display)  # kubectl reads it, and skips every value: nothing to lint
        record_parse_error(source, data, exc)
    except YAMLError as exc:
        source.problems.append(LoadProblem(display, 1, 1, f"invalid YAML: {exc}"))
    except (ValueError, TypeError, UnicodeError) as exc:
        source.problems.append(LoadProblem(display, 1, 1, f"invalid YAML: {exc}"))
    except RecursionError:
        source.problems.append(LoadProblem(display, 1, 1,
                                           f"document nests deeper than {MAX_DEPTH} levels; not parsed"))
    return source


def json_values_without_objects(data: bytes) -> bool:
    """``data`` is a stream of JSON values (JSON Lines: a dataset beside the manifests), which
    kubectl's decoder reads value by value when the stream starts with ``{``, and no value is
    a Kubernetes object. YAML reads such a stream as one document and fails on the second."""
    import json

    text = data.decode("utf-8", "replace").lstrip("\ufeff \t\r\n")
    if not text.startswith("{"):
        return False
    decoder, position, values = json.JSONDecoder(), 0, 0
    try:
        while position < len(text):
            value, position = decoder.raw_decode(text, position)
            if is_k8s_object(value):
                return False
            values += 1
            while position < len(text) and text[position] in " \t\r\n":
                position += 1
    except (ValueError, RecursionError):
        return False
    return values > 1


def refused(display: str, message: str) -> SourceFile:
    """A file that is not parsed (unreadable, over the size limit): one KQ001 at its first line."""
    source = SourceFile(display)
    source.problems.append(LoadProblem(display, 1, 1, message))
    return source


def load_file(path: str, display: str, max_size: int = MAX_FILE_SIZE, consumer: str | None = None) -> SourceFile:
    raw, error = read_bytes(path, max_size)
    if raw is None:
        return refused(display, error or "unreadable")
    return parse_bytes(display, raw, consumer)


def parse_file(path: str, display: str, max_size: int, raw: bytes | None = None) -> SourceFile:
    """The file ``path`` parsed (from ``raw`` when it was already read), shown as ``display``;
    a bug while parsing it is an InternalError naming the file."""
    from kqlint.errors import InternalError

    try:
        return parse_bytes(display, raw) if raw is not None else load_file(path, display, max_size)
    except MemoryError:
        raise  # the CLI says "out of memory" (exit 2): not a bug blamed on this file
    except Exception as exc:
        raise InternalError(display, exc) from exc


def load_stdin(display: str = "<stdin>", max_size: int = MAX_FILE_SIZE) -> SourceFile:
    from kqlint.project.bounded import ReadRefused, read_stream

    try:
        raw = read_stream(sys.stdin.buffer, max_size)
    except ReadRefused as exc:
        return refused(display, str(exc))
    return parse_bytes(display, raw)
