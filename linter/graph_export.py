"""``kqlint graph``: the resolved object graph, as a rich tree, Graphviz DOT, Mermaid or JSON.

Edges are the references of ``kqlint.refs`` (its table lists each relation), resolved by the
same walk the unknown-reference rules use.

Pod-template edges start at the object that holds the template, labelled with the
template's role. A reference that does not resolve becomes a node with status
``unresolved``; a cohort named by ClusterQueues but defined by no Cohort object is
``implicit`` (Kueue creates it), and a PodGroup an operator creates under the job's own
name is ``operator``. With findings, each node carries the findings on its object.
"""
from __future__ import annotations

import io
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from kqlint.kinds import (
    BATCH_GROUP,
    CLUSTER_QUEUE,
    COHORT,
    LOCAL_QUEUE,
    PRIORITY_CLASS,
    RESOURCE_FLAVOR,
    WORKLOAD_PRIORITY_CLASS,
)
from kqlint.model import Finding, Severity
from kqlint.objects import K8sObject
from kqlint.platform import platform_of
from kqlint.refs import Reference, references
from kqlint.workloads import (
    RUNTIME_KINDS,
    has_pod_templates,
    is_pod_group,
    is_workload,
    wrapped_objects,
)

FORMATS = ("tree", "dot", "mermaid", "json")
HIERARCHY = ("queue", "cluster-queue", "cohort", "parent-cohort")
UNRESOLVED, IMPLICIT, OPERATOR = "unresolved", "implicit", "operator"
# (kind, group) of the Kueue and scheduling objects that are nodes even when nothing names them
PLATFORM_KINDS = {(gk.kind, gk.group) for gk in (LOCAL_QUEUE, CLUSTER_QUEUE, COHORT, RESOURCE_FLAVOR,
                                                 WORKLOAD_PRIORITY_CLASS, PRIORITY_CLASS)}


@dataclass(frozen=True)
class Node:
    id: str
    kind: str
    group: str
    namespace: str | None
    name: str
    status: str                     # input, context, external, profile, unresolved, implicit, operator
    api_version: str = ""
    file: str | None = None
    line: int | None = None
    column: int | None = None

    def display(self) -> str:
        return f"{self.kind} {self.namespace}/{self.name}" if self.namespace else f"{self.kind} {self.name}"

    @property
    def missing(self) -> bool:
        return self.status in (UNRESOLVED, IMPLICIT, OPERATOR)


@dataclass(frozen=True, order=True)
class Edge:
    source: str
    target: str
    relation: str
    label: str


@dataclass
class Graph:
    nodes: dict[str, Node] = field(default_factory=dict)
    edges: list[Edge] = field(default_factory=list)
    findings: dict[str, list[Finding]] = field(default_factory=dict)
    platform: Any = None            # the run's kqlint.platform.Platform (README "Platform model")

    def sorted_nodes(self) -> list[Node]:
        return sorted(self.nodes.values(), key=lambda n: n.id)

    def unresolved(self) -> list[Node]:
        return [n for n in self.sorted_nodes() if n.status == UNRESOLVED]


def node_id(kind: str, group: str, namespace: str | None, name: str) -> str:
    qualified = f"{kind}.{group}" if group else kind
    return f"{qualified}/{namespace}/{name}" if namespace else f"{qualified}/{name}"


# ------------------------------------------------------------------ building

