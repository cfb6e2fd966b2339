"""The fix model, its text edits, and the passes of --fix.

Turn the path edits of fixes (kqlint.fix.model) into exact text edits of one file, and apply them.

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

Modules: ``text`` (the file's text and text edits), ``render`` (values as YAML text), ``edits``
(one path edit -> one text edit, per op), ``verify`` (the edited text parses to the intended
data), ``plan`` (one file: planning, overlaps, applying; ``resolve`` for reports), ``passes``
(--fix's passes and its one writer), ``noqa`` (``check --add-noqa``: a suppression comment
per finding, verified the same way and written by the same writer).
"""
from __future__ import annotations

from kqlint.fix.plan import FileFixes as FileFixes
from kqlint.fix.plan import changed_paths as changed_paths
from kqlint.fix.plan import fix_file as fix_file
from kqlint.fix.plan import plan_file as plan_file
from kqlint.fix.plan import resolve as resolve
from kqlint.fix.render import block_entry as block_entry
from kqlint.fix.render import plain_ok as plain_ok
from kqlint.fix.render import scalar_text as scalar_text
from kqlint.fix.text import BOM as BOM
from kqlint.fix.text import NotApplicable as NotApplicable
from kqlint.fix.text import Text as Text
from kqlint.fix.text import TextEdit as TextEdit
from kqlint.fix.verify import apply_to_data as apply_to_data
