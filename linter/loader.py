"""The only place a file is read and parsed (engine finding KQ001).

Parsing uses ruamel.yaml's C composer (``ruamel.yaml.clib``) with a lean YAML 1.1
resolver and a small node -> data walker (see shared/reference/performance.md:
position-keeping at or below the cost of PyYAML's C ``load_all``). Mappings become
:class:`Map` and sequences :class:`Seq`; each carries one array ``pos`` of packed
``(line << 20) | column`` ints (1-based): for a Map two per key (key, value), for a
Seq one per item; and one array ``end`` laid out the same, where each of those nodes ends
as the parser marks it (just past a scalar; past the bracket of a flow collection; for a
block collection, where the next token starts: see :func:`node_end`). Positions are
decoded only when a finding or a fix needs them.
"""
from __future__ import annotations

import os
import re
import sys
import warnings
from array import array as _Positions  # 8 bytes per position instead of a tuple of int objects
from collections.abc import Iterator
from dataclasses import dataclass, field
from sys import intern as _intern
from typing import Any

from kqlint.goyaml import (
    MERGE_KEY,
    DecodeError,
    json_key,
    json_number_problem,
    may_not_be_string,
    resolve_plain,
    resolve_tagged,
)
from kqlint.objectmeta import metadata_problem
from kqlint.placeholders import may_hold_placeholders
from ruamel.yaml.composer import Composer
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.nodes import MappingNode, ScalarNode, SequenceNode
from ruamel.yaml.parser import Parser
from ruamel.yaml.reader import Reader
from ruamel.yaml.resolver import VersionedResolver
from ruamel.yaml.scanner import Scanner
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
STR, MAP, SEQ = (_YAML_TAG + t for t in ("str", "map", "seq"))
PLAIN = "tag:kqlint,2026:plain"  # an untagged plain scalar go-yaml may read as a non-string


def _shared_tag(name: str) -> Tag:
    tag = Tag(suffix=name)
    str(tag)  # computes and caches the decoded value once
    return tag


# One Tag object per implicit tag, handed out by the resolver: the walker compares identity,
# avoiding ruamel's per-node tag decoding (the bulk of its load time).
T_STR, T_PLAIN, T_MAP, T_SEQ = (_shared_tag(name) for name in (STR, PLAIN, MAP, SEQ))


_NO_ENDS = _Positions("Q")


class Map(dict):  # type: ignore[type-arg]
    """A YAML mapping with packed positions: pos[2*i] key, pos[2*i+1] value (ends alike)."""

    __slots__ = ("pos", "end")
    pos: Any  # an array of packed positions (a tuple where built by hand)
    end: Any

    def __reduce__(self) -> Any:  # fast pickling for --jobs (the default path is 3x slower)
        return (Map, (), (self.pos, getattr(self, "end", _NO_ENDS)), None, iter(self.items()))

    def __setstate__(self, state: Any) -> None:
        _set_positions(self, state)


class Seq(list):  # type: ignore[type-arg]
    """A YAML sequence with packed positions: pos[i] for item i (ends alike)."""

    __slots__ = ("pos", "end")
    pos: Any
    end: Any

    def __reduce__(self) -> Any:
        return (Seq, (), (self.pos, getattr(self, "end", _NO_ENDS)), iter(self))

    def __setstate__(self, state: Any) -> None:
        _set_positions(self, state)


def _set_positions(node: Map | Seq, state: Any) -> None:
    if isinstance(state, tuple) and len(state) == 2:
        node.pos, node.end = state
    else:  # a cache entry written before ends were kept
        node.pos, node.end = state, _NO_ENDS


def unpack(packed: int) -> tuple[int, int]:
    return packed >> COL_BITS, packed & COL_MASK


def is_k8s_object(document: Any) -> bool:
    return (isinstance(document, dict) and isinstance(document.get("apiVersion"), str)
            and isinstance(document.get("kind"), str) and bool(document.get("kind")))


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
    placeholder_hint: bool = False  # may hold envsubst/sed placeholders (kqlint.placeholders)


# ---------------------------------------------------------------- resolver

