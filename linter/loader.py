"""The only place a file is read and parsed (engine finding KQ001).

Parsing uses ruamel.yaml's C composer (``ruamel.yaml.clib``) with a lean YAML 1.1
resolver and a small node -> data walker (see shared/reference/performance.md:
position-keeping at or below the cost of PyYAML's C ``load_all``). Mappings become
:class:`Map` and sequences :class:`Seq`; each carries one tuple ``pos`` of packed
``(line << 20) | column`` ints (1-based): for a Map two per key (key, value), for a
Seq one per item. Positions are decoded only when a finding needs them.
"""
from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, field
from array import array as _Positions  # 8 bytes per position instead of a tuple of int objects
from sys import intern as _intern
from typing import Any, Iterator

from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.nodes import MappingNode, ScalarNode, SequenceNode
from ruamel.yaml.resolver import VersionedResolver, implicit_resolvers
from ruamel.yaml.tag import Tag

try:  # the C extension; absent on installs without ruamel.yaml.clib
    from ruamel.yaml.main import CParser as _CParser
except ImportError:  # pragma: no cover - depends on the install
    _CParser = None

MAX_FILE_SIZE = 16 * 1024 * 1024
MAX_DEPTH = 200            # deeper documents are refused (no Kubernetes object nests this deep)
MAX_EXPANDED_NODES = 2_000_000  # alias-expansion budget per document ("billion laughs")
MAX_EXPANDED_BYTES = 64 * 1024 * 1024  # ... and of scalar bytes (a big scalar aliased many times)
COL_BITS = 20
COL_MASK = (1 << COL_BITS) - 1

_YAML_TAG = "tag:yaml.org,2002:"
STR, INT, FLOAT, BOOL, NULL = (_YAML_TAG + t for t in ("str", "int", "float", "bool", "null"))
MAP, SEQ, MERGE, TIMESTAMP = (_YAML_TAG + t for t in ("map", "seq", "merge", "timestamp"))
_SAFE_TAGS = frozenset({STR, INT, FLOAT, BOOL, NULL, MAP, SEQ, MERGE, TIMESTAMP, _YAML_TAG + "binary"})


def _shared_tag(name: str) -> Tag:
    tag = Tag(suffix=name)
    str(tag)  # computes and caches the decoded value once
    return tag


# One Tag object per implicit tag, handed out by the resolver: the walker compares identity,
# avoiding ruamel's per-node tag decoding (the bulk of its load time).
_TAGS = {name: _shared_tag(name) for name in (STR, INT, FLOAT, BOOL, NULL, MAP, SEQ, MERGE, TIMESTAMP)}
T_STR, T_MAP, T_SEQ, T_MERGE = _TAGS[STR], _TAGS[MAP], _TAGS[SEQ], _TAGS[MERGE]


class Map(dict):  # type: ignore[type-arg]
    """A YAML mapping with packed positions: pos[2*i] key, pos[2*i+1] value."""

    __slots__ = ("pos",)

    def __reduce__(self) -> Any:  # fast pickling for --jobs (the default path is 3x slower)
        return (Map, (), self.pos, None, iter(self.items()))

    def __setstate__(self, state: Any) -> None:
        self.pos = state


class Seq(list):  # type: ignore[type-arg]
    """A YAML sequence with packed positions: pos[i] for item i."""

    __slots__ = ("pos",)

    def __reduce__(self) -> Any:
        return (Seq, (), self.pos, iter(self))

    def __setstate__(self, state: Any) -> None:
        self.pos = state


def unpack(packed: int) -> tuple[int, int]:
    return packed >> COL_BITS, packed & COL_MASK


@dataclass(frozen=True)
class LoadProblem:
    """A file that could not be read or parsed: becomes KQ001 (or KQ006 for templates)."""

    file: str
    line: int
    column: int
    message: str
    code: str = "KQ001"


