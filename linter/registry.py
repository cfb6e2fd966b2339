"""The rule registry: built-in rule modules (an explicit, sorted tuple), plugins from the
entry-point group ``kqlint.rules`` and config ``plugins``, and declarative custom rules."""
from __future__ import annotations

import dataclasses
import importlib
import inspect
from types import ModuleType
from typing import Iterable

from kqlint.rule import Rule, RuleMeta

# One module per rule, by family (the code's hundreds digit). Keep sorted by code.
BUILTIN_RULE_MODULES: tuple[str, ...] = (
    "kqlint.rules.engine.kq001_invalid_yaml",
    "kqlint.rules.engine.kq006_unrendered_template",
)

ENTRY_POINT_GROUP = "kqlint.rules"


class RegistryError(Exception):
    """A plugin or rule module that cannot be used (config error, exit 2)."""


def rule_from_module(module: ModuleType) -> Rule:
    meta = getattr(module, "META", None)
    if not isinstance(meta, RuleMeta):
        raise RegistryError(f"rule module {module.__name__} has no META = RuleMeta(...)")
    options_type = getattr(module, "Options", None)
    if options_type is not None and not dataclasses.is_dataclass(options_type):
        raise RegistryError(f"rule module {module.__name__}: Options must be a dataclass")
    if meta.scope == "object" and not hasattr(module, "check"):
        raise RegistryError(f"rule module {module.__name__} ({meta.code}) has no check(obj, ctx)")
    if meta.scope == "graph" and not hasattr(module, "check_graph"):
        raise RegistryError(f"rule module {module.__name__} ({meta.code}) has no check_graph(graph, ctx)")
    return Rule(meta, module, options_type, inspect.cleandoc(module.__doc__ or ""))


def builtin_rules() -> list[Rule]:
    return [rule_from_module(importlib.import_module(name)) for name in BUILTIN_RULE_MODULES]


def plugin_rules(extra_modules: Iterable[str] = ()) -> list[Rule]:
    """Rules from installed plugins (entry points) and config ``plugins`` (module names)."""
    rules: list[Rule] = []
    for name, loader in sorted(_entry_point_modules() + [(m, m) for m in extra_modules]):
        try:
            module = importlib.import_module(loader) if isinstance(loader, str) else loader.load()
        except Exception as exc:  # a broken plugin is a configuration error, not a crash
            raise RegistryError(f"cannot load rule plugin {name!r}: {type(exc).__name__}: {exc}") from exc
        modules = getattr(module, "RULE_MODULES", None) or [module]
        rules.extend(rule_from_module(m) for m in modules)
    return rules


def _entry_point_modules() -> list[tuple[str, object]]:
    from importlib.metadata import entry_points

    return [(ep.name, ep) for ep in entry_points(group=ENTRY_POINT_GROUP)]


def all_rules(plugins: Iterable[str] = (), custom: Iterable[Rule] = ()) -> list[Rule]:
    rules = builtin_rules() + plugin_rules(plugins) + list(custom)
    seen: dict[str, Rule] = {}
    for rule in rules:
        for key in (rule.code, rule.slug):
            if key in seen and seen[key] is not rule:
                raise RegistryError(f"rule {rule.code} ({rule.slug}) clashes with {seen[key].code} "
                                    f"({seen[key].slug}): codes and slugs must be unique")
            seen[key] = rule
    return sorted(rules, key=lambda r: r.code)


def find_rule(rules: Iterable[Rule], name: str) -> Rule | None:
    wanted = name.strip()
    for rule in rules:
        if rule.code.upper() == wanted.upper() or rule.slug == wanted.lower():
            return rule
    return None