class FastResolver(VersionedResolver):  # type: ignore[misc]
    """Quoted scalars and plain ones that cannot be anything else are strings; the rest is
    resolved by the walker as go-yaml v2 does (kqlint.goyaml). No path resolvers."""

    _cache: dict[str, Tag] = {}  # shared by every file of the run: plain scalars repeat a lot

    def __init__(self, loader: Any = None) -> None:
        VersionedResolver.__init__(self, version=(1, 1), loader=loader)

    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
        if kind is ScalarNode:
            if not implicit[0]:
                return T_STR
            tag = self._cache.get(value)
            if tag is None:
                tag = T_PLAIN if may_not_be_string(value) else T_STR
                if len(value) < 64 and len(self._cache) < 100_000:
                    self._cache[value] = tag
            return tag
        return T_SEQ if kind is SequenceNode else T_MAP

    def descend_resolver(self, current_node: Any, current_index: Any) -> None:
        return None

    def ascend_resolver(self) -> None:
        return None


class _PureComposer(Reader, Scanner, Parser, Composer, FastResolver):  # type: ignore[misc]
    """ruamel's pure-Python parser: reads what ruamel.yaml.clib's bundled libyaml refuses
    (a ``:`` inside a plain scalar of a flow collection), with the same marks."""

    max_depth = None          # depth is bounded by the walker (MAX_DEPTH) and _too_deep
    comment_handling = None

    def __init__(self, data: bytes) -> None:
        from ruamel.yaml.docinfo import DocInfo

        self.doc_infos = [DocInfo()]
        Reader.__init__(self, data, loader=self)
        Scanner.__init__(self, loader=self)
        Parser.__init__(self, loader=self)
        Composer.__init__(self, loader=self)
        FastResolver.__init__(self, loader=self)

    def dispose(self) -> None:
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
    _composer = _PureComposer


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
    """Turns one composed document into Map/Seq/scalars with positions, reading every value
    as Kubernetes does. Where kubectl would refuse the document, ``refusal`` says why."""

    def __init__(self, memoise: bool, byte_budget: int = MAX_EXPANDED_BYTES) -> None:
        # memoised (the file has anchors): (value, expanded nodes, expanded scalar bytes) per node
        self.memo: dict[int, tuple[Any, int, int]] | None = {} if memoise else None
        self.expanded = 0
        # one per mapping: (key, first packed pos, second packed pos, how many repeated keys)
        self.duplicates: list[tuple[Any, int, int, int]] = []
        self.refusal: tuple[int, str] | None = None     # (packed pos, kubectl's reason)
        self.template_at: int | None = None             # first `{{ … }}` read as a flow mapping
        self.expanded_bytes = 0  # counted only with anchors: without, scalars <= the file's size
        self.byte_budget = byte_budget

    def walk(self, node: Any, depth: int = 0) -> Any:
        cls = node.__class__
        if cls is ScalarNode:
            self.expanded += 1
            if node.ctag is T_STR:
                return node.value
            return self._scalar(node)
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
        # tags on mappings and sequences are ignored, as go-yaml v2 does (`!If [a, b]` is a list)
        result = self._mapping(node, depth) if cls is MappingNode else self._sequence(node, depth)
        self.expanded += 1
        if memo is not None:
            self.expanded_bytes += _scalar_bytes(node)
            if self.expanded_bytes > self.byte_budget:
                raise AliasBomb
            memo[id(node)] = (result, self.expanded - before, self.expanded_bytes - before_bytes)
        return result

    def _refuse(self, node: Any, reason: str) -> None:
        if self.refusal is None:
            self.refusal = (_mark(node), reason)

    def _resolved(self, node: Any) -> Any:
        """A scalar's value, or MERGE_KEY for `<<`."""
        if node.ctag is T_PLAIN:
            return resolve_plain(node.value)
        try:
            return resolve_tagged(node.tag, node.value)
        except DecodeError as exc:
            self._refuse(node, str(exc))
            return node.value

    def _scalar(self, node: Any) -> Any:
        value = self._resolved(node)
        if value.__class__ is float:
            problem = json_number_problem(value)
            if problem is not None:
                self._refuse(node, problem)
        elif value is MERGE_KEY:
            return "<<"  # only a key merges; as a value it is the string
        return value

    def _sequence(self, node: SequenceNode, depth: int) -> Seq:
        seq = Seq()
        positions = []
        ends = []
        for item in node.value:
            if item.__class__ is ScalarNode and item.ctag is T_STR:
                self.expanded += 1
                seq.append(item.value)
            else:
                seq.append(self.walk(item, depth + 1))
            mark = item.start_mark
            positions.append(((mark.line + 1) << COL_BITS) | (mark.column + 1))
            mark = item.end_mark
            ends.append(((mark.line + 1) << COL_BITS) | (mark.column + 1))
        seq.pos = _Positions("Q", positions)
        seq.end = _Positions("Q", ends)
        return seq

    def _mapping(self, node: MappingNode, depth: int) -> Map:
        # The hot loop of the loader: plain string keys and values take the inline path.
        # ``slots`` (key -> positions) replaces ``packed`` once a key repeats or a merge
        # overrides one, so that repeated keys cost O(1) each, never a list search.
        mapping = Map()
        packed: list[int] = []
        ends: list[int] = []
        slots: dict[Any, tuple[int, int, int, int]] | None = None
        explicit: set[Any] = set()
        first_duplicate: tuple[Any, int, int] | None = None
        repeated = 0
        for key_node, value_node in node.value:
            if key_node.ctag is T_STR:
                key = _intern(key_node.value)  # keys repeat across thousands of documents
            else:
                key = self._key(node, key_node)
                if key is MERGE_KEY:
                    if slots is None:
                        slots, explicit = self._slots(mapping, packed, ends), set(mapping)
                    self._merge(mapping, slots, value_node, depth)
                    continue
            km = key_node.start_mark
            key_pos = ((km.line + 1) << COL_BITS) | (km.column + 1)
            if key in mapping:
                if slots is None:
                    slots, explicit = self._slots(mapping, packed, ends), set(mapping)
                if key in explicit:  # the API server keeps the last value: drop the first
                    repeated += 1
                    if first_duplicate is None:
                        first_duplicate = (key, slots[key][0], key_pos)
                del mapping[key]
            if value_node.__class__ is ScalarNode and value_node.ctag is T_STR:
                self.expanded += 1
                value = value_node.value
                mapping[key] = _intern(value) if len(value) < 24 else value
            else:
                mapping[key] = self.walk(value_node, depth + 1)
            vm = value_node.start_mark
            value_pos = ((vm.line + 1) << COL_BITS) | (vm.column + 1)
            km = key_node.end_mark
            vm = value_node.end_mark
            if slots is None:
                packed.append(key_pos)
                packed.append(value_pos)
                ends.append(((km.line + 1) << COL_BITS) | (km.column + 1))
                ends.append(((vm.line + 1) << COL_BITS) | (vm.column + 1))
            else:
                slots[key] = (key_pos, value_pos, ((km.line + 1) << COL_BITS) | (km.column + 1),
                              ((vm.line + 1) << COL_BITS) | (vm.column + 1))
                explicit.add(key)
        if slots is not None:
            packed = [p for key in mapping for p in slots[key][:2]]
            ends = [p for key in mapping for p in slots[key][2:]]
        if first_duplicate is not None:
            self.duplicates.append((*first_duplicate, repeated))
        mapping.pos = _Positions("Q", packed)
        mapping.end = _Positions("Q", ends)
        return mapping

    @staticmethod
    def _slots(mapping: Map, packed: list[int], ends: list[int]) -> dict[Any, tuple[int, int, int, int]]:
        return {key: (packed[2 * i], packed[2 * i + 1], ends[2 * i], ends[2 * i + 1])
                for i, key in enumerate(mapping)}

    def _key(self, parent: Any, key_node: Any) -> Any:
        """A key as sigs.k8s.io/yaml writes it into JSON (a string), or MERGE_KEY."""
        if key_node.__class__ is not ScalarNode:
            return self._collection_key(parent, key_node)
        value = self._resolved(key_node)
        if value is MERGE_KEY:
            return value
        try:
            return _intern(json_key(value))
        except DecodeError as exc:
            self._refuse(key_node, str(exc))
            return "null"

    def _collection_key(self, parent: Any, key_node: Any) -> str:
        """go-yaml refuses a mapping or sequence as a key. `{{ x }}` parses as a flow mapping
        whose key is a flow mapping: that is an unrendered template, not a key."""
        line, column = unpack(_mark(key_node))
        if (key_node.__class__ is MappingNode and parent.flow_style and key_node.flow_style
                and key_node.start_mark.index == parent.start_mark.index + 1):
            if self.template_at is None:
                self.template_at = _mark(parent)
        else:
            self._refuse(key_node, "invalid map key: a mapping or sequence cannot be a key")
        return f"<{'mapping' if key_node.__class__ is MappingNode else 'sequence'} key at {line}:{column}>"

    def _merge(self, mapping: Map, slots: dict[Any, tuple[int, int, int, int]], node: Any, depth: int) -> None:
        """``<<`` as go-yaml v2 merges: in place, overriding keys set before it; of a list of
        maps the earlier ones win. Merged keys keep their anchor's positions."""
        sources = list(reversed(node.value)) if node.__class__ is SequenceNode else [node]
        for source_node in sources:
            source = self.walk(source_node, depth + 1)
            if not isinstance(source, Map):
                self._refuse(source_node, "map merge requires map or sequence of maps as the value")
                continue
            for index, (key, value) in enumerate(source.items()):
                mapping[key] = value
                slots[key] = (source.pos[2 * index], source.pos[2 * index + 1],
                              source.end[2 * index], source.end[2 * index + 1])


