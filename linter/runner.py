"""One lint run: discover -> load -> graph -> rules -> suppress -> Report."""
from __future__ import annotations

import gc
import os
from dataclasses import dataclass, field, replace
from typing import Any, Iterable

from kqlint.config import Config
from kqlint.discover import STDIN, Discovery, discover, display_path, repository_root
from kqlint.graph import ObjectGraph, declared_object
from kqlint.loader import SourceFile, load_file, load_stdin
from kqlint.model import Finding, Location, Report, Severity, Summary
from kqlint.objects import CONTEXT, EXTERNAL, INPUT, K8sObject, objects_from_file
from kqlint.rule import Rule, RuleContext, options_from_mapping
from kqlint.suppress import SuppressionIndex, apply


class UsageError(Exception):
    """Bad paths or flags: one line, exit 2."""


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

def load_paths(paths: list[str], config: Config, tier: str) -> tuple[Loaded, Discovery]:
    found = discover(paths, config.exclude)
    loaded = Loaded()
    gc_was_enabled = gc.isenabled()
    gc.disable()  # keeping every document alive makes full collections costly while loading
    try:
        for path in found.files:
            source = load_stdin() if path == STDIN else load_file(path, display_path(path), config.max_file_size)
            loaded.sources.append(source)
            objects, documents, skipped = objects_from_file(source, config.namespace, tier)
            loaded.objects.extend(objects)
            loaded.documents += documents
            loaded.skipped += skipped
    finally:
        if gc_was_enabled:
            gc.freeze()
            gc.enable()
    return loaded, found


def _auto_context(paths: list[str], config: Config) -> list[str]:
    """Pre-commit passes individual files: then the repository's other manifests resolve references."""
    if not paths or any(p == STDIN or os.path.isdir(p) for p in paths):
        return []
    root = repository_root(os.getcwd())
    return [root] if root else []


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


def run_rules(rules: list[Rule], graph: ObjectGraph, config: Config, errors: list[str]) -> list[Finding]:
    findings: list[Finding] = []
    inputs = graph.inputs
    for rule in rules:
        if rule.meta.scope == "engine":
            continue
        ctx = RuleContext(rule, graph, _rule_options(rule, config))
        if rule.meta.scope == "graph":
            _guarded(rule, lambda: rule.check_graph(graph, ctx), "the object graph", errors)
        else:
            kinds = rule.meta.kinds
            for obj in inputs:
                if kinds is None or obj.kind in kinds:
                    _guarded(rule, lambda obj=obj: rule.check(obj, ctx), obj.file, errors)
        findings.extend(ctx.findings)
    return findings


def _guarded(rule: Rule, call: Any, where: str, errors: list[str]) -> None:
    """The error boundary around one rule call: a crash becomes one line, other rules go on."""
    try:
        result = call()
        if result is not None:
            for _ in result:  # rules may be generators; findings are collected via ctx
                pass
    except Exception as exc:  # noqa: BLE001 - a buggy rule must never stop the run
        errors.append(f"internal error in rule {rule.code} ({rule.slug}) while checking {where}: "
                      f"{type(exc).__name__}: {exc}")


# ------------------------------------------------------------------ run

def lint(paths: list[str], config: Config | None = None, *, context: Iterable[str] = (),
         inline_suppressions: bool = True, rules: list[Rule] | None = None) -> Report:
    """Lint ``paths`` and return the Report (the public Python API)."""
    from kqlint.registry import all_rules

    config = config or Config()
    if rules is None:
        rules = all_rules(config.plugins, _custom_rules(config))
    selected = select_rules(rules, config)
    by_code = {rule.code: rule for rule in selected}

    inputs, found = load_paths(paths, config, INPUT)
    if found.missing:
        raise UsageError(f"path does not exist: {found.missing[0]}")
    context_paths = list(context) + list(config.context) + _auto_context(paths, config)
    context_loaded = _load_context(context_paths, config, inputs)

    graph = ObjectGraph(inputs.objects + context_loaded.objects)
    graph.add(external_objects(config))
    graph.add(_profile_objects(config, graph))

    errors: list[str] = []
    findings = _engine_findings(inputs, found, by_code) + run_rules(selected, graph, config, errors)
    input_files = {source.path for source in inputs.sources}
    findings = [f for f in findings if f.location.file in input_files or f.code in ("KQ001", "KQ006")]
    findings = [_with_severity(f, config) for f in findings]

    index = SuppressionIndex()
    if inline_suppressions:
        for source in inputs.sources:
            index.add_comments(source.path, source.comment_lines)
        for obj in inputs.objects:
            index.add_object(obj)
    reported, suppressed = apply(findings, index)
    summary = Summary(files=len(inputs.sources), documents=inputs.documents,
                      objects=len(inputs.objects), skipped_documents=inputs.skipped)
    return Report(tuple(sorted(set(reported), key=Finding.sort_key)), summary, tuple(errors),
                  tuple(sorted(set(suppressed), key=Finding.sort_key)))


def _load_context(paths: list[str], config: Config, inputs: Loaded) -> Loaded:
    if not paths:
        return Loaded()
    input_files = {s.path for s in inputs.sources}
    existing = [p for p in paths if os.path.exists(p)]
    loaded, _ = load_paths(existing, config, CONTEXT)
    keep = [o for o in loaded.objects if o.file not in input_files]
    return Loaded(objects=keep)


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
