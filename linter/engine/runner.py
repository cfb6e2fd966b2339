"""One lint run: load (kqlint.engine.inputs) -> graph -> rules -> suppress -> Report."""
from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

from kqlint.config import Config, check_rule_names
from kqlint.domain.graph import ObjectGraph
from kqlint.domain.objects import INPUT, K8sObject
from kqlint.engine.inputs import (
    Loaded,
    context_beyond_inputs,
    context_paths,
    context_without,
    external_objects,
    load_context,
    load_paths,
)
from kqlint.engine.registry import RuleSet, names, selects
from kqlint.engine.rule import Rule, RuleContext, Run, Sources, SuppressionAudit, options_from_mapping
from kqlint.engine.suppress import Suppression, SuppressionIndex, apply
from kqlint.errors import ConfigError, CrdError, UsageError
from kqlint.model import Finding, Report, Severity, Summary
from kqlint.project.discover import Discovery

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


def prepare_rules(rules: RuleSet, config: Config, errors: list[str]) -> tuple[list[Rule], dict[str, Any]]:
    """Each rule's per-run setup (``prepare(run)``, its ``ctx.state``); a rule whose setup
    fails is one internal-error line and does not run."""
    run = Run(config, rules.loaded, rules)
    ready, states = [], {}
    for rule in rules:
        failed = len(errors)
        state = _guarded(rule, partial(rule.prepare, run), "the run's setup", errors, collect=False)
        if len(errors) == failed:
            ready.append(rule)
            states[rule.code] = state
    return ready, states


def run_rules(rules: list[Rule], graph: ObjectGraph, config: Config, errors: list[str],
              jobs: int = 1, states: dict[str, Any] | None = None) -> list[Finding]:
    """Graph rules in this process (beside the workers); per-object rules over the inputs,
    split over ``jobs``. The findings are what the rules yield."""
    findings: list[Finding] = []
    contexts = {r.code: _context(r, graph, config, states) for r in rules if r.meta.scope != "engine"}
    object_rules = [(r, contexts[r.code], _scope(r)) for r in rules if r.meta.scope == "object"]
    graph_scoped = [r for r in rules if r.meta.scope == "graph"]
    from kqlint.cache.findings import reuse_for

    reuse = reuse_for(object_rules, graph, graph_scoped)  # stored findings where what a rule reads is unchanged

    def graph_rules() -> None:  # in the parent, beside the workers' per-object rules
        for rule in graph_scoped:
            findings.extend(reuse.graph_findings(
                rule.code, partial(_check_graph, rule, graph, contexts[rule.code], errors)))

    def check_object(obj: K8sObject) -> tuple[list[Finding], list[str]]:
        found: list[Finding] = []
        failed: list[str] = []
        identity = (obj.group, obj.kind)
        stored = reuse.skip(obj)
        for rule, ctx, scope in object_rules:
            if rule.code not in stored and (scope is None or identity in scope[0] or obj.kind in scope[1]):
                found += _guarded(rule, partial(rule.check, obj, ctx), obj.file, failed)
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
    found: list[Finding] = _guarded(rule, partial(rule.check_graph, graph, ctx), "the object graph", failed)
    for line in failed:
        _guarded_error(line, errors)
    return found, not failed


def _context(rule: Rule, graph: ObjectGraph, config: Config, states: dict[str, Any] | None) -> RuleContext:
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


def _guarded(rule: Rule, call: Callable[[], Any], where: str, errors: list[str], collect: bool = True) -> Any:
    """The error boundary around one rule call: a crash becomes one line, other rules go on.
    Returns the findings the call yields, also those yielded before a crash (``collect``),
    or what the call returns."""
    found: list[Finding] = []
    try:
        if not collect:
            return call()
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


# ------------------------------------------------------------------ run

