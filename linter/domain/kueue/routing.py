"""Kueue routing: which objects Kueue turns into Workloads (ManagedWorkload), the queue-name
label where each integration reads it, LocalQueue defaulting, and the LocalQueue ->
ClusterQueue route of every managed workload (kueue.md B13)."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kqlint.domain import kinds as K
from kqlint.domain.fields import text
from kqlint.domain.graph import graph_fact, object_fact
from kqlint.domain.kinds import KUEUE_GROUP, TRAINER_GROUP
from kqlint.domain.kueue_config_facts import KIND_FRAMEWORKS
from kqlint.domain.objects import ApplyTimeNamespace, K8sObject
from kqlint.domain.platform import platform_of
from kqlint.domain.workloads import (
    RUNTIME_KINDS,
    PodTemplate,
    own_templates,
    pod_templates,
    total_pods,
    training_runtime,
)

if TYPE_CHECKING:
    from kqlint.domain.graph import ObjectGraph
    from kqlint.model import Location

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
CLUSTER_QUEUE_FIELD = "clusterQueue"  # a LocalQueue's spec.clusterQueue
PRIORITY_LABEL = "kueue.x-k8s.io/priority-class"
POD_GROUP_TOTAL = "kueue.x-k8s.io/pod-group-total-count"
POD_GROUP_NAME = "kueue.x-k8s.io/pod-group-name"
DEFAULT_LOCAL_QUEUE = "default"          # LocalQueueDefaulting (B13, GA since v0.17)

# Kinds Kueue integrates; it reads queue-name/priority-class from their own metadata.labels (B13).
INTEGRATIONS: frozenset[K.GroupKind] = frozenset({
    K.JOB, K.JOBSET, *K.KUBEFLOW_JOBS, K.TRAINJOB, K.RAYJOB, K.RAYCLUSTER, K.RAYSERVICE,
    K.APPWRAPPER, K.POD, K.DEPLOYMENT, K.STATEFULSET, K.LWS,
})
# A CronJob's runs are Jobs whose own labels come from spec.jobTemplate.metadata.labels.
CRONJOB = K.CRONJOB
# Not an integration: its pods go through the pod integration, labels on each pod template.
POD_TEMPLATE_LABELLED: frozenset[K.GroupKind] = frozenset({K.DGD})
# Kind names whose objects (or, for TrainingRuntimes, their TrainJobs) Kueue may manage:
# per-object rules list them in META.kinds; the helpers below check the API group too.
MANAGED_KINDS: frozenset[str] = frozenset(
    {kind for _, kind in INTEGRATIONS | POD_TEMPLATE_LABELLED} | {CRONJOB[1], *RUNTIME_KINDS})
# The same as (group, kind) pairs, for scopes that match the API group too.
MANAGED: frozenset[K.GroupKind] = frozenset(INTEGRATIONS | POD_TEMPLATE_LABELLED | {CRONJOB, *K.RUNTIMES})

# JobWithPriorityClass integrations (B12): runPolicy.schedulingPolicy.priorityClass first, then
# the replica templates in the operator's fixed order (not the order written in the file).
KUBEFLOW_ROLE_ORDER: dict[str, tuple[str, ...]] = {
    "PyTorchJob": ("Master", "Worker"),
    "TFJob": ("Chief", "Master", "PS", "Worker", "Evaluator"),
    "XGBoostJob": ("Master", "Worker"),
    "PaddleJob": ("Master", "Worker"),
    "JAXJob": ("Worker",),
    "MPIJob": ("Launcher", "Worker"),
}


@dataclass(frozen=True)
class ManagedWorkload:
    """What Kueue turns into Workloads: an object, or one pod template of a DGD."""

    obj: K8sObject
    templates: tuple[PodTemplate, ...]
    labels_path: tuple[Any, ...] | None   # where Kueue reads queue-name / priority-class
    queue: str                            # effective LocalQueue name
    queue_defaulted: bool = False         # supplied by a LocalQueue named `default`

    @property
    def labels(self) -> dict[str, Any]:  # obj.get: a cached object's identity labels, not decoded
        value = self.obj.get(*self.labels_path) if self.labels_path is not None else None
        return value if isinstance(value, dict) else {}

    @property
    def written_templates(self) -> list[PodTemplate]:
        return [t for t in self.templates if not t.generated]

    def label_at(self, key: str) -> Location:
        """Location of a Kueue label (nearest existing ancestor when missing)."""
        if self.labels_path is None:
            return self.obj.at("metadata", "labels", key)
        return self.obj.at(*self.labels_path, key)

    def display(self) -> str:
        if self.obj.group == K.NVIDIA_GROUP and len(self.templates) == 1:
            return f"{self.obj.display()} ({self.templates[0].role})"
        return self.obj.display()

    def priority_label(self) -> str | None:
        return text(self.labels.get(PRIORITY_LABEL))


# ------------------------------------------------------------------ queue routing

def _integration(obj: K8sObject) -> tuple[str, str]:
    return (obj.group, obj.kind)


def object_labels_path(obj: K8sObject) -> tuple[Any, ...] | None:
    """Where Kueue reads the labels for the whole object; None for kinds it does not manage so."""
    key = _integration(obj)
    if key in INTEGRATIONS:
        return ("metadata", "labels")
    if key == CRONJOB:
        return ("spec", "jobTemplate", "metadata", "labels")
    return None


def queue_name(obj: K8sObject) -> str | None:
    """The explicit ``queue-name`` where Kueue reads it for the whole object (B13)."""
    path = object_labels_path(obj)
    labels = obj.get(*path) if path is not None else None
    return text(labels.get(QUEUE_LABEL)) if isinstance(labels, dict) else None


def has_default_local_queue(namespace: str | None, graph: ObjectGraph) -> bool:
    return default_local_queue(namespace, graph) is not None


def default_local_queue(namespace: str | None, graph: ObjectGraph) -> K8sObject | None:
    """The LocalQueue named ``default`` in ``namespace``, which routes unlabelled workloads."""
    return None if namespace is None else graph.resolve("LocalQueue", DEFAULT_LOCAL_QUEUE, namespace, KUEUE_GROUP)


def framework_of(obj: K8sObject) -> str | None:
    """The Kueue framework whose integration manages ``obj`` (a CronJob's Jobs: ``batch/job``;
    a DynamoGraphDeployment's pods: ``pod``)."""
    key = _integration(obj)
    if key == CRONJOB:
        key = K.JOB
    elif key in POD_TEMPLATE_LABELLED:
        key = K.POD
    return KIND_FRAMEWORKS.get(key)


def defaulting_applies(obj: K8sObject, graph: ObjectGraph) -> bool:
    """Whether Kueue's defaults for a workload without a queue-name label reach ``obj``: its
    integration is enabled (rules.md "Kueue-managed"; without evidence, Kueue's default
    frameworks, which leave out pod, deployment, statefulset and leaderworkerset)."""
    framework = framework_of(obj)
    return framework is not None and platform_of(graph).routes_unlabelled(framework)


@object_fact
def managed_workloads(obj: K8sObject, graph: ObjectGraph) -> list[ManagedWorkload]:
    """The Kueue-managed units of ``obj`` (explicit queue-name, or LocalQueueDefaulting);
    memoised per graph, since several rules ask for every object."""
    if obj.kind not in MANAGED_KINDS:
        return []
    if (obj.group, obj.kind) in POD_TEMPLATE_LABELLED:
        return _template_units(obj, graph)
    path = object_labels_path(obj)
    routed = _object_local_queue(obj, path, graph) if path is not None else None
    if routed is None:
        return []
    queue, defaulted = routed
    templates = tuple(ordered_templates(obj, pod_templates(obj, graph)))
    return [ManagedWorkload(obj, templates, path, queue, defaulted)]


def unqueued_priority_labels(obj: K8sObject, graph: ObjectGraph) -> list[tuple[tuple[Any, ...], str]]:
    """(labels path, who) of each label mapping where Kueue reads ``obj``'s labels that carries
    ``priority-class`` but no ``queue-name``, in a namespace without a LocalQueue named
    ``default`` (KQ207): Kueue ignores the workload. Empty when a pod template carries the queue
    name (misplaced, KQ208, or read by the pod integration)."""
    if (obj.group, obj.kind) in POD_TEMPLATE_LABELLED:
        sites = [(t.meta_path + ("labels",), f"{obj.display()} ({t.role})")
                 for t in own_templates(obj, graph) if t.meta_path is not None]
    else:
        path = object_labels_path(obj)
        sites = [(path, obj.display())] if path is not None else []
    sites = [(path, who) for path, who in sites
             if _has_label(obj.get(*path), PRIORITY_LABEL) and not _has_label(obj.get(*path), QUEUE_LABEL)]
    if not sites or has_default_local_queue(obj.namespace, graph):
        return []
    if (obj.group, obj.kind) not in POD_TEMPLATE_LABELLED \
            and any(_has_label(t.labels, QUEUE_LABEL) for t in own_templates(obj, graph)):
        return []
    return sites


def _has_label(labels: Any, key: str) -> bool:
    return isinstance(labels, dict) and text(labels.get(key)) is not None


def _object_local_queue(obj: K8sObject, path: tuple[Any, ...], graph: ObjectGraph) -> tuple[str, bool] | None:
    """(LocalQueue name, defaulted) Kueue uses for a whole object: its ``queue-name`` label at
    ``path``, else ``default`` when that LocalQueue exists (LocalQueueDefaulting); None: not
    managed. Reads labels only (``obj.get``: a cached context object is not decoded)."""
    queue = _queue_label(obj, path)
    if queue is None and not (defaulting_applies(obj, graph) and has_default_local_queue(obj.namespace, graph)):
        return None
    return queue or DEFAULT_LOCAL_QUEUE, queue is None


def _queue_label(obj: K8sObject, path: tuple[Any, ...]) -> str | None:
    """The ``queue-name`` label at ``path``, read once per object (its content alone decides)."""
    def read() -> str | None:
        labels = obj.get(*path)
        return text(labels.get(QUEUE_LABEL)) if isinstance(labels, dict) else None
    return obj.remember((_queue_label, path), read)  # type: ignore[no-any-return]


def _template_units(obj: K8sObject, graph: ObjectGraph) -> list[ManagedWorkload]:
    units = []
    defaulted = defaulting_applies(obj, graph) and has_default_local_queue(obj.namespace, graph)
    for template in pod_templates(obj, graph):
        if template.generated or template.meta_path is None and not defaulted:
            continue
        path = template.meta_path + ("labels",) if template.meta_path is not None else None
        queue = text(template.labels.get(QUEUE_LABEL))
        if queue is not None or defaulted:
            units.append(ManagedWorkload(obj, (template,), path, queue or DEFAULT_LOCAL_QUEUE, queue is None))
    return units


def ordered_templates(obj: K8sObject, templates: list[PodTemplate]) -> list[PodTemplate]:
    """Kubeflow jobs: the operator's replica-type order (B12), not the file's."""
    order = KUBEFLOW_ROLE_ORDER.get(obj.kind) if obj.group == K.KUBEFLOW_GROUP else None
    if order is None:
        return templates
    rank = {role: index for index, role in enumerate(order)}
    return sorted(templates, key=lambda t: rank.get(t.role, len(order)))


def defaulted_route(units: Iterable[ManagedWorkload], graph: ObjectGraph) -> list[tuple[Location, str]]:
    """``related`` entries naming the LocalQueue ``default`` for each of ``units`` that counts as
    Kueue-managed only because that LocalQueue routes it (no queue-name label), once each."""
    notes: dict[tuple[str, int], tuple[Location, str]] = {}
    for unit in units:
        lq = local_queue(unit, graph) if unit.queue_defaulted else None
        if lq is not None:
            at = lq.at("metadata", "name")
            notes.setdefault((at.file, at.line), (at, (
                f"LocalQueue {lq.namespace}/{DEFAULT_LOCAL_QUEUE}: {unit.display()} has no `{QUEUE_LABEL}` "
                "label and counts as Kueue-managed only because Kueue routes it here (LocalQueueDefaulting)")))
    return list(notes.values())


def is_kueue_managed(obj: K8sObject, graph: ObjectGraph) -> bool:
    return bool(managed_workloads(obj, graph))


def local_queue(unit: ManagedWorkload, graph: ObjectGraph) -> K8sObject | None:
    return graph.resolve("LocalQueue", unit.queue, unit.obj.namespace, KUEUE_GROUP)


def cluster_queue_name(lq: K8sObject) -> Any:
    """What a LocalQueue's ``spec.clusterQueue`` holds, as written."""
    return lq.get("spec", CLUSTER_QUEUE_FIELD)


def cluster_queue_of(unit: ManagedWorkload, graph: ObjectGraph) -> K8sObject | None:
    """Workload -> LocalQueue (its namespace) -> ClusterQueue; None when any link is missing."""
    return _cluster_queue_behind(unit.queue, unit.obj.namespace, graph)


def _cluster_queue_behind(local_queue_name: str, namespace: str | None, graph: ObjectGraph) -> K8sObject | None:
    lq = graph.resolve("LocalQueue", local_queue_name, namespace, KUEUE_GROUP)
    return _cluster_queue_of_local_queue(lq, graph) if lq is not None else None


@object_fact
def _cluster_queue_of_local_queue(lq: K8sObject, graph: ObjectGraph) -> K8sObject | None:
    """The ClusterQueue a LocalQueue points to (asked once per workload: once per LocalQueue)."""
    return graph.resolve("ClusterQueue", cluster_queue_name(lq), group=KUEUE_GROUP)


@graph_fact
def all_managed_workloads(graph: ObjectGraph) -> list[ManagedWorkload]:
    """Every Kueue-managed unit of the graph (every tier), built once per graph."""
    return [unit for obj in graph.objects if obj.kind in MANAGED_KINDS for unit in managed_workloads(obj, graph)]


@graph_fact
def routed_workloads(graph: ObjectGraph) -> dict[str, list[ManagedWorkload]]:
    """ClusterQueue name -> the Kueue-managed units routed to it (every queue: this reads
    every workload; ask ``workloads_routed_to`` for the queues a finding needs)."""
    routes = _routes(graph)
    return {name: workloads_routed_to(name, graph) for name in routes if workloads_routed_to(name, graph)}


def workloads_routed_to(cluster_queue: str, graph: ObjectGraph) -> list[ManagedWorkload]:
    """The Kueue-managed units routed to one ClusterQueue, in graph order (as in
    ``routed_workloads``); only the workloads that may route there are read in full."""
    def build() -> list[ManagedWorkload]:
        units: list[ManagedWorkload] = []
        for obj, unit in _routes(graph).get(cluster_queue, ()):
            if unit is not None:
                units.append(unit)
            else:
                units += [u for u in managed_workloads(obj, graph) if _cluster_queue_name(u, graph) == cluster_queue]
        return units
    return graph.memo((workloads_routed_to, cluster_queue), build)


def queues_of(objects: list[K8sObject], graph: ObjectGraph) -> list[str]:
    """The ClusterQueues the managed units of ``objects`` are routed to, sorted."""
    names = {_cluster_queue_name(unit, graph) for obj in objects for unit in managed_workloads(obj, graph)}
    return sorted(name for name in names if name is not None)


def _cluster_queue_name(unit: ManagedWorkload, graph: ObjectGraph) -> str | None:
    cq = cluster_queue_of(unit, graph)
    return cq.name if cq is not None else None


@graph_fact
def _routes(graph: ObjectGraph) -> dict[str, list[tuple[K8sObject, ManagedWorkload | None]]]:
    """ClusterQueue name -> (object, unit) in graph order; unit None: the object's one unit,
    routed from its queue-name label alone (identity and labels: a cached context object is
    not decoded for this)."""
    index: dict[str, list[tuple[K8sObject, ManagedWorkload | None]]] = {}
    for obj in graph.objects:
        if obj.kind not in MANAGED_KINDS:
            continue
        if _integration(obj) in INTEGRATIONS:  # one unit, labels on metadata.labels
            name = _label_route(obj, graph)
            if name is not None:
                index.setdefault(name, []).append((obj, None))
            continue
        for unit in managed_workloads(obj, graph):
            name = _cluster_queue_name(unit, graph)
            if name is not None:
                index.setdefault(name, []).append((obj, unit))
    return index


def _label_route(obj: K8sObject, graph: ObjectGraph) -> str | None:
    """``cluster_queue_of`` the one unit of a whole-object integration, from its labels alone:
    once per queue name and namespace (a namespace chosen at apply time: per folder and unit)."""
    queue = _queue_label(obj, ("metadata", "labels"))
    if queue is None and not defaulting_applies(obj, graph):
        return None
    namespace = obj.namespace
    place = graph.apply_place(namespace.file) if isinstance(namespace, ApplyTimeNamespace) else None
    return graph.memo((_label_route, queue, namespace, place), lambda: _route(queue, namespace, graph))


def _route(queue: str | None, namespace: str | None, graph: ObjectGraph) -> str | None:
    if queue is None and not has_default_local_queue(namespace, graph):
        return None
    cq = _cluster_queue_behind(queue or DEFAULT_LOCAL_QUEUE, namespace, graph)
    return cq.name if cq is not None else None


def managed_templates(obj: K8sObject, graph: ObjectGraph) -> list[tuple[PodTemplate, ManagedWorkload]]:
    """Templates written in ``obj`` that run in a Kueue-managed workload, each once, with the
    (first) unit it runs in. A TrainingRuntime's templates run in the managed TrainJobs that use
    it: they are judged on the runtime, once, not on every TrainJob."""
    if obj.group == TRAINER_GROUP and obj.kind in RUNTIME_KINDS:
        units = [u for job in trainjobs_using(obj, graph) for u in managed_workloads(job, graph)]
    else:
        units = managed_workloads(obj, graph)
    seen: set[tuple[Any, ...]] = set()
    found = []
    for unit in units:
        for template in unit.written_templates:
            if template.owner is obj and template.path not in seen:
                seen.add(template.path)
                found.append((template, unit))
    return found


def trainjobs_using(runtime: K8sObject, graph: ObjectGraph) -> list[K8sObject]:
    """TrainJobs (every tier) whose ``runtimeRef`` resolves to ``runtime``; indexed once per graph."""
    return _trainjobs_by_runtime(graph).get(id(runtime), [])


@graph_fact
def _trainjobs_by_runtime(graph: ObjectGraph) -> dict[int, list[K8sObject]]:
    index: dict[int, list[K8sObject]] = {}
    for job in graph.of_kind("TrainJob", TRAINER_GROUP):
        target = training_runtime(job, graph)
        if target is not None:
            index.setdefault(id(target), []).append(job)
    return index


# ------------------------------------------------------------------ sizes

def is_multi_pod(obj: K8sObject, graph: ObjectGraph) -> bool:
    """More than one pod in total (rules.md Terms); a plain Pod counts its pod group."""
    if obj.group == "" and obj.kind == "Pod":
        count = obj.annotations.get(POD_GROUP_TOTAL)
        try:
            return int(str(count)) > 1
        except ValueError:
            return False
    return total_pods(obj, graph) > 1
