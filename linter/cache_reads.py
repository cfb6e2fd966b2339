"""What a graph-reading built-in rule reads, and digests of it (kqlint.cache_results).

A rule in READS reads, besides its own object, only objects of the kinds it declares (and,
through the graph, the platform model, the partition and the folder/unit layout). Its stored
findings are reused when the digest of what it reads is unchanged:

- kind digest: over every manifest object of that kind name (any API group: a superset of the
  declared GroupKinds) in the run, inputs and context of every unit, in load order, each as
  (display path, document index, path inside the document, its document's projection digest,
  tier, unit): its document with the values no rule reads of another object masked (plain
  label values, container images, ClusterQueue quotas: kqlint.cache_masks). An object added,
  removed, moved, or changed in (unmasked) data or in node positions changes it; an object
  without a document digest (stdin, a file outside the project, not cached) makes it
  unknown, and the rule is run;
- scoped reads (SCOPED_READS): a rule that reads masked values of some objects of a kind
  (KQ210: the quotas of the ClusterQueues a workload's namespace may route to, and of their
  cohorts) keeps, per object, the digest of those objects' documents whole;
- graph key: the partition (its unit), the platform model (every field), the declared objects
  (config ``external``, the profile's, the built-in classes: their data), the folders holding
  a kustomization, the patch fragments. Every reused rule's digest includes it, whether or not
  the rule asks the platform or the layout: cheap, and nothing is missed.

Everything else (the configuration, the selected rules, kqlint's code, ``--crd`` files) is in
the results key (kqlint.cache_results.results_key).
"""
from __future__ import annotations

import hashlib
import pickle
from collections.abc import Callable, Iterable
from typing import Any

from kqlint import kinds as K
from kqlint.cache_results import object_namespace
from kqlint.kueue import routing
from kqlint.workloads.extract import TEMPLATE_KINDS

_RUNTIMES = frozenset({K.TRAINING_RUNTIME, K.CLUSTER_TRAINING_RUNTIME})
_ROUTING = _RUNTIMES | {K.LOCAL_QUEUE}
_POD_GROUPS = frozenset({K.VOLCANO_PODGROUP, K.KAI_PODGROUP, K.COSCHEDULING_PODGROUP})
_ROUTED = frozenset(routing.MANAGED) | {K.LOCAL_QUEUE, K.CLUSTER_QUEUE, K.WORKLOAD_PRIORITY_CLASS, K.PRIORITY_CLASS}
_TEMPLATES = "pod_templates: a TrainJob's come from its (Cluster)TrainingRuntime"
_MANAGED = (f"managed_workloads: its queue-name label, or a LocalQueue `default` in its namespace; {_TEMPLATES}; "
            "a runtime's templates run in the TrainJobs using it (managed_templates, trainjobs_using)")
_POD_PRIORITY = ("pod_priority: its PriorityClass or the global default one (priority_classes); the fix's shared "
                 "non-preempting class (only_non_preempting_class: the graph's PriorityClasses)")