class _Builder:
    def __init__(self, graph: Any) -> None:
        self.graph = graph
        self.out = Graph()
        self.labels: dict[tuple[str, str, str], list[str]] = {}
        self.expanded: set[int] = set()

    def node(self, obj: K8sObject) -> str:
        ident = node_id(obj.kind, obj.group, obj.namespace, obj.name)
        if ident not in self.out.nodes:
            at = obj.location() if obj.root is not None else None
            self.out.nodes[ident] = Node(ident, obj.kind, obj.group, obj.namespace, obj.name, obj.source,
                                         obj.api_version, at.file if at else None,
                                         at.line if at else None, at.column if at else None)
        self.expand(obj)
        return ident

    def missing(self, kind: str, group: str, namespace: str | None, name: str, status: str) -> str:
        ident = node_id(kind, group, namespace, name)
        self.out.nodes.setdefault(ident, Node(ident, kind, group, namespace, name, status))
        return ident

    def edge(self, source: str, target: str, relation: str, label: str) -> None:
        labels = self.labels.setdefault((source, target, relation), [])
        if label not in labels:
            labels.append(label)

    def link(self, source: str, reference: Reference) -> None:
        site = reference.site
        if site.target is not None:
            ident = self.node(site.target)
        else:
            ident = self.missing(site.kind, site.group, site.namespace, site.name, site.status)
        self.edge(source, ident, reference.ref.relation, site.label)

    def expand(self, obj: K8sObject) -> None:
        if id(obj) in self.expanded:
            return
        self.expanded.add(id(obj))
        ident = node_id(obj.kind, obj.group, obj.namespace, obj.name)
        for reference in references(obj, self.graph):
            self.link(ident, reference)

    def result(self) -> Graph:
        self.out.edges = sorted(Edge(s, t, r, ", ".join(labels)) for (s, t, r), labels in self.labels.items())
        return self.out


def build(graph: Any, findings: Iterable[Finding] = ()) -> Graph:
    """The export graph of ``graph``'s input objects (workloads and Kueue/scheduling objects),
    with the objects they reference from any tier; ``findings`` overlaid on their objects."""
    builder = _Builder(graph)
    for obj in graph.inputs:
        if is_workload(obj) or has_pod_templates(obj) or is_pod_group(obj) \
                or (obj.kind, obj.group) in PLATFORM_KINDS:
            builder.node(obj)
        for inner in wrapped_objects(obj):  # PodGroups an AppWrapper creates
            if is_pod_group(inner):
                builder.node(inner)
    result = builder.result()
    result.platform = platform_of(graph)
    for finding in findings:
        if finding.obj is not None:
            group = finding.obj.api_version.rpartition("/")[0]
            ident = node_id(finding.obj.kind, group, finding.obj.namespace, finding.obj.name)
            if ident in result.nodes:
                result.findings.setdefault(ident, []).append(finding)
    return result


# ------------------------------------------------------------------ loading

def load(paths: list[str], config: Any, context: tuple[str, ...] = (),
         with_findings: bool = False) -> tuple[Any, tuple[Finding, ...]]:
    """The ObjectGraph of ``paths`` (plus context, external and profile objects), and the
    findings of a lint run over the same loaded files when asked (stdin is read once)."""
    from kqlint.errors import UsageError
    from kqlint.inputs import context_paths, load_context, load_paths
    from kqlint.objects import INPUT
    from kqlint.runner import analyze, build_graph, prepare
    from kqlint.scope import visible_context

    config, selected = prepare(config)
    inputs, found = load_paths(paths, config, INPUT)
    if found.missing:
        raise UsageError(f"path does not exist: {found.missing[0]}")
    named, _ = context_paths(paths, context, config)
    context_objects = visible_context(inputs, load_context(named, config, inputs).objects, config)
    findings = analyze(inputs, found, context_objects, config, selected).findings if with_findings else ()
    return build_graph(inputs, context_objects, config), findings


def render(graph: Graph, format_name: str, color: bool = False, width: int = 120) -> str:
    if format_name == "json":
        return to_json(graph)
    if format_name == "dot":
        return to_dot(graph)
    if format_name == "mermaid":
        return to_mermaid(graph)
    return to_tree(graph, color, width)


# ------------------------------------------------------------------ json

def _finding_json(finding: Finding) -> dict[str, Any]:
    loc = finding.location
    return {"code": finding.code, "slug": finding.slug, "severity": finding.severity.label,
            "file": loc.file, "line": loc.line, "column": loc.column, "message": finding.message}


