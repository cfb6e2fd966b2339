"""One lint run: discover -> load -> graph -> rules -> suppress -> Report."""
from __future__ import annotations

import gc
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from kqlint.config import Config, ConfigError, check_rule_names
from kqlint.discover import STDIN, Discovery, discover, display_path
from kqlint.graph import ObjectGraph, declared_object
from kqlint.loader import SourceFile, load_file, load_stdin
from kqlint.model import Finding, Location, Report, Severity, Summary
from kqlint.objects import CONTEXT, EXTERNAL, INPUT, K8sObject, objects_from_file
from kqlint.rule import Rule, RuleContext, options_from_mapping
from kqlint.suppress import SuppressionIndex, apply

KUSTOMIZATION_FILES = frozenset({"kustomization.yaml", "kustomization.yml"})


class UsageError(Exception):
    """Bad paths or flags: one line, exit 2."""


class InternalError(Exception):
    """A bug in kqlint while processing ``file``: the CLI prints one line and exits 3."""

    def __init__(self, file: str, error: BaseException) -> None:
        super().__init__(f"{type(error).__name__}: {error}")
        self.file = file


@dataclass
class RunOptions:
    paths: list[str]
    config: Config = field(default_factory=Config)
    context: tuple[str, ...] = ()
    inline_suppressions: bool = True


@dataclass
class Loaded:
    sources: list[SourceFile] = field(default_factory=list)
    objects: list[K8sObject] = field(default_factory=list)
    documents: int = 0
    skipped: int = 0
    notes: list[str] = field(default_factory=list)  # files skipped for leaving the tree


# ------------------------------------------------------------------ rule selection

def _matches(rule: Rule, patterns: Iterable[str]) -> bool:
    for pattern in patterns:
        text = pattern.strip()
        if not text:
            continue
        if text.lower() == rule.slug or rule.code.upper().startswith(text.upper()):
            return True
    return False


def select_rules(rules: list[Rule], config: Config) -> list[Rule]:
    chosen = []
    for rule in rules:
        meta = rule.meta
        if meta.profile is not None and meta.profile != config.profile:
            continue
        enabled = meta.enabled or meta.profile is not None
        if config.select:
            enabled = _matches(rule, config.select) and (meta.enabled or meta.profile is not None
                                                         or _explicitly_named(rule, config.select))
        if _matches(rule, config.ignore):
            enabled = False
        if enabled:
            chosen.append(rule)
    return chosen


def _explicitly_named(rule: Rule, patterns: Iterable[str]) -> bool:
    return any(p.strip().upper() == rule.code or p.strip().lower() == rule.slug for p in patterns)


# ------------------------------------------------------------------ loading

def load_paths(paths: list[str], config: Config, tier: str,
               progress: Callable[[int, int], None] | None = None, jobs: int = 1,
               skip: frozenset[str] = frozenset(), cache: Any = None) -> tuple[Loaded, Discovery]:
    """Read and parse every file (but those in ``skip``, absolute paths); ``progress(done,
    total)`` is called as files are done. With a ``cache`` (kqlint.cache.FileCache), unchanged
    files are not parsed again."""
    from kqlint.containment import contain_files
    from kqlint.parallel import effective_jobs, map_chunks
    from kqlint.writer import remember_read

    found = cache.discover(paths, config.exclude) if cache is not None else discover(paths, config.exclude)
    files, notes = contain_files(found.files, paths, config.follow_external_symlinks)
    remember_read(files)  # no report or baseline is ever written over what is read
    if skip:
        files = [f for f in files if f == STDIN or os.path.abspath(f) not in skip]
    found = replace(found, files=files)  # the cache keeps its discovery unchanged
    loaded = Loaded(notes=notes)
    total = len(found.files)
    jobs = effective_jobs(jobs, total)
    done = 0

    def parse(path: str, raw: bytes | None = None) -> SourceFile:
        nonlocal done
        source = _parse_one(path, config, raw)
        done += jobs  # the parent parses one chunk of ``jobs`` while workers do the others
        if progress is not None:
            progress(min(done, total), total)
        return source

    stdin_sources = _read_stdin(config) if STDIN in found.files else []
    gc_was_enabled = gc.isenabled()
    gc.disable()  # keeping every document alive makes full collections costly while loading
    try:
        files = [path for path in found.files if path != STDIN]
        if cache is not None:
            from kqlint.cache_run import load_sources

            sources = load_sources(files, cache, tier == CONTEXT, jobs, parse)
        else:
            sources = map_chunks(parse, files, jobs)
        for path, source in zip(files, sources):
            _add_source(loaded, path, source, config, tier)
        for source in stdin_sources:
            _add_source(loaded, STDIN, source, config, tier)
    finally:
        if gc_was_enabled:
            gc.freeze()
            gc.enable()
    return loaded, found


