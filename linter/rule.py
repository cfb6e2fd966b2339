"""What a rule is: RuleMeta plus ``check(obj, ctx)`` or ``check_graph(graph, ctx)``.

A rule module, read top to bottom: docstring (the ``kqlint explain`` text with fixed
headings), ``META``, optional ``Options`` dataclass, then ``check``/``check_graph``.
Rules point at nodes (``obj.at(...)``); the engine owns positions, severities,
suppression and output.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any, Literal, Protocol

from kqlint.model import Finding, Location, ObjectRef, Severity

if TYPE_CHECKING:
    from kqlint.fixes import Fix
    from kqlint.graph import ObjectGraph
    from kqlint.objects import K8sObject

DOC_HEADINGS = ("What it catches", "Why it breaks on a cluster", "Bad", "Good", "How to fix")


@dataclass(frozen=True)
class RuleMeta:
    code: str
    slug: str
    severity: Severity
    summary: str
    kinds: frozenset[str] | None = None       # per-object rules: kinds to visit (None = all)
    scope: Literal["object", "graph", "engine"] = "object"
    enabled: bool = True                      # enabled by default
    profile: str | None = None                # only with this profile active
    fix: Literal["safe", "unsafe"] | None = None  # the fixes the rule can offer (None: none)


@dataclass(frozen=True)
class Rule:
    """A loaded rule: metadata, its module and its options type."""

    meta: RuleMeta
    module: ModuleType | None = None
    options_type: type | None = None
    doc: str = ""

    @property
    def code(self) -> str:
        return self.meta.code

    @property
    def slug(self) -> str:
        return self.meta.slug

    def check(self, obj: K8sObject, ctx: RuleContext) -> Iterable[Any]:
        return self.module.check(obj, ctx) if self.module is not None else ()  # type: ignore[no-any-return]

    def check_graph(self, graph: ObjectGraph, ctx: RuleContext) -> Iterable[Any]:
        return self.module.check_graph(graph, ctx) if self.module is not None else ()  # type: ignore[no-any-return]

    def default_options(self) -> Any:
        return self.options_type() if self.options_type is not None else None


class RuleContext:
    """Handed to a rule: the graph, the rule's options, and ``finding()``."""

    def __init__(self, rule: Rule, graph: ObjectGraph, options: Any, config: Any = None) -> None:
        self.rule = rule
        self.graph = graph
        self.options = options
        self.config = config  # the run's Config (KQ002 reads ``crds``); rules use ``options``
        self.findings: list[Finding] = []

    def finding(self, at: Location, message: str,
                related: Sequence[Location | tuple[Location, str]] = (),
                obj: ObjectRef | None = None, severity: Severity | None = None,
                fix: Fix | None = None, remedy: str | None = None) -> Finding:
        """Record a finding at ``at`` (from ``obj.at(...)``). ``related`` items are locations
        or ``(location, message)`` pairs. ``severity`` is only for rules whose severity depends
        on the case (rules.md says so); default META.severity. ``fix`` (kqlint.fixes): edits
        inside the object ``at`` points into. ``remedy``: what to do, when the message does
        not end with it. Returns the finding so rules may ``yield`` it."""
        meta = self.rule.meta
        related_locations = tuple(
            item[0].with_message(item[1]) if isinstance(item, tuple) else item for item in related)
        finding = Finding(meta.code, meta.slug, severity or meta.severity, message, at,
                          obj or at.obj, related_locations, fix=fix, remedy=remedy)
        self.findings.append(finding)
        return finding


def options_from_mapping(options_type: type, values: dict[str, Any]) -> Any:
    """Build an Options dataclass from a config mapping whose keys use dashes."""
    names = {f.name.replace("_", "-"): f.name for f in dataclasses.fields(options_type)}
    kwargs = {names[key]: (tuple(value) if isinstance(value, list) else value)
              for key, value in values.items() if key in names}
    return options_type(**kwargs)


def option_names(options_type: type | None) -> list[str]:
    if options_type is None:
        return []
    return [f.name.replace("_", "-") for f in dataclasses.fields(options_type)]


class RuleModule(Protocol):
    META: RuleMeta


__all__ = ["RuleMeta", "Rule", "RuleContext", "DOC_HEADINGS", "field"]