# ---------------------------------------------------------------- files

_TEMPLATE_RE = re.compile(rb"\{\{|\{%")
_ANY_DIRECTIVE_RE = re.compile(r"#\s*kqlint:")


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
        if "kqlint:" in line and _ANY_DIRECTIVE_RE.search(line):  # misspelt ones too (kqlint.directives)
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


def parse_bytes(display: str, raw: bytes, consumer: str | None = None) -> SourceFile:
    """Parse a YAML/JSON stream into documents. Never raises. ``consumer`` names the tool
    that reads a non-Kubernetes file (duplicate keys are worded for it; see _DuplicateReport)."""
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
    source.placeholder_hint = may_hold_placeholders(data)
    if not data.endswith((b"\n", b"\r")):
        data += b"\n"  # as go-yaml reads a block scalar that ends the file: with its line break
    try:
        _compose_with_fallback(source, data, consumer)
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


def _compose_with_fallback(source: SourceFile, data: bytes, consumer: str | None = None) -> None:
    """The C parser first; where it refuses a ``:`` inside a plain scalar of a flow
    collection or a redefined anchor (C_PARSER_QUIRKS), ruamel's pure-Python parser, which
    reads them as kubectl does. Other C errors are kubectl's too (the pure-Python
    parser is laxer than kubectl elsewhere: tabs in block scalars, anchor names). The error
    reported is the C parser's unless the pure-Python one got further."""
    try:
        _compose_documents(source, data, _composer, consumer)
        return
    except MarkedYAMLError as fast_error:
        if _composer is _PureComposer or not any(quirk in f"{fast_error.problem} {fast_error.context}"
                                                  for quirk in C_PARSER_QUIRKS):
            raise
        if len(data) > MAX_FALLBACK_SIZE:  # ~6 s and ~150 bytes of memory per byte of input
            fast_error.problem = (f"{fast_error.problem}: ruamel.yaml.clib cannot read this and the file is "
                                  f"over {MAX_FALLBACK_SIZE // (1024 * 1024)} MiB, too large for the slow "
                                  "parser that can; quote that scalar")
            raise
        source.documents.clear()
        source.problems.clear()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                _compose_documents(source, data, _PureComposer, consumer)
        except MarkedYAMLError as slow_error:
            source.documents.clear()
            source.problems.clear()
            raise (slow_error if _later(slow_error, fast_error) else fast_error) from None
        except (YAMLError, RecursionError):
            source.documents.clear()
            source.problems.clear()
            raise fast_error from None


