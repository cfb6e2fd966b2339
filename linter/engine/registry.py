"""The only place rules are loaded and the only place rule names are matched.

:func:`load_rules` loads the built-in rules (``kqlint.rules.BUILTIN``), plugins (the
entry-point group ``kqlint.rules`` and config ``plugins``) and the config's custom rules,
checks them, and returns a :class:`RuleSet`. :func:`names` (a code or slug, exactly) and
:func:`selects` (a slug, or a code prefix as in ``select: [KQ2]``) are how every setting,
flag and suppression names a rule.
"""
from __future__ import annotations

import dataclasses
import importlib
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from types import ModuleType
from typing import TYPE_CHECKING, Any, Protocol, overload

from kqlint.engine.rule import ModuleRule, Rule, RuleMeta
from kqlint.errors import RegistryError

if TYPE_CHECKING:
    from kqlint.config import Config

ENTRY_POINT_GROUP = "kqlint.rules"
CODE_FORM = re.compile(r"^[A-Z]+[0-9]+$")            # the form custom rule codes have too (X001)
SLUG_FORM = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")
RESERVED_PREFIX = "KQ"                               # built-in rules only


# ------------------------------------------------------------------ names

class Named(Protocol):
    """A rule, or a finding of one."""

    @property
    def code(self) -> str: ...
    @property
    def slug(self) -> str: ...


def names(rule: Named, name: str) -> bool:
    """Whether ``name`` is the rule's code (any case) or slug."""
    text = name.strip()
    return text.upper() == rule.code.upper() or text.lower() == rule.slug


def selects(rule: Named, pattern: str) -> bool:
    """Whether a ``select``/``ignore`` pattern picks the rule: its slug, or a prefix of its code."""
    text = pattern.strip()
    return bool(text) and (text.lower() == rule.slug or rule.code.upper().startswith(text.upper()))


class RuleSet(Sequence[Rule]):
    """Rules sorted by code, with name look-ups. ``loaded`` is the set this one was selected
    from (itself when it was loaded whole): a run's suppression audit knows every rule name."""

    def __init__(self, rules: Iterable[Rule], loaded: RuleSet | None = None) -> None:
        self._rules = tuple(rules)
        self._loaded = loaded

    @classmethod
    def of(cls, rules: Iterable[Rule]) -> RuleSet:
        return rules if isinstance(rules, RuleSet) else cls(rules)

    @property
    def loaded(self) -> RuleSet:
        return self._loaded if self._loaded is not None else self

    @overload
    def __getitem__(self, index: int) -> Rule: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Rule]: ...
    def __getitem__(self, index: int | slice) -> Rule | Sequence[Rule]:
        return self._rules[index]

    def __len__(self) -> int:
        return len(self._rules)

    def __iter__(self) -> Iterator[Rule]:
        return iter(self._rules)

    def __repr__(self) -> str:
        return f"RuleSet({[rule.code for rule in self._rules]})"

    def find(self, name: str) -> Rule | None:
        """The rule whose code or slug ``name`` is, or None."""
        return next((rule for rule in self._rules if names(rule, name)), None)

    def matching(self, pattern: str) -> list[Rule]:
        """The rules a ``select``/``ignore`` pattern picks."""
        return [rule for rule in self._rules if selects(rule, pattern)]

    def selected(self, rules: Iterable[Rule]) -> RuleSet:
        """``rules`` (a subset of this set) as a RuleSet that remembers what was loaded."""
        return RuleSet(rules, self.loaded)


def enable(rules: RuleSet, config: Config, code: str) -> tuple[RuleSet, Config]:
    """Turn rule ``code`` on (a flag such as ``--report-unused-suppressions`` for KQ000),
    also under a narrowed ``select``; an explicit ``ignore`` of it still wins."""
    switched = [replace(r, meta=replace(r.meta, enabled=True)) if r.code == code and isinstance(r, ModuleRule)
                else r for r in rules]
    if config.select and code not in config.select:
        config = config.with_overrides(select=tuple(config.select) + (code,))
    return RuleSet(switched), config


# ------------------------------------------------------------------ loading

def load_rules(config: Config | None = None) -> RuleSet:
    """Every rule a run can use: built-in, plugins and the config's custom rules, by code."""
    plugins = config.plugins if config is not None else ()
    custom: list[Rule] = []
    if config is not None and config.custom_rules:
        from kqlint.engine.custom import custom_rules

        custom = list(custom_rules(config.custom_rules))
    return all_rules(plugins, custom)