def _read_stdin(config: Config) -> list[SourceFile]:
    """stdin, split by Helm ``# Source:`` comments or named by ``--stdin-filename``."""
    from kqlint.stdin import EmptyStdin, read_stdin

    try:
        return read_stdin(config)
    except EmptyStdin as exc:
        raise UsageError(str(exc)) from None
    except Exception as exc:
        raise InternalError("<stdin>", exc) from exc


def _parse_one(path: str, config: Config, raw: bytes | None = None) -> SourceFile:
    try:
        if raw is not None:  # already read (and hashed) by the cache
            from kqlint import loader

            return loader.parse_bytes(display_path(path), raw)
        if path == STDIN:
            return load_stdin(max_size=config.max_file_size)
        return load_file(path, display_path(path), config.max_file_size)
    except MemoryError:
        raise  # the CLI says "out of memory" (exit 2): not a bug blamed on this file
    except Exception as exc:
        raise InternalError(display_path(path), exc) from exc


def _add_source(loaded: Loaded, path: str, source: SourceFile, config: Config, tier: str) -> None:
    try:
        objects, documents, skipped = _objects_of(source, config.namespace, tier)
        if source.placeholder_hint and objects:
            objects = _without_placeholder_templates(source, objects, config)
    except MemoryError:
        raise
    except Exception as exc:
        raise InternalError(display_path(path), exc) from exc
    loaded.sources.append(source)
    loaded.objects.extend(objects)
    loaded.documents += documents
    loaded.skipped += skipped


def _without_placeholder_templates(source: SourceFile, objects: list[K8sObject], config: Config) -> list[K8sObject]:
    """A manifest meant for envsubst/sed is one KQ006 and is skipped (kqlint.placeholders)."""
    from kqlint.placeholders import unrendered_placeholders

    problem = unrendered_placeholders(source, objects, tuple(config.crds or ()))
    if problem is None:
        return objects
    source.problems.append(problem)
    return []


def context_paths(paths: list[str], context: Iterable[str], config: Config,
                  automatic: bool = True) -> tuple[list[str], str | None]:
    """The context of a run and a note for stderr (kqlint.scope.context_plan): ``--context``
    and config ``context:`` when given, else the project root's manifests."""
    from kqlint.scope import context_plan

    plan = context_plan(paths, list(context) + list(config.context), automatic)
    return list(plan.paths), plan.note


def _objects_of(source: SourceFile, namespace: str, tier: str) -> tuple[list[K8sObject], int, int]:
    if type(source) is not SourceFile:  # a cached context file: objects read on first use
        from kqlint.cache_entry import objects_of

        return objects_of(source, namespace, tier)
    return objects_from_file(source, namespace, tier)



def external_objects(config: Config) -> list[K8sObject]:
    file = display_path(config.path) if config.path else "<config>"
    return [declared_object(kind, entry, EXTERNAL, file, config.namespace)
            for kind, entries in sorted(config.external.items()) for entry in entries
            if isinstance(entry, dict)]


# ------------------------------------------------------------------ engine findings

