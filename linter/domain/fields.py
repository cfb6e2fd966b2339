"""Typed readers for manifest fields, which may hold anything a YAML file can say.

Each reader states one coercion rule, so that "a non-empty string", "an int that is not a
bool" and "the mappings of a list" are written once. Callers pick the reader whose rule is
theirs; none of them guesses (``integer`` refuses ``"4"``, ``integer_or_digits`` accepts it).
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any


def text(value: Any) -> str | None:
    """``value`` when it is a non-empty string, else None."""
    return value if isinstance(value, str) and value else None


def text_or(value: Any, default: str) -> str:
    """``value`` when it is a non-empty string, else ``default``."""
    return value if isinstance(value, str) and value else default


GO_TRUE = frozenset({"1", "t", "T", "TRUE", "true", "True"})
GO_FALSE = frozenset({"0", "f", "F", "FALSE", "false", "False"})


def go_bool(value: Any) -> bool | None:
    """A string as Go's ``strconv.ParseBool`` reads it (annotations, flags): None when it is not
    one of its spellings."""
    if not isinstance(value, str):
        return None
    return True if value in GO_TRUE else False if value in GO_FALSE else None


def integer(value: Any) -> int | None:
    """``value`` when it is an int (YAML ``true`` is a bool, not 1), else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def is_integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


_GO_DECIMAL = re.compile(r"[+-]?[0-9]+")


def go_int(value: Any, bits: int = 64, signed: bool = True) -> int | None:
    """A string as Go's ``strconv.ParseInt(value, 10, bits)`` reads it (``signed``; else
    ``ParseUint``, which takes no sign): ASCII digits after an optional sign, no spaces or
    underscores, within ``bits``; None when Go returns an error."""
    if not isinstance(value, str) or not _GO_DECIMAL.fullmatch(value) or (not signed and value[0] in "+-"):
        return None
    number = int(value)
    low, high = (-(1 << (bits - 1)), 1 << (bits - 1)) if signed else (0, 1 << bits)
    return number if low <= number < high else None


def integer_or_digits(value: Any) -> int | None:
    """An int, or a string of digits (an annotation's ``"4"``); None otherwise."""
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return integer(value)


def count(value: Any, default: int) -> int:
    """A non-negative count from an int field (negatives read as 0); ``default`` otherwise."""
    found = integer(value)
    return default if found is None else max(found, 0)


def above_one(value: Any) -> bool:
    """An int field greater than 1."""
    found = integer(value)
    return found is not None and found > 1


def mappings(value: Any) -> list[dict[str, Any]]:
    """The mappings in a list field ([] when it is not a list)."""
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def indexed_mappings(value: Any) -> Iterator[tuple[int, dict[str, Any]]]:
    """(index, mapping) for the mappings in a list field; indexes count every item."""
    if isinstance(value, list):
        for index, item in enumerate(value):
            if isinstance(item, dict):
                yield index, item


def strings(value: Any) -> list[str]:
    """The strings in a list field ([] when it is not a list)."""
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def plain(value: Any) -> Any:
    """``value`` as plain dicts and lists: the loader's Map/Seq without their positions (custom
    rules' JMESPath checks exact types; the cache keeps template metadata this way)."""
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [plain(item) for item in value]
    return value


_DNS1123_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_LABEL_VALUE = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?")


def is_dns1123_subdomain(value: Any) -> bool:
    """A Kubernetes DNS-1123 subdomain: at most 253 characters, lowercase alphanumerics, `-`, `.`."""
    return isinstance(value, str) and 0 < len(value) <= 253 and _DNS1123_SUBDOMAIN.fullmatch(value) is not None


def is_label_value(value: Any) -> bool:
    """A valid Kubernetes label value (at most 63 characters; may be empty)."""
    return isinstance(value, str) and len(value) <= 63 and _LABEL_VALUE.fullmatch(value) is not None
