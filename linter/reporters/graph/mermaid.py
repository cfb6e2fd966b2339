"""The graph as a Mermaid flowchart: one shape per kind, a class per worst severity or
status, the hierarchy solid and every other reference dotted."""
from __future__ import annotations

from typing import Any

from kqlint.reporters.graph.elements import HIERARCHY, UNRESOLVED, Graph, Node
from kqlint.reporters.graph.labels import label_lines, platform_comments, worst

_SHAPES = {"LocalQueue": ('[["', '"]]'), "ClusterQueue": ('[["', '"]]'), "Cohort": ('(("', '"))'),
           "ResourceFlavor": ('[/"', '"/]'), "PriorityClass": ('{{"', '"}}'),
           "WorkloadPriorityClass": ('{{"', '"}}'), "PodGroup": ('(["', '"])')}
_CLASSES = {
    "unresolved": "stroke:#c62828,stroke-width:2px,stroke-dasharray:5 5,color:#c62828",
    "missing": "stroke-dasharray:2 2",
    "outside": "fill:#eeeeee",
    "error": "stroke:#c62828,stroke-width:3px",
    "warning": "stroke:#ef6c00,stroke-width:3px",
    "info": "stroke:#1565c0,stroke-width:2px",
}


def mermaid_text(text: str) -> str:
    """Text safe inside a quoted Mermaid label (entity codes for quotes and markup)."""
    return (text.replace("&", "#amp;").replace('"', "#quot;").replace("<", "#lt;").replace(">", "#gt;")
            .replace("|", "#124;").replace("\n", " "))


def _class(graph: Graph, node: Node) -> str | None:
    severity = worst(graph.findings.get(node.id, []))
    if severity is not None:
        return severity.label
    if node.status == UNRESOLVED:
        return "unresolved"
    if node.missing:
        return "missing"
    return "outside" if node.status != "input" else None


def render(graph: Graph, **_: Any) -> str:
    ids = {node.id: f"n{index}" for index, node in enumerate(graph.sorted_nodes())}
    lines = ["flowchart LR", *platform_comments(graph, "  %%")]
    classes: dict[str, list[str]] = {}
    for node in graph.sorted_nodes():
        start, end = _SHAPES.get(node.kind, ('["', '"]'))
        label = "<br/>".join(mermaid_text(line) for line in label_lines(graph, node))
        lines.append(f"  {ids[node.id]}{start}{label}{end}")
        css = _class(graph, node)
        if css is not None:
            classes.setdefault(css, []).append(ids[node.id])
    for edge in graph.edges:
        arrow = "-->" if edge.relation in HIERARCHY else "-.->"
        lines.append(f'  {ids[edge.source]} {arrow}|"{mermaid_text(edge.label)}"| {ids[edge.target]}')
    for name, members in sorted(classes.items()):
        lines.append(f"  classDef {name} {_CLASSES[name]}")
        lines.append(f"  class {','.join(members)} {name}")
    return "\n".join(lines) + "\n"