def _engine_findings(loaded: Loaded, found: Discovery, rules: dict[str, Rule]) -> list[Finding]:
    findings = []
    for source in loaded.sources:
        for problem in source.problems:
            rule = rules.get(problem.code)
            if rule is not None:
                location = Location(problem.file, problem.line, problem.column)
                findings.append(Finding(rule.code, rule.slug, rule.meta.severity, problem.message, location))
    kq001, kq006 = rules.get("KQ001"), rules.get("KQ006")
    for path, message in found.problems:
        if kq001 is not None:
            findings.append(Finding(kq001.code, kq001.slug, kq001.meta.severity, message,
                                    Location(display_path(path), 1, 1)))
    for chart, templates in sorted(found.charts.items()):
        if kq006 is not None:
            chart_dir = display_path(os.path.dirname(chart))
            message = (f"Helm chart {chart_dir}: {len(templates)} unrendered template file(s) under "
                       f"templates/ skipped; lint the rendered output instead: "
                       f"`helm template {chart_dir} | kqlint check -`")
            findings.append(Finding(kq006.code, kq006.slug, kq006.meta.severity, message,
                                    Location(display_path(chart), 1, 1)))
    return findings


# ------------------------------------------------------------------ rules

def _rule_options(rule: Rule, config: Config) -> Any:
    if rule.options_type is None:
        return None
    return options_from_mapping(rule.options_type, config.rules.get(rule.code, {}))


def run_rules(rules: list[Rule], graph: ObjectGraph, config: Config, errors: list[str],
              jobs: int = 1) -> list[Finding]:
    """Graph rules in this process; per-object rules over the inputs, split over ``jobs``."""
    findings: list[Finding] = []
    active = [r for r in rules if r.meta.scope != "engine"]
    contexts = {r.code: RuleContext(r, graph, _rule_options(r, config), config) for r in active}
    for rule in active:
        if rule.meta.scope == "graph":
            _guarded(rule, lambda rule=rule: rule.check_graph(graph, contexts[rule.code]), "the object graph", errors)
            findings.extend(contexts[rule.code].findings)
    object_rules = [(r, contexts[r.code]) for r in active if r.meta.scope == "object"]
    from kqlint.cache_results import reuse_for

    reuse = reuse_for(object_rules)  # stored findings of pure rules on unchanged files

    def check_object(obj: K8sObject) -> tuple[list[Finding], list[str]]:
        found: list[Finding] = []
        failed: list[str] = []
        stored = reuse.skip(obj)
        for rule, ctx in object_rules:
            if rule.code not in stored and (rule.meta.kinds is None or obj.kind in rule.meta.kinds):
                _guarded(rule, lambda: rule.check(obj, ctx), obj.file, failed)
                found.extend(ctx.findings)
                ctx.findings.clear()
        return found, failed

    from kqlint.parallel import map_chunks

    outcomes = map_chunks(check_object, graph.inputs, jobs)
    findings.extend(reuse.merge(graph.inputs, outcomes))
    for found, failed in outcomes:
        findings.extend(found)
        for line in failed:
            _guarded_error(line, errors)
    return findings


def _guarded_error(line: str, errors: list[str]) -> None:
    """Keep one line per broken rule: the first object (in input order) it failed on."""
    prefix = line.split(")", 1)[0]
    if not any(existing.startswith(prefix) for existing in errors):
        errors.append(line)


def _guarded(rule: Rule, call: Any, where: str, errors: list[str]) -> None:
    """The error boundary around one rule call: a crash becomes one line, other rules go on."""
    try:
        result = call()
        if result is not None:
            for _ in result:  # rules may be generators; findings are collected via ctx
                pass
    except (ConfigError, MemoryError):
        raise  # a custom rule over its budget (exit 2), or out of memory: not a bug in one rule
    except Exception as exc:
        prefix = f"internal error in rule {rule.code} ({rule.slug}"
        if any(line.startswith(prefix) for line in errors):
            return  # one line per broken rule (the first file it failed on), not one per object
        module = getattr(rule.module, "__name__", "kqlint")
        origin = "" if module.startswith("kqlint.") else f", plugin module {module}"
        errors.append(f"{prefix}{origin}) while checking {where}: {type(exc).__name__}: {exc}")


# ------------------------------------------------------------------ run

