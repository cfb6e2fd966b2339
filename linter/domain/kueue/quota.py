"""ClusterQueue quotas: the one walk over ``spec.resourceGroups[].flavors[].resources[]``,
the ClusterQueues a workload may reach, and cohorts (kueue.md B5-B8)."""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kqlint.domain.fields import indexed_mappings, strings, text, text_or
from kqlint.domain.graph import graph_fact
from kqlint.domain.kinds import KUEUE_GROUP
from kqlint.domain.kueue.priority import NEVER
from kqlint.domain.kueue.routing import cluster_queue_name
from kqlint.domain.objects import CONTEXT, INPUT, K8sObject
from kqlint.loader.placeholders import holds_placeholder

if TYPE_CHECKING:
    from kqlint.domain.graph import ObjectGraph
    from kqlint.domain.kueue.routing import ManagedWorkload

RESOURCE_GROUPS = ("spec", "resourceGroups")
COHORT_FIELDS = ("cohortName", "cohort")  # a ClusterQueue's spec field naming its cohort: v1beta2, v1beta1


# ------------------------------------------------------------------ the ClusterQueue view

@dataclass(frozen=True)
class FlavorQuotas:
    """One ``spec.resourceGroups[g].flavors[f]`` entry: a flavor and its quotas."""

    path: tuple[Any, ...]         # ("spec", "resourceGroups", g, "flavors", f)
    data: dict[str, Any]
    group: dict[str, Any]         # the resource group holding it (its coveredResources)

    @property
    def name(self) -> Any:
        """The flavor name as written (a non-string is a schema violation, KQ002)."""
        return self.data.get("name")

    def quotas(self) -> Iterator[tuple[tuple[Any, ...], dict[str, Any]]]:
        """(path, mapping) of each ``resources[]`` entry (name, nominalQuota, limits)."""
        for r, quota in indexed_mappings(self.data.get("resources")):
            yield self.path + ("resources", r), quota


def resource_groups(cq: K8sObject) -> list[tuple[int, dict[str, Any]]]:
    """(index, mapping) of every ``spec.resourceGroups[]`` entry."""
    return list(indexed_mappings(cq.get(*RESOURCE_GROUPS)))


def group_flavors(group: dict[str, Any]) -> list[tuple[int, dict[str, Any]]]:
    """(index, mapping) of every ``flavors[]`` entry of one resource group."""
    return list(indexed_mappings(group.get("flavors")))


QUOTA_FIELDS = ("nominalQuota", "borrowingLimit", "lendingLimit")  # the amounts of one resources[] entry


def flavor_quotas(cq: K8sObject) -> Iterator[FlavorQuotas]:
    """Every flavor entry of the ClusterQueue, in order."""
    for g, group in resource_groups(cq):
        for f, flavor in group_flavors(group):
            yield FlavorQuotas((*RESOURCE_GROUPS, g, "flavors", f), flavor, group)


def quota_entry(cq: K8sObject, flavor: str, resource: str) -> tuple[tuple[Any, ...], dict[str, Any]] | None:
    """(path, mapping) of the quota ``cq`` gives ``resource`` in ``flavor``, if it gives one."""
    for entry in flavor_quotas(cq):
        if entry.name != flavor:
            continue
        for path, quota in entry.quotas():
            if quota.get("name") == resource:
                return path, quota
    return None


def flavors_covering(cq: K8sObject, resource: str) -> list[str]:
    """Flavor names of the (first) resource group that covers ``resource``."""
    for _, group in resource_groups(cq):
        covered = group.get("coveredResources")
        if isinstance(covered, list) and resource in covered:
            return [f["name"] for _, f in group_flavors(group) if isinstance(f.get("name"), str)]
    return []


def within_cluster_queue(cq: K8sObject) -> str:
    return text_or(cq.get("spec", "preemption", "withinClusterQueue"), NEVER)


# ------------------------------------------------------------------ routes and cohorts

def cluster_queue_candidates(unit: ManagedWorkload, graph: ObjectGraph) -> list[K8sObject]:
    """Every ClusterQueue the workload may reach. Usually one; several when the LocalQueue or
    the ClusterQueue is defined more than once in the same tier (duplicates, KQ003): quota
    rules then fire only when every candidate fails."""
    found: list[K8sObject] = []
    for lq in _same_identity(graph, "LocalQueue", unit.queue, unit.obj.namespace):
        for cq in _same_identity(graph, "ClusterQueue", cluster_queue_name(lq), None):
            if all(cq is not other for other in found):
                found.append(cq)
    return found


