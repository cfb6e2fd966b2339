"""The graph as Graphviz DOT: one shape per kind, unresolved nodes dashed red, findings
colouring their node by the worst severity (the messages in its tooltip)."""
from __future__ import annotations

from typing import Any

from kqlint.model import Severity
from kqlint.reporters.graph.elements import HIERARCHY, UNRESOLVED, Graph, Node
from kqlint.reporters.graph.labels import label_lines, platform_comments, worst

_SHAPES = {"LocalQueue": "box3d", "ClusterQueue": "box3d", "Cohort": "ellipse", "ResourceFlavor": "component",
           "PriorityClass": "note", "WorkloadPriorityClass": "note", "PodGroup": "hexagon",
           "ClusterTrainingRuntime": "tab", "TrainingRuntime": "tab"}
_SEVERITY_COLORS = {Severity.ERROR: "#c62828", Severity.WARNING: "#ef6c00", Severity.INFO: "#1565c0"}


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "") + '"'


def _node(graph: Graph, node: Node) -> str:
    attrs = {"label": _quote("\n".join(label_lines(graph, node))),
             "shape": _SHAPES.get(node.kind, "box")}
    if node.status == UNRESOLVED:
        attrs.update(style='"dashed,bold"', color='"#c62828"', fontcolor='"#c62828"')
    elif node.missing:
        attrs.update(style='"dotted"')
    elif node.status != "input":
        attrs.update(style='"filled"', fillcolor='"#eeeeee"')
    findings = graph.findings.get(node.id, [])
    severity = worst(findings)
    if severity is not None:
        attrs.update(color=f'"{_SEVERITY_COLORS[severity]}"', penwidth="2",
                     tooltip=_quote("\n".join(f"{f.code}: {f.message}" for f in findings)))
    return f"  {_quote(node.id)} [{', '.join(f'{k}={v}' for k, v in attrs.items())}];"


def render(graph: Graph, **_: Any) -> str:
    lines = [*platform_comments(graph, "//"), "digraph kqlint {", '  graph [rankdir=LR, fontname="Helvetica"];',
             '  node [shape=box, fontname="Helvetica", fontsize=10];',
             '  edge [fontname="Helvetica", fontsize=9];']
    lines += [_node(graph, node) for node in graph.sorted_nodes()]
    for edge in graph.edges:
        style = ", style=dashed" if edge.relation not in HIERARCHY else ""
        red = ', color="#c62828"' if graph.nodes[edge.target].status == UNRESOLVED else ""
        lines.append(f"  {_quote(edge.source)} -> {_quote(edge.target)} "
                     f"[label={_quote(edge.label)}{style}{red}];")
    return "\n".join(lines + ["}"]) + "\n"