def to_json(graph: Graph) -> str:
    from kqlint import __version__

    nodes = []
    for node in graph.sorted_nodes():
        data: dict[str, Any] = {"id": node.id, "apiVersion": node.api_version or None, "kind": node.kind,
                                "group": node.group, "namespace": node.namespace, "name": node.name,
                                "status": node.status, "file": node.file, "line": node.line,
                                "column": node.column}
        if node.id in graph.findings:
            data["findings"] = [_finding_json(f) for f in graph.findings[node.id]]
        nodes.append(data)
    edges = [{"from": e.source, "to": e.target, "relation": e.relation, "label": e.label} for e in graph.edges]
    summary = {"nodes": len(nodes), "edges": len(edges), "unresolved": len(graph.unresolved()),
               "findings": sum(len(v) for v in graph.findings.values())}
    document = {"version": __version__, "summary": summary, "nodes": nodes, "edges": edges}
    if graph.platform is not None:
        document["platform"] = graph.platform.describe()
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


# ------------------------------------------------------------------ dot

_SHAPES = {"LocalQueue": "box3d", "ClusterQueue": "box3d", "Cohort": "ellipse", "ResourceFlavor": "component",
           "PriorityClass": "note", "WorkloadPriorityClass": "note", "PodGroup": "hexagon",
           "ClusterTrainingRuntime": "tab", "TrainingRuntime": "tab"}
_SEVERITY_COLORS = {Severity.ERROR: "#c62828", Severity.WARNING: "#ef6c00", Severity.INFO: "#1565c0"}
_STATUS_NOTES = {UNRESOLVED: "unresolved", IMPLICIT: "implicit cohort", OPERATOR: "created by the operator",
                 "context": "context", "external": "external", "profile": "profile"}


def _dot_quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "") + '"'


def _label_lines(graph: Graph, node: Node) -> list[str]:
    lines = [node.kind if not node.group or node.kind != "Job" or node.group == BATCH_GROUP
             else f"{node.kind} ({node.group})",
             f"{node.namespace}/{node.name}" if node.namespace else node.name]
    if node.status in _STATUS_NOTES:
        lines.append(f"({_STATUS_NOTES[node.status]})")
    codes = sorted({f.code for f in graph.findings.get(node.id, [])})
    if codes:
        lines.append(", ".join(codes))
    return lines


def _worst(findings: list[Finding]) -> Severity | None:
    return max((f.severity for f in findings), default=None)


def _dot_node(graph: Graph, node: Node) -> str:
    attrs = {"label": _dot_quote("\n".join(_label_lines(graph, node))),
             "shape": _SHAPES.get(node.kind, "box")}
    if node.status == UNRESOLVED:
        attrs.update(style='"dashed,bold"', color='"#c62828"', fontcolor='"#c62828"')
    elif node.missing:
        attrs.update(style='"dotted"')
    elif node.status != "input":
        attrs.update(style='"filled"', fillcolor='"#eeeeee"')
    findings = graph.findings.get(node.id, [])
    worst = _worst(findings)
    if worst is not None:
        attrs.update(color=f'"{_SEVERITY_COLORS[worst]}"', penwidth="2",
                     tooltip=_dot_quote("\n".join(f"{f.code}: {f.message}" for f in findings)))
    return f"  {_dot_quote(node.id)} [{', '.join(f'{k}={v}' for k, v in attrs.items())}];"


