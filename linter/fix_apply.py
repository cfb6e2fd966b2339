"""Turn the path edits of fixes (kqlint.fixes) into exact text edits of one file, and apply them.

A fix names nodes by their path inside one object; this module finds those nodes again in a
fresh parse of the file (the loader keeps where every key, value and item starts and ends),
and writes only the bytes that must change:

- ``replace``: the scalar's text, in its quoting style when that still means the new value
  to kubectl (go-yaml), else double-quoted;
- ``rename``: the key's text, quoted only when needed;
- ``remove``: a block entry or item as whole lines (the first key of a ``- `` item: up to the
  next key, which takes its place); a flow entry with its comma;
- ``insert``: ``key: value`` after the mapping's last entry at its keys' indentation (block:
  mappings and lists rendered in block style), or ``, key: value`` inside a flow mapping.

Every byte outside the edits is kept: comments, key order, quoting, flow or block style,
indentation, line endings (CRLF), a byte-order mark and the final newline. The result is
verified: the edited text must parse to exactly the documents the edits describe (the data
with the edits applied), with no new load problem; a fix that fails this is not applied.
Fixes whose text edits overlap one already taken wait for the next pass.
"""
from __future__ import annotations

import copy
import json
import re
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from kqlint.fixes import Edit, Fix, TextRange
from kqlint.goyaml import resolve_plain
from kqlint.loader import Map, Seq, SourceFile, locate, parse_bytes, position, unpack
from kqlint.model import Finding

BOM = "\ufeff"
_BREAKS = re.compile(r"\r\n|[\r\n\x85\u2028\u2029]")
_TRAILING = " \t\r\n\x85\u2028\u2029"
_PLAIN_START_FORBIDDEN = set("-?:,[]{}#&*!|>'\"%@`")
_FLOW_FORBIDDEN = set(",[]{}")
_COMMENT = re.compile(r"(^|[ \t])#.*$")
_REST_OF_LINE = re.compile(r"[ \t\]}]*(#[^\r\n]*)?$")


class NotApplicable(Exception):
    """An edit that cannot be written safely as text (the fix is then not applied)."""


@dataclass(frozen=True)
class TextEdit:
    """Replace ``text[start:end]`` by ``content`` (offsets in characters, BOM excluded)."""

    start: int
    end: int
    content: str

    def overlaps(self, other: TextEdit) -> bool:
        if self.start == other.start:
            return True  # two inserts (or an insert and a change) at one point: order is ambiguous
        return max(self.start, other.start) < min(self.end, other.end) or \
            (self.start == self.end and other.start < self.start < other.end) or \
            (other.start == other.end and self.start < other.start < self.end)


@dataclass
class FileFixes:
    """The outcome for one file."""

    text: str                       # the new text (BOM excluded)
    applied: list[Finding] = field(default_factory=list)
    deferred: list[Finding] = field(default_factory=list)  # overlap an applied fix: next pass
    failed: list[Finding] = field(default_factory=list)    # cannot be written safely
    stale: bool = False             # the file no longer matches the findings: nothing applied


class Text:
    """A file's text with line starts as the YAML parser counts lines."""

    def __init__(self, raw: bytes) -> None:
        decoded = raw.decode("utf-8")
        self.bom = decoded.startswith(BOM)
        self.text = decoded[1:] if self.bom else decoded
        self.newline = "\r\n" if "\r\n" in self.text else "\n"
        self.starts = [0] + [m.end() for m in _BREAKS.finditer(self.text)]

    def offset(self, packed: int) -> int:
        line, column = unpack(packed)
        if not 1 <= line <= len(self.starts):
            raise NotApplicable("position outside the file")
        return self.starts[line - 1] + column - 1

    def position(self, offset: int) -> tuple[int, int]:
        line = bisect_right(self.starts, offset)
        return line, offset - self.starts[line - 1] + 1

    def line_start(self, offset: int) -> int:
        return self.starts[bisect_right(self.starts, offset) - 1]

    def next_line(self, offset: int) -> int:
        """Start of the line after the one holding ``offset`` (the end of the text at the end)."""
        match = _BREAKS.search(self.text, offset)
        return match.end() if match else len(self.text)

    def line_end(self, offset: int) -> int:
        match = _BREAKS.search(self.text, offset)
        return match.start() if match else len(self.text)

    def encoded(self, text: str) -> bytes:
        return ((BOM if self.bom else "") + text).encode("utf-8")


