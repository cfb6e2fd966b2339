"""The export graph of a run: a node per workload and Kueue/scheduling object, and an edge per
reference ``kqlint.domain.refs.references`` resolves from it (unresolved ones end at a missing node)."""
from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from kqlint.domain.kinds import (
    CLUSTER_QUEUE,
    COHORT,
    LOCAL_QUEUE,
    PRIORITY_CLASS,
    RESOURCE_FLAVOR,
    WORKLOAD_PRIORITY_CLASS,
)
from kqlint.domain.objects import K8sObject
from kqlint.domain.platform import platform_of
from kqlint.domain.refs import Reference, references
from kqlint.domain.workloads import has_pod_templates, is_pod_group, is_workload, wrapped_objects
from kqlint.model import Finding
from kqlint.reporters.graph.elements import Edge, Graph, Node, node_id

if TYPE_CHECKING:
    from kqlint.domain.graph import ObjectGraph

# (kind, group) of the Kueue and scheduling objects that are nodes even when nothing names them
PLATFORM_KINDS = {(gk.kind, gk.group) for gk in (LOCAL_QUEUE, CLUSTER_QUEUE, COHORT, RESOURCE_FLAVOR,
                                                 WORKLOAD_PRIORITY_CLASS, PRIORITY_CLASS)}


class _Builder:
    def __init__(self, graph: ObjectGraph) -> None:
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


def build(graph: ObjectGraph, findings: Iterable[Finding] = ()) -> Graph:
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