def to_dot(graph: Graph) -> str:
    lines = [*_platform_comments(graph, "//"), "digraph kqlint {", '  graph [rankdir=LR, fontname="Helvetica"];',
             '  node [shape=box, fontname="Helvetica", fontsize=10];',
             '  edge [fontname="Helvetica", fontsize=9];']
    lines += [_dot_node(graph, node) for node in graph.sorted_nodes()]
    for edge in graph.edges:
        style = ", style=dashed" if edge.relation not in HIERARCHY else ""
        red = ', color="#c62828"' if graph.nodes[edge.target].status == UNRESOLVED else ""
        lines.append(f"  {_dot_quote(edge.source)} -> {_dot_quote(edge.target)} "
                     f"[label={_dot_quote(edge.label)}{style}{red}];")
    return "\n".join(lines + ["}"]) + "\n"


def _platform_comments(graph: Graph, marker: str) -> list[str]:
    """The platform model as comment lines (dot ``//``, mermaid ``%%``)."""
    if graph.platform is None or not graph.platform.known():
        return []
    return [f"{marker} platform: {line}" for line in graph.platform.lines()]


# ------------------------------------------------------------------ mermaid

_MERMAID_SHAPES = {"LocalQueue": ('[["', '"]]'), "ClusterQueue": ('[["', '"]]'), "Cohort": ('(("', '"))'),
                   "ResourceFlavor": ('[/"', '"/]'), "PriorityClass": ('{{"', '"}}'),
                   "WorkloadPriorityClass": ('{{"', '"}}'), "PodGroup": ('(["', '"])')}
_MERMAID_CLASSES = {
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


def _mermaid_class(graph: Graph, node: Node) -> str | None:
    worst = _worst(graph.findings.get(node.id, []))
    if worst is not None:
        return worst.label
    if node.status == UNRESOLVED:
        return "unresolved"
    if node.missing:
        return "missing"
    return "outside" if node.status != "input" else None


def to_mermaid(graph: Graph) -> str:
    ids = {node.id: f"n{index}" for index, node in enumerate(graph.sorted_nodes())}
    lines = ["flowchart LR", *_platform_comments(graph, "  %%")]
    classes: dict[str, list[str]] = {}
    for node in graph.sorted_nodes():
        start, end = _MERMAID_SHAPES.get(node.kind, ('["', '"]'))
        label = "<br/>".join(mermaid_text(line) for line in _label_lines(graph, node))
        lines.append(f"  {ids[node.id]}{start}{label}{end}")
        css = _mermaid_class(graph, node)
        if css is not None:
            classes.setdefault(css, []).append(ids[node.id])
    for edge in graph.edges:
        arrow = "-->" if edge.relation in HIERARCHY else "-.->"
        lines.append(f'  {ids[edge.source]} {arrow}|"{mermaid_text(edge.label)}"| {ids[edge.target]}')
    for name, members in sorted(classes.items()):
        lines.append(f"  classDef {name} {_MERMAID_CLASSES[name]}")
        lines.append(f"  class {','.join(members)} {name}")
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------ tree

HIERARCHY_KINDS = ("Cohort", "ClusterQueue", "LocalQueue")
ATTRIBUTE_KINDS = frozenset({"ResourceFlavor", "PriorityClass", "WorkloadPriorityClass", "PodGroup",
                             *RUNTIME_KINDS})
_TREE_STYLES = {UNRESOLVED: "bold red", IMPLICIT: "dim", OPERATOR: "dim"}


def _tree_label(graph: Graph, node: Node, prefix: str = "") -> str:
    from kqlint.sanitize import markup_safe as escape

    text = f"{escape(prefix)}[bold]{escape(node.kind)}[/] {escape(node.display().split(' ', 1)[1])}"
    if node.file is not None:
        text += f"  [dim]{escape(node.file)}:{node.line}:{node.column}[/]"
    if node.status in _STATUS_NOTES:
        text += f"  [{_TREE_STYLES.get(node.status, 'dim')}]({_STATUS_NOTES[node.status]})[/]"
    return text


def _tree_findings(tree: Any, graph: Graph, node: Node) -> None:
    from kqlint.sanitize import markup_safe as escape

    styles = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}
    for f in graph.findings.get(node.id, []):
        tree.add(f"[{styles[f.severity]}]{f.code} {f.severity.label}[/] "
                 f"{f.location.line}:{f.location.column} {escape(f.message)}")


