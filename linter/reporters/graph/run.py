"""One ``kqlint graph`` run: load the inputs and context as ``kqlint check`` does (through
``kqlint.engine.inputs`` and ``kqlint.engine.runner``), build the graph, render the chosen format."""
from __future__ import annotations

from typing import TYPE_CHECKING

from kqlint.model import Finding

if TYPE_CHECKING:
    from kqlint.config import Config
    from kqlint.domain.graph import ObjectGraph


def load(paths: list[str], config: Config, context: tuple[str, ...] = (),
         with_findings: bool = False) -> tuple[ObjectGraph, tuple[Finding, ...]]:
    """The ObjectGraph of ``paths`` (plus context, external and profile objects), and the
    findings of a lint run over the same loaded files when asked (stdin is read once)."""
    from kqlint.domain.objects import INPUT
    from kqlint.engine.inputs import context_paths, load_context, load_paths
    from kqlint.engine.runner import analyze, build_graph, prepare
    from kqlint.errors import UsageError
    from kqlint.project.scope import graph_view

    config, selected = prepare(config)
    inputs, found = load_paths(paths, config, INPUT)
    if found.missing:
        raise UsageError(f"path does not exist: {found.missing[0]}")
    named, _ = context_paths(paths, context, config)
    inputs, context_objects = graph_view(inputs, load_context(named, config, inputs).objects, config)
    findings = analyze(inputs, found, context_objects, config, selected).findings if with_findings else ()
    return build_graph(inputs, context_objects, config), findings


def command(paths: list[str], config: Config, context: tuple[str, ...], format_name: str,
            with_findings: bool, color: bool) -> str:
    """What ``kqlint graph`` prints: the graph of ``paths``, findings overlaid on request.
    Object names are the repository's: without colour, no control character reaches a
    terminal or a log (the JSON format escapes its own)."""
    from kqlint.reporters.graph import JSON_FORMATS, render
    from kqlint.reporters.graph.build import build

    graph, findings = load(paths, config, context, with_findings)
    text = render(format_name, build(graph, findings), color=color)
    if color or format_name in JSON_FORMATS:
        return text
    from kqlint.sanitize import safe_lines

    return safe_lines(text)
