"""What a run finds: the objects scoped into units, a graph per unit, the rules run over each,
severities and per-file settings applied, suppressions audited, and the Report built."""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING, Any

from kqlint.config import Config
from kqlint.domain.graph import ObjectGraph, Placement
from kqlint.domain.objects import K8sObject
from kqlint.engine.inputs import Loaded, external_objects
from kqlint.engine.registry import RuleSet
from kqlint.engine.rule import Rule, RuleContext, Sources, SuppressionAudit
from kqlint.engine.runner import guarded, prepare_rules, rule_context, run_rules
from kqlint.engine.suppress import Suppression, SuppressionIndex, apply
from kqlint.model import Finding, Report, Summary
from kqlint.project.discover import Discovery

if TYPE_CHECKING:
    from kqlint.cache.findings import Reuse
    from kqlint.domain.pins import Pin
    from kqlint.project.scope.partitions import Part
    from kqlint.project.scope.units import Scope

KUSTOMIZATION_FILES = frozenset({"kustomization.yaml", "kustomization.yml"})


def build_graph(inputs: Loaded, context_objects: list[K8sObject], config: Config,
                requests: dict[int, frozenset[str]] | None = None, placement: Placement | None = None,
                pins: tuple[Pin, ...] | None = None) -> ObjectGraph:
    """Inputs, then context, then config ``external``, then the profile's objects; the
    platform model is built from the configuration, the profile and the graph's evidence
    (``pins``: the Kueue versions the repository pins, run_pins)."""
    from kqlint.domain.platform import build_platform

    folders = frozenset(source.path.rpartition("/")[0] for source in inputs.sources
                        if source.path.rpartition("/")[2] in KUSTOMIZATION_FILES)
    placement = placement or Placement()
    placement = replace(placement, kustomize_dirs=placement.kustomize_dirs | folders)
    graph = ObjectGraph(inputs.objects + context_objects, placement,
                        platform=lambda whole: build_platform(config.platform, config.profile, whole, requests, pins))
    graph.add(external_objects(config))
    graph.add(_profile_objects(config, graph))
    return graph


def analyze(inputs: Loaded, found: Discovery, context_objects: list[K8sObject], config: Config,
            selected: Iterable[Rule], inline_suppressions: bool = True, jobs: int = 1,
            scope: Any = None, as_rendered: frozenset[int] = frozenset(), stored: Reuse | None = None,
            file_pins: tuple[Pin, ...] = (), graphs: list[ObjectGraph] | None = None) -> Report:
    """Run the selected rules over loaded inputs (plus context objects) and build the Report;
    ``scope``: scope_of() these objects, when the caller kept it (KeptContext); ``as_rendered``:
    the ids of objects ``--kustomize`` rendered (their namespaces are kustomize's already);
    ``stored``: findings the rules may reuse (kqlint.cache.findings); ``file_pins``: the Kueue
    versions the run's files that are no objects pin (kqlint.project.scope.pins); ``graphs``:
    given, it gets the graph of every unit the rules ran on (``kqlint graph`` shows them)."""
    from kqlint.domain.kueue.routes import with_routes

    streams = tuple(inputs.streams)
    with_objects = {obj.file for obj in inputs.objects}
    scope, inputs, context_objects = scoped(inputs, context_objects, config, scope, as_rendered)
    fragments = frozenset(file for file in with_objects - {obj.file for obj in inputs.objects}
                          if not (scope.is_check(file) or file in scope.harness_config))  # patches only
    if stored is not None:
        stored.observe(inputs.objects + context_objects, scope)  # what reused graph-reading findings are keyed by
    errors: list[str] = []
    rules, states = prepare_rules(RuleSet.of(selected), config, errors,
                                  frozenset((obj.api_version, obj.kind) for obj in inputs.objects))
    routed = frozenset(rule.meta.code for rule in rules if getattr(rule.meta, "shows_route", False))
    findings: list[Finding] = []
    platform_lines: dict[str, None] = {}  # the platform model of every graph, in order, once
    for part, graph in unit_graphs(inputs, context_objects, config, scope, file_pins):
        if graphs is not None:
            graphs.append(graph)
        platform_lines.update(dict.fromkeys(_platform_lines(graph)))
        files = {obj.file for obj in part.loaded.objects}
        found_here = [f for f in run_rules(rules, graph, config, errors, jobs, states, stored)
                      if f.location.file in files]
        findings += with_routes(found_here, graph, routed)
    input_files = {source.path for source in inputs.sources}
    findings = [f for f in findings if f.location.file in input_files]
    findings += _engine_hook(rules, states, config, errors, "the input files",
                             lambda rule, ctx: rule.check_sources(_sources(inputs, found, fragments), ctx))
    findings = [_with_severity(f, config) for f in findings]
    from kqlint.config import per_file

    findings = per_file.apply(findings, config)
    index = _suppressions(inputs, inline_suppressions)
    reported, suppressed = apply(findings, index)
    audit = SuppressionAudit(index, inputs.objects, reported)  # judged once every other finding is known
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


