"""Placeholders of `envsubst`/`sed` templates in manifest text and names: ``$VAR``, ``${VAR}``,
``${VAR:-default}`` (also ``-=+?`` forms) and upper-case tokens with an underscore
(``PLACEHOLDER_NUM_NODES``). The loader asks whether a file may hold any before it looks
further; the graph asks whether a written name may render to a defined one; KQ006's verdict
(a placeholder where the API expects another type) lives in kqlint.schema.placeholders."""
from __future__ import annotations

import re
from typing import Any

# a default is bounded, so that a search is linear even on `${A:-${A:-…` with no `}`
ENVSUBST = re.compile(r"\$(?:[A-Za-z_][A-Za-z0-9_]*|\{[A-Za-z_][A-Za-z0-9_]*(?::?[-=+?][^}]{0,256})?\})")
_LEADING_ENVSUBST = re.compile(r"\s*" + ENVSUBST.pattern)
WHOLE_ENVSUBST = re.compile(r"\s*" + ENVSUBST.pattern + r"\s*\Z")
TOKEN = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\Z")
# Cheap tests on the file's bytes before any object is walked (see loader.parse_bytes); each
# regex starts with a literal so that it scans fast. `name: NCCL_DEBUG`, an env variable's
# name, is the commonest upper-case token and is a string.
_DOLLAR_HINT = re.compile(rb"[:\-\[,{][ \t]*['\"]?\$\{?[A-Za-z_]")
_TOKEN_HINT = re.compile(rb":(?<!name:)[ \t]+['\"]?[A-Z][A-Z0-9]*_[A-Z0-9_]*['\"]?[ \t]*(?:#|$)", re.MULTILINE)


def may_hold_placeholders(data: bytes) -> bool:
    return (b"$" in data and _DOLLAR_HINT.search(data) is not None) or _TOKEN_HINT.search(data) is not None


def is_placeholder(value: Any) -> bool:
    return isinstance(value, str) and (_LEADING_ENVSUBST.match(value) is not None or TOKEN.match(value) is not None)




def holds_placeholder(value: Any) -> bool:
    """``value`` is a string holding an envsubst placeholder (``$VAR``, ``${VAR}``, ``${VAR:-x}``):
    a template's text, rendered before it is applied (a name, label or amount is judged then)."""
    return isinstance(value, str) and "$" in value and ENVSUBST.search(value) is not None


def may_render_to(template: str, name: str) -> bool:
    """``template``, a name holding placeholders, can render to ``name``: its literal parts
    appear in ``name`` in order, each placeholder standing for at least one character. Found
    by a left-to-right search (the earliest place for each part leaves the most room for the
    rest), never by a regular expression: a pattern of many placeholders backtracks
    exponentially on a name it does not match, and both names come from the repository."""
    first, *middle, last = ENVSUBST.split(template)
    if len(name) < len(first) + len(last) or not name.startswith(first) or not name.endswith(last):
        return False
    position, end = len(first), len(name) - len(last)
    for part in middle:
        found = name.find(part, position + 1, end - 1)  # one character at least for the placeholder before it
        if found < 0:
            return False
        position = found + len(part)
    return end - position >= 1


def may_render_alike(written: str, defined: str) -> bool:
    """A reference ``written`` and an object name ``defined``, one or both unrendered
    templates, may name the same object once rendered (both templates: assumed they may)."""
    written_open, defined_open = holds_placeholder(written), holds_placeholder(defined)
    if written_open and defined_open:
        return True
    if written_open:
        return may_render_to(written, defined)
    return defined_open and may_render_to(defined, written)
