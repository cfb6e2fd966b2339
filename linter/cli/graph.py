"""``kqlint graph``: the resolved object graph as a tree, DOT, Mermaid or JSON."""
from __future__ import annotations

import typer
from kqlint.cli.app import emit, err
from kqlint.cli.options import (
    allow_plugins_option,
    check_excludes,
    config_option,
    context_option,
    exclude_option,
    load_config,
    namespace_option,
    profile_option,
    use_color,
)


def graph(
    paths: list[str] | None = typer.Argument(None, metavar="[PATH]...",
                                             help="Files and folders (default: .); - reads stdin."),
    format: str = typer.Option("tree", "--format", "-f", metavar="FORMAT",
                               help="tree (default), dot, mermaid or json."),
    output: str | None = typer.Option(None, "--output", "-o", metavar="FILE", help="Write the graph here."),
    with_findings: bool = typer.Option(False, "--with-findings",
                                       help="Lint too, and mark the findings on their objects."),
    config_file: str | None = config_option(),
    profile: str | None = profile_option(),
    namespace: str | None = namespace_option(),
    context: list[str] | None = context_option(),
    exclude: list[str] | None = exclude_option("Skip paths matching this glob."),
    no_color: bool = typer.Option(False, "--no-color", help="No colors in the tree."),
    allow_plugins: bool = allow_plugins_option(),
) -> None:
    """Show the resolved object graph: workloads -> LocalQueue -> ClusterQueue -> ResourceFlavors
    and cohort, their WorkloadPriorityClasses and PriorityClasses, PodGroups and TrainJob
    runtimes. Unresolved references are marked as such."""
    from kqlint.engine.pipeline import Pipeline
    from kqlint.reporters.formats import choose
    from kqlint.reporters.graph import FORMATS, JSON_FORMATS, render
    from kqlint.reporters.graph.build import build

    choose(format, FORMATS)
    config = load_config(config_file, False, allow_plugins).with_overrides(
        profile=profile, namespace=namespace, exclude=(tuple(exclude or ())) or None)
    check_excludes(config.exclude)
    pipeline = Pipeline(config)  # config context:/crds: outside the repository are dropped, with a note
    for note in pipeline.notes:
        err(f"kqlint: note: {note}")
    color = output is None and format == "tree" and use_color(no_color)
    graph, report = pipeline.graph(list(paths or ["."]), context=tuple(context or ()), with_findings=with_findings)
    text = render(format, build(graph, report.findings if report else ()), color=color)
    if not color and format not in JSON_FORMATS:  # object names are the repository's: no control character
        from kqlint.sanitize import safe_lines

        text = safe_lines(text)
    emit(text, output)