def scoped(inputs: Loaded, context_objects: list[K8sObject], config: Config, scope: Scope | None = None,
           as_rendered: frozenset[int] = frozenset()) -> tuple[Scope, Loaded, list[K8sObject]]:
    """What is applied together (kqlint.project.scope): the Scope of the objects (``scope``,
    when the caller kept it), kustomize's namespaces given to the files it renders (not to
    ``as_rendered``, already rendered), and the inputs and context without patch fragments."""
    from kqlint.project.scope import apply_rendered_namespaces, scope_of, without_fragments

    scope = scope or scope_of(inputs.objects + context_objects, config)
    apply_rendered_namespaces(inputs.objects + context_objects, scope, as_rendered)
    inputs, context_objects = without_fragments(inputs, context_objects, scope, as_rendered)
    return scope, inputs, context_objects


def unit_graphs(inputs: Loaded, context_objects: list[K8sObject], config: Config, scope: Scope,
                file_pins: tuple[Pin, ...] = ()) -> Iterator[tuple[Part, ObjectGraph]]:
    """One graph per unit applied on its own (kqlint.project.scope.partitions), with its
    platform model built from the configuration, the profile, that graph's evidence and the
    versions the repository pins (``file_pins``: those of its files that are no objects)."""
    from kqlint.project.scope import partitions

    requests: dict[int, frozenset[str]] = {}  # platform evidence per object, shared by the parts
    pins = run_pins(inputs.objects + context_objects, file_pins)  # read once, every part's evidence
    for part in partitions(inputs, context_objects, config, scope):
        placement = Placement(part.unit, part.elsewhere, part.kustomize_dirs, scope.declared_unit, scope.unit_of,
                              scope.open_world(part.unit))
        yield part, build_graph(part.loaded, part.context, config, requests, placement,
                                _pins_of(part.unit, pins, scope))


def run_pins(objects: list[K8sObject], file_pins: tuple[Pin, ...]) -> tuple[Pin, ...]:
    """The Kueue versions the repository pins (rules.md "Versions the repository pins"): in the
    run's objects, whichever unit holds them, and in its kustomizations, charts and values files."""
    from kqlint.domain.pins import object_pins

    return tuple(sorted({*object_pins(objects), *file_pins}))


def _pins_of(unit: str | None, pins: tuple[Pin, ...], scope: Any) -> tuple[Pin, ...]:
    """The pins a unit's graph sees: the whole repository's, except those inside another
    config ``units:`` entry (independent parts the configuration declares; kustomizations and
    charts do not scope them: Kueue is installed by one and used by the others)."""
    return tuple(pin for pin in pins if scope.declared_unit(pin.file) in (None, unit))


def _sources(inputs: Loaded, found: Discovery, fragments: frozenset[str] = frozenset()) -> Sources:
    return Sources(inputs.sources, found.problems, found.charts, fragments)


def _engine_hook(rules: list[Rule], states: dict[str, Any], config: Config, errors: list[str], where: str,
                 hook: Callable[[Rule, RuleContext], Iterable[Finding]]) -> list[Finding]:
    """What the engine rules among ``rules`` yield from ``hook`` (check_sources, check_suppressions)."""
    engine = [rule for rule in rules if rule.meta.scope == "engine"]
    if not engine:  # asked once per rule: most are no engine rule
        return []
    graph = ObjectGraph([])
    return [finding for rule in engine
            for finding in guarded(rule, partial(hook, rule, rule_context(rule, graph, config, states)),
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


def _with_severity(finding: Finding, config: Config) -> Finding:
    override = config.severity.get(finding.code) or config.severity.get(finding.slug)
    return replace(finding, severity=override) if override is not None else finding


def _profile_objects(config: Config, graph: ObjectGraph) -> list[K8sObject]:
    if not config.profile:
        return []
    from kqlint.config.profiles import profile_objects

    return profile_objects(config.profile, graph, config)