def lint(paths: list[str], config: Config | None = None, *, context: Iterable[str] = (),
         inline_suppressions: bool = True, rules: Iterable[Rule] | None = None,
         auto_context: bool = True, progress: Callable[[int, int], None] | None = None,
         jobs: int = 1, cache: Any = None) -> Report:
    """Lint ``paths`` and return the Report (the public Python API). With ``auto_context``,
    individual files (as pre-commit passes them) get their repository's manifests as context.
    ``progress(done, total)`` is called as input files are loaded (the CLI's progress bar);
    ``jobs`` > 1 forks worker processes for parsing and per-object rules; ``cache``
    (a kqlint.cache.FileCache) skips parsing files that did not change."""
    from kqlint.project.containment import contain_config

    config, notes = contain_config(config or Config())  # config context:/crds: outside the repository
    config, selected = prepare(config, rules)
    named, note = context_paths(paths, context, config, auto_context)
    notes += [note] if note else []
    if cache is None:
        return _lint_loaded(paths, named, config, selected, inline_suppressions, progress, jobs, notes)
    from kqlint.cache.run import cached_run

    report: Report = cached_run(cache, paths, named, config, list(selected), inline_suppressions,
                        lambda: _lint_loaded(paths, named, config, selected, inline_suppressions,
                                             progress, jobs, notes, cache))
    _remember_reads(cache, paths, named, config)
    return report


def _lint_loaded(paths: list[str], named_context: list[str], config: Config, selected: RuleSet,
                 inline_suppressions: bool, progress: Callable[[int, int], None] | None, jobs: int,
                 notes: list[str], cache: Any = None) -> Report:
    inputs, found = load_paths(paths, config, INPUT, progress, jobs, cache=cache)
    if found.missing:
        raise UsageError(f"path does not exist: {found.missing[0]}")
    context_loaded = load_context(named_context, config, inputs, jobs, cache, input_paths=paths)
    report = analyze(inputs, found, context_loaded.objects, config, selected, inline_suppressions, jobs)
    from kqlint.engine.lifetime import keep

    keep(inputs, context_loaded)  # the command exits without freeing them
    notes = notes + inputs.notes + context_loaded.notes
    return replace(report, notes=tuple(dict.fromkeys(notes))) if notes else report


@dataclass
class KeptContext:
    """A run's context read once (load_context() of context_paths([path])) and what is worked
    out from it and the files on disk alone, kept between lints of unsaved buffers (kqlint.server);
    made again when a file changes on disk."""

    loaded: Loaded
    _scopes: dict[frozenset[str], Any] = field(default_factory=dict)

    def scope(self, objects: list[K8sObject], config: Config) -> Any:
        """scope_of(objects): the same files (an edited buffer's among them) make the same Scope."""
        from kqlint.project.scope import scope_of

        files = frozenset(obj.file for obj in objects)
        if files not in self._scopes:
            self._scopes = {files: scope_of(objects, config)}
        return self._scopes[files]


def lint_text(path: str, raw: bytes, config: Config, selected: RuleSet, context: KeptContext,
              inline_suppressions: bool = True) -> Report:
    """What ``lint([path])`` reports once ``raw`` is saved as the file ``path`` (an editor's
    unsaved buffer, kqlint.server), against ``context``. ``config`` and ``selected`` are what
    contain_config() and prepare() make of the run's configuration."""
    inputs, found = load_paths([path], config, INPUT, texts={os.path.abspath(path): raw})
    if found.missing:
        raise UsageError(f"path does not exist: {found.missing[0]}")
    context_objects = context_without(context.loaded.objects, inputs)
    return analyze(inputs, found, context_objects, config, selected, inline_suppressions,
                   scope=context.scope(inputs.objects + context_objects, config))


def _remember_reads(cache: Any, paths: list[str], named_context: list[str], config: Config) -> None:
    """A report reused from the cache read no file this run: the writer must still refuse to
    overwrite the inputs and context (kqlint.project.writer)."""
    from kqlint.project.writer import remember_read

    beyond = context_beyond_inputs(named_context, paths)
    remember_read(cache.discover(paths, config.exclude).files + cache.discover(beyond, config.exclude).files)


