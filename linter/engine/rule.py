"""The rule contract: what a rule is and what the engine hands it.

A rule module, read top to bottom: docstring (the ``kqlint explain`` text with fixed
headings), ``META``, optional ``Options`` dataclass, optional ``prepare(run)``, then its
hook: ``check(obj, ctx)`` (scope "object": once per input object of ``META.kinds``),
``check_graph(graph, ctx)`` (scope "graph": once per object graph), or, for the engine's
own rules (scope "engine"), ``check_sources(sources, ctx)`` (the files read) or
``check_suppressions(audit, ctx)`` (the suppressions, once every other rule has run).

**Findings are what a hook yields** (or returns as an iterable): every yielded
:class:`~kqlint.model.Finding` is reported (subject to suppressions). ``ctx.finding(...)``
only builds a Finding with the rule's code, slug and severity: a finding built and not
yielded is not reported. Rules point at nodes (``obj.at(...)``); the engine owns positions,
severities, suppression and output.

``prepare(run)`` runs once per lint run, before any hook, with the :class:`Run` (the
configuration and the rules); what it returns is ``ctx.state`` in every hook of that run.
"""
from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Any, Literal, Protocol

from kqlint.domain.kinds import GroupKind
from kqlint.model import Finding, Location, ObjectRef, Severity

if TYPE_CHECKING:
    from kqlint.config import Config
    from kqlint.domain.graph import ObjectGraph
    from kqlint.domain.objects import K8sObject
    from kqlint.engine.suppress import SuppressionIndex
    from kqlint.fix.model import Fix
    from kqlint.loader import LoadProblem, SourceFile

DOC_HEADINGS = ("What it catches", "Why it breaks on a cluster", "Bad", "Good", "How to fix")
# findings one per-object rule call keeps on one object, the last one counting the rest
# (kqlint.engine.runner; KQ002 stops formatting at it too): a hostile list of 50,000 bad items gives 100
MAX_PER_OBJECT = 100
Scope = Literal["object", "graph", "engine"]


@dataclass(frozen=True)
class RuleMeta:
    code: str
    slug: str
    severity: Severity
    summary: str
    # per-object rules: the (group, kind) identities to visit, kqlint.domain.kinds constants (None:
    # every object); a bare kind name (custom rules, older plugins) is that kind in any group
    kinds: frozenset[GroupKind | str] | None = None
    scope: Scope = "object"
    enabled: bool = True                      # enabled by default
    profile: str | None = None                # only with this profile active
    fix: Literal["safe", "unsafe"] | None = None  # the riskiest fix the rule can offer (None: none)
    # judged through queue-name -> LocalQueue -> ClusterQueue: its findings also name, under
    # ``related``, the LocalQueue and ClusterQueue a workload's queue resolved to in another folder
    shows_route: bool = False
    # What the findings cache (kqlint.cache.findings) may reuse of a built-in rule's findings:
    # ``pure``, they depend on its object alone; ``reads``, besides its object it reads only
    # objects of these kinds (kqlint.domain.reading); ``scoped_reads``, the kind it reads whole
    # (not masked) only for the objects a function of (object, objects by kind) picks. Undeclared:
    # the rule runs every time.
    pure: bool = False
    reads: frozenset[GroupKind] | None = None
    scoped_reads: tuple[str, Callable[[Any, dict[str, list[Any]]], list[Any]]] | None = None


@dataclass(frozen=True)
class Run:
    """What ``prepare(run)`` sees: the run's configuration and its rules."""

    config: Config
    rules: Sequence[Rule]      # every rule loaded (built-in, plugins, custom)
    selected: Sequence[Rule]   # the rules this run runs
    kinds: frozenset[tuple[str, str]] = frozenset()  # (apiVersion, kind) of the input objects


@dataclass(frozen=True)
class Sources:
    """What ``check_sources`` sees: the input files read, and what discovery skipped."""

    files: Sequence[SourceFile]                 # each with its load ``problems``
    unreadable: Sequence[tuple[str, str]] = ()  # (path, reason): folders that could not be read
    charts: Mapping[str, Sequence[str]] = dataclasses.field(default_factory=dict)  # Chart.yaml -> templates
    fragments: frozenset[str] = frozenset()     # files that are kustomize patch fragments only

    def problems(self, code: str) -> Iterator[LoadProblem]:
        """The load problems the loader filed under rule ``code``, file by file."""
        return (problem for source in self.files for problem in source.problems if problem.code == code)


@dataclass(frozen=True)
class SuppressionAudit:
    """What ``check_suppressions`` sees, once every other rule's findings were suppressed."""

    index: SuppressionIndex       # each suppression knows whether it silenced something
    objects: Sequence[K8sObject]  # the input objects (owners of annotations and comments)
    reported: Sequence[Finding] = ()  # what the other rules report, no suppression having matched it