def lint(paths: list[str], config: Config | None = None, *, context: Iterable[str] = (),
         inline_suppressions: bool = True, rules: list[Rule] | None = None,
         auto_context: bool = True, progress: Callable[[int, int], None] | None = None,
         jobs: int = 1, cache: Any = None) -> Report:
    """Lint ``paths`` and return the Report (the public Python API). With ``auto_context``,
    individual files (as pre-commit passes them) get their repository's manifests as context.
    ``progress(done, total)`` is called as input files are loaded (the CLI's progress bar);
    ``jobs`` > 1 forks worker processes for parsing and per-object rules; ``cache``
    (a kqlint.cache.FileCache) skips parsing files that did not change."""
    from kqlint.containment import contain_config

    config, notes = contain_config(config or Config())  # config context:/crds: outside the repository
    config, selected = prepare(config, rules)
    named, note = context_paths(paths, context, config, auto_context)
    notes += [note] if note else []
    if cache is None:
        return _lint_loaded(paths, named, config, selected, inline_suppressions, progress, jobs, notes)
    from kqlint.cache_run import cached_run

    report = cached_run(cache, paths, named, config, selected, inline_suppressions,
                        lambda: _lint_loaded(paths, named, config, selected, inline_suppressions,
                                             progress, jobs, notes, cache))
    _remember_reads(cache, paths, named, config)
    return report


def _lint_loaded(paths: list[str], named_context: list[str], config: Config, selected: list[Rule],
                 inline_suppressions: bool, progress: Callable[[int, int], None] | None, jobs: int,
                 notes: list[str], cache: Any = None) -> Report:
    inputs, found = load_paths(paths, config, INPUT, progress, jobs, cache=cache)
    if found.missing:
        raise UsageError(f"path does not exist: {found.missing[0]}")
    context_loaded = _load_context(named_context, config, inputs, jobs, cache)
    report = analyze(inputs, found, context_loaded.objects, config, selected, inline_suppressions, jobs)
    notes = notes + inputs.notes + context_loaded.notes
    return replace(report, notes=tuple(dict.fromkeys(notes))) if notes else report


def _remember_reads(cache: Any, paths: list[str], named_context: list[str], config: Config) -> None:
    """A report reused from the cache read no file this run: the writer must still refuse to
    overwrite the inputs and context (kqlint.writer)."""
    from kqlint.writer import remember_read

    existing = [p for p in named_context if os.path.exists(p)]
    remember_read(cache.discover(paths, config.exclude).files + cache.discover(existing, config.exclude).files)


def prepare(config: Config | None, rules: list[Rule] | None = None) -> tuple[Config, list[Rule]]:
    """The checked config and the rules it selects (ConfigError/UsageError: exit 2)."""
    from kqlint.registry import all_rules

    config = config or Config()
    if rules is None:
        rules = all_rules(config.plugins, _custom_rules(config))
    config = check_rule_names(config, rules)  # unknown rule names/options: ConfigError (exit 2)
    from kqlint import per_file

    per_file.check_names(config, rules)
    _check_crds(config)
    return config, select_rules(rules, config)


def build_graph(inputs: Loaded, context_objects: list[K8sObject], config: Config,
                requests: dict[int, frozenset[str]] | None = None) -> ObjectGraph:
    """Inputs, then context, then config ``external``, then the profile's objects."""
    graph = ObjectGraph(inputs.objects + context_objects)
    graph.kustomize_dirs = frozenset(source.path.rpartition("/")[0] for source in inputs.sources
                                     if source.path.rpartition("/")[2] in KUSTOMIZATION_FILES)
    graph.add(external_objects(config))
    graph.add(_profile_objects(config, graph))
    from kqlint.platform import build_platform

    graph.platform = build_platform(config.platform, config.profile, graph, requests)  # type: ignore[attr-defined]
    return graph


