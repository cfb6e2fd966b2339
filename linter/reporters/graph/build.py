"""The export graph of a run: a node per workload and Kueue/scheduling object, and an edge per
reference ``kqlint.domain.refs.references`` resolves from it (unresolved ones end at a missing node)."""
from __future__ import annotations

from collections.abc import Callable, Iterable

from kqlint.domain.graph import TIER_ORDER, ObjectGraph
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
from kqlint.model import Finding, Location
from kqlint.reporters.graph.elements import (
    AMBIGUOUS,
    UNCHECKED,
    UNRESOLVED,
    Edge,
    Graph,
    Node,
    node_id,
    shown_namespace,
)

# (kind, group) of the Kueue and scheduling objects that are nodes even when nothing names them
PLATFORM_KINDS = {(gk.kind, gk.group) for gk in (LOCAL_QUEUE, CLUSTER_QUEUE, COHORT, RESOURCE_FLAVOR,
                                                 WORKLOAD_PRIORITY_CLASS, PRIORITY_CLASS)}


Place = Callable[[Location], Location]
Key = tuple[str, str, str | None, str]  # kind, group, namespace, name: how a finding names its object
# the status a missing target shows when several references name it: the strongest claim wins
_STRENGTH = {UNRESOLVED: 3, AMBIGUOUS: 2, UNCHECKED: 1}


class _Builder:
    def __init__(self, judged: set[tuple[str, int, int]] | None, place: Place | None) -> None:
        self.graph: ObjectGraph | None = None
        self.judged = judged
        self.place = place
        self.out = Graph()
        self.labels: dict[tuple[str, str, str], list[str]] = {}
        self.expanded: set[int] = set()
        self.by_key: dict[Key, str] = {}

    def node(self, obj: K8sObject) -> str:
        namespace, namespaces = shown_namespace(obj.namespace)
        ident = node_id(obj.kind, obj.group, namespace, obj.name)
        known = self.out.nodes.get(ident)
        if known is None or TIER_ORDER.get(obj.source, 9) < TIER_ORDER.get(known.status, 9):
            at = obj.location() if obj.root is not None else None
            if at is not None and self.place is not None:
                at = self.place(at)
            self.out.nodes[ident] = Node(ident, obj.kind, obj.group, namespace, obj.name, obj.source,
                                         obj.api_version, at.file if at else None,
                                         at.line if at else None, at.column if at else None, namespaces)
            self.by_key[(obj.kind, obj.group, None if obj.namespace is None else str(obj.namespace), obj.name)] = ident
        self.expand(obj)
        return ident

    def missing(self, reference: Reference) -> str:
        site = reference.site
        namespace, namespaces = shown_namespace(site.namespace)
        ident = node_id(site.kind, site.group, namespace, site.name)
        status = self.status(reference)
        known = self.out.nodes.get(ident)
        if known is None or _STRENGTH.get(status, 0) > _STRENGTH.get(known.status, 0):
            self.out.nodes[ident] = Node(ident, site.kind, site.group, namespace, site.name, status,
                                         namespaces=namespaces)
        return ident

    def status(self, reference: Reference) -> str:
        """UNRESOLVED only where ``kqlint check`` reports the reference (a finding at the name
        or its key; without a lint, where it would: no proof of the contrary); AMBIGUOUS where
        no answer holds wherever it is applied; else UNCHECKED. Operator-made and implicit
        targets keep their own status."""
        site = reference.site
        if site.status != UNRESOLVED:
            return site.status
        assert self.graph is not None
        if self.judged is not None and any((at.file, at.line, at.column) in self.judged
                                           for at in (reference.at, reference.key_at)):
            return UNRESOLVED
        if reference.may_exist(self.graph):
            return AMBIGUOUS
        return UNRESOLVED if self.judged is None else UNCHECKED

    def edge(self, source: str, target: str, relation: str, label: str) -> None:
        labels = self.labels.setdefault((source, target, relation), [])
        if label not in labels:
            labels.append(label)

    def link(self, source: str, reference: Reference) -> None:
        site = reference.site
        ident = self.node(site.target) if site.target is not None else self.missing(reference)
        self.edge(source, ident, reference.ref.relation, site.label)

    def expand(self, obj: K8sObject) -> None:
        if id(obj) in self.expanded:
            return
        self.expanded.add(id(obj))
        assert self.graph is not None
        namespace, _ = shown_namespace(obj.namespace)
        ident = node_id(obj.kind, obj.group, namespace, obj.name)
        for reference in references(obj, self.graph):
            self.link(ident, reference)

    def result(self) -> Graph:
        self.out.edges = sorted(Edge(s, t, r, ", ".join(labels)) for (s, t, r), labels in self.labels.items())
        return self.out


def build(graphs: ObjectGraph | Iterable[ObjectGraph], findings: Iterable[Finding] = (),
          judged_by: Iterable[Finding] | None = None, place: Place | None = None) -> Graph:
    """The export graph of the graphs' input objects (workloads and Kueue/scheduling objects),
    with the objects they reference from any tier, each reference resolved in its own unit's
    graph as ``kqlint check`` resolves it; ``findings`` overlaid on their objects.
    ``judged_by``: the findings of ``check`` on the same graphs (suppressed ones too): a missing
    target is UNRESOLVED only where one of them points at the reference. ``place``: where an
    object's position lies in its source file (``--kustomize``)."""
    graphs = [graphs] if isinstance(graphs, ObjectGraph) else list(graphs)
    judged = None if judged_by is None else {(f.location.file, f.location.line, f.location.column)
                                             for f in judged_by}
    builder = _Builder(judged, place)
    for graph in graphs:
        builder.graph = graph
        for obj in graph.inputs:
            if is_workload(obj) or has_pod_templates(obj) or is_pod_group(obj) \
                    or (obj.kind, obj.group) in PLATFORM_KINDS:
                builder.node(obj)
            for inner in wrapped_objects(obj):  # PodGroups an AppWrapper creates
                if is_pod_group(inner):
                    builder.node(inner)
    result = builder.result()
    result.platform = platform_of(graphs[0]) if graphs else None
    for finding in findings:
        if finding.obj is not None:
            group = finding.obj.api_version.rpartition("/")[0]
            ident = builder.by_key.get((finding.obj.kind, group, finding.obj.namespace, finding.obj.name))
            if ident in result.nodes:
                result.findings.setdefault(ident, []).append(finding)
    return result