# ------------------------------------------------------------------ rendering values

def plain_ok(text: str, flow: bool = False) -> bool:
    """Whether ``text`` written plain reads back as this same string to go-yaml."""
    if not text or text != text.strip() or _BREAKS.search(text) or "\t" in text:
        return False
    if text[0] in _PLAIN_START_FORBIDDEN or ": " in text or " #" in text or text.endswith(":"):
        return False
    if flow and any(char in _FLOW_FORBIDDEN for char in text):
        return False
    return bool(resolve_plain(text) == text)


def scalar_text(value: Any, flow: bool = False, style: str = "") -> str:
    """``value`` as a YAML scalar; a string keeps ``style`` (``'`` or ``"``) when given."""
    if value is None:
        return "null"
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return json.dumps(value)
    if not isinstance(value, str):
        raise NotApplicable(f"cannot write a {type(value).__name__} as a scalar")
    if style == "'" and not _BREAKS.search(value):
        return "'" + value.replace("'", "''") + "'"
    if style == '"' or not plain_ok(value, flow):
        return json.dumps(value, ensure_ascii=False)
    return value


def block_entry(key: str, value: Any, indent: int, newline: str) -> str:
    """``key: value`` as block lines at ``indent`` (mappings and lists nested in block style)."""
    pad = " " * indent
    name = scalar_text(key)
    if isinstance(value, dict) and value:
        return f"{pad}{name}:{newline}" + "".join(
            block_entry(str(k), v, indent + 2, newline) for k, v in value.items())
    if isinstance(value, list) and value:
        return f"{pad}{name}:{newline}" + "".join(_block_item(v, indent + 2, newline) for v in value)
    return f"{pad}{name}: {_flow_value(value)}{newline}"


def _block_item(value: Any, indent: int, newline: str) -> str:
    pad = " " * indent
    if isinstance(value, dict) and value:
        lines = "".join(block_entry(str(k), v, indent + 2, newline) for k, v in value.items())
        return pad + "- " + lines[indent + 2:]
    if isinstance(value, list) and value:
        return f"{pad}-{newline}" + "".join(_block_item(v, indent + 2, newline) for v in value)
    return f"{pad}- {_flow_value(value)}{newline}"