def _tree_node(tree: Any, graph: Graph, node: Node, children: dict[str, list[Node]],
               attributes: dict[str, list[Edge]], path: frozenset[str], prefix: str = "") -> None:
    branch = tree.add(_tree_label(graph, node, prefix))
    _tree_findings(branch, graph, node)
    for edge in attributes.get(node.id, []):
        target = graph.nodes[edge.target]
        if edge.target not in path:
            _tree_node(branch, graph, target, {}, attributes, path | {edge.target}, f"{edge.label} → ")
    for child in children.get(node.id, []):
        _tree_node(branch, graph, child, children, attributes, path | {child.id})


def _tree_sections(graph: Graph) -> tuple[dict[str, list[Node]], dict[str, list[Edge]], list[tuple[str, list[Node]]]]:
    children: dict[str, list[Node]] = {}
    attributes: dict[str, list[Edge]] = {}
    has_parent, referenced = set(), set()
    for edge in graph.edges:
        if edge.relation in HIERARCHY:
            children.setdefault(edge.target, []).append(graph.nodes[edge.source])
            has_parent.add(edge.source)
        else:
            attributes.setdefault(edge.source, []).append(edge)
            referenced.add(edge.target)
    free = [n for n in graph.sorted_nodes() if n.id not in has_parent and n.id not in referenced]
    roots = [n for n in free if n.id in children or n.kind in HIERARCHY_KINDS]
    roots.sort(key=lambda n: (HIERARCHY_KINDS.index(n.kind) if n.kind in HIERARCHY_KINDS else 3, n.id))
    rest = [n for n in free if n not in roots]
    return children, attributes, [
        ("Kueue queues", roots),
        ("Workloads not queued by Kueue", [n for n in rest if n.kind not in ATTRIBUTE_KINDS]),
        ("Not referenced by any workload or queue", [n for n in rest if n.kind in ATTRIBUTE_KINDS])]


def to_tree(graph: Graph, color: bool = False, width: int = 120) -> str:
    from kqlint.sanitize import markup_safe as escape
    from rich.console import Console
    from rich.tree import Tree

    children, attributes, sections = _tree_sections(graph)
    buffer = io.StringIO()
    if color:  # on a terminal: its width; elsewhere a fixed width keeps the output deterministic
        import shutil

        width = shutil.get_terminal_size((width, 24)).columns
    console = Console(file=buffer, force_terminal=color, no_color=not color, width=width, highlight=False,
                      emoji=False, color_system="standard" if color else None)
    for title, nodes in sections:
        if nodes:
            tree = Tree(f"[bold underline]{title}[/]")
            for node in nodes:
                _tree_node(tree, graph, node, children, attributes, frozenset({node.id}))
            console.print(tree)
    unresolved = graph.unresolved()
    console.print(f"{len(graph.nodes)} objects, {len(graph.edges)} references, "
                  f"{len(unresolved)} unresolved" + (":" if unresolved else ""))
    for node in unresolved:
        sources = sorted({e.source for e in graph.edges if e.target == node.id})
        console.print(f"  [bold red]{escape(node.display())}[/] ← "
                      + ", ".join(escape(graph.nodes[s].display()) for s in sources))
    if graph.platform is not None and graph.platform.known():
        console.print("Platform model:")
        for line in graph.platform.lines():
            console.print(f"  {escape(line)}")
    return "".join(line.rstrip(" ") + "\n" for line in buffer.getvalue().splitlines())


def command(paths: list[str], config: Any, context: tuple[str, ...], format_name: str,
            with_findings: bool, color: bool) -> str:
    """What ``kqlint graph`` prints: the graph of ``paths``, findings overlaid on request."""
    graph, findings = load(paths, config, context, with_findings)
    return render(build(graph, findings), format_name, color)