def prepare(config: Config | None, rules: Iterable[Rule] | None = None) -> tuple[Config, RuleSet]:
    """The checked config and the rules it selects (ConfigError/UsageError: exit 2);
    ``rules`` default to every rule the config loads (kqlint.engine.registry.load_rules)."""
    from kqlint.engine.registry import load_rules

    config = config or Config()
    loaded = load_rules(config) if rules is None else RuleSet.of(rules)
    config = check_rule_names(config, loaded)  # unknown rule names/options: ConfigError (exit 2)
    from kqlint.config import per_file

    per_file.check_names(config, loaded)
    _check_crds(config)
    return config, select_rules(loaded, config)


def build_graph(inputs: Loaded, context_objects: list[K8sObject], config: Config,
                requests: dict[int, frozenset[str]] | None = None) -> ObjectGraph:
    """Inputs, then context, then config ``external``, then the profile's objects."""
    graph = ObjectGraph(inputs.objects + context_objects)
    graph.kustomize_dirs = frozenset(source.path.rpartition("/")[0] for source in inputs.sources
                                     if source.path.rpartition("/")[2] in KUSTOMIZATION_FILES)
    graph.add(external_objects(config))
    graph.add(_profile_objects(config, graph))
    from kqlint.domain.platform import build_platform

    graph.platform = build_platform(config.platform, config.profile, graph, requests)  # type: ignore[attr-defined]
    return graph


def analyze(inputs: Loaded, found: Discovery, context_objects: list[K8sObject], config: Config,
            selected: Iterable[Rule], inline_suppressions: bool = True, jobs: int = 1,
            scope: Any = None, as_rendered: frozenset[int] = frozenset()) -> Report:
    """Run the selected rules over loaded inputs (plus context objects) and build the Report;
    ``scope``: scope_of() these objects, when the caller kept it (KeptContext); ``as_rendered``:
    the ids of objects ``--kustomize`` rendered (their namespaces are kustomize's already)."""
    from kqlint.domain.kueue.routing import with_routes
    from kqlint.project.scope import apply_rendered_namespaces, partitions, scope_of, without_fragments

    scope = scope or scope_of(inputs.objects + context_objects, config)
    apply_rendered_namespaces(inputs.objects + context_objects, scope, as_rendered)
    streams = tuple(inputs.streams)
    inputs, context_objects = without_fragments(inputs, context_objects, scope)
    from kqlint.cache.findings import observe

    observe(inputs.objects + context_objects, scope)  # what reused graph-reading findings are keyed by
    errors: list[str] = []
    rules, states = prepare_rules(RuleSet.of(selected), config, errors)
    routed = frozenset(rule.meta.code for rule in rules if getattr(rule.meta, "shows_route", False))
    findings: list[Finding] = []
    platform_lines: dict[str, None] = {}  # the platform model of every graph, in order, once
    requests: dict[int, frozenset[str]] = {}  # platform evidence per object, shared by the parts
    for part in partitions(inputs, context_objects, config, scope):  # units applied on their own
        graph = build_graph(part.loaded, part.context, config, requests)
        platform_lines.update(dict.fromkeys(_platform_lines(graph)))
        graph.unit, graph.elsewhere = part.unit, part.elsewhere
        graph.kustomize_dirs |= part.kustomize_dirs
        graph.applied_together, graph.unit_of = scope.declared_unit, scope.unit_of
        files = {obj.file for obj in part.loaded.objects}
        found_here = [f for f in run_rules(rules, graph, config, errors, jobs, states) if f.location.file in files]
        findings += with_routes(found_here, graph, routed)
    input_files = {source.path for source in inputs.sources}
    findings = [f for f in findings if f.location.file in input_files]
    findings += _engine_hook(rules, states, config, errors, "the input files",
                             lambda rule, ctx: rule.check_sources(_sources(inputs, found), ctx))
    findings = [_with_severity(f, config) for f in findings]
    from kqlint.config import per_file

    findings = per_file.apply(findings, config)
    index = _suppressions(inputs, inline_suppressions)
    reported, suppressed = apply(findings, index)
    audit = SuppressionAudit(index, inputs.objects)  # judged once every other finding is known
    for rule in rules:
        unused = _engine_hook([rule], states, config, errors, "the suppressions",
                              lambda rule, ctx: rule.check_suppressions(audit, ctx))
        if unused:  # silenced only by suppressions naming the rule: `all` cannot hide itself
            more, hidden = apply([_with_severity(f, config) for f in unused], _naming(index, rule))
            reported, suppressed = reported + more, suppressed + hidden
    summary = Summary(files=len(inputs.sources), documents=inputs.documents,
                      objects=len(inputs.objects), skipped_documents=inputs.skipped)
    from kqlint.engine.directives import all_problems

    return Report(tuple(sorted(set(reported), key=Finding.sort_key)), summary, tuple(errors),
                  tuple(sorted(set(suppressed), key=Finding.sort_key)),
                  files=tuple(sorted({source.path for source in inputs.sources})),
                  warnings=all_problems(inputs.sources) if inline_suppressions else (),
                  platform=tuple(platform_lines), streams=streams)