def _flow_value(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{scalar_text(str(k), True)}: {_flow_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_flow_value(v) for v in value) + "]"
    return scalar_text(value, flow=True)


# ------------------------------------------------------------------ one edit as text

class _Target:
    """The nodes of one object in a fresh parse, for turning its edits into text edits."""

    def __init__(self, text: Text, root: Any, base: tuple[Any, ...]) -> None:
        self.text, self.root, self.base = text, root, base

    def container(self, path: tuple[Any, ...]) -> Any:
        """The Map or Seq at ``path`` (inside the object), reached without going through an
        alias or a merge (positions must only increase along the way)."""
        node, last = self.root, 0
        for step in self.base + path:
            start, _, depth = locate(node, (step,), value=True)
            if depth != 1 or start < last:
                raise NotApplicable("the node is not written here (an alias or a merge)")
            node, last = node[step], start
        if not isinstance(node, (Map, Seq)) or len(getattr(node, "end", ())) != len(node.pos):
            raise NotApplicable("not a mapping or list with known positions")
        return node

    def key_span(self, parent: Map, key: Any) -> tuple[int, int]:
        start, end, _ = locate(parent, (key,))
        return self.text.offset(start), self.text.offset(end)

    def value_span(self, parent: Any, step: Any) -> tuple[int, int]:
        start, end, depth = locate(parent, (step,), value=True)
        if depth != 1 or not start or not end:
            raise NotApplicable("no position for this node")
        first, last = self.text.offset(start), self.text.offset(end)
        last = first + len(self.text.text[first:last].rstrip(_TRAILING))  # a block scalar's line breaks
        return first, max(first, last)

    def is_flow(self, offset: int) -> bool:
        """Whether the entry starting at ``offset`` sits in a flow collection: the text before
        it (comments left out) ends with ``{``, ``[`` or ``,``."""
        text = self.text
        line_start = text.line_start(offset)
        before = text.text[line_start:offset].rstrip(" \t")
        while not before and line_start > 0:
            line_start = text.line_start(line_start - 1)
            line = text.text[line_start:text.line_end(line_start)]
            before = _COMMENT.sub("", line).rstrip(" \t")
        return before.endswith(("{", "[", ","))

    # ---------------------------------------------------------- ops

    def edit(self, edit: Edit) -> list[TextEdit]:
        if not edit.path and edit.op != "insert":
            raise NotApplicable("an edit needs a path")
        if edit.op == "replace":
            return [self._replace(edit)]
        if edit.op == "rename":
            return [self._rename(edit)]
        if edit.op == "remove":
            return [self._remove(edit)]
        return [self._insert(edit)]

    def _replace(self, edit: Edit) -> TextEdit:
        parent = self.container(edit.path[:-1])
        step = edit.path[-1]
        if isinstance(parent, Map) and step not in parent or isinstance(parent, Seq) and \
                not (isinstance(step, int) and 0 <= step < len(parent)):
            raise NotApplicable("nothing to replace")
        if isinstance(parent[step], (dict, list)) or isinstance(edit.value, (dict, list)):
            raise NotApplicable("only scalars are replaced")
        start, end = self.value_span(parent, step)
        if start == end:
            raise NotApplicable("an empty value has no text to replace")
        first = self.text.text[start]
        if first in "&!*":
            raise NotApplicable("a tagged, anchored or aliased scalar")
        style = first if first in "'\"" else ""
        return TextEdit(start, end, scalar_text(edit.value, self._entry_in_flow(parent, step), style))

    def _entry_in_flow(self, parent: Any, step: Any) -> bool:
        slot = 2 * list(parent).index(step) if isinstance(parent, Map) else step
        return self.is_flow(self.text.offset(parent.pos[slot]))

    def _rename(self, edit: Edit) -> TextEdit:
        parent = self.container(edit.path[:-1])
        old = edit.path[-1]
        if not isinstance(parent, Map) or old not in parent or edit.key is None or edit.key in parent:
            raise NotApplicable("no such key, or the new key exists already")
        start, end = self.key_span(parent, old)
        first = self.text.text[start]
        if first in "&!*?":
            raise NotApplicable("a complex, tagged or anchored key")
        style = first if first in "'\"" else ""
        return TextEdit(start, end, scalar_text(edit.key, self.is_flow(start), style))

    def _remove(self, edit: Edit) -> TextEdit:
        parent = self.container(edit.path[:-1])
        step = edit.path[-1]
        if isinstance(parent, Map):
            if step not in parent:
                raise NotApplicable("no such key")
            index = list(parent).index(step)
            start = self.text.offset(parent.pos[2 * index])
        else:
            if not (isinstance(step, int) and 0 <= step < len(parent)):
                raise NotApplicable("no such item")
            index = step
            start = self._item_marker(self.text.offset(parent.pos[index]))
        _, end = self.value_span(parent, step)
        count = len(parent)
        if self.is_flow(self.text.offset(parent.pos[2 * index if isinstance(parent, Map) else index])):
            return self._remove_flow(parent, index, start, end)
        return self._remove_block(parent, index, count, start, end)

    def _item_marker(self, item_start: int) -> int:
        text = self.text.text
        dash = len(text[:item_start].rstrip(" \t")) - 1
        if dash < 0 or text[dash] != "-":
            return item_start  # a flow item
        return dash

    def _remove_block(self, parent: Any, index: int, count: int, start: int, end: int) -> TextEdit:
        text = self.text
        line_start = text.line_start(start)
        if not _REST_OF_LINE.match(text.text, end, text.line_end(end)):
            raise NotApplicable("the line goes on after the node")
        if text.text[line_start:start].strip(" \t") == "":
            return TextEdit(line_start, text.next_line(end), "")
        if isinstance(parent, Map) and index == 0 and count > 1:  # `- first: x` : the next key moves up
            return TextEdit(start, text.offset(parent.pos[2]), "")
        raise NotApplicable("the node shares its line with another")

    def _remove_flow(self, parent: Any, index: int, start: int, end: int) -> TextEdit:
        step = 2 if isinstance(parent, Map) else 1
        if index + 1 < len(parent):
            return TextEdit(start, self.text.offset(parent.pos[step * (index + 1)]), "")
        if index > 0:
            _, previous_end = self.value_span(parent, list(parent)[index - 1] if isinstance(parent, Map) else index - 1)
            return TextEdit(previous_end, end, "")
        return TextEdit(start, end, "")

    def _insert(self, edit: Edit) -> TextEdit:
        mapping = self.container(edit.path)
        if not isinstance(mapping, Map) or edit.key is None or edit.key in mapping:
            raise NotApplicable("not a mapping, or the key exists already")
        if not mapping:
            return self._insert_empty(edit)
        first_key = self.text.offset(mapping.pos[0])
        last_key = list(mapping)[-1]
        _, end = self.value_span(mapping, last_key)
        if self.is_flow(first_key):
            return TextEdit(end, end, f", {scalar_text(edit.key, True)}: {_flow_value(edit.value)}")
        value_start = self.text.offset(mapping.pos[-1])
        if self.text.text[value_start:value_start + 3].startswith(("|+", ">+")) or \
                re.match(r"[|>][1-9]?\+", self.text.text[value_start:value_start + 3]):
            raise NotApplicable("the last value keeps its trailing blank lines")
        if not _REST_OF_LINE.match(self.text.text, end, self.text.line_end(end)):
            raise NotApplicable("the line goes on after the last entry")
        indent = first_key - self.text.line_start(first_key)
        at = self.text.next_line(end)
        newline = self.text.newline
        lead = newline if at == len(self.text.text) and not self.text.text.endswith(("\n", "\r")) else ""
        return TextEdit(at, at, lead + block_entry(edit.key, edit.value, indent, newline))


    def _insert_empty(self, edit: Edit) -> TextEdit:
        """``{}`` becomes ``{key: value}``."""
        start, _, depth = locate(self.root, self.base + edit.path, value=True)
        offset = self.text.offset(start) if start and depth == len(self.base + edit.path) else -1
        if offset < 0 or self.text.text[offset] != "{":
            raise NotApplicable("an empty mapping that is not written {}")
        return TextEdit(offset + 1, offset + 1, f"{scalar_text(edit.key, True)}: {_flow_value(edit.value)}")


# ------------------------------------------------------------------ the data the edits describe

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


def _plain(node: Any) -> Any:
    if isinstance(node, dict):
        return {key: _plain(value) for key, value in node.items()}
    if isinstance(node, list):
        return [_plain(value) for value in node]
    return node


# ------------------------------------------------------------------ one file

@dataclass(frozen=True)
class Planned:
    finding: Finding
    doc: int
    base: tuple[Any, ...]
    edits: tuple[TextEdit, ...]


def fix_file(raw: bytes, display: str, findings: Sequence[Finding], namespace: str = "default") -> FileFixes:
    """Apply the fixes of ``findings`` (all in this file) to ``raw``, as far as they do not
    overlap; returns the new text and which findings were fixed, deferred or failed."""
    planned = plan_file(raw, display, findings, namespace)
    if planned is None:
        return FileFixes("", failed=list(findings))
    text, source, plans, outcome = planned
    if outcome.stale:
        return outcome
    taken = _without_overlaps(plans, outcome.deferred)
    accepted = _verified(text, source, taken, display)
    outcome.applied = [p.finding for p in accepted]
    outcome.failed += [p.finding for p in taken if p not in accepted]
    outcome.text = _apply_text(text.text, [e for p in accepted for e in p.edits])
    return outcome


def plan_file(raw: bytes, display: str, findings: Sequence[Finding], namespace: str = "default"
              ) -> tuple[Text, SourceFile, list[Planned], FileFixes] | None:
    """The text edits of each finding's fix (None: the file is not UTF-8 text)."""
    try:
        text = Text(raw)
    except UnicodeDecodeError:
        return None
    source = parse_bytes(display, raw)
    outcome = FileFixes(text.text)
    planned: list[Planned] = []
    for finding in findings:
        plan = _plan(text, source, finding, namespace)
        if plan == "stale":
            return text, source, [], FileFixes(text.text, failed=list(findings), stale=True)
        if isinstance(plan, Planned):
            planned.append(plan)
        else:
            outcome.failed.append(finding)
    return text, source, planned, outcome


def resolve(findings: Sequence[Finding], read: Any, namespace: str = "default") -> list[Finding]:
    """``findings`` with each fix's text ranges filled in (``Fix.text``); a fix that cannot
    be written safely (or whose file cannot be read with ``read(file)``) is dropped."""
    by_file: dict[str, list[Finding]] = {}
    for finding in findings:
        if finding.fix is not None:
            by_file.setdefault(finding.location.file, []).append(finding)
    resolved: dict[int, Finding] = {}
    for file, fixable in by_file.items():
        raw = read(file)
        planned = plan_file(raw, file, fixable, namespace) if raw is not None else None
        plans = _verified(planned[0], planned[1], planned[2], file) if planned and not planned[3].stale else []
        text = planned[0] if planned else None
        good = {id(plan.finding): plan for plan in plans}
        for finding in fixable:
            plan = good.get(id(finding))
            fix = finding.fix
            assert fix is not None
            new_fix = replace(fix, text=tuple(_range(text, e) for e in plan.edits)) if plan and text else None
            resolved[id(finding)] = replace(finding, fix=new_fix)
    return [resolved.get(id(f), f) for f in findings]


def _range(text: Text, edit: TextEdit) -> TextRange:
    line, column = text.position(edit.start)
    end_line, end_column = text.position(edit.end)
    return TextRange(line, column, end_line, end_column, edit.content)


def _plan(text: Text, source: SourceFile, finding: Finding, namespace: str) -> Planned | str | None:
    from kqlint.objects import objects_from_file

    fix = finding.fix
    if fix is None:
        return None
    objects, _, _ = objects_from_file(source, namespace)
    obj = _object_of(objects, finding)
    if obj is None:
        return None  # not a top-level object (one wrapped in another): not fixed
    if finding.location.path and not _still_there(obj, finding):
        return "stale"
    target = _Target(text, obj.root, obj.base)
    try:
        edits = tuple(e for edit in fix.edits for e in target.edit(edit))
    except (NotApplicable, KeyError, IndexError, TypeError):
        return None
    if any(a.overlaps(b) and not (a.start == a.end == b.start == b.end)
           for i, a in enumerate(edits) for b in edits[i + 1:]):
        return None  # inserts at one point are fine inside a fix: the deeper one goes first
    return Planned(finding, obj.doc, obj.base, edits)


def _object_of(objects: list[Any], finding: Finding) -> Any:
    """The object the finding's location points into: same identity, the last one starting
    at or before the location (the first one for a location before every object)."""
    location = finding.location
    ref = location.obj or finding.obj
    here = (location.line, location.column)
    same = [obj for obj in objects if ref is None or
            (obj.kind, obj.name, obj.api_version) == (ref.kind, ref.name, ref.api_version)]
    before = [obj for obj in same if (obj.location().line, obj.location().column) <= here]
    return before[-1] if before else (same[0] if same else None)


def _still_there(obj: Any, finding: Finding) -> bool:
    """Whether the finding's node is still at its reported position (the file did not change)."""
    full = obj.base + tuple(finding.location.path)
    here = (finding.location.line, finding.location.column)
    return any(position(obj.root, full, value)[:2] == here for value in (False, True)) or \
        position(obj.root, full)[2] < len(full)  # a missing node: at() points at its parent


def _without_overlaps(planned: list[Planned], deferred: list[Finding]) -> list[Planned]:
    taken: list[Planned] = []
    for plan in sorted(planned, key=lambda p: (p.edits[0].start if p.edits else 0, p.finding.sort_key())):
        if any(a.overlaps(b) for other in taken for a in plan.edits for b in other.edits):
            deferred.append(plan.finding)
        else:
            taken.append(plan)
    return taken


def _apply_text(text: str, edits: list[TextEdit]) -> str:
    for edit in sorted(edits, key=lambda e: (e.start, e.end, -_indent(e.content)), reverse=True):
        text = text[:edit.start] + edit.content + text[edit.end:]
    return text


def _indent(content: str) -> int:
    line = content.lstrip("\r\n")
    return len(line) - len(line.lstrip(" "))


def _verified(text: Text, source: SourceFile, planned: list[Planned], display: str) -> list[Planned]:
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
    expected = [_plain(document) for document in source.documents]
    try:
        for plan in planned:
            fix = plan.finding.fix
            assert fix is not None
            apply_to_data(expected[plan.doc], plan.base, fix.edits)
    except (KeyError, IndexError, TypeError, AttributeError):
        return False
    new_text = _apply_text(text.text, [e for p in planned for e in p.edits])
    fixed = parse_bytes(display, text.encoded(new_text))
    old_problems = {(p.code, p.message.split(" (first at")[0]) for p in source.problems}
    if any((p.code, p.message.split(" (first at")[0]) not in old_problems for p in fixed.problems):
        return False
    return bool([_plain(document) for document in fixed.documents] == expected)


def changed_paths(fix: Fix) -> list[tuple[Any, ...]]:
    """The paths a fix touches (for reports)."""
    return [edit.path + ((edit.key,) if edit.op == "insert" else ()) for edit in fix.edits]