# code -> (the kinds it reads besides its own object, why): checked by tests/test_cache_reads.py.
# Not here, run every time: KQ005 (cheap: the object's apiVersion against the platform model),
# the graph rules KQ003 (every object) and KQ103 (cheap), KQ5xx (the kakaocloud profile's).
READS: dict[str, tuple[frozenset[tuple[str, str]], str]] = {
    "KQ101": (_ROUTING | {K.TRAINJOB, K.PRIORITY_CLASS}, f"{_MANAGED}; {_POD_PRIORITY}; is_multi_pod: {_TEMPLATES}"),
    "KQ102": (_ROUTING | {K.TRAINJOB, K.PRIORITY_CLASS}, f"{_MANAGED}; global_default_class; {_POD_PRIORITY}"),
    "KQ104": (_RUNTIMES | {K.PRIORITY_CLASS}, f"own_templates ({_TEMPLATES}); {_POD_PRIORITY}"),
    "KQ105": (_ROUTED, "graph rule: every workload Kueue may manage (queues_of the inputs, workloads_routed_to: "
                       "LocalQueue -> ClusterQueue), its workload priority (WorkloadPriorityClass, else the pods' "
                       "PriorityClass or the global default) and its pods' priorities"),
    "KQ106": (_ROUTED, "graph rule: the input ClusterQueues, the workloads routed to them (LocalQueue -> "
                       f"ClusterQueue, {_TEMPLATES}) and their pods' PriorityClasses"),
    "KQ107": (_ROUTED, "graph rule: the input PriorityClasses, every managed multi-pod workload "
                       f"(all_managed_workloads, {_TEMPLATES}), its pods' PriorityClasses"),
    "KQ211": (frozenset({K.CLUSTER_QUEUE, K.LOCAL_QUEUE, K.NAMESPACE}),
              "graph rule: the input ClusterQueues' namespaceSelector, the LocalQueues pointing at each "
              "(spec.clusterQueue, their namespaces), the input Namespaces' labels"),
    "KQ301": (frozenset(TEMPLATE_KINDS) | _POD_GROUPS,
              "graph rule: the input PodGroups (also wrapped in AppWrappers), every workload's templates that "
              "join one (_pod_group_members), Volcano Jobs, Kubeflow jobs, the batch-min-member of Jobs, "
              "CronJobs, JobSets: all kinds with pod templates"),
    "KQ108": (_ROUTING | {K.CLUSTER_QUEUE, K.WORKLOAD_PRIORITY_CLASS, K.PRIORITY_CLASS},
              f"{_MANAGED}; cluster_queue_of: LocalQueue -> ClusterQueue; workload_priority's fallback: "
              "WorkloadPriorityClass, PriorityClass, the global default"),
    "KQ201": (_ROUTED, "a ClusterQueue: the workloads routed to it (every managed workload, LocalQueue -> "
                       "ClusterQueue) and their workload priorities (WorkloadPriorityClass, PriorityClass); the "
                       "WorkloadPriorityClasses of its graph (its unit and the shared files)"),
    "KQ202": (_ROUTING | {K.WORKLOAD_PRIORITY_CLASS, K.PRIORITY_CLASS},
              f"{_MANAGED}; the label's WorkloadPriorityClass (resolved, close names); a PriorityClass of "
              "that name (the hint)"),
    "KQ203": (_ROUTING, f"{_MANAGED}; the LocalQueue (resolved, close names, other namespaces)"),
    "KQ204": (frozenset({K.CLUSTER_QUEUE}), "the LocalQueue's ClusterQueue (resolved, close names, other units)"),
    "KQ205": (_ROUTING | {K.TRAINJOB, K.PRIORITY_CLASS},
              f"own_templates ({_TEMPLATES}): their PriorityClass (resolved, close names, the global default); "
              f"a PodGroup's PriorityClass; KAI's classes from the platform model; {_MANAGED} (the message)"),
    "KQ206": (frozenset({K.RESOURCE_FLAVOR}), "the ClusterQueue's flavors: ResourceFlavors (resolved, close names)"),
    "KQ207": (_ROUTING, f"a LocalQueue `default` in its namespace, the LocalQueues there (the hint); {_TEMPLATES}"),
    "KQ208": (_RUNTIMES, f"the platform model's template labels and integrations; own_templates ({_TEMPLATES})"),
    "KQ209": (_ROUTING | {K.CLUSTER_QUEUE},
              f"{_MANAGED}; cluster_queue_candidates: LocalQueue -> ClusterQueue; pod sets from the object's "
              "templates; the ClusterQueue's resource groups"),
    "KQ210": (_ROUTING | {K.CLUSTER_QUEUE, K.COHORT, K.RESOURCE_FLAVOR},
              f"{_MANAGED}; LocalQueue -> ClusterQueue, the other ClusterQueues of its cohort and the Cohort "
              "objects (cohort_peers, cohort_tree_open); the ResourceFlavors a pod set can use "
              "(usable_flavor_names)"),
    "KQ217": (_ROUTING | {K.CLUSTER_QUEUE, K.RESOURCE_FLAVOR},
              f"{_MANAGED}; cluster_queue_candidates: LocalQueue -> ClusterQueue; the ClusterQueue's resource "
              "groups and their ResourceFlavors (group_checks)"),
    "KQ303": (_RUNTIMES | _POD_GROUPS | {K.APPWRAPPER},
              f"own_templates ({_TEMPLATES}); the PodGroups they name (resolved, other units) and those "
              "wrapped in AppWrappers (wrapped_pod_groups)"),
    "KQ304": (_RUNTIMES, f"gang_markers: the object's own markers and its templates' ({_TEMPLATES})"),
    "KQ401": (_RUNTIMES, f"the platform model (offers the NIC); total_pods, own_templates ({_TEMPLATES})"),
}


def read_kinds(code: str) -> frozenset[str]:
    """The kind names whose objects ``code`` reads (digests are kept per kind name)."""
    return frozenset(kind for _, kind in READS[code][0])


def quota_scope(obj: Any, by_kind: dict[str, list[Any]]) -> list[Any]:
    """The ClusterQueues whose quotas KQ210 may read judging ``obj``: those named by a
    LocalQueue of its namespace (or of none, or applied wherever: every LocalQueue it may
    resolve), and every ClusterQueue sharing a cohort with one of them; in run order."""
    from kqlint.kueue import cluster_queue_name, cohort_name
    from kqlint.objects import ApplyTimeNamespace

    names = {cluster_queue_name(lq) for lq in by_kind.get("LocalQueue", ())
             if lq.namespace is None or lq.namespace == obj.namespace or isinstance(lq.namespace, ApplyTimeNamespace)}
    queues = by_kind.get("ClusterQueue", [])
    cohorts = {cohort_name(cq) for cq in queues if cq.name in names} - {None}
    return [cq for cq in queues if cq.name in names or cohort_name(cq) in cohorts]


