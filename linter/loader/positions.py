"""Node path -> position: where a key, value or item starts and ends in its file.

Rules never compute positions: they name a node by its path, and this module reads the packed
positions the walker kept (kqlint.loader.nodes), falling back to the nearest existing ancestor.
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kqlint.loader.nodes import START_MASK, Map, Seq, end_of, positions_of, unpack


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


def value_start(mapping: Any, key: Any) -> int:
    """Where ``mapping[key]`` starts (packed, 1-based; 0 when its position is not kept)."""
    positions: Any = positions_of(mapping)
    if key not in mapping or len(positions) != 2 * len(mapping):
        return 0
    return positions[2 * list(mapping).index(key) + 1] & START_MASK  # type: ignore[no-any-return]


def _step_span(node: Any, step: Any, value: bool) -> tuple[int, int] | None:
    """(start, end) of a key, value or item, both packed 1-based without end bits."""
    if isinstance(node, Map):
        if step not in node:
            return None
        packed = positions_of(node)[2 * list(node).index(step) + (1 if value else 0)]
        if not value:
            end = end_of(packed)
            return packed & START_MASK, end or (packed & START_MASK) + len(str(step))  # a plain key
        return packed & START_MASK, node_end(node[step], packed)
    if isinstance(node, Seq) and isinstance(step, int) and -len(node) <= step < len(node):
        packed = positions_of(node)[step]
        return packed & START_MASK, node_end(node[step], packed)
    return None


def node_end(node: Any, packed: int) -> int:
    """Where the node at ``packed`` ends (packed, 1-based; 0 when unknown): for a non-empty
    collection, where its last scalar ends (the parser marks a block collection's end where
    the next token starts, past comments and blank lines)."""
    while isinstance(node, (Map, Seq)) and node:
        positions: Any = positions_of(node)
        if len(positions) != (2 * len(node) if isinstance(node, Map) else len(node)):
            return 0
        packed = positions[-1]
        node = node[-1] if isinstance(node, Seq) else node[next(reversed(node))]
    end = end_of(packed)
    if end or node is None:
        return end
    if isinstance(node, (Map, Seq)):
        return (packed & START_MASK) + 2  # `{}` or `[]`
    text = node if isinstance(node, str) else str(node).lower() if isinstance(node, bool) else str(node)
    return (packed & START_MASK) + len(text)  # a plain scalar, as written in the usual way


def blocks_by_line(root: Any) -> dict[int, tuple[int, int]]:
    """For each line where a node starts, the lines (first, last) of the mapping or sequence
    holding the node a comment on or above that line is about: the first node on the line
    (the deepest of those at the smallest column: the item's mapping for ``- name: x``). One
    walk of ``root``, each shared (aliased) node once."""
    best: dict[int, tuple[int, int, Any]] = {}  # line -> (column, -depth, parent)
    stack, seen = [(root, 0)], set()
    while stack:
        node, depth = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        for start, child in _children(node):
            line, column = unpack(start)
            if line not in best or (column, -depth) < best[line][:2]:
                best[line] = (column, -depth, node)
            if isinstance(child, (Map, Seq)) and child:
                stack.append((child, depth + 1))
    spans: dict[int, tuple[int, int]] = {}
    for parent in {id(parent): parent for _, _, parent in best.values()}.values():
        end = node_end(parent, 0)
        first = min(unpack(start)[0] for start, _ in _children(parent))
        spans[id(parent)] = (first, unpack(end)[0] if end else first)
    return {line: (spans[id(parent)][0], max(spans[id(parent)][1], line)) for line, (_, _, parent) in best.items()}


def _children(node: Any) -> Iterator[tuple[int, Any]]:
    """(packed start, node) of each key of a Map (with its value) or item of a Seq."""
    positions: Any = positions_of(node)
    if isinstance(node, Map) and len(positions) == 2 * len(node):
        for index, value in enumerate(node.values()):
            yield positions[2 * index] & START_MASK, value
    elif isinstance(node, Seq) and len(positions) == len(node):
        for index, item in enumerate(node):
            yield positions[index] & START_MASK, item


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