# What ruamel.yaml.clib refuses and kubectl reads: `:` in a plain scalar of a flow
# collection, an anchor defined twice (go-yaml: the later one wins).
C_PARSER_QUIRKS = ("found unexpected ':'", "found duplicate anchor")
MAX_FALLBACK_SIZE = 4 * 1024 * 1024


def _later(one: MarkedYAMLError, other: MarkedYAMLError) -> bool:
    a, b = one.problem_mark or one.context_mark, other.problem_mark or other.context_mark
    return a is not None and b is not None and (a.line, a.column) > (b.line, b.column)


def _compose_documents(source: SourceFile, data: bytes, composer_class: Any, consumer: str | None = None) -> None:
    composer = composer_class(data)
    memoise = b"&" in data
    template_at: int | None = None
    duplicates = _DuplicateReport(source.path, consumer)
    try:
        while composer.check_node():
            node = composer.get_node()
            walker = _Walker(memoise, max(MAX_EXPANDED_BYTES, 2 * len(data)))
            try:
                document = walker.walk(node)
            except (AliasBomb, RecursionError) as exc:
                line, col = unpack(_mark(node))
                message = (f"aliases expand to more than {MAX_EXPANDED_NODES} nodes or {walker.byte_budget} "
                           "bytes (an alias bomb?); "
                           "document not linted" if isinstance(exc, AliasBomb)
                           else f"document nests deeper than {MAX_DEPTH} levels; not linted")
                source.problems.append(LoadProblem(source.path, line, col, message))
                source.documents.append(None)
                continue
            if walker.template_at is not None and template_at is None and _manifest_like(document):
                template_at = walker.template_at
            kubernetes = is_k8s_object(document)
            if walker.refusal is not None and kubernetes:
                line, col = unpack(walker.refusal[0])
                source.problems.append(LoadProblem(
                    source.path, line, col,
                    f"kubectl cannot decode this document ({walker.refusal[1]}); it never reaches the cluster"))
                document = None
            elif kubernetes:
                document = _decodable_metadata(source, document)
            duplicates.add(walker.duplicates, kubernetes, source.problems)
            source.documents.append(document)
    finally:
        composer.dispose()
    duplicates.finish(source.problems)
    if any(is_k8s_object(d) for d in source.documents):
        _check_document_splitting(source, data)
    if template_at is not None:
        _record_template(source, *unpack(template_at))