# code -> (kind, the objects of that kind it reads whole for one object, why): the others it
# reads masked (kqlint.cache_masks); checked by tests/test_cache_masks.py.
SCOPED_READS: dict[str, tuple[str, Callable[[Any, dict[str, list[Any]]], list[Any]], str]] = {
    "KQ210": ("ClusterQueue", quota_scope, "capacity: the quotas of the workload's ClusterQueue candidates "
                                           "(LocalQueue -> ClusterQueue) and of their cohort peers"),
}


class RunObjects:
    """The manifest objects of one run, grouped by kind name, and the digests of those groups."""

    def __init__(self, objects: Iterable[Any], documents: dict[str, tuple[str, ...]], scope: Any,
                 projections: dict[str, tuple[str, ...]] | None = None) -> None:
        self.documents = documents
        self.projections = projections or {}
        self.by_kind: dict[str, list[Any]] = {}
        for obj in objects:
            self.by_kind.setdefault(obj.kind, []).append(obj)
        self.scope = scope
        self._digests: dict[tuple[str, bool], str | None] = {}
        self._scoped: dict[tuple[str, Any], str | None] = {}
        self.layout = _digest_of([sorted(scope.kustomize_dirs()), sorted(scope.fragments)])

    def document_digest(self, obj: Any, projected: bool = False) -> str | None:
        found = (self.projections if projected else self.documents).get(obj.file)
        return found[obj.doc] if found is not None and 0 <= obj.doc < len(found) else None

    def kind_digest(self, kind: str, projected: bool = False) -> str | None:
        if (kind, projected) not in self._digests:
            self._digests[(kind, projected)] = self._kind_digest(kind, projected)
        return self._digests[(kind, projected)]

    def _kind_digest(self, kind: str, projected: bool) -> str | None:
        return self._objects_digest(self.by_kind.get(kind, ()), projected)

    def _objects_digest(self, objects: Iterable[Any], projected: bool) -> str | None:
        digest = hashlib.blake2b(digest_size=16)
        for obj in objects:
            document = self.document_digest(obj, projected)
            if document is None:
                return None
            digest.update(repr((obj.file, obj.doc, obj.base, document, obj.source, self.scope.unit_of(obj.file),
                                object_namespace(obj))).encode("utf-8", "surrogateescape"))
        return digest.hexdigest()

    def scoped_digest(self, code: str, obj: Any) -> str | None:
        """The digest of the objects ``code`` reads whole judging ``obj`` (SCOPED_READS), the
        same for every object of one namespace; None: unknown."""
        kind, scope, _ = SCOPED_READS[code]
        key = (code, obj.namespace)
        if key not in self._scoped:
            try:
                self._scoped[key] = self._objects_digest(scope(obj, self.by_kind), projected=False)
            except Exception:
                self._scoped[key] = None
        return self._scoped[key]

    def reads_digest(self, graph_key: str | None, kinds: Iterable[str]) -> str | None:
        """The digest of what a rule reading ``kinds`` (their projections) reads in a graph;
        None: unknown."""
        parts: list[Any] = [graph_key, self.layout]
        for kind in sorted(kinds):
            parts.append((kind, self.kind_digest(kind, projected=True)))
        if graph_key is None or any(part[1] is None for part in parts[2:]):
            return None
        return _digest_of(parts)


def graph_key(graph: Any) -> str | None:
    """What a graph adds to its objects: its unit, the platform model, the declared objects,
    the kustomization folders; None when a part cannot be keyed."""
    from kqlint.graph import from_manifest
    from kqlint.platform import platform_of

    try:
        declared = [(obj.source, obj.file, obj.group, obj.kind, obj.name, obj.namespace,
                     getattr(obj.namespace, "file", None), pickle.dumps(obj.data, protocol=5))
                    for obj in graph.objects if not from_manifest(obj)]
        return _digest_of([graph.unit, _platform(platform_of(graph)), sorted(graph.kustomize_dirs), declared])
    except Exception:
        return None


def _platform(model: Any) -> list[Any]:
    """Every field of the platform model, sets sorted (their order varies between processes)."""
    import dataclasses

    return [(f.name, sorted(value) if isinstance(value := getattr(model, f.name), frozenset) else value)
            for f in dataclasses.fields(model)]


def _digest_of(parts: Any) -> str:
    return hashlib.blake2b(repr(parts).encode("utf-8", "surrogateescape"), digest_size=16).hexdigest()