def analyze(inputs: Loaded, found: Discovery, context_objects: list[K8sObject], config: Config,
            selected: list[Rule], inline_suppressions: bool = True, jobs: int = 1) -> Report:
    """Run the selected rules over loaded inputs (plus context objects) and build the Report."""
    from kqlint.scope import partitions, scope_of, with_routes, without_fragments

    scope = scope_of(inputs.objects + context_objects, config)
    inputs, context_objects = without_fragments(inputs, context_objects, scope)
    errors: list[str] = []
    by_code = {rule.code: rule for rule in selected}
    findings = _engine_findings(inputs, found, by_code)
    platform_lines: dict[str, None] = {}  # the platform model of every graph, in order, once
    requests: dict[int, frozenset[str]] = {}  # platform evidence per object, shared by the parts
    for part in partitions(inputs, context_objects, config, scope):  # units applied on their own
        graph = build_graph(part.loaded, part.context, config, requests)
        platform_lines.update(dict.fromkeys(_platform_lines(graph)))
        graph.unit, graph.elsewhere = part.unit, part.elsewhere
        graph.kustomize_dirs |= part.kustomize_dirs
        graph.applied_together, graph.unit_of = scope.declared_unit, scope.unit_of
        files = {obj.file for obj in part.loaded.objects}
        found_here = [f for f in run_rules(selected, graph, config, errors, jobs) if f.location.file in files]
        findings += with_routes(found_here, graph)
    input_files = {source.path for source in inputs.sources}
    findings = [f for f in findings if f.location.file in input_files or f.code in ("KQ001", "KQ006")]
    findings = [_with_severity(f, config) for f in findings]
    from kqlint import per_file

    findings = per_file.apply(findings, config)
    index = _suppressions(inputs, inline_suppressions)
    reported, suppressed = apply(findings, index)
    if "KQ000" in by_code:  # unused suppressions: judged once every other rule has run
        from kqlint.suppress_audit import unused_suppressions

        unused, hidden = unused_suppressions(index, selected, inputs.objects, config)
        reported, suppressed = reported + unused, suppressed + hidden
    summary = Summary(files=len(inputs.sources), documents=inputs.documents,
                      objects=len(inputs.objects), skipped_documents=inputs.skipped)
    from kqlint.directives import all_problems

    return Report(tuple(sorted(set(reported), key=Finding.sort_key)), summary, tuple(errors),
                  tuple(sorted(set(suppressed), key=Finding.sort_key)),
                  files=tuple(sorted({source.path for source in inputs.sources})),
                  warnings=all_problems(inputs.sources) if inline_suppressions else (),
                  platform=tuple(platform_lines))


def _platform_lines(graph: ObjectGraph) -> tuple[str, ...]:
    from kqlint.platform import platform_of

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
    from kqlint.schema import CrdError, catalog

    try:
        catalog(config.crds)
    except CrdError as exc:
        raise UsageError(str(exc)) from None


def _load_context(paths: list[str], config: Config, inputs: Loaded, jobs: int = 1, cache: Any = None) -> Loaded:
    if not paths:
        return Loaded()
    input_files = {s.path for s in inputs.sources}
    existing = [p for p in paths if os.path.exists(p)]
    skip = frozenset(os.path.abspath(p) for p in input_files if not p.startswith("<"))
    loaded, _ = load_paths(existing, config, CONTEXT, jobs=jobs, skip=skip, cache=cache)
    keep = [o for o in loaded.objects if o.file not in input_files]
    return Loaded(objects=keep, notes=loaded.notes)


def _with_severity(finding: Finding, config: Config) -> Finding:
    override = config.severity.get(finding.code) or config.severity.get(finding.slug)
    return replace(finding, severity=override) if override is not None else finding


def _custom_rules(config: Config) -> list[Rule]:
    if not config.custom_rules:
        return []
    from kqlint.custom import custom_rules

    return custom_rules(config.custom_rules)


def _profile_objects(config: Config, graph: ObjectGraph) -> list[K8sObject]:
    if not config.profile:
        return []
    from kqlint.profiles import profile_objects

    return profile_objects(config.profile, graph, config)


def exit_status(report: Report, fail_on: Severity | None) -> int:
    if report.internal_errors:
        return 3
    if fail_on is None:
        return 0
    return 1 if any(f.severity >= fail_on for f in report.findings) else 0
