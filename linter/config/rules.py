"""Rule names and options in a configuration, checked once plugins and custom rules are
loaded (the runner calls :func:`check_rule_names`): codes, slugs and prefixes in
``select``/``ignore``/``severity``/``rules`` name real rules, and each ``rules.<CODE>``
mapping matches the JSON Schema derived from the rule's ``Options`` dataclass. Slugs are
normalised to codes."""
from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from kqlint.config.schema_errors import validate_schema
from kqlint.config.settings import Config
from kqlint.config.validate import check_profile
from kqlint.errors import ConfigError
from kqlint.spelling import suggest

if TYPE_CHECKING:
    from kqlint.engine.registry import RuleSet
    from kqlint.engine.rule import Rule

def check_rule_names(config: Config, rules: Iterable[Rule]) -> Config:
    """Check every rule name and option in ``config`` against ``rules``; return the config
    with ``severity`` and ``rules`` keyed by rule code (slugs resolved)."""
    from kqlint.engine.registry import RuleSet

    rules = RuleSet.of(rules)
    from_file = _from_file(config, ("profile",), config.profile)
    check_profile(config.profile, config.origin if from_file else None)
    for key in ("select", "ignore"):
        for pattern in getattr(config, key):
            if not rules.matching(pattern):
                raise _name_error(config, key, pattern, rules,
                                  f"{pattern!r} matches no rule code, slug or code prefix")
    severity = {_exact(config, "severity", name, rules).code: level for name, level in config.severity.items()}
    options: dict[str, dict[str, Any]] = {}
    for name, values in config.rules.items():
        rule = _exact(config, "rules", name, rules)
        if rule.code in options:
            raise _name_error(config, "rules", name, [], f"options for {rule.code} are given twice")
        _check_options(config, name, rule, values)
        options[rule.code] = dict(values or {})
    return replace(config, severity=severity, rules=options)


def _exact(config: Config, key: str, name: str, rules: RuleSet) -> Rule:
    rule = rules.find(name)
    if rule is None:
        raise _name_error(config, key, name, rules, f"unknown rule {name!r}")
    return rule


def _name_error(config: Config, key: str, name: str, rules: Sequence[Rule], message: str) -> ConfigError:
    hint = suggest(name, [r.code for r in rules] + [r.slug for r in rules]) if rules else ""
    hint = hint if "did you mean" in hint else (" (`kqlint rules` lists them)" if rules else "")
    origin, data = config.origin, config.origin.data if config.origin else None
    if key in ("select", "ignore"):
        items = data.get(key) if isinstance(data, dict) else None
        if isinstance(items, list) and name in items:
            index = items.index(name)
            return ConfigError(f"{origin.where((key, index), True)}: {key}[{index}]: {message}{hint}")  # type: ignore[union-attr]
        return ConfigError(f"--{key}: {message}{hint}")
    if origin is not None and _from_file(config, (key, name), None):
        return ConfigError(f"{origin.where((key, name))}: {key}.{name}: {message}{hint}")
    return ConfigError(f"{key}.{name}: {message}{hint}")


def _from_file(config: Config, path: tuple[Any, ...], value: Any) -> bool:
    """Whether ``path`` exists in the config file (and holds ``value`` unless it is None)."""
    node = config.origin.data if config.origin is not None else None
    for step in path:
        if not isinstance(node, dict) or step not in node:
            return False
        node = node[step]
    return value is None or node == value


def _check_options(config: Config, name: str, rule: Rule, values: dict[str, Any] | None) -> None:
    if not values:
        return
    origin = config.origin if _from_file(config, ("rules", name), None) else None
    if rule.options_type is None:
        key = next(iter(values))
        message = f"{rule.code} ({rule.slug}) has no options, but `{key}` is given"
        where = origin.where(("rules", name, key)) + ": " if origin is not None else ""
        raise ConfigError(f"{where}rules.{name}: {message}")
    validate_schema(values, options_schema(rule.options_type), origin, ("rules", name))


def options_schema(options_type: type) -> dict[str, Any]:
    """JSON Schema of a rule's ``rules.<CODE>`` mapping, derived from its Options dataclass
    (field ``foo_bar`` is the key ``foo-bar``; tuple fields are lists)."""
    try:
        hints = typing.get_type_hints(options_type)
    except Exception:
        hints = {}
    properties = {f.name.replace("_", "-"): _type_schema(hints.get(f.name, Any))
                  for f in dataclasses.fields(options_type)}
    return {"type": ["object", "null"], "properties": properties, "additionalProperties": False}


def _type_schema(hint: Any) -> dict[str, Any]:
    simple = {str: "string", bool: "boolean", int: "integer", float: "number", type(None): "null"}
    if hint in simple:
        return {"type": simple[hint]}
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (tuple, list, set, frozenset) or origin is typing.Sequence:
        if origin is tuple and args and args[-1] is not Ellipsis:
            return {"type": "array", "prefixItems": [_type_schema(a) for a in args],
                    "minItems": len(args), "maxItems": len(args)}
        return {"type": "array", "items": _type_schema(args[0]) if args else {}}
    if origin is dict:
        return {"type": "object", "additionalProperties": _type_schema(args[1]) if len(args) == 2 else {}}
    if origin is typing.Union or origin is types.UnionType:
        return {"anyOf": [_type_schema(a) for a in args]}
    if origin is typing.Literal:
        return {"enum": list(args)}
    return {}