@dataclass
class SourceFile:
    path: str                      # as displayed in reports
    documents: list[Any] = field(default_factory=list)
    problems: list[LoadProblem] = field(default_factory=list)
    comment_lines: dict[int, str] = field(default_factory=dict)  # line -> text of `# kqlint:` comments


# ---------------------------------------------------------------- resolver

def _build_resolver_table() -> dict[str, list[tuple[str, Any]]]:
    """First character -> [(tag, regexp)] for YAML 1.1, the rules Kubernetes decodes with
    (``yes``/``on`` are booleans, ``0755`` is octal)."""
    table: dict[str, list[tuple[str, Any]]] = {}
    for versions, tag, regexp, first in implicit_resolvers:
        if (1, 1) not in versions:
            continue
        pattern = regexp if hasattr(regexp, "match") else re.compile(str(regexp))
        for ch in first or [""]:
            table.setdefault(ch, []).append((_TAGS.get(tag) or _shared_tag(tag), pattern))
    return table


class FastResolver(VersionedResolver):  # type: ignore[misc]
    """Table-driven implicit resolver: no path resolvers, per-value cache."""

    _table = _build_resolver_table()
    _cache: dict[str, Tag] = {}  # shared by every file of the run: plain scalars repeat a lot

    def __init__(self) -> None:
        VersionedResolver.__init__(self, version=(1, 1))

    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
        if kind is ScalarNode:
            if not implicit[0]:
                return T_STR
            cached = self._cache.get(value)
            if cached is not None:
                return cached
            tag = T_STR
            for candidate, regexp in self._table.get(value[:1], ()):
                if regexp.match(value):
                    tag = candidate
                    break
            if len(value) < 64 and len(self._cache) < 100_000:
                self._cache[value] = tag
            return tag
        return T_SEQ if kind is SequenceNode else T_MAP

    def descend_resolver(self, current_node: Any, current_index: Any) -> None:
        return None

    def ascend_resolver(self) -> None:
        return None


if _CParser is not None:
    class _FastComposer(_CParser, FastResolver):  # type: ignore[misc, valid-type]
        def __init__(self, data: bytes) -> None:
            _CParser.__init__(self, data)
            FastResolver.__init__(self)

    def _composer(data: bytes) -> Any:
        return _FastComposer(data)

    FAST_PATH = True
else:  # pragma: no cover - exercised only without ruamel.yaml.clib
    FAST_PATH = False

    def _composer(data: bytes) -> Any:
        from ruamel.yaml import YAML

        yaml = YAML(typ="safe", pure=True)
        yaml.Resolver = FastResolver
        return _PureComposer(yaml, data)


class _PureComposer:  # pragma: no cover - fallback path
    def __init__(self, yaml: Any, data: bytes) -> None:
        self._nodes = iter(yaml.compose_all(data))
        self._next: Any = None

    def check_node(self) -> bool:
        if self._next is None:
            self._next = next(self._nodes, None)
        return self._next is not None

    def get_node(self) -> Any:
        node, self._next = self._next, None
        return node

    def dispose(self) -> None:
        return None


# ---------------------------------------------------------------- scalars

_BOOL_TRUE = frozenset({"yes", "y", "true", "on"})


def _to_int(text: str) -> int:
    value = text.replace("_", "")
    sign = -1 if value[:1] == "-" else 1
    value = value.lstrip("+-")
    if value.startswith("0x"):
        return sign * int(value[2:], 16)
    if value.startswith("0b"):
        return sign * int(value[2:], 2)
    if ":" in value:  # YAML 1.1 sexagesimal
        total = 0
        for part in value.split(":"):
            total = total * 60 + int(part)
        return sign * total
    if len(value) > 1 and value[0] == "0":
        return sign * int(value, 8)
    return sign * int(value)


