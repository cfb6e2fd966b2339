"""How KQ002 words a wrong value: the fix for a quoted number or boolean, a case-only enum
difference, a list where a mapping belongs, and the names of the types involved."""
from __future__ import annotations

import json
from typing import Any

from kqlint.spelling import TYPE_WORDS, closest


def enum_hint(value: Any, choices: tuple[Any, ...]) -> str:
    text = str(value)
    names = [str(c) for c in choices]
    exact = [n for n in names if n.lower() == text.lower()]
    if exact:
        return f"values are case-sensitive: `{exact[0]}`"
    close = closest(text, names, ignore_case=True)
    return f"did you mean `{close}`?" if close else ""


def type_hint(value: Any, expected: tuple[Any, ...]) -> str:
    if value is None:  # only a list item is reported null (kqlint.schema.compile)
        return "remove the empty item (a `-` with nothing after it, `null` or `~`), or write its value"
    if isinstance(value, str) and ("integer" in expected or "number" in expected) and _numeric(value):
        return f"write the number without quotes: `{value.strip()}`"
    if isinstance(value, str) and "boolean" in expected and value.strip().lower() in ("true", "false"):
        return f"write the boolean without quotes: `{value.strip().lower()}`"
    if "string" in expected and isinstance(value, bool):
        return ("YAML reads an unquoted true/false/yes/no/on/off as a boolean: quote the value, "
                f"e.g. `\"{str(value).lower()}\"`")
    if "string" in expected and isinstance(value, (int, float)):
        return f"quote the value: `\"{value}\"`"
    if "array" in expected and isinstance(value, dict):
        return "it takes a list: start each item with `- `"
    if "array" in expected and not isinstance(value, list):
        return f"it takes a list: `[{json.dumps(value)}]`, or one `- item` per line"
    if "object" in expected and isinstance(value, list):
        return "it takes a mapping (key: value), not a list"
    if isinstance(value, (dict, list)) and not {"object", "array"} & set(expected):
        return f"it takes a single value, not a {'list' if isinstance(value, list) else 'mapping'}"
    return ""


def _numeric(text: str) -> bool:
    try:
        float(text.strip())
    except ValueError:
        return False
    return True


def describe_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "a list" if isinstance(value, list) else "a mapping"


def describe_expected(expected: tuple[Any, ...]) -> str:
    names = [t for t in expected if t in TYPE_WORDS]
    if set(names) >= {"integer", "string"}:
        return "an integer or a string"
    return " or ".join(TYPE_WORDS[t] for t in names) or "another type"
