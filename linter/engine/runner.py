"""One lint run: load (kqlint.engine.inputs) -> graph -> rules -> suppress -> Report."""
from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING, Any

from kqlint.config import Config
from kqlint.domain.graph import ObjectGraph
from kqlint.domain.objects import K8sObject
from kqlint.engine.registry import RuleSet, names, selects
from kqlint.engine.rule import MAX_PER_OBJECT, Rule, RuleContext, Run, options_from_mapping
from kqlint.errors import ConfigError

if TYPE_CHECKING:
    from kqlint.cache.findings import Reuse
from kqlint.model import Finding, Report, Severity

KUSTOMIZATION_FILES = frozenset({"kustomization.yaml", "kustomization.yml"})


# ------------------------------------------------------------------ rule selection

def select_rules(rules: Iterable[Rule], config: Config) -> RuleSet:
    """The rules ``config`` turns on (profile, ``select``, ``ignore``), remembering ``rules``."""
    loaded = RuleSet.of(rules)
    return loaded.selected(rule for rule in loaded if _enabled(rule, config))


def _enabled(rule: Rule, config: Config) -> bool:
    meta = rule.meta
    if meta.profile is not None and meta.profile != config.profile:
        return False
    enabled = meta.enabled or meta.profile is not None
    if config.select:  # a rule off by default runs when selected by its own code or slug
        enabled = any(selects(rule, p) for p in config.select) and \
            (enabled or any(names(rule, p) for p in config.select))
    return enabled and not any(selects(rule, p) for p in config.ignore)


# ------------------------------------------------------------------ rules

def _rule_options(rule: Rule, config: Config) -> Any:
    if rule.options_type is None:
        return None
    return options_from_mapping(rule.options_type, config.rules.get(rule.code, {}))


def prepare_rules(rules: RuleSet, config: Config, errors: list[str],
                  kinds: frozenset[tuple[str, str]] = frozenset()) -> tuple[list[Rule], dict[str, Any]]:
    """Each rule's per-run setup (``prepare(run)``, its ``ctx.state``), in this process before
    any --jobs worker forks; a rule whose setup fails is one internal-error line and does not
    run. ``kinds``: (apiVersion, kind) of the input objects."""
    run = Run(config, rules.loaded, rules, kinds)
    ready, states = [], {}
    for rule in rules:
        failed = len(errors)
        state = guarded(rule, partial(rule.prepare, run), "the run's setup", errors, collect=False)
        if len(errors) == failed:
            ready.append(rule)
            states[rule.code] = state
    return ready, states


def run_rules(rules: list[Rule], graph: ObjectGraph, config: Config, errors: list[str],
              jobs: int = 1, states: dict[str, Any] | None = None, stored: Reuse | None = None) -> list[Finding]:
    """Graph rules in this process (beside the workers); per-object rules over the inputs,
    split over ``jobs``. The findings are what the rules yield, or, where what a rule reads is
    unchanged, what it found before (``stored``: kqlint.cache.findings)."""
    findings: list[Finding] = []
    contexts = {r.code: rule_context(r, graph, config, states) for r in rules if r.meta.scope != "engine"}
    object_rules = [(r, contexts[r.code], _scope(r)) for r in rules if r.meta.scope == "object"]
    graph_scoped = [r for r in rules if r.meta.scope == "graph"]
    from kqlint.cache.findings import reuse_for

    reuse = reuse_for(stored, object_rules, graph, graph_scoped)

    def graph_rules() -> None:  # in the parent, beside the workers' per-object rules
        for rule in graph_scoped:
            found = reuse.graph_findings(rule.code)
            if found is None:
                found, ok = _check_graph(rule, graph, contexts[rule.code], errors)
                if ok:
                    reuse.keep_graph_findings(rule.code, found)
            findings.extend(found)

    def check_object(obj: K8sObject) -> tuple[list[Finding], list[str]]:
        found: list[Finding] = []
        failed: list[str] = []
        identity = (obj.group, obj.kind)
        stored = reuse.skip(obj)
        for rule, ctx, scope in object_rules:
            if rule.code not in stored and (scope is None or identity in scope[0] or obj.kind in scope[1]):
                found += guarded(rule, partial(rule.check, obj, ctx), obj.file, failed, bounded=True)
        return found, failed

    from kqlint.engine.parallel import map_chunks

    outcomes = map_chunks(check_object, graph.inputs, jobs, before=graph_rules)
    findings.extend(reuse.merge(graph.inputs, outcomes))
    for found, failed in outcomes:
        findings.extend(found)
        for line in failed:
            _guarded_error(line, errors)
    return findings