def _to_float(text: str) -> float:
    value = text.replace("_", "").lower()
    if value.endswith(".inf"):
        return float("-inf") if value.startswith("-") else float("inf")
    if value == ".nan":
        return float("nan")
    if ":" in value:
        sign = -1.0 if value.startswith("-") else 1.0
        total = 0.0
        for part in value.lstrip("+-").split(":"):
            total = total * 60 + float(part)
        return sign * total
    return float(value)


def _scalar(node: Any) -> Any:
    value = node.value
    if node.ctag is T_STR:
        return value
    tag = node.tag
    if tag == STR or tag == TIMESTAMP:
        return value
    try:
        if tag == INT:
            return _to_int(value)
        if tag == FLOAT:
            return _to_float(value)
    except ValueError:
        return value
    if tag == BOOL:
        return value.lower() in _BOOL_TRUE
    if tag == NULL:
        return None
    return value


class UnsafeTag(Exception):
    def __init__(self, tag: str, line: int, column: int) -> None:
        super().__init__(tag)
        self.tag, self.line, self.column = tag, line, column


class AliasBomb(Exception):
    pass


def _mark(node: Any) -> int:
    mark = node.start_mark
    return ((mark.line + 1) << COL_BITS) | (mark.column + 1)


# ---------------------------------------------------------------- walker

def _scalar_bytes(node: Any) -> int:
    """Bytes of the scalars directly in a collection node (aliased ones once per use)."""
    children = node.value
    if node.__class__ is MappingNode:
        children = [child for pair in children for child in pair]
    return sum(len(child.value) for child in children if child.__class__ is ScalarNode)


class _Walker:
    """Turns one composed document into Map/Seq/scalars with positions."""

    def __init__(self, memoise: bool, byte_budget: int = MAX_EXPANDED_BYTES) -> None:
        # memoised (the file has anchors): (value, expanded nodes, expanded scalar bytes) per node
        self.memo: dict[int, tuple[Any, int, int]] | None = {} if memoise else None
        self.expanded = 0
        self.expanded_bytes = 0  # counted only with anchors: without, scalars <= the file's size
        self.byte_budget = byte_budget
        self.duplicates: list[tuple[Any, int, int]] = []  # (key, first packed pos, second packed pos)

    def walk(self, node: Any, depth: int = 0) -> Any:
        cls = node.__class__
        if cls is ScalarNode:
            self.expanded += 1
            if node.ctag is T_STR:
                return node.value
            tag = node.tag
            if tag not in _SAFE_TAGS:
                line, col = unpack(_mark(node))
                raise UnsafeTag(tag, line, col)
            return _scalar(node)
        if depth > MAX_DEPTH:
            raise RecursionError
        memo = self.memo
        if memo is not None:
            hit = memo.get(id(node))
            if hit is not None:
                self.expanded += hit[1]
                self.expanded_bytes += hit[2]
                if self.expanded > MAX_EXPANDED_NODES or self.expanded_bytes > self.byte_budget:
                    raise AliasBomb
                return hit[0]
        before, before_bytes = self.expanded, self.expanded_bytes
        ctag = node.ctag
        if ctag is not T_MAP and ctag is not T_SEQ and str(ctag) not in _SAFE_TAGS:
            line, col = unpack(_mark(node))
            raise UnsafeTag(str(ctag), line, col)
        result = self._mapping(node, depth) if cls is MappingNode else self._sequence(node, depth)
        self.expanded += 1
        if memo is not None:
            self.expanded_bytes += _scalar_bytes(node)
            if self.expanded_bytes > self.byte_budget:
                raise AliasBomb
            memo[id(node)] = (result, self.expanded - before, self.expanded_bytes - before_bytes)
        return result

    def _sequence(self, node: SequenceNode, depth: int) -> Seq:
        seq = Seq()
        positions = []
        for item in node.value:
            if item.__class__ is ScalarNode and item.ctag is T_STR:
                self.expanded += 1
                seq.append(item.value)
            else:
                seq.append(self.walk(item, depth + 1))
            mark = item.start_mark
            positions.append(((mark.line + 1) << COL_BITS) | (mark.column + 1))
        seq.pos = _Positions("Q", positions)
        return seq

    def _mapping(self, node: MappingNode, depth: int) -> Map:
        # The hot loop of the loader: plain string keys and values take the inline path.
        mapping = Map()
        packed: list[int] = []
        merges = []
        for key_node, value_node in node.value:
            if key_node.ctag is T_STR:
                key = _intern(key_node.value)  # keys repeat across thousands of documents
            elif key_node.ctag is T_MERGE or key_node.tag == MERGE:
                merges.append(value_node)
                continue
            else:
                key = self._key(key_node, depth)
            if key in mapping:
                self._drop_duplicate(mapping, packed, key, key_node)
            if value_node.__class__ is ScalarNode and value_node.ctag is T_STR:
                self.expanded += 1
                value = value_node.value
                mapping[key] = _intern(value) if len(value) < 24 else value
            else:
                mapping[key] = self.walk(value_node, depth + 1)
            km, vm = key_node.start_mark, value_node.start_mark
            packed.append(((km.line + 1) << COL_BITS) | (km.column + 1))
            packed.append(((vm.line + 1) << COL_BITS) | (vm.column + 1))
        for merge_node in merges:
            self._merge(mapping, packed, merge_node, depth)
        mapping.pos = _Positions("Q", packed)
        return mapping

    def _key(self, key_node: Any, depth: int) -> Any:
        key = self.walk(key_node, depth + 1)
        if not isinstance(key, (str, int, float, bool)) and key is not None:
            key = str(key)
        return key

    def _drop_duplicate(self, mapping: Map, packed: list[int], key: Any, key_node: Any) -> None:
        """The API server keeps the last value of a duplicated key: drop the first, remember both."""
        index = list(mapping).index(key)
        self.duplicates.append((key, packed[2 * index], _mark(key_node)))
        del packed[2 * index:2 * index + 2]
        del mapping[key]

    def _merge(self, mapping: Map, packed: list[int], node: Any, depth: int) -> None:
        """``<<`` merge keys: explicit keys win, merged ones keep their anchor's positions."""
        sources = node.value if node.__class__ is SequenceNode else [node]
        for source_node in sources:
            source = self.walk(source_node, depth + 1)
            if not isinstance(source, Map):
                continue
            for index, (key, value) in enumerate(source.items()):
                if key not in mapping:
                    mapping[key] = value
                    packed.extend(source.pos[2 * index:2 * index + 2])


