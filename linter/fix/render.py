"""Values written as YAML text: a scalar as go-yaml reads it back, block and flow entries."""
from __future__ import annotations

import json
from typing import Any

from kqlint.fix.text import BREAKS, NotApplicable
from kqlint.loader.goyaml import resolve_plain

_PLAIN_START_FORBIDDEN = set("-?:,[]{}#&*!|>'\"%@`")
_FLOW_FORBIDDEN = set(",[]{}")


def plain_ok(text: str, flow: bool = False) -> bool:
    """Whether ``text`` written plain reads back as this same string to go-yaml."""
    if not text or text != text.strip() or BREAKS.search(text) or "\t" in text:
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
    if style == "'" and not BREAKS.search(value):
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
    return f"{pad}{name}: {flow_value(value)}{newline}"


def _block_item(value: Any, indent: int, newline: str) -> str:
    pad = " " * indent
    if isinstance(value, dict) and value:
        lines = "".join(block_entry(str(k), v, indent + 2, newline) for k, v in value.items())
        return pad + "- " + lines[indent + 2:]
    if isinstance(value, list) and value:
        return f"{pad}-{newline}" + "".join(_block_item(v, indent + 2, newline) for v in value)
    return f"{pad}- {flow_value(value)}{newline}"


def flow_value(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{scalar_text(str(k), True)}: {flow_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(flow_value(v) for v in value) + "]"
    return scalar_text(value, flow=True)