class Rule(Protocol):
    """A loaded rule, whatever defines it (a module, a plugin, a custom-rules entry)."""

    @property
    def meta(self) -> RuleMeta: ...
    @property
    def doc(self) -> str: ...
    @property
    def options_type(self) -> type | None: ...
    @property
    def origin(self) -> str: ...  # the module that defines it (plugins are named in error lines)
    @property
    def code(self) -> str: ...
    @property
    def slug(self) -> str: ...

    def prepare(self, run: Run) -> Any: ...
    def check(self, obj: K8sObject, ctx: RuleContext) -> Iterable[Finding]: ...
    def check_graph(self, graph: ObjectGraph, ctx: RuleContext) -> Iterable[Finding]: ...
    def check_sources(self, sources: Sources, ctx: RuleContext) -> Iterable[Finding]: ...
    def check_suppressions(self, audit: SuppressionAudit, ctx: RuleContext) -> Iterable[Finding]: ...


class RuleBase:
    """Defaults for a :class:`Rule`: no setup and no findings from hooks it does not have."""

    meta: RuleMeta

    @property
    def code(self) -> str:
        return self.meta.code

    @property
    def slug(self) -> str:
        return self.meta.slug

    def prepare(self, run: Run) -> Any:
        return None

    def check(self, obj: K8sObject, ctx: RuleContext) -> Iterable[Finding]:
        return ()

    def check_graph(self, graph: ObjectGraph, ctx: RuleContext) -> Iterable[Finding]:
        return ()

    def check_sources(self, sources: Sources, ctx: RuleContext) -> Iterable[Finding]:
        return ()

    def check_suppressions(self, audit: SuppressionAudit, ctx: RuleContext) -> Iterable[Finding]:
        return ()


HOOKS = ("prepare", "check", "check_graph", "check_sources", "check_suppressions")


@dataclass(frozen=True)
class ModuleRule(RuleBase):
    """A rule defined by a module (built-in or plugin): its functions are the hooks."""

    meta: RuleMeta
    module: Any = None            # a module, or any object with the hook functions
    options_type: type | None = None
    doc: str = ""

    @classmethod
    def of(cls, module: ModuleType) -> ModuleRule:
        return cls(module.META, module, getattr(module, "Options", None), inspect.cleandoc(module.__doc__ or ""))

    @property
    def origin(self) -> str:
        return str(getattr(self.module, "__name__", "kqlint"))

    def has(self, hook: str) -> bool:
        return callable(getattr(self.module, hook, None))

    def prepare(self, run: Run) -> Any:
        return self.module.prepare(run) if self.has("prepare") else None

    def check(self, obj: K8sObject, ctx: RuleContext) -> Iterable[Finding]:
        return self._call("check", obj, ctx)

    def check_graph(self, graph: ObjectGraph, ctx: RuleContext) -> Iterable[Finding]:
        return self._call("check_graph", graph, ctx)

    def check_sources(self, sources: Sources, ctx: RuleContext) -> Iterable[Finding]:
        return self._call("check_sources", sources, ctx)

    def check_suppressions(self, audit: SuppressionAudit, ctx: RuleContext) -> Iterable[Finding]:
        return self._call("check_suppressions", audit, ctx)

    def _call(self, hook: str, subject: Any, ctx: RuleContext) -> Iterable[Finding]:
        function = getattr(self.module, hook, None)
        result = function(subject, ctx) if function is not None else None
        return () if result is None else result


class RuleContext:
    """Handed to a rule's hooks: the graph, the rule's options, what ``prepare`` returned
    (``state``), and ``finding()`` to build findings with the rule's code and severity."""

    def __init__(self, rule: Rule, graph: ObjectGraph, options: Any, state: Any = None) -> None:
        self.rule = rule
        self.graph = graph
        self.options = options
        self.state = state

    def finding(self, at: Location, message: str,
                related: Sequence[Location | tuple[Location, str]] = (),
                obj: ObjectRef | None = None, severity: Severity | None = None,
                fix: Fix | None = None, remedy: str | None = None) -> Finding:
        """A finding at ``at`` (from ``obj.at(...)``). ``related`` items are locations
        or ``(location, message)`` pairs. ``severity`` is only for rules whose severity depends
        on the case (rules.md says so); default META.severity. ``fix`` (kqlint.fix.model): edits
        inside the object ``at`` points into. ``message`` says what breaks on the cluster (at
        most 240 characters); ``remedy`` how to fix it (the ``help:`` line). To be yielded."""
        meta = self.rule.meta
        related_locations = tuple(
            item[0].with_message(item[1]) if isinstance(item, tuple) else item for item in related)
        finding = Finding(meta.code, meta.slug, severity or meta.severity, message, at,
                          obj or at.obj, related_locations, fix=fix, remedy=remedy)
        return finding


def options_from_mapping(options_type: type, values: dict[str, Any]) -> Any:
    """Build an Options dataclass from a config mapping whose keys use dashes."""
    names = {f.name.replace("_", "-"): f.name for f in dataclasses.fields(options_type)}
    kwargs = {names[key]: (tuple(value) if isinstance(value, list) else value)
              for key, value in values.items() if key in names}
    return options_type(**kwargs)


__all__ = ["RuleMeta", "Rule", "RuleBase", "ModuleRule", "RuleContext", "Run", "Sources",
           "SuppressionAudit", "DOC_HEADINGS", "HOOKS", "options_from_mapping"]
