"""Placeholders of `envsubst`/`sed` templates in manifest text and names: ``$VAR``, ``${VAR}``,
``${VAR:-default}`` (also ``-=+?`` forms) and upper-case tokens with an underscore
(``PLACEHOLDER_NUM_NODES``). The loader asks whether a file may hold any before it looks
further; the graph asks whether a written name may render to a defined one; KQ006's verdict
(a placeholder where the API expects another type) lives in kqlint.schema.placeholders."""
from __future__ import annotations

import re
from typing import Any

ENVSUBST = re.compile(r"\$(?:[A-Za-z_][A-Za-z0-9_]*|\{[A-Za-z_][A-Za-z0-9_]*(?::?[-=+?][^}]*)?\})")
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


# What a placeholder in an object name may render to: non-empty DNS-label-ish text.
_RENDERED = r"[A-Za-z0-9](?:[-A-Za-z0-9_.]*[A-Za-z0-9])?"


def holds_placeholder(name: str) -> bool:
    """``name`` holds an envsubst placeholder (``$VAR``, ``${VAR}``, ``${VAR:-x}``)."""
    return "$" in name and ENVSUBST.search(name) is not None


def name_pattern(name: str) -> re.Pattern[str]:
    """The names ``name`` can render to: its literal text, each placeholder any non-empty
    DNS-label-ish text (a ``${VAR:-x}`` default is one of those)."""
    parts = ENVSUBST.split(name)
    return re.compile(_RENDERED.join(re.escape(part) for part in parts) + r"\Z")


def may_render_alike(written: str, defined: str) -> bool:
    """A reference ``written`` and an object name ``defined``, one or both unrendered
    templates, may name the same object once rendered (both templates: assumed they may)."""
    written_open, defined_open = holds_placeholder(written), holds_placeholder(defined)
    if written_open and defined_open:
        return True
    if written_open:
        return name_pattern(written).match(defined) is not None
    return defined_open and name_pattern(defined).match(written) is not None