# ---------------------------------------------------------------- files

_TEMPLATE_RE = re.compile(rb"\{\{|\{%")
_SUPPRESS_RE = re.compile(r"#\s*kqlint:\s*(ignore(?:-file)?)\s*(?:\[([^\]]*)\])?")


def _decode(data: bytes) -> tuple[bytes | None, tuple[int, int, str] | None]:
    """Return UTF-8 bytes for the parser, or (line, column, message). Handles BOMs and UTF-16."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    elif data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            data = data.decode("utf-16").encode("utf-8")
        except UnicodeDecodeError:
            return None, (1, 1, "file starts with a UTF-16 byte-order mark but is not valid UTF-16")
    nul = data.find(b"\x00")
    if nul >= 0:
        line, col = _offset_position(data, nul)
        return None, (line, col, "binary file (contains NUL bytes); not a YAML or JSON manifest")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, col = _offset_position(data, exc.start)
        return None, (line, col, f"not valid UTF-8 (byte 0x{data[exc.start]:02x}); save the file as UTF-8")
    return data, None


def _offset_position(data: bytes, offset: int) -> tuple[int, int]:
    line = data.count(b"\n", 0, offset) + 1
    start = data.rfind(b"\n", 0, offset) + 1
    return line, offset - start + 1


def _suppression_comments(text: bytes) -> dict[int, str]:
    found: dict[int, str] = {}
    for number, line in enumerate(text.decode("utf-8", "replace").splitlines(), start=1):
        if "kqlint:" in line and _SUPPRESS_RE.search(line):
            found[number] = line
    return found


def read_bytes(path: str, max_size: int = MAX_FILE_SIZE) -> tuple[bytes | None, str | None]:
    """Read a regular file without blocking on FIFOs or reading oversized files whole."""
    from kqlint.bounded import ReadRefused, read_file

    try:
        return read_file(path, max_size), None
    except ReadRefused as exc:
        return None, str(exc)
    except (OSError, ValueError) as exc:
        return None, f"cannot read file: {getattr(exc, 'strerror', None) or exc}"


# libyaml's composer recurses in C: ~30,000 nesting levels overflow the C stack (a segfault,
# not an exception). Depth needs nesting indicators or ever-growing indentation (at most
# ~5,700 levels in 16 MiB), so only files with many indicators get an event pre-scan.
_NESTING_INDICATORS = (b"[", b"{", b"- ", b"-\t", b"? ")
_PRESCAN_INDICATORS = 10_000


def _too_deep(data: bytes) -> tuple[int, int] | None:
    """(line, column) of the first node nested deeper than MAX_DEPTH, for suspicious files."""
    if _CParser is None or (len(data) <= MAX_FILE_SIZE
                            and sum(data.count(i) for i in _NESTING_INDICATORS) < _PRESCAN_INDICATORS):
        return None
    from ruamel.yaml.events import CollectionEndEvent, CollectionStartEvent

    parser = _CParser(data)
    depth = 0
    try:
        while parser.check_event():
            event = parser.get_event()
            if isinstance(event, CollectionStartEvent):
                depth += 1
                if depth > MAX_DEPTH:
                    return event.start_mark.line + 1, event.start_mark.column + 1
            elif isinstance(event, CollectionEndEvent):
                depth -= 1
    except YAMLError:
        return None  # the real parse reports it
    finally:
        parser.dispose()
    return None


def parse_bytes(display: str, raw: bytes) -> SourceFile:
    """Parse a YAML/JSON stream into documents. Never raises."""
    source = SourceFile(display)
    data, error = _decode(raw)
    if data is None:
        line, column, message = error or (1, 1, "unreadable")
        source.problems.append(LoadProblem(display, line, column, message))
        return source
    deep = _too_deep(data)
    if deep is not None:
        source.problems.append(LoadProblem(display, deep[0], deep[1],
                                           f"document nests deeper than {MAX_DEPTH} levels; not parsed"))
        return source
    if b"kqlint:" in data:
        source.comment_lines = _suppression_comments(data)
    try:
        _compose_documents(source, data)
    except MarkedYAMLError as exc:
        _record_parse_error(source, data, exc)
    except YAMLError as exc:
        source.problems.append(LoadProblem(display, 1, 1, f"invalid YAML: {exc}"))
    except (ValueError, TypeError, UnicodeError) as exc:
        source.problems.append(LoadProblem(display, 1, 1, f"invalid YAML: {exc}"))
    except RecursionError:
        source.problems.append(LoadProblem(display, 1, 1,
                                           f"document nests deeper than {MAX_DEPTH} levels; not parsed"))
    return source


def _compose_documents(source: SourceFile, data: bytes) -> None:
    composer = _composer(data)
    memoise = b"&" in data
    try:
        while composer.check_node():
            node = composer.get_node()
            walker = _Walker(memoise, max(MAX_EXPANDED_BYTES, 2 * len(data)))
            try:
                document = walker.walk(node)
            except UnsafeTag as exc:
                source.problems.append(LoadProblem(
                    source.path, exc.line, exc.column,
                    f"unsupported YAML tag `{exc.tag}`: kqlint only loads plain data and never "
                    "constructs objects from tags; remove the tag"))
                source.documents.append(None)
                continue
            except AliasBomb:
                line, col = unpack(_mark(node))
                source.problems.append(LoadProblem(
                    source.path, line, col,
                    f"aliases expand to more than {MAX_EXPANDED_NODES} nodes or {walker.byte_budget} bytes "
                    "(an alias bomb?); document not linted"))
                source.documents.append(None)
                continue
            except RecursionError:
                line, col = unpack(_mark(node))
                source.problems.append(LoadProblem(
                    source.path, line, col, f"document nests deeper than {MAX_DEPTH} levels; not linted"))
                source.documents.append(None)
                continue
            for key, first, second in walker.duplicates:
                l1, _ = unpack(first)
                l2, c2 = unpack(second)
                source.problems.append(LoadProblem(
                    source.path, l2, c2,
                    f"duplicate key `{key}` (first at line {l1}, again at line {l2}): the API server "
                    "keeps only the last value; remove one"))
            source.documents.append(document)
    finally:
        composer.dispose()


def _record_parse_error(source: SourceFile, data: bytes, exc: MarkedYAMLError) -> None:
    mark = exc.problem_mark or exc.context_mark
    line = (mark.line + 1) if mark is not None else 1
    column = (mark.column + 1) if mark is not None else 1
    problem = exc.problem or exc.context or "invalid YAML"
    if _TEMPLATE_RE.search(data):
        source.problems.append(LoadProblem(
            source.path, line, column,
            f"unrendered template (contains `{{{{ }}}}`): skipped; render it first, e.g. "
            f"`helm template … | kqlint check -`", code="KQ006"))
        source.documents.clear()
        return
    context = f" ({exc.context})" if exc.context and exc.problem else ""
    source.problems.append(LoadProblem(source.path, line, column, f"invalid YAML: {problem}{context}"))


def load_file(path: str, display: str, max_size: int = MAX_FILE_SIZE) -> SourceFile:
    raw, error = read_bytes(path, max_size)
    if raw is None:
        source = SourceFile(display)
        source.problems.append(LoadProblem(display, 1, 1, error or "unreadable"))
        return source
    return parse_bytes(display, raw)


def load_stdin(display: str = "<stdin>", max_size: int = MAX_FILE_SIZE) -> SourceFile:
    from kqlint.bounded import ReadRefused, read_stream

    try:
        raw = read_stream(sys.stdin.buffer, max_size)
    except ReadRefused as exc:
        source = SourceFile(display)
        source.problems.append(LoadProblem(display, 1, 1, str(exc)))
        return source
    return parse_bytes(display, raw)


# ---------------------------------------------------------------- positions

def position(root: Any, path: tuple[Any, ...], value: bool = False) -> tuple[int, int, int]:
    """Position of the node at ``path`` in ``root``: ``(line, column, depth_found)``.

    For a mapping key the key's position is returned (or its value's with ``value``);
    for a sequence item the item's. When the path does not exist, the deepest existing
    ancestor's position is returned, and ``depth_found`` tells how far it got.
    """
    best = (1, 1)
    node = root
    for depth, step in enumerate(path):
        packed = _step_position(node, step, value and depth == len(path) - 1)
        if packed is None:
            return best[0], best[1], depth
        best = unpack(packed)
        node = node[step]
    return best[0], best[1], len(path)


def _step_position(node: Any, step: Any, value: bool) -> int | None:
    if isinstance(node, Map):
        if step not in node:
            return None
        index = list(node).index(step)
        return node.pos[2 * index + (1 if value else 0)]
    if isinstance(node, Seq) and isinstance(step, int) and -len(node) <= step < len(node):
        return node.pos[step]
    return None


def iter_paths(node: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every key and item path below ``node`` (used by tests and by the fuzz suite)."""
    if isinstance(node, dict):
        for key, child in node.items():
            yield prefix + (key,)
            yield from iter_paths(child, prefix + (key,))
    elif isinstance(node, list):
        for index, child in enumerate(node):
            yield prefix + (index,)
            yield from iter_paths(child, prefix + (index,))
