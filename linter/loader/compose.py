"""The YAML parsers: ruamel.yaml.clib's C composer with a lean YAML 1.1 resolver, and ruamel's
pure-Python parser as the fallback for what the C one refuses and kubectl reads.

The resolver hands out one shared :class:`Tag` per implicit tag, so the walker compares
identity instead of decoding ruamel's tags per node (the bulk of ruamel's load time).
"""
from __future__ import annotations

import operator
from typing import Any

from kqlint.loader.goyaml import may_not_be_string
from kqlint.loader.source import MAX_DEPTH, MAX_FILE_SIZE
from ruamel.yaml.composer import Composer
from ruamel.yaml.error import YAMLError
from ruamel.yaml.nodes import MappingNode, ScalarNode, SequenceNode
from ruamel.yaml.parser import Parser
from ruamel.yaml.reader import Reader
from ruamel.yaml.resolver import VersionedResolver
from ruamel.yaml.scanner import Scanner
from ruamel.yaml.tag import Tag

try:  # the C extension (as ruamel.yaml.main imports it); absent on installs without ruamel.yaml.clib
    from _ruamel_yaml import CParser as _Libyaml
except ImportError:  # pragma: no cover - depends on the install
    _Libyaml = None
CParser: type[Any] | None = _Libyaml  # libyaml's parser and composer (C, untyped)

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


class FastResolver(VersionedResolver):
    """Quoted scalars and plain ones that cannot be anything else are strings; the rest is
    resolved by the walker as go-yaml v2 does (kqlint.loader.goyaml). No path resolvers."""

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

    # The composers call these around every node; kqlint has no path resolvers. Builtins that
    # take the same arguments and do nothing cost less than a Python method (~3 % of parsing).
    descend_resolver = staticmethod(operator.is_)  # type: ignore[assignment]  # (node, index): ignored
    ascend_resolver = staticmethod(tuple)  # type: ignore[assignment]  # (): ignored


def _scalar_init(self: Any, tag: Any, value: Any, start_mark: Any = None, end_mark: Any = None,
                 style: Any = None, comment: Any = None, anchor: Any = None) -> None:
    self.ctag = tag if tag.__class__ is Tag else Tag(suffix=tag)
    self.value, self.start_mark, self.end_mark = value, start_mark, end_mark
    self.comment, self.anchor, self.style = comment, anchor, style


def _sequence_init(self: Any, tag: Any, value: Any, start_mark: Any = None, end_mark: Any = None,
                   flow_style: Any = None, comment: Any = None, anchor: Any = None) -> None:
    self.ctag = tag if tag.__class__ is Tag else Tag(suffix=tag)
    self.value, self.start_mark, self.end_mark = value, start_mark, end_mark
    self.comment, self.anchor, self.flow_style = comment, anchor, flow_style


def _mapping_init(self: Any, tag: Any, value: Any, start_mark: Any = None, end_mark: Any = None,
                  flow_style: Any = None, comment: Any = None, anchor: Any = None) -> None:
    _sequence_init(self, tag, value, start_mark, end_mark, flow_style, comment, anchor)
    self.merge = None


# ruamel's node constructors chain two or three Python __init__ calls (ScalarNode -> Node,
# MappingNode -> CollectionNode -> Node) and the C composer builds a node per scalar: the same
# assignments in one call take ~10% off parsing. tests/test_loader.py checks they set the same.
ORIGINAL_INITS = {cls: cls.__init__ for cls in (ScalarNode, SequenceNode, MappingNode)}
ScalarNode.__init__ = _scalar_init  # type: ignore[method-assign]
SequenceNode.__init__ = _sequence_init  # type: ignore[method-assign]
MappingNode.__init__ = _mapping_init  # type: ignore[method-assign]


class PureComposer(Reader, Scanner, Parser, Composer, FastResolver):
    """ruamel's pure-Python parser: reads what ruamel.yaml.clib's bundled libyaml refuses
    (a ``:`` inside a plain scalar of a flow collection), with the same marks."""

    max_depth = None          # depth is bounded by the walker (MAX_DEPTH) and too_deep
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


if CParser is not None:
    class _FastComposer(CParser, FastResolver):  # type: ignore[misc, valid-type]  # an untyped C base
        def __init__(self, data: bytes) -> None:
            super().__init__(data)  # CParser's, first in the MRO
            FastResolver.__init__(self)

    def composer(data: bytes) -> Any:
        return _FastComposer(data)

    FAST_PATH = True
else:  # pragma: no cover - exercised only without ruamel.yaml.clib
    FAST_PATH = False
    composer = PureComposer


# What ruamel.yaml.clib refuses and kubectl reads: `:` in a plain scalar of a flow
# collection, an anchor defined twice (go-yaml: the later one wins).
C_PARSER_QUIRKS = ("found unexpected ':'", "found duplicate anchor")
MAX_FALLBACK_SIZE = 4 * 1024 * 1024


# libyaml's composer recurses in C: ~30,000 nesting levels overflow the C stack (a segfault,
# not an exception). Depth needs nesting indicators or ever-growing indentation (at most
# ~5,700 levels in 16 MiB), so only files with many indicators get an event pre-scan.
_NESTING_INDICATORS = (b"[", b"{", b"- ", b"-\t", b"? ")
_PRESCAN_INDICATORS = 10_000


def too_deep(data: bytes) -> tuple[int, int] | None:
    """(line, column) of the first node nested deeper than MAX_DEPTH, for suspicious files."""
    if CParser is None or len(data) < _PRESCAN_INDICATORS:  # fewer bytes than that: fewer indicators
        return None
    if len(data) <= MAX_FILE_SIZE and sum(data.count(i) for i in _NESTING_INDICATORS) < _PRESCAN_INDICATORS:
        return None
    from ruamel.yaml.events import CollectionEndEvent, CollectionStartEvent

    parser = CParser(data)
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
