"""Make user-controlled text safe to print on a terminal.

Minimal placeholder (the "security" branch writes the full implementation under this exact
name): every C0/C1 control character except newline and tab, and DEL, is replaced by its
``\\xNN`` escape, so a file name or YAML value cannot move the cursor, change colours or
rewrite the terminal title.
"""
from __future__ import annotations

import re

_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def terminal_safe(text: str) -> str:
    return _CONTROL.sub(lambda match: f"\\x{ord(match.group()):02x}", text)