def all_rules(plugins: Iterable[str] = (), custom: Iterable[Rule] = ()) -> RuleSet:
    rules = builtin_rules() + plugin_rules(plugins) + list(custom)
    seen: dict[str, Rule] = {}
    for rule in rules:
        for key in (rule.code, rule.slug):
            if key in seen and seen[key] is not rule:
                raise RegistryError(f"rule {rule.code} ({rule.slug}) clashes with {seen[key].code} "
                                    f"({seen[key].slug}): codes and slugs must be unique")
            seen[key] = rule
    return RuleSet(sorted(rules, key=lambda r: r.code))


def builtin_rules() -> list[ModuleRule]:
    from kqlint.rules import BUILTIN

    return [rule_from_module(importlib.import_module(name)) for name in BUILTIN]


def rule_from_module(module: ModuleType, plugin: bool = False) -> ModuleRule:
    meta = getattr(module, "META", None)
    if not isinstance(meta, RuleMeta):
        raise RegistryError(f"rule module {module.__name__} has no META = RuleMeta(...)")
    options_type = getattr(module, "Options", None)
    if options_type is not None and not dataclasses.is_dataclass(options_type):
        raise RegistryError(f"rule module {module.__name__}: Options must be a dataclass")
    hook = {"object": "check", "graph": "check_graph"}.get(meta.scope)
    if hook is not None and not callable(getattr(module, hook, None)):
        signature = "check(obj, ctx)" if hook == "check" else "check_graph(graph, ctx)"
        raise RegistryError(f"rule module {module.__name__} ({meta.code}) has no {signature}")
    if plugin:
        _check_plugin_names(module.__name__, meta)
    return ModuleRule.of(module)


def _check_plugin_names(module: str, meta: RuleMeta) -> None:
    """Plugin codes are letters then digits (like custom rules), never ``KQ``; slugs are
    lower-case words joined by '-' (flake8 checks its plugins' code prefixes the same way)."""
    where = f"rule module {module}"
    if not isinstance(meta.code, str) or not CODE_FORM.match(meta.code):
        raise RegistryError(f"{where}: code {meta.code!r} is not upper-case letters followed by digits, e.g. ACME001")
    if meta.code.startswith(RESERVED_PREFIX):
        raise RegistryError(f"{where}: code {meta.code} starts with {RESERVED_PREFIX}, which is reserved "
                            f"for built-in rules")
    if not isinstance(meta.slug, str) or not SLUG_FORM.match(meta.slug):
        raise RegistryError(f"{where} ({meta.code}): slug {meta.slug!r} is not lower-case words joined by '-'")


def plugin_rules(extra_modules: Iterable[str] = ()) -> list[Rule]:
    """Rules from installed plugins (entry points) and config ``plugins`` (module names)."""
    rules: list[Rule] = []
    seen: set[str] = set()  # a module named by an entry point and by config `plugins` loads once
    for name, loader in sorted(_entry_point_modules() + [(m, m) for m in extra_modules], key=lambda i: i[0]):
        module = _load_plugin(name, loader)
        for member in getattr(module, "RULE_MODULES", None) or [module]:
            member = _load_plugin(name, member) if isinstance(member, str) else member
            if member.__name__ not in seen:
                seen.add(member.__name__)
                rules.append(rule_from_module(member, plugin=True))
    return rules


def _load_plugin(name: str, loader: Any) -> ModuleType:
    try:
        return importlib.import_module(loader) if isinstance(loader, str) else loader.load()
    except (Exception, SystemExit, KeyboardInterrupt) as exc:  # a broken plugin is a configuration error:
        # not a crash, and a plugin calling sys.exit() at import does not decide kqlint's exit status
        from kqlint.sanitize import excerpt, shorten

        raise RegistryError(f"cannot load rule plugin {excerpt(name, 60)}: {type(exc).__name__}: "
                            f"{shorten(str(exc))}") from None


def _entry_point_modules() -> list[tuple[str, object]]:
    from importlib.metadata import entry_points

    return [(ep.name, ep) for ep in entry_points(group=ENTRY_POINT_GROUP)]


__all__ = ["ENTRY_POINT_GROUP", "RuleSet", "load_rules", "all_rules", "builtin_rules", "plugin_rules",
           "rule_from_module", "names", "selects", "enable"]