def _manifest_like(document: Any) -> bool:
    """A document meant as a Kubernetes object, even if a template broke its apiVersion/kind."""
    return isinstance(document, dict) and ("apiVersion" in document or "kind" in document)


def _decodable_metadata(source: SourceFile, document: Any) -> Any:
    """The document, or None with a KQ001 when kubectl cannot decode its ObjectMeta."""
    found = metadata_problem(document)
    if found is None:
        return document
    line, column, _ = position(document, found[0], value=True)
    source.problems.append(LoadProblem(
        source.path, line, column,
        f"kubectl cannot decode this object: {found[1]}; it never reaches the cluster"))
    return None


# kubectl cuts a stream into documents at lines starting `---` before parsing each alone: it
# refuses content after `---` (other than a comment), and a directive line leaves a
# document without content (`%YAML 1.1` on its own is "did not find expected <document start>").
_DIRECTIVE = re.compile(rb"^%", re.MULTILINE)
_SEPARATOR_CONTENT = re.compile(rb"[ \t]*[^\s#]")


def _splitter_refusal(data: bytes) -> tuple[int, str] | None:
    """Offset and kind of the first line kubectl's `---` splitter refuses."""
    directive = _DIRECTIVE.search(data) if b"%" in data else None
    start = data.find(b"---")
    while start >= 0 and (directive is None or start < directive.start()):
        if (start == 0 or data[start - 1] in b"\r\n") and _SEPARATOR_CONTENT.match(data, start + 3):
            return start, "content after a `---` separator"
        start = data.find(b"---", start + 3)
    return (directive.start(), "a directive") if directive else None


def _check_document_splitting(source: SourceFile, data: bytes) -> None:
    if data.lstrip()[:1] in (b"{", b"["):
        return  # JSON: kubectl decodes it whole
    found = _splitter_refusal(data)
    if found is None:
        return
    line, column = _offset_position(data, found[0])
    what = found[1]
    source.problems.append(LoadProblem(
        source.path, line, column,
        f"kubectl refuses this file: it splits documents at `---` lines and cannot read {what}; "
        "keep `---` lines bare (a comment may follow) and remove `%` directives"))


class _DuplicateReport:
    """One finding per mapping with repeated keys, at most MAX_DUPLICATE_FINDINGS per file
    (then one line counting the rest), worded for the tool that consumes the file."""

    def __init__(self, path: str, consumer: str | None = None) -> None:
        self.path = path
        self.tool = consumer or _duplicate_consumer(path)
        self.reported = 0
        self.more = 0
        self.more_at: tuple[int, int] | None = None

    def add(self, found: list[tuple[Any, int, int, int]], kubernetes: bool, problems: list[LoadProblem]) -> None:
        consequence = _DUPLICATE_CONSEQUENCES["kubernetes" if kubernetes else self.tool]
        if consequence is None:
            return  # not a Kubernetes object nor a file a known tool reads: skipped anyway
        for key, first, second, repeated in found:
            line, column = unpack(second)
            if self.reported >= MAX_DUPLICATE_FINDINGS:
                self.more += 1
                self.more_at = self.more_at or (line, column)
                continue
            self.reported += 1
            others = f"; {repeated - 1} more repeated key(s) in this mapping" if repeated > 1 else ""
            problems.append(LoadProblem(
                self.path, line, column,
                f"duplicate key `{_excerpt(key)}` (first at line {unpack(first)[0]}, again at line "
                f"{line}{others}): {consequence}; remove one"))

    def finish(self, problems: list[LoadProblem]) -> None:
        if self.more and self.more_at is not None:
            problems.append(LoadProblem(
                self.path, *self.more_at,
                f"{self.more} more mapping(s) with duplicate keys in this file (not listed one by one)"))