def _check_graph(rule: Rule, graph: ObjectGraph, ctx: RuleContext, errors: list[str]) -> tuple[list[Finding], bool]:
    """A graph rule's findings, and whether it ran without an error."""
    failed: list[str] = []
    found: list[Finding] = guarded(rule, partial(rule.check_graph, graph, ctx), "the object graph", failed)
    for line in failed:
        _guarded_error(line, errors)
    return found, not failed


def rule_context(rule: Rule, graph: ObjectGraph, config: Config, states: dict[str, Any] | None) -> RuleContext:
    return RuleContext(rule, graph, _rule_options(rule, config), (states or {}).get(rule.code))


def _scope(rule: Rule) -> tuple[frozenset[tuple[str, str]], frozenset[str]] | None:
    """The (group, kind) pairs a per-object rule visits, and the bare kind names (any API
    group: custom rules' ``match.kinds``, older plugins); None: every object."""
    kinds = rule.meta.kinds
    if kinds is None:
        return None
    return (frozenset(k for k in kinds if not isinstance(k, str)),
            frozenset(k for k in kinds if isinstance(k, str)))


def _guarded_error(line: str, errors: list[str]) -> None:
    """Keep one line per broken rule: the first object (in input order) it failed on."""
    prefix = line.split(")", 1)[0]
    if not any(existing.startswith(prefix) for existing in errors):
        errors.append(line)


def guarded(rule: Rule, call: Callable[[], Any], where: str, errors: list[str], collect: bool = True,
            bounded: bool = False) -> Any:
    """The error boundary around one rule call: a crash becomes one line, other rules go on.
    Returns the findings the call yields, also those yielded before a crash (``collect``),
    or what the call returns. ``bounded``: the call checks one object (kqlint.engine.rule
    MAX_PER_OBJECT)."""
    found: list[Finding] = []
    try:
        if not collect:
            return call()
        if bounded:
            _collect_bounded(call(), found)
        else:
            found.extend(call())
        return found
    except (ConfigError, MemoryError):
        raise  # a custom rule over its budget (exit 2), or out of memory: not a bug in one rule
    except Exception as exc:
        prefix = f"internal error in rule {rule.code} ({rule.slug}"
        if not any(line.startswith(prefix) for line in errors):  # one line per broken rule, not per object
            origin = "" if rule.origin.startswith("kqlint.") else f", plugin module {rule.origin}"
            errors.append(f"{prefix}{origin}) while checking {where}: {type(exc).__name__}: {exc}")
        return found if collect else None


def _collect_bounded(findings: Iterable[Finding], into: list[Finding]) -> None:
    """The findings of one per-object rule call appended to ``into``, at most MAX_PER_OBJECT per
    object they name; the last one kept says how many more there were, so output and memory
    stay bounded by the objects, not by the items a hostile object lists. Appended as they come,
    so what a rule yields before it crashes is kept. (Graph rules relate objects, and distinct
    copies of one object share its identity: KQ003 reports every copy.)"""
    counts: dict[tuple[Any, ...], int] = {}
    last: dict[tuple[Any, ...], int] = {}
    try:
        for finding in findings:
            if finding.obj is None:
                into.append(finding)
                continue
            key = (finding.obj, finding.location.file)
            seen = counts[key] = counts.get(key, 0) + 1
            if seen <= MAX_PER_OBJECT:
                last[key] = len(into)
                into.append(finding)
    finally:
        for key, seen in counts.items():
            if seen > MAX_PER_OBJECT:
                kept = into[last[key]]
                into[last[key]] = replace(kept, message=f"{kept.message} ({seen - MAX_PER_OBJECT} more {kept.code} "
                                                        "findings of this object are not listed)")


def exit_status(report: Report, fail_on: Severity | None) -> int:
    if report.internal_errors:
        return 3
    if fail_on is None:
        return 0
    return 1 if any(f.severity >= fail_on for f in report.findings) else 0
