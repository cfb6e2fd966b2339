"""The graph as a rich tree: the Kueue queue hierarchy (cohorts, ClusterQueues, LocalQueues,
their workloads), then workloads no queue admits, then objects nothing references; each node
with its attributes (flavors, priorities, PodGroups, runtimes) and findings, then the
unresolved references and the platform model."""
from __future__ import annotations

import io
from typing import Any

from kqlint.domain.workloads import RUNTIME_KINDS
from kqlint.model import Severity
from kqlint.reporters.graph.elements import HIERARCHY, IMPLICIT, OPERATOR, UNRESOLVED, Edge, Graph, Node
from kqlint.reporters.graph.labels import STATUS_NOTES
from kqlint.sanitize import markup_safe as escape

HIERARCHY_KINDS = ("Cohort", "ClusterQueue", "LocalQueue")
ATTRIBUTE_KINDS = frozenset({"ResourceFlavor", "PriorityClass", "WorkloadPriorityClass", "PodGroup",
                             *RUNTIME_KINDS})
_STATUS_STYLES = {UNRESOLVED: "bold red", IMPLICIT: "dim", OPERATOR: "dim"}
_SEVERITY_STYLES = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}

Children = dict[str, list[Node]]
Attributes = dict[str, list[Edge]]
Notes = dict[str, str]  # node id -> why it sits where it does (a workload the default LocalQueue routes)
DEFAULTED = "default LocalQueue"  # the queue edge of a workload without a queue-name label


def _label(node: Node, prefix: str = "", note: str = "") -> str:
    text = f"{escape(prefix)}[bold]{escape(node.kind)}[/] {escape(node.display().split(' ', 1)[1])}"
    if note:
        text += f"  [yellow]({escape(note)})[/]"
    if node.file is not None:
        text += f"  [dim]{escape(node.file)}:{node.line}:{node.column}[/]"
    if node.status in STATUS_NOTES:
        text += f"  [{_STATUS_STYLES.get(node.status, 'dim')}]({STATUS_NOTES[node.status]})[/]"
    return text


def _findings(tree: Any, graph: Graph, node: Node, shown: set[str]) -> None:
    """A node's findings where it first appears; a shared object (a PriorityClass under many
    workloads) appears again under each, its findings once."""
    found = graph.findings.get(node.id, [])
    if node.id in shown:
        if found:
            tree.add(f"[dim]{len(found)} finding{'' if len(found) == 1 else 's'} shown above[/]")
        return
    shown.add(node.id)
    for f in found:
        tree.add(f"[{_SEVERITY_STYLES[f.severity]}]{f.code} {f.severity.label}[/] "
                 f"{f.location.line}:{f.location.column} {escape(f.message)}")


def _node(tree: Any, graph: Graph, node: Node, children: Children, attributes: Attributes,
          path: frozenset[str], shown: set[str], prefix: str = "", notes: Notes | None = None) -> None:
    notes = {} if notes is None else notes
    branch = tree.add(_label(node, prefix, notes.get(node.id, "")))
    _findings(branch, graph, node, shown)
    for edge in attributes.get(node.id, []):
        target = graph.nodes[edge.target]
        if edge.target not in path:
            _node(branch, graph, target, {}, attributes, path | {edge.target}, shown, f"{edge.label} → ")
    for child in children.get(node.id, []):
        _node(branch, graph, child, children, attributes, path | {child.id}, shown, notes=notes)


def _defaulted(graph: Graph) -> Notes:
    """Workloads Kueue manages only because the LocalQueue named `default` routes them."""
    return {edge.source: "no queue-name label: Kueue-managed only through LocalQueue `default`"
            for edge in graph.edges if edge.relation in HIERARCHY and edge.label.endswith(DEFAULTED)}


def _sections(graph: Graph) -> tuple[Children, Attributes, list[tuple[str, list[Node]]]]:
    children: Children = {}
    attributes: Attributes = {}
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


def _console(buffer: io.StringIO, color: bool, width: int) -> Any:
    from rich.console import Console

    if color:  # on a terminal: its width; elsewhere a fixed width keeps the output deterministic
        import shutil

        width = shutil.get_terminal_size((width, 24)).columns
    return Console(file=buffer, force_terminal=color, no_color=not color, width=width, highlight=False,
                   emoji=False, color_system="standard" if color else None)


def _summary(console: Any, graph: Graph) -> None:
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


def render(graph: Graph, color: bool = False, width: int = 120, **_: Any) -> str:
    from rich.tree import Tree

    children, attributes, sections = _sections(graph)
    buffer = io.StringIO()
    console = _console(buffer, color, width)
    shown: set[str] = set()  # nodes whose findings are printed
    for title, nodes in sections:
        if nodes:
            tree = Tree(f"[bold underline]{title}[/]")
            for node in nodes:
                _node(tree, graph, node, children, attributes, frozenset({node.id}), shown, notes=_defaulted(graph))
            console.print(tree)
    _summary(console, graph)
    return "".join(line.rstrip(" ") + "\n" for line in buffer.getvalue().splitlines())