MAX_DUPLICATE_FINDINGS = 20
_DUPLICATE_CONSEQUENCES = {
    "kubernetes": ("`kubectl apply` rejects duplicate fields (strict field validation, its default) "
                   "and kustomize refuses the file; with validation off the API server keeps only the last value"),
    "kustomize": "kustomize reads a kustomization with the last value and silently ignores the earlier one",
    "helm": "Helm reads values files with the last value and silently ignores the earlier one",
    "kqlint": "kqlint would read only the last value",
    None: None,
}


def _duplicate_consumer(path: str) -> str | None:
    name = os.path.basename(path).lower()
    if name in ("kustomization.yaml", "kustomization.yml", "kustomization"):
        return "kustomize"
    if name.startswith("values") and name.endswith((".yaml", ".yml")):
        return "helm"
    return None


def _excerpt(text: Any, limit: int = 60) -> str:
    text = str(text)
    return text if len(text) <= limit else text[:limit] + "…"


def _record_template(source: SourceFile, line: int, column: int) -> None:
    source.problems[:] = [p for p in source.problems if p.code != "KQ001"]
    source.problems.append(LoadProblem(
        source.path, line, column,
        "unrendered template (contains `{{ }}`): skipped; render it first, e.g. "
        "`helm template … | kqlint check -`", code="KQ006"))
    source.documents.clear()


def _record_parse_error(source: SourceFile, data: bytes, exc: MarkedYAMLError) -> None:
    mark = exc.problem_mark or exc.context_mark
    line = (mark.line + 1) if mark is not None else 1
    column = (mark.column + 1) if mark is not None else 1
    problem = exc.problem or exc.context or "invalid YAML"
    template = _TEMPLATE_RE.search(data)
    if template:
        _record_template(source, *_offset_position(data, template.start()))
        return
    context = f" ({exc.context})" if exc.context and exc.problem else ""
    source.problems.append(LoadProblem(source.path, line, column, f"invalid YAML: {problem}{context}"))


def load_file(path: str, display: str, max_size: int = MAX_FILE_SIZE, consumer: str | None = None) -> SourceFile:
    raw, error = read_bytes(path, max_size)
    if raw is None:
        source = SourceFile(display)
        source.problems.append(LoadProblem(display, 1, 1, error or "unreadable"))
        return source
    return parse_bytes(display, raw, consumer)


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
    start, _, depth = locate(root, path, value)
    line, column = unpack(start) if start else (1, 1)
    return line, column, depth


def locate(root: Any, path: tuple[Any, ...], value: bool = False) -> tuple[int, int, int]:
    """``(start, end, depth_found)`` as :func:`position`, packed; 0 where unknown. The end of a
    key or scalar is just past it; of a non-empty collection, the end of its last scalar."""
    best = (0, 0)
    node = root
    for depth, step in enumerate(path):
        found = _step_span(node, step, value and depth == len(path) - 1)
        if found is None:
            return best[0], best[1], depth
        best = found
        node = node[step]
    return best[0], best[1], len(path)


def _step_span(node: Any, step: Any, value: bool) -> tuple[int, int] | None:
    if isinstance(node, Map):
        if step not in node:
            return None
        slot = 2 * list(node).index(step) + (1 if value else 0)
        return node.pos[slot], _end_of(node, slot, node[step] if value else None)
    if isinstance(node, Seq) and isinstance(step, int) and -len(node) <= step < len(node):
        return node.pos[step], _end_of(node, step % len(node), node[step])
    return None


def _end_of(parent: Any, slot: int, child: Any) -> int:
    ends = getattr(parent, "end", _NO_ENDS)
    if slot >= len(ends):
        return 0
    return node_end(child, ends[slot])


def node_end(node: Any, marked: int) -> int:
    """Where ``node`` ends, given the end the parser marked for it: for a non-empty
    collection, the end of its last scalar (the parser marks a block collection's end where
    the next token starts, past comments and blank lines)."""
    end = marked
    while isinstance(node, (Map, Seq)) and node:
        ends = getattr(node, "end", _NO_ENDS)
        if len(ends) != (2 * len(node) if isinstance(node, Map) else len(node)):
            return 0
        end = ends[-1]
        node = node[-1] if isinstance(node, Seq) else node[next(reversed(node))]
    return end


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
