"""Make untrusted text harmless before it reaches a terminal, a CI log or an error line.

Object names, keys, file names and custom-rule messages come from the repository being
linted. Printed raw they could move the cursor or rewrite the screen (ESC/CSI/OSC, CR),
hide text (bidi overrides, NUL) or start a GitHub Actions workflow command (a line
beginning with ``::error``/``::add-mask`` or the legacy ``##[``). :func:`terminal_safe`
turns every such character into a visible escape; :func:`excerpt` also shortens.
"""
from __future__ import annotations

import re
from typing import Any

# C0 (but TAB), DEL, C1, bidi embeddings/overrides/isolates and marks, line/paragraph
# separators, BOM, lone surrogates (non-UTF-8 file names decoded with surrogateescape).
_UNSAFE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029"
                     "\u202a-\u202e\u2066-\u2069\ufeff\ud800-\udfff]")
_WORKFLOW_COMMAND = re.compile(r"^(\s*):(?=:)|##\[", re.M)
EXCERPT_CHARS = 80


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if 0xDC80 <= code <= 0xDCFF:  # a byte of a non-UTF-8 file name (surrogateescape)
        return f"\\x{code - 0xDC00:02x}"
    if code < 0x100:
        return {"\n": "\\n", "\r": "\\r"}.get(match.group(), f"\\x{code:02x}")
    return f"\\u{code:04x}"


def _defuse(match: re.Match[str]) -> str:
    if match.group() == "##[":
        return "#\\x23["
    return match.group(1) + "\\x3a"


def terminal_safe(s: str) -> str:
    """``s`` on one line, with control, bidi and undecodable characters escaped (``\\x1b``,
    ``\\u202e``, ``\\xff``) and no workflow command it could start (``::`` at the start,
    ``##[`` anywhere)."""
    if not isinstance(s, str):
        s = str(s)
    if _UNSAFE.search(s):
        s = _UNSAFE.sub(_escape, s)
    if "::" in s or "##[" in s:
        s = _WORKFLOW_COMMAND.sub(_defuse, s)
    return s


def safe_lines(text: str) -> str:
    """Multi-line output made by kqlint (its own line breaks kept): control characters in
    each line escaped, no line able to start a workflow command."""
    return "\n".join(terminal_safe(line) for line in text.split("\n"))


def excerpt(value: Any, limit: int = EXCERPT_CHARS) -> str:
    """A short, escaped representation of an input value for an error message: at most
    about ``limit`` characters, never the whole of a huge or deeply nested value."""
    if isinstance(value, bool) or value is None:
        text = repr(value)
    elif isinstance(value, int):
        text = _int_text(value)
    elif isinstance(value, (str, float)):
        text = repr(value[:limit + 1] if isinstance(value, str) else value)
    elif isinstance(value, (dict, list, tuple)):
        text = _container_text(value, limit)
    else:
        text = f"<{type(value).__name__}>"
    text = terminal_safe(text)
    return text if len(text) <= limit else text[:limit] + "…"


def _int_text(value: int) -> str:
    if value.bit_length() > 200:  # str() of a huge int is slow, or refused past 4,300 digits
        return f"<integer of {value.bit_length()} bits>"
    return str(value)


def _container_text(value: Any, limit: int) -> str:
    """The start of a container's repr, built without walking more than ``limit`` parts."""
    parts: list[str] = []
    size = 0
    items = value.items() if isinstance(value, dict) else value
    for index, item in enumerate(items):
        if size > limit or index >= limit:
            parts.append("…")
            break
        if isinstance(value, dict):
            text = f"{excerpt(item[0], limit // 2)}: {_leaf(item[1], limit // 2)}"
        else:
            text = _leaf(item, limit // 2)
        parts.append(text)
        size += len(text) + 2
    open_, close = ("{", "}") if isinstance(value, dict) else ("[", "]")
    return open_ + ", ".join(parts) + close


def _leaf(value: Any, limit: int) -> str:
    if isinstance(value, dict):
        return "{…}" if value else "{}"
    if isinstance(value, (list, tuple)):
        return "[…]" if value else "[]"
    return excerpt(value, limit)


def error_line(message: str, limit: int = 2000) -> str:
    """One stderr line: escaped, and never longer than ``limit`` characters."""
    text = terminal_safe(message)
    return text if len(text) <= limit else text[:limit] + "… (message shortened)"


_JSON_UNSAFE = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff\ud800-\udfff]")


def json_safe(text: str) -> str:
    """JSON text (as ``json.dumps(..., ensure_ascii=False)`` makes it) with the characters a
    terminal would act on or that cannot be encoded (lone surrogates of non-UTF-8 file
    names) written as ``\\uXXXX`` escapes: the same JSON value, safe bytes."""
    text = _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    return text.replace("##[", "#\\u0023[")  # the legacy workflow-command prefix, even mid-line


def shorten(text: str, limit: int = 200) -> str:
    """``text`` escaped (as :func:`terminal_safe`) and cut to about ``limit`` characters."""
    text = terminal_safe(text[:limit + 1])
    return text if len(text) <= limit else text[:limit] + "…"


_UNDECODABLE = re.compile("[\udc80-\udcff]")


def undecodable_escaped(text: str) -> str:
    """``text`` with the bytes of a non-UTF-8 file name (surrogateescape) as ``\\xNN`` text:
    a plain string that can be written, read back and compared."""
    return _UNDECODABLE.sub(lambda m: f"\\x{ord(m.group()) - 0xDC00:02x}", text) if _UNDECODABLE.search(text) else text


def markup_safe(text: str) -> str:
    """For rich markup: :func:`terminal_safe`, then rich's own escaping of ``[``."""
    from rich.markup import escape

    return escape(terminal_safe(text))
