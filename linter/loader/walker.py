"""One composed document -> :class:`Map` / :class:`Seq` / scalars with packed positions, every
value read as Kubernetes reads it (go-yaml v2, kqlint.loader.goyaml).

Reading a node's end from the parser costs time, so a run keeps it only for quoted and block
scalars: a plain scalar ends ``len(text)`` after its start (kqlint.loader.positions.node_end;
not so for one folded over lines or a number written unusually, ``0x1F``), a collection where
its last node ends. Within :func:`exact_spans` (the fixer) every node keeps its exact end.
"""
from __future__ import annotations

from array import array as _Positions  # 8 bytes per position instead of a tuple of int objects
from collections.abc import Iterator
from contextlib import contextmanager
from sys import intern as _intern
from typing import Any

from kqlint.loader.compose import T_PLAIN, T_STR
from kqlint.loader.goyaml import MERGE_KEY, DecodeError, json_key, json_number_problem, resolve_plain, resolve_tagged
from kqlint.loader.nodes import COL_BITS, START_BITS, Map, Seq, unpack, with_end
from kqlint.loader.source import MAX_DEPTH, MAX_EXPANDED_BYTES, MAX_EXPANDED_NODES
from ruamel.yaml.nodes import MappingNode, ScalarNode, SequenceNode

_EXACT = [False]  # inside exact_spans(): every node keeps its end


@contextmanager
def exact_spans() -> Iterator[None]:
    """Parse with the exact end of every node (plain strings too), as the fixer needs."""
    _EXACT[0] = True
    try:
        yield
    finally:
        _EXACT[0] = False


class AliasBomb(Exception):
    pass


def packed_start(node: Any) -> int:
    """Where ``node`` starts, packed (the walker's hot loops inline this)."""
    line: int = node.start_mark.line
    column: int = node.start_mark.column
    return ((line + 1) << COL_BITS) | (column + 1)


def _scalar_bytes(node: Any) -> int:
    """Bytes of the scalars directly in a collection node (aliased ones once per use)."""
    children = node.value
    if node.__class__ is MappingNode:
        children = [child for pair in children for child in pair]
    return sum(len(child.value) for child in children if child.__class__ is ScalarNode)


class Walker:
    """Turns one composed document into Map/Seq/scalars with positions, reading every value
    as Kubernetes does. Where kubectl would refuse the document, ``refusal`` says why."""

    def __init__(self, memoise: bool, byte_budget: int = MAX_EXPANDED_BYTES) -> None:
        self.exact = _EXACT[0]
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
            self.refusal = (packed_start(node), reason)

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
        exact = self.exact
        for item in node.value:
            if item.__class__ is ScalarNode and item.ctag is T_STR:
                self.expanded += 1
                seq.append(item.value)
                plain = not item.style
            else:
                seq.append(self.walk(item, depth + 1))
                plain = True  # a collection ends with its last node; a number: see node_end
            mark = item.start_mark
            if plain and not exact:
                positions.append(((mark.line + 1) << COL_BITS) | (mark.column + 1))
            else:  # with_end, inline
                end = item.end_mark
                line, delta, column = mark.line, end.line - mark.line, end.column
                positions.append((((line + 1) << COL_BITS) | (mark.column + 1)) | (
                    ((delta << 16 | (column + 1)) << START_BITS) if delta < 256 and column < 0xFFFF else 0))
        seq.pos = _Positions("Q", positions)
        return seq

    def _mapping(self, node: MappingNode, depth: int) -> Map:
        # The hot loop of the loader: plain string keys and values take the inline path.
        # ``slots`` (key -> positions) replaces ``packed`` once a key repeats or a merge
        # overrides one, so that repeated keys cost O(1) each, never a list search.
        mapping = Map()
        packed: list[int] = []
        slots: dict[Any, tuple[int, int]] | None = None
        explicit: set[Any] = set()
        first_duplicate: tuple[Any, int, int] | None = None
        repeated = 0
        exact = self.exact
        for key_node, value_node in node.value:
            if key_node.ctag is T_STR:
                key = _intern(key_node.value)  # keys repeat across thousands of documents
            else:
                key = self._key(node, key_node)
                if key is MERGE_KEY:
                    if slots is None:
                        slots, explicit = self._slots(mapping, packed), set(mapping)
                    self._merge(mapping, slots, value_node, depth)
                    continue
            km = key_node.start_mark
            key_pos = ((km.line + 1) << COL_BITS) | (km.column + 1)
            if exact or key_node.ctag is not T_STR or key_node.style:  # plain (style "" or None): start + len
                key_pos = with_end(key_pos, km.line, key_node.end_mark)
            if key in mapping:
                if slots is None:
                    slots, explicit = self._slots(mapping, packed), set(mapping)
                if key in explicit:  # the API server keeps the last value: drop the first
                    repeated += 1
                    if first_duplicate is None:
                        first_duplicate = (key, slots[key][0], key_pos)
                del mapping[key]
            if value_node.__class__ is ScalarNode and value_node.ctag is T_STR:
                self.expanded += 1
                value = value_node.value
                mapping[key] = _intern(value) if len(value) < 24 else value
                plain = not value_node.style  # "" (C parser) or None: plain
            else:
                mapping[key] = self.walk(value_node, depth + 1)
                plain = True  # a collection ends with its last node; a number: see node_end
            vm = value_node.start_mark
            if plain and not exact:
                value_pos = ((vm.line + 1) << COL_BITS) | (vm.column + 1)
            else:  # with_end, inline
                end = value_node.end_mark
                line, delta, column = vm.line, end.line - vm.line, end.column
                value_pos = (((line + 1) << COL_BITS) | (vm.column + 1)) | (
                    ((delta << 16 | (column + 1)) << START_BITS) if delta < 256 and column < 0xFFFF else 0)
            if slots is None:
                packed.append(key_pos)
                packed.append(value_pos)
            else:
                slots[key] = (key_pos, value_pos)
                explicit.add(key)
        if slots is not None:
            packed = [p for key in mapping for p in slots[key]]
        if first_duplicate is not None:
            self.duplicates.append((*first_duplicate, repeated))
        mapping.pos = _Positions("Q", packed)
        return mapping

    @staticmethod
    def _slots(mapping: Map, packed: list[int]) -> dict[Any, tuple[int, int]]:
        return {key: (packed[2 * i], packed[2 * i + 1]) for i, key in enumerate(mapping)}

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
        line, column = unpack(packed_start(key_node))
        if (key_node.__class__ is MappingNode and parent.flow_style and key_node.flow_style
                and key_node.start_mark.index == parent.start_mark.index + 1):
            if self.template_at is None:
                self.template_at = packed_start(parent)
        else:
            self._refuse(key_node, "invalid map key: a mapping or sequence cannot be a key")
        return f"<{'mapping' if key_node.__class__ is MappingNode else 'sequence'} key at {line}:{column}>"

    def _merge(self, mapping: Map, slots: dict[Any, tuple[int, int]], node: Any, depth: int) -> None:
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
                slots[key] = (source.pos[2 * index], source.pos[2 * index + 1])
