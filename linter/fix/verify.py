"""Verification: the edited text must parse to exactly the data the edits describe, with no new
load problem; plans that fail it are not applied."""
from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

from kqlint.domain.fields import plain
from kqlint.fix.edits import Planned
from kqlint.fix.model import Edit
from kqlint.fix.text import Text, apply_text
from kqlint.loader import SourceFile, exact_spans
from kqlint.loader import parse_bytes as _parse_bytes


def apply_to_data(document: Any, base: tuple[Any, ...], edits: Iterable[Edit]) -> None:
    """Apply ``edits`` to plain data (the expected result of the text edits)."""
    removals: list[tuple[Any, Any]] = []
    for edit in edits:
        parent: Any = _dig(document, base + edit.path[:-1]) if edit.op != "insert" else None
        if edit.op == "replace":
            parent[edit.path[-1]] = edit.value
        elif edit.op == "rename":
            parent[edit.key] = parent.pop(edit.path[-1])
        elif edit.op == "remove":
            removals.append((parent, edit.path[-1]))
        else:
            _dig(document, base + edit.path)[edit.key] = copy.deepcopy(edit.value)
    for parent, step in sorted(removals, key=lambda r: r[1] if isinstance(r[1], int) else 0, reverse=True):
        del parent[step]


def _dig(node: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        node = node[step]
    return node


def parse_bytes(display: str, raw: bytes) -> SourceFile:
    with exact_spans():  # plain scalars folded over lines must end where they really end
        return _parse_bytes(display, raw)


def verified(text: Text, source: SourceFile, planned: list[Planned], display: str) -> list[Planned]:
    """The plans whose text edits parse back to exactly the intended data: all of them when
    they do together, else those that do one by one (in order)."""
    if not planned:
        return []
    if _parses_as_intended(text, source, planned, display):
        return planned
    accepted: list[Planned] = []
    for plan in planned:
        if _parses_as_intended(text, source, accepted + [plan], display):
            accepted.append(plan)
    return accepted


def _parses_as_intended(text: Text, source: SourceFile, planned: list[Planned], display: str) -> bool:
    expected = [plain(document) for document in source.documents]
    try:
        for plan in planned:
            fix = plan.finding.fix
            assert fix is not None
            apply_to_data(expected[plan.doc], plan.base, fix.edits)
    except (KeyError, IndexError, TypeError, AttributeError):
        return False
    new_text = apply_text(text.text, [e for p in planned for e in p.edits])
    return reads_as(source, parse_bytes(display, text.encoded(new_text)), expected)


def reads_as(source: SourceFile, fixed: SourceFile, expected: list[Any]) -> bool:
    """Whether ``fixed`` (an edit of ``source``) parses to ``expected`` with no new load problem."""
    old_problems = {(p.code, p.message.split(" (first at")[0]) for p in source.problems}
    if any((p.code, p.message.split(" (first at")[0]) not in old_problems for p in fixed.problems):
        return False
    return bool([plain(document) for document in fixed.documents] == expected)
