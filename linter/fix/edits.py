"""One path edit (kqlint.fix.model.Edit) -> the text edit that writes it, per op, found again in a
fresh parse of the file; what cannot be written safely raises NotApplicable."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from kqlint.fix.model import Edit
from kqlint.fix.render import block_entry, flow_value, scalar_text
from kqlint.fix.text import NotApplicable, Text, TextEdit
from kqlint.loader import Map, Seq, locate, positions_of
from kqlint.model import Finding

_TRAILING = " \t\r\n\x85\u2028\u2029"
_COMMENT = re.compile(r"(^|[ \t])#.*$")
_REST_OF_LINE = re.compile(r"[ \t\]}]*(#[^\r\n]*)?$")


@dataclass(frozen=True)
class Planned:
    """A finding's fix as text edits, with its object's document index and path in that document."""

    finding: Finding
    doc: int
    base: tuple[Any, ...]
    edits: tuple[TextEdit, ...]


class Target:
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
        if not isinstance(node, (Map, Seq)) or len(positions_of(node)) != \
                (2 * len(node) if isinstance(node, Map) else len(node)):
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
        if first == "|" and isinstance(edit.value, str):
            block = self._literal_block(start, end, edit.value)
            if block is not None:
                return TextEdit(start, end, block)
        style = first if first in "'\"" else ""
        return TextEdit(start, end, scalar_text(edit.value, self._entry_in_flow(parent, step), style))

    def _literal_block(self, start: int, end: int, value: str) -> str | None:
        """``value`` as a literal block at the indentation of the block it replaces (embedded
        files such as a ConfigMap's stay readable); None when a literal block cannot say it."""
        text = self.text.text
        content = text.find("\n", start) + 1
        line_end = text.find("\n", content)
        first_line = text[content:line_end if line_end >= 0 else len(text)]
        indent = len(first_line) - len(first_line.lstrip(" "))
        lines = value.split("\n")
        if not content or not indent or not value or value[0] in " \t" or "\r" in value:
            return None
        chomp = "-" if not value.endswith("\n") else "+" if value.endswith("\n\n") else ""
        body = lines[:-1] if value.endswith("\n") else lines
        ending = "\n" if text[end - 1] == "\n" else ""  # the block's span may take its last line break
        return f"|{chomp}\n" + "\n".join(" " * indent + line if line else "" for line in body) + ending

    def _entry_in_flow(self, parent: Any, step: Any) -> bool:
        slot = 2 * list(parent).index(step) if isinstance(parent, Map) else step
        return self.is_flow(self.text.offset(positions_of(parent)[slot]))

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
            start = self.text.offset(positions_of(parent)[2 * index])
        else:
            if not (isinstance(step, int) and 0 <= step < len(parent)):
                raise NotApplicable("no such item")
            index = step
            start = self._item_marker(self.text.offset(positions_of(parent)[index]))
        _, end = self.value_span(parent, step)
        count = len(parent)
        if self.is_flow(self.text.offset(positions_of(parent)[2 * index if isinstance(parent, Map) else index])):
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
            return TextEdit(start, text.offset(positions_of(parent)[2]), "")
        raise NotApplicable("the node shares its line with another")

    def _remove_flow(self, parent: Any, index: int, start: int, end: int) -> TextEdit:
        step = 2 if isinstance(parent, Map) else 1
        if index + 1 < len(parent):
            return TextEdit(start, self.text.offset(positions_of(parent)[step * (index + 1)]), "")
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
        first_key = self.text.offset(positions_of(mapping)[0])
        last_key = list(mapping)[-1]
        _, end = self.value_span(mapping, last_key)
        if self.is_flow(first_key):
            return TextEdit(end, end, f", {scalar_text(edit.key, True)}: {flow_value(edit.value)}")
        value_start = self.text.offset(positions_of(mapping)[-1])
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
        return TextEdit(offset + 1, offset + 1, f"{scalar_text(edit.key, True)}: {flow_value(edit.value)}")
