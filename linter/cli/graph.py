"""``kqlint graph``: the resolved object graph as a tree, DOT, Mermaid or JSON."""
from __future__ import annotations

import typer
from kqlint.cli import complete
from kqlint.cli.app import emit, err
from kqlint.cli.options import (
    allow_plugins_option,
    allow_remote_bases_option,
    check_excludes,
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


def graph(
    paths: list[str] | None = typer.Argument(None, metavar="[PATH]...",
                                             help="Files and folders (default: ., or none with --kustomize); "
                                                  "- reads stdin."),
    format: str = typer.Option("tree", "--format", "-f", metavar="FORMAT",
                               help="tree (default), dot, mermaid or json.", autocompletion=complete.graph_formats),
    output: str | None = typer.Option(None, "--output", "-o", metavar="FILE", help="Write the graph here."),
    with_findings: bool = typer.Option(False, "--with-findings",
                                       help="Mark the findings of `kqlint check` on their objects."),
    kustomize: list[str] | None = kustomize_option("Show this kustomization as `kubectl kustomize DIR` renders it "
                                                   "(as `kqlint check --kustomize`), objects placed in their "
                                                   "source files; repeatable."),
    allow_remote_bases: bool = allow_remote_bases_option(),
    config_file: str | None = config_option(),
    no_config: bool = no_config_option(),
    profile: str | None = profile_option(),
    namespace: str | None = namespace_option(),
    context: list[str] | None = context_option(),
    exclude: list[str] | None = exclude_option("Skip paths matching this glob."),
    no_color: bool = typer.Option(False, "--no-color", help="No colors in the tree."),
    allow_plugins: bool = allow_plugins_option(),
) -> None:
    """Show the resolved object graph: workloads -> LocalQueue -> ClusterQueue -> ResourceFlavors
    and cohort, their WorkloadPriorityClasses and PriorityClasses, PodGroups and TrainJob
    runtimes, resolved as `kqlint check` resolves them. A reference check reports as unknown is
    marked unresolved; one whose answer depends on where the files are applied, ambiguous."""
    from kqlint.engine.pipeline import Pipeline
    from kqlint.reporters.formats import choose
    from kqlint.reporters.graph import FORMATS, JSON_FORMATS, render
    from kqlint.reporters.graph.build import build

    choose(format, FORMATS)
    config = load_config(config_file, no_config, allow_plugins).with_overrides(
        profile=profile, namespace=namespace, exclude=(tuple(exclude or ())) or None)
    check_excludes(config.exclude)
    pipeline = Pipeline(config)  # config context:/crds: outside the repository are dropped, with a note
    for note in pipeline.notes:
        err(f"kqlint: note: {note}")
    color = output is None and format == "tree" and use_color(no_color)
    targets = list(paths or ([] if kustomize else ["."]))
    view = pipeline.graph(targets, context=tuple(context or ()), kustomize=list(kustomize or ()),
                          allow_remote=allow_remote_bases)
    judged = view.report.findings + view.report.suppressed  # what check says about each reference
    text = render(format, build(view.graphs, view.shown.findings if with_findings else (), judged, view.place),
                  color=color)
    if not color and format not in JSON_FORMATS:  # object names are the repository's: no control character
        from kqlint.sanitize import safe_lines

        text = safe_lines(text)
    emit(text, output)
