"""``kqlint simulate``: what Kueue's scheduler would do with the inputs' workloads, offline."""
from __future__ import annotations

from typing import TYPE_CHECKING

import typer
from kqlint.cli.app import Exit, emit, err
from kqlint.cli.options import (
    allow_remote_bases_option,
    check_excludes,
    color_option,
    config_option,
    context_option,
    exclude_option,
    kustomize_option,
    load_config,
    namespace_option,
    no_config_option,
    profile_option,
    use_color,
)

if TYPE_CHECKING:
    from kqlint.domain.kueue.podsets import ResourceConfig
    from kqlint.domain.kueue.simulation import WorkloadResult
    from kqlint.engine.pipeline import Pipeline


def simulate(
    paths: list[str] | None = typer.Argument(None, metavar="[PATH]...",
                                             help="Files and folders (default: .); - reads stdin."),
    format: str = typer.Option("text", "--format", "-f", metavar="FORMAT", help="text (default) or json."),
    output: str | None = typer.Option(None, "--output", "-o", metavar="FILE", help="Write the report here."),
    workload: str | None = typer.Option(None, "--workload", metavar="NS/NAME",
                                        help="Report only this workload (KIND/NS/NAME when the name is ambiguous); "
                                             "the whole queue is still simulated."),
    running: list[str] | None = typer.Option(None, "--running", metavar="FILE",
                                             help="Workloads already admitted (kubectl get workloads -A -o yaml, or "
                                                  "Kueue-managed objects); repeatable. Not also an input."),
    stage: int = typer.Option(2, "--stage", metavar="1|2",
                              help="1: each workload alone on an empty cluster; 2 (default): also the queue."),
    config_file: str | None = config_option(),
    no_config: bool = no_config_option(),
    profile: str | None = profile_option(),
    namespace: str | None = namespace_option(),
    context: list[str] | None = context_option(),
    exclude: list[str] | None = exclude_option("Skip paths matching this glob."),
    kustomize: list[str] | None = kustomize_option("Simulate the workloads `kubectl kustomize DIR` renders (as "
                                                   "`kqlint check --kustomize`), placed in their source files; "
                                                   "repeatable."),
    allow_remote_bases: bool = allow_remote_bases_option(),
    no_color: bool = typer.Option(False, "--no-color",
                                  help="No colors (also when NO_COLOR is set or stdout is not a terminal)."),
    color: str | None = color_option("auto (default: a terminal, unless NO_COLOR; FORCE_COLOR forces it), "
                                     "always or never."),
) -> None:
    """Predict what Kueue's scheduler does with the inputs' workloads: the ClusterQueue, the
    flavor per pod set and resource, borrowing, preemptions, or Kueue's reason it is not admitted.

    Exit status: 0 every simulated workload is admitted, 1 some workload is pending, never
    admissible, preempted or not simulated, 2 usage error, 3 internal error."""
    from kqlint.domain.kueue.simulation import simulate as run_simulation
    from kqlint.engine.pipeline import Pipeline
    from kqlint.reporters.simulation import render_json, render_text

    if format not in ("text", "json"):
        raise Exit(2, f"kqlint: unknown --format {format!r} (choose from text, json)")
    if stage not in (1, 2):
        raise Exit(2, f"kqlint: --stage must be 1 or 2, not {stage}")
    config = load_config(config_file, no_config).with_overrides(
        profile=profile, namespace=namespace, exclude=(tuple(exclude or ())) or None)
    check_excludes(config.exclude)
    pipeline = Pipeline(config)
    for note in pipeline.notes:
        err(f"kqlint: note: {note}")
    color_on = format == "text" and output is None and use_color(no_color, color)
    running_files = _running_files(running or [])
    targets = list(paths or ([] if kustomize else ["."])) + list(running or [])
    graph, place = pipeline.queue_graph(targets, context=tuple(context or ()), kustomize=tuple(kustomize or ()),
                                        allow_remote=allow_remote_bases)
    sim = run_simulation(graph, stage, _resource_config(pipeline), lambda file: _absolute(file) in running_files)
    if not sim.workloads:
        err("kqlint: warning: nothing Kueue-managed in the inputs")
    shown = _selected(sim.workloads, workload) if workload is not None else sim.workloads
    text = render_json(sim, shown, place) if format == "json" else render_text(sim, shown, color_on)
    emit(text, output)
    if any(w.status not in ("admitted", "running") for w in shown):
        raise Exit(1)


def _selected(workloads: list[WorkloadResult], wanted: str) -> list[WorkloadResult]:
    """The workload ``NS/NAME`` (or ``KIND/NS/NAME``) names; no or several matches: exit 2."""
    parts = wanted.split("/")
    if len(parts) not in (2, 3) or not all(parts):
        raise Exit(2, f"kqlint: --workload takes NS/NAME or KIND/NS/NAME, not {wanted!r}")
    kind = parts[0] if len(parts) == 3 else None
    namespace, name = parts[-2], parts[-1]
    found = [w for w in workloads if w.unit.obj.namespace == namespace and w.unit.obj.name == name
             and (kind is None or w.unit.obj.kind.lower() == kind.lower())]
    if not found:
        raise Exit(2, f"kqlint: --workload {wanted}: no Kueue-managed workload of the inputs has that name")
    if len({w.unit.obj.kind for w in found}) > 1:
        kinds = ", ".join(sorted({w.unit.obj.kind for w in found}))
        raise Exit(2, f"kqlint: --workload {wanted} is ambiguous ({kinds}): use KIND/NS/NAME")
    return found


def _resource_config(pipeline: Pipeline) -> ResourceConfig | None:
    """Kueue's ``resources`` exclusions and transformations, as the options of the first rule
    that mirrors them (the quota rules) say: the same requests those rules judge."""
    from dataclasses import fields

    from kqlint.domain.kueue.podsets import resource_config
    from kqlint.engine.rule import options_from_mapping

    for rule in pipeline.selected.loaded:
        kind = rule.options_type
        if kind is None or "exclude_resource_prefixes" not in {f.name for f in fields(kind)}:
            continue
        found = resource_config(options_from_mapping(kind, pipeline.config.rules.get(rule.code, {})))
        if found.exclude_prefixes or found.transformations:
            return found
    return None


def _running_files(files: list[str]) -> frozenset[str]:
    """The ``--running`` files, absolute; one that is no readable file is a usage error."""
    import os

    for file in files:
        if file == "-" or not os.path.isfile(file) or not os.access(file, os.R_OK):
            raise Exit(2, f"kqlint: --running {file}: not a readable file")
    return frozenset(_absolute(file) for file in files)


def _absolute(path: str) -> str:
    from kqlint.project.workdir import absolute

    return absolute(path)