def _same_identity(graph: ObjectGraph, kind: str, name: Any, namespace: str | None) -> list[K8sObject]:
    """Every definition of a Kueue object in the best tier that has one (duplicates included)."""
    if not isinstance(name, str) or not name or graph.ambiguous(kind, name, namespace, KUEUE_GROUP):
        return []
    index = _identities(graph)
    return index.get((kind, name, namespace), [])


@graph_fact
def _identities(graph: ObjectGraph) -> dict[tuple[str, str, str | None], list[K8sObject]]:
    index: dict[tuple[str, str, str | None], list[K8sObject]] = {}
    for kind in ("LocalQueue", "ClusterQueue"):
        for obj in graph.of_kind(kind, KUEUE_GROUP):  # best tier first
            same = index.setdefault((kind, obj.name, obj.namespace), [])
            if not same or same[0].source == obj.source:
                same.append(obj)
    return index


@graph_fact
def cluster_queues_by_cohort(graph: ObjectGraph) -> dict[str, list[K8sObject]]:
    """Cohort name -> its ClusterQueues (one per name, the best tier), built once per graph."""
    chosen: dict[str, K8sObject] = {}
    for cq in graph.of_kind("ClusterQueue", KUEUE_GROUP):
        chosen.setdefault(cq.name, cq)
    members: dict[str, list[K8sObject]] = {}
    for cq in chosen.values():
        name = cohort_name(cq)
        if name is not None:
            members.setdefault(name, []).append(cq)
    return members


def cohort_name(cq: K8sObject) -> str | None:
    return text(cq.get("spec", COHORT_FIELDS[0]) or cq.get("spec", COHORT_FIELDS[1]))


def cohort_tree_open(name: str, graph: ObjectGraph) -> bool:
    """A Cohort object with a parent or quotas of its own, or a child cohort: more lenders."""
    for cohort in graph.of_kind("Cohort", KUEUE_GROUP):
        spec = cohort.get("spec")
        spec = spec if isinstance(spec, dict) else {}
        if cohort.name == name and (spec.get("parentName") or spec.get("parent") or spec.get("resourceGroups")):
            return True
        if name in (spec.get("parentName"), spec.get("parent")):
            return True
    return False


def quota_known(cq: K8sObject) -> bool:
    """Whether kqlint knows the queue's quotas: a manifest (inputs, --context), or a declared
    object that spells out `spec.resourceGroups` (a profile's or config's bare name does not)."""
    return cq.source in (INPUT, CONTEXT) or cq.has("spec", "resourceGroups")


def covered_resources(cq: K8sObject) -> set[str]:
    """Every resource name the ClusterQueue's resource groups cover."""
    covered: set[str] = set()
    for _, group in resource_groups(cq):
        covered |= set(strings(group.get("coveredResources")))
    for entry in flavor_quotas(cq):
        covered |= {quota["name"] for _, quota in entry.quotas() if isinstance(quota.get("name"), str)}
    return covered


def quota_scope(obj: K8sObject, by_kind: dict[str, list[Any]]) -> list[Any]:
    """The ClusterQueues whose quotas KQ210 may read judging ``obj``: those named by a
    LocalQueue of its namespace (or of none, or applied wherever: every LocalQueue it may
    resolve), and every ClusterQueue sharing a cohort with one of them; in run order."""
    from kqlint.domain.kueue.routing import cluster_queue_name
    from kqlint.domain.objects import ApplyTimeNamespace

    names = {cluster_queue_name(lq) for lq in by_kind.get("LocalQueue", ())
             if lq.namespace is None or lq.namespace == obj.namespace or isinstance(lq.namespace, ApplyTimeNamespace)}
    queues = by_kind.get("ClusterQueue", [])
    cohorts = {cohort_name(cq) for cq in queues if cq.name in names} - {None}
    return [cq for cq in queues if cq.name in names or cohort_name(cq) in cohorts]


def unrendered_quota(cq: K8sObject) -> str | None:
    """The first quota amount of ``cq`` that holds an envsubst placeholder (``nominalQuota:
    "${GPUS}"``): a template's, known once it is rendered. None when there is none."""
    for entry in flavor_quotas(cq):
        for _, quota in entry.quotas():
            for field in QUOTA_FIELDS:
                if holds_placeholder(quota.get(field)):
                    return str(quota[field])
    return None
