"""Typed readers for manifest fields, which may hold anything a YAML file can say.

Each reader states one coercion rule, so that "a non-empty string", "an int that is not a
bool" and "the mappings of a list" are written once. Callers pick the reader whose rule is
theirs; none of them guesses (``integer`` refuses ``"4"``, ``integer_or_digits`` accepts it).
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any


def text(value: Any) -> str | None:
    """``value`` when it is a non-empty string, else None."""
    return value if isinstance(value, str) and value else None


def text_or(value: Any, default: str) -> str:
    """``value`` when it is a non-empty string, else ``default``."""
    return value if isinstance(value, str) and value else default


def integer(value: Any) -> int | None:
    """``value`` when it is an int (YAML ``true`` is a bool, not 1), else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def is_integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


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


def label_text(value: Any) -> str:
    """A label value as the API server stores it (a YAML boolean or number becomes its text)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


def selector_matches(selector: Any, labels: dict[str, str]) -> bool | None:
    """Whether a LabelSelector matches ``labels``; None when the selector cannot be read."""
    if not isinstance(selector, dict):
        return None
    match_labels = selector.get("matchLabels") or {}
    expressions = selector.get("matchExpressions") or []
    if not isinstance(match_labels, dict) or not isinstance(expressions, list):
        return None
    if any(labels.get(str(k)) != label_text(v) for k, v in match_labels.items()):
        return False
    results = [_expression_matches(e, labels) for e in expressions]
    if None in results:
        return None
    return all(results)


def _expression_matches(expression: Any, labels: dict[str, str]) -> bool | None:
    if not isinstance(expression, dict):
        return None
    key, operator = str(expression.get("key")), expression.get("operator")
    values = expression.get("values") or []
    if not isinstance(values, list):
        return None
    values = [label_text(v) for v in values]
    if operator == "In":
        return key in labels and labels[key] in values
    if operator == "NotIn":
        return key not in labels or labels[key] not in values
    if operator == "Exists":
        return key in labels
    if operator == "DoesNotExist":
        return key not in labels
    return None