def _sources(inputs: Loaded, found: Discovery) -> Sources:
    return Sources(inputs.sources, found.problems, found.charts)


def _engine_hook(rules: list[Rule], states: dict[str, Any], config: Config, errors: list[str], where: str,
                 hook: Callable[[Rule, RuleContext], Iterable[Finding]]) -> list[Finding]:
    """What the engine rules among ``rules`` yield from ``hook`` (check_sources, check_suppressions)."""
    engine = [rule for rule in rules if rule.meta.scope == "engine"]
    if not engine:  # asked once per rule: most are no engine rule
        return []
    graph = ObjectGraph([])
    return [finding for rule in engine
            for finding in _guarded(rule, partial(hook, rule, _context(rule, graph, config, states)),
                                    where, errors)]


def _naming(index: SuppressionIndex, rule: Rule) -> SuppressionIndex:
    """The suppressions of ``index`` that name ``rule`` (same lookup structure)."""
    def pick(groups: dict[Any, list[Suppression]]) -> dict[Any, list[Suppression]]:
        return {key: [s for s in group if rule.code.upper() in s.names or rule.slug in s.names]
                for key, group in groups.items()}
    return SuppressionIndex(pick(index.by_object), pick(index.by_line), pick(index.by_file))


def _platform_lines(graph: ObjectGraph) -> tuple[str, ...]:
    from kqlint.domain.platform import platform_of

    model = platform_of(graph)
    return tuple(model.lines()) if model.known() else ()


def _suppressions(inputs: Loaded, enabled: bool) -> SuppressionIndex:
    index = SuppressionIndex()
    if enabled:
        for source in inputs.sources:
            index.add_comments(source.path, source.comment_lines)
        for obj in inputs.objects:
            index.add_object(obj)
    return index


def _check_crds(config: Config) -> None:
    """A bad ``--crd`` path is a usage error (exit 2), found before anything is linted."""
    if not config.crds:
        return
    from kqlint.schema import catalog

    try:
        catalog(config.crds)
    except CrdError as exc:
        raise UsageError(str(exc)) from None


def _with_severity(finding: Finding, config: Config) -> Finding:
    override = config.severity.get(finding.code) or config.severity.get(finding.slug)
    return replace(finding, severity=override) if override is not None else finding


def _profile_objects(config: Config, graph: ObjectGraph) -> list[K8sObject]:
    if not config.profile:
        return []
    from kqlint.config.profiles import profile_objects

    return profile_objects(config.profile, graph, config)


def exit_status(report: Report, fail_on: Severity | None) -> int:
    if report.internal_errors:
        return 3
    if fail_on is None:
        return 0
    return 1 if any(f.severity >= fail_on for f in report.findings) else 0
