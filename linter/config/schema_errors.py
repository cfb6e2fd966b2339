"""A configuration checked against a JSON Schema (``schemas/config.schema.json``, or a rule's
options schema): the first violation in document order becomes one ``ConfigError`` worded
for a person (``file:line:col: key.path: message``)."""
from __future__ import annotations

import functools
import json
from typing import Any

from kqlint.config.settings import ConfigOrigin
from kqlint.errors import ConfigError
from kqlint.spelling import TYPE_WORDS, dotted, suggest

# a config file spells a boolean true/false; null is a value there too
_TYPE_WORDS = {**TYPE_WORDS, "boolean": "true or false", "null": "null"}


@functools.lru_cache(maxsize=1)
def config_schema() -> dict[str, Any]:
    """``schemas/config.schema.json``."""
    from importlib.resources import files

    text = files("kqlint.schemas").joinpath("config.schema.json").read_text(encoding="utf-8")
    return json.loads(text)  # type: ignore[no-any-return]


def validate_schema(data: Any, schema: dict[str, Any], origin: ConfigOrigin | None,
                    prefix: tuple[Any, ...] = ()) -> None:
    """Raise one ConfigError for the first schema violation in document order
    (no position when ``origin`` is None: the settings did not come from a file)."""
    from jsonschema import Draft202012Validator

    errors = list(Draft202012Validator(schema).iter_errors(data))
    # a misspelt key also makes a required key "missing": report the misspelling
    misspelt = {tuple(e.absolute_path) for e in errors if e.validator == "additionalProperties"}
    problems = []
    for error in errors:
        if error.validator == "required" and tuple(error.absolute_path) in misspelt:
            continue
        path, at_value, message = _explain(error)
        full = prefix + path
        if origin is None:
            problems.append((0, 0, label(full, message)))
            continue
        where = origin.where(full, at_value)
        line, column = (int(part) for part in where.rsplit(":", 2)[1:])
        problems.append((line, column, f"{where}: {label(full, message)}"))
    if problems:
        raise ConfigError(min(problems)[2])


def _explain(error: Any) -> tuple[tuple[Any, ...], bool, str]:
    """(key path, point at the value?, message) for one jsonschema error."""
    path = tuple(error.absolute_path)
    schema = error.schema if isinstance(error.schema, dict) else {}
    custom = schema.get("x-message")
    validator = error.validator
    if "propertyNames" in error.relative_schema_path:
        return path + (error.instance,), False, f"{custom or error.message}, not {error.instance!r}"
    if validator == "additionalProperties":
        allowed = sorted(schema.get("properties", {}))
        key = next(k for k in error.instance if k not in allowed)
        return path + (key,), False, f"unknown key `{key}`{suggest(str(key), allowed)}"
    if custom and validator in ("pattern", "not", "maxLength"):
        return path, True, f"{custom}, not {_show(error.instance)}"
    if validator == "type":
        return path, True, f"must be {_describe_types(error.validator_value)}, not {_type_name(error.instance)}"
    if validator == "anyOf":
        choices = [s.get("type", "value") for s in error.validator_value if isinstance(s, dict)]
        return path, True, f"must be {_describe_types(choices)}, not {_type_name(error.instance)}"
    if validator == "enum":
        choices = [str(c) for c in error.validator_value if c is not None]  # null: the key may be left empty
        hint = suggest(str(error.instance), choices)
        return path, True, (f"{_show(error.instance)} is not one of {', '.join(choices)}"
                            f"{hint if 'did you mean' in hint else ''}")
    if validator == "required":
        missing = [k for k in error.validator_value if k not in error.instance]
        return path, False, f"missing required key `{missing[0]}`"
    if validator in ("minLength", "minItems"):
        return path, True, "must not be empty"
    if validator == "minimum":
        return path, True, f"must be at least {error.validator_value}, not {_show(error.instance)}"
    if validator == "maximum":
        return path, True, f"must be at most {error.validator_value}, not {_show(error.instance)}"
    if validator == "maxItems":
        return path, True, f"at most {error.validator_value} entries, not {len(error.instance)}"
    return path, True, error.message


def label(path: tuple[Any, ...], message: str) -> str:
    """``rules.KQ101.resource: message`` (just the message for the top level)."""
    text = dotted(path)
    return f"{text}: {message}" if text else message


def _show(value: Any) -> str:
    from kqlint.sanitize import excerpt

    return excerpt(value) if isinstance(value, (str, int, float)) and not isinstance(value, bool) \
        else _type_name(value)


def _describe_types(types_: Any) -> str:
    flat: list[str] = []
    for item in [types_] if isinstance(types_, str) else types_:
        flat.extend([item] if isinstance(item, str) else item)
    names = [t for t in dict.fromkeys(flat) if t != "null"] or ["null"]
    return " or ".join(_TYPE_WORDS.get(t, t) for t in names)


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"a boolean ({str(value).lower()})"
    if isinstance(value, (int, float, str)):
        from kqlint.sanitize import excerpt

        return f"a {'string' if isinstance(value, str) else 'number'} ({excerpt(value)})"
    return "a list" if isinstance(value, list) else "a mapping" if isinstance(value, dict) else type(value).__name__
