"""Kueue and priority domain predicates (shared/reference/kueue.md). Rules ask here and never
re-derive these facts.

INTERFACE (rules depend on it):

    QUEUE_LABEL, PRIORITY_LABEL, PREEMPT_LOWER, NEVER, HIGHEST_USER_PRIORITY
    effective_preemption_policy(pc) -> str          # "PreemptLowerPriority" when unset (A2)
    class_value(pc) -> int | None                    # PriorityClass / WorkloadPriorityClass value
    resolve_priority_class(name, graph) -> K8sObject | None
    global_default_class(graph) -> K8sObject | None  # lowest value wins when several (A3)
    pod_priority(template, graph) -> PodPriority      # value, policy, class, source, resolved
    pod_profile(unit, graph) -> PodProfile | None      # lowest template, strongest preemptor
    workload_priority(obj_or_unit, graph) -> WorkloadPriority   # B12 chain
    queue_name(obj) -> str | None                     # explicit label where Kueue reads it (B13)
    managed_workloads(obj, graph) -> list[ManagedWorkload]      # [] when Kueue ignores obj
    is_kueue_managed(obj, graph) -> bool
    local_queue(unit, graph) / cluster_queue_of(unit, graph) -> K8sObject | None
    managed_templates(obj, graph) -> [(PodTemplate, ManagedWorkload)]  # what template rules judge
    all_managed_workloads(graph) / routed_workloads(graph)   # indexed once per graph
    workloads_routed_to(cq_name, graph) / queues_of(objects, graph)  # only what one queue needs
    within_cluster_queue(cq) -> str                   # effective, "Never" when unset (B8)

A ``ManagedWorkload`` is one thing Kueue turns into Workloads: normally the whole object (its
labels on the object's own ``metadata.labels``); for a DynamoGraphDeployment, which Kueue manages
through the pod integration, one per component pod template (labels on that template).

Decisions where the reference leaves room:
- A CronJob counts: its runs are Jobs whose own labels come from ``spec.jobTemplate.metadata``.
- LLMInferenceService is not an integration (B13 does not list it): never Kueue-managed here.
- LocalQueueDefaulting (B13, GA) applies to every integration, DGD components included.
- Kubeflow pod-class fallback follows the operator's replica-type order (Master before Worker,
  Launcher before Worker), not the order written in the file.
- A class that cannot be resolved, or has no integer ``value``, is "unresolved": callers skip it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kqlint import kinds as K
from kqlint.fields import integer, text, text_or
from kqlint.graph import BUILTIN_PRIORITY_CLASSES
from kqlint.kinds import KUEUE_GROUP as KUEUE_GROUP  # re-exported
from kqlint.kinds import SCHEDULING_GROUP as SCHEDULING_GROUP
from kqlint.model import Location
from kqlint.objects import K8sObject, dig
from kqlint.wording import describe_pod_priority as describe_pod_priority  # re-exported
from kqlint.wording import describe_template as describe_template
from kqlint.wording import describe_workload_priority as describe_workload_priority
from kqlint.workloads import RUNTIME_KINDS, TRAINER_GROUP, PodTemplate, pod_templates, total_pods, training_runtime

if TYPE_CHECKING:
    from kqlint.graph import ObjectGraph

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
PRIORITY_LABEL = "kueue.x-k8s.io/priority-class"
POD_GROUP_TOTAL = "kueue.x-k8s.io/pod-group-total-count"
PREEMPT_LOWER = "PreemptLowerPriority"
NEVER = "Never"
DEFAULT_LOCAL_QUEUE = "default"          # LocalQueueDefaulting (B13, GA since v0.17)
HIGHEST_USER_PRIORITY = 1_000_000_000    # A1

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
RUN_POLICY_CLASS = ("spec", "runPolicy", "schedulingPolicy", "priorityClass")


# ------------------------------------------------------------------ value types

@dataclass(frozen=True)
class PodPriority:
    """Pod priority of one template as kube-scheduler sees it (A3)."""

    value: int | None              # None when unresolved
    policy: str | None             # effective preemptionPolicy; None when unresolved
    class_name: str | None         # the class named, or the global default's name
    class_obj: K8sObject | None
    source: str                    # "named" | "global-default" | "none" (priority 0)
    resolved: bool = True

    @property
    def can_preempt(self) -> bool:
        return self.resolved and self.policy == PREEMPT_LOWER


@dataclass(frozen=True)
class WorkloadPriority:
    """The Workload's priority by Kueue's chain (B12)."""

    value: int | None              # None when the chain stops on a missing class
    source: str                    # "workload-priority-class" | "priority-class" | "global-default" | "none"
    class_name: str | None = None
    class_obj: K8sObject | None = None
    at: Location | None = None     # the label or field that chose the class (None: default / 0)
    resolved: bool = True


@dataclass(frozen=True)
class ManagedWorkload:
    """What Kueue turns into Workloads: an object, or one pod template of a DGD."""

    obj: K8sObject
    templates: tuple[PodTemplate, ...]
    labels_path: tuple[Any, ...] | None   # where Kueue reads queue-name / priority-class
    queue: str                            # effective LocalQueue name
    queue_defaulted: bool = False         # supplied by a LocalQueue named `default`

    @property
    def labels(self) -> dict[str, Any]:
        value = dig(self.obj.data, self.labels_path) if self.labels_path is not None else None
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


# ------------------------------------------------------------------ PriorityClass facts

def class_value(pc: K8sObject | None) -> int | None:
    """``value`` of a PriorityClass or WorkloadPriorityClass (top-level field), if an int."""
    return integer(pc.get("value")) if pc is not None else None


def effective_preemption_policy(pc: K8sObject) -> str:
    return text_or(pc.get("preemptionPolicy"), PREEMPT_LOWER)


def is_global_default(pc: K8sObject) -> bool:
    return pc.get("globalDefault") is True


def is_builtin_class(pc: K8sObject) -> bool:
    """A built-in ``system-*`` class: the engine's own, or a manifest that matches it exactly."""
    spec = BUILTIN_PRIORITY_CLASSES.get(pc.name)
    return spec is not None and class_value(pc) == spec["value"] and \
        bool(pc.get("globalDefault") is True) == spec["globalDefault"]


def resolve_priority_class(name: Any, graph: ObjectGraph) -> K8sObject | None:
    return graph.resolve("PriorityClass", name, group=SCHEDULING_GROUP)


def resolve_workload_priority_class(name: Any, graph: ObjectGraph) -> K8sObject | None:
    return graph.resolve("WorkloadPriorityClass", name, group=KUEUE_GROUP)


def priority_classes(graph: ObjectGraph) -> list[K8sObject]:
    """Every PriorityClass of the cluster, one per name (the best tier)."""
    return graph.memo("priority_classes", lambda: _distinct(graph, "PriorityClass", SCHEDULING_GROUP))


def workload_priority_classes(graph: ObjectGraph) -> list[K8sObject]:
    return graph.memo("workload_priority_classes",
                   lambda: _distinct(graph, "WorkloadPriorityClass", KUEUE_GROUP))


def _distinct(graph: ObjectGraph, kind: str, group: str) -> list[K8sObject]:
    chosen: dict[str, K8sObject] = {}
    for obj in graph.of_kind(kind, group):  # inputs first: the first one per name wins
        if obj.name and obj.name not in chosen:
            chosen[obj.name] = obj
    return list(chosen.values())


def global_defaults(graph: ObjectGraph) -> list[K8sObject]:
    return [pc for pc in priority_classes(graph) if is_global_default(pc)]


def global_default_class(graph: ObjectGraph) -> K8sObject | None:
    """The class pods without ``priorityClassName`` get: with several defaults, the lowest value."""
    def build() -> K8sObject | None:
        defaults = [pc for pc in global_defaults(graph) if class_value(pc) is not None]
        return min(defaults, key=lambda pc: class_value(pc) or 0, default=None)
    return graph.memo("global_default", build)


def class_location(pc: K8sObject, field: str = "value") -> Location:
    """Where to point at a class: ``field`` when written, else its name."""
    return pc.at(field) if pc.has(field) else pc.at("metadata", "name")


# ------------------------------------------------------------------ pod priority

def pod_priority(template: PodTemplate, graph: ObjectGraph) -> PodPriority:
    """Pod priority of a template: its class; no class -> the global default, else 0 (A3)."""
    name = template.priority_class_name
    if name is not None:
        return _named_pod_priority(name, graph)
    default = global_default_class(graph)
    if default is not None:
        return PodPriority(class_value(default), effective_preemption_policy(default), default.name,
                           default, "global-default")
    return PodPriority(0, PREEMPT_LOWER, None, None, "none")


def _named_pod_priority(name: str, graph: ObjectGraph) -> PodPriority:
    pc = resolve_priority_class(name, graph)
    value = class_value(pc)
    if pc is None or value is None:
        return PodPriority(None, None, name, pc, "named", resolved=False)
    return PodPriority(value, effective_preemption_policy(pc), name, pc, "named")


def resolved_pod_priorities(templates: Any, graph: ObjectGraph) -> list[tuple[PodTemplate, PodPriority]]:
    """(template, priority) for written templates whose priority can be resolved."""
    pairs = [(t, pod_priority(t, graph)) for t in templates if not t.generated]
    return [(t, p) for t, p in pairs if p.resolved]


@dataclass(frozen=True)
class PodProfile:
    """The pod priorities of one managed unit's written templates, summarised."""

    unit: ManagedWorkload
    lowest: tuple[PodTemplate, PodPriority]               # the template with the lowest pod priority
    preemptor: tuple[PodTemplate, PodPriority] | None     # the highest one that can preempt

    @property
    def lowest_value(self) -> int:
        return self.lowest[1].value or 0


def pod_profile(unit: ManagedWorkload, graph: ObjectGraph) -> PodProfile | None:
    """None when the unit has no written template, or one whose class cannot be resolved
    (its pods are never created: nothing to compare)."""
    pairs = [(t, pod_priority(t, graph)) for t in unit.written_templates]
    if not pairs or not all(p.resolved for _, p in pairs):
        return None
    lowest = min(pairs, key=lambda pair: pair[1].value or 0)
    preempting = [pair for pair in pairs if pair[1].can_preempt]
    preemptor = max(preempting, key=lambda pair: pair[1].value or 0) if preempting else None
    return PodProfile(unit, lowest, preemptor)


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
    labels = dig(obj.data, path) if path is not None else None
    return text(labels.get(QUEUE_LABEL)) if isinstance(labels, dict) else None


def has_default_local_queue(namespace: str | None, graph: ObjectGraph) -> bool:
    return namespace is not None and graph.resolve(
        "LocalQueue", DEFAULT_LOCAL_QUEUE, namespace, KUEUE_GROUP) is not None


def managed_workloads(obj: K8sObject, graph: ObjectGraph) -> list[ManagedWorkload]:
    """The Kueue-managed units of ``obj`` (explicit queue-name, or LocalQueueDefaulting);
    memoised per graph, since several rules ask for every object."""
    memo: dict[int, tuple[K8sObject, list[ManagedWorkload]]] = graph.memo("units_by_object", dict)
    hit = memo.get(id(obj))
    if hit is None or hit[0] is not obj:
        hit = memo[id(obj)] = (obj, _managed_workloads(obj, graph))
    return hit[1]


def _managed_workloads(obj: K8sObject, graph: ObjectGraph) -> list[ManagedWorkload]:
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


def _object_local_queue(obj: K8sObject, path: tuple[Any, ...], graph: ObjectGraph) -> tuple[str, bool] | None:
    """(LocalQueue name, defaulted) Kueue uses for a whole object: its ``queue-name`` label at
    ``path``, else ``default`` when that LocalQueue exists (LocalQueueDefaulting); None: not
    managed. Reads labels only (``obj.get``: a cached context object is not decoded)."""
    labels = obj.get(*path)
    queue = text(labels.get(QUEUE_LABEL)) if isinstance(labels, dict) else None
    if queue is None and not has_default_local_queue(obj.namespace, graph):
        return None
    return queue or DEFAULT_LOCAL_QUEUE, queue is None


def _template_units(obj: K8sObject, graph: ObjectGraph) -> list[ManagedWorkload]:
    units = []
    defaulted = has_default_local_queue(obj.namespace, graph)
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


def is_kueue_managed(obj: K8sObject, graph: ObjectGraph) -> bool:
    return bool(managed_workloads(obj, graph))


def local_queue(unit: ManagedWorkload, graph: ObjectGraph) -> K8sObject | None:
    return graph.resolve("LocalQueue", unit.queue, unit.obj.namespace, KUEUE_GROUP)


def cluster_queue_of(unit: ManagedWorkload, graph: ObjectGraph) -> K8sObject | None:
    """Workload -> LocalQueue (its namespace) -> ClusterQueue; None when any link is missing."""
    return _cluster_queue_behind(unit.queue, unit.obj.namespace, graph)


def _cluster_queue_behind(local_queue_name: str, namespace: str | None, graph: ObjectGraph) -> K8sObject | None:
    lq = graph.resolve("LocalQueue", local_queue_name, namespace, KUEUE_GROUP)
    name = lq.get("spec", "clusterQueue") if lq is not None else None
    return graph.resolve("ClusterQueue", name, group=KUEUE_GROUP)


def all_managed_workloads(graph: ObjectGraph) -> list[ManagedWorkload]:
    """Every Kueue-managed unit of the graph (every tier), built once per graph."""
    def build() -> list[ManagedWorkload]:
        return [unit for obj in graph.objects if obj.kind in MANAGED_KINDS
                for unit in managed_workloads(obj, graph)]
    return graph.memo("managed_workloads", build)


def routed_workloads(graph: ObjectGraph) -> dict[str, list[ManagedWorkload]]:
    """ClusterQueue name -> the Kueue-managed units routed to it (every queue: this reads
    every workload; ask ``workloads_routed_to`` for the queues a finding needs)."""
    def build() -> dict[str, list[ManagedWorkload]]:
        routes = _routes(graph)
        return {name: workloads_routed_to(name, graph) for name in routes if workloads_routed_to(name, graph)}
    return graph.memo("routed_workloads", build)


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
    return graph.memo(("routed_to", cluster_queue), build)


def queues_of(objects: list[K8sObject], graph: ObjectGraph) -> list[str]:
    """The ClusterQueues the managed units of ``objects`` are routed to, sorted."""
    names = {_cluster_queue_name(unit, graph) for obj in objects for unit in managed_workloads(obj, graph)}
    return sorted(name for name in names if name is not None)


def _cluster_queue_name(unit: ManagedWorkload, graph: ObjectGraph) -> str | None:
    cq = cluster_queue_of(unit, graph)
    return cq.name if cq is not None else None


def _routes(graph: ObjectGraph) -> dict[str, list[tuple[K8sObject, ManagedWorkload | None]]]:
    """ClusterQueue name -> (object, unit) in graph order; unit None: the object's one unit,
    routed from its queue-name label alone (identity and labels: a cached context object is
    not decoded for this)."""
    def build() -> dict[str, list[tuple[K8sObject, ManagedWorkload | None]]]:
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
    return graph.memo("routes", build)


def _label_route(obj: K8sObject, graph: ObjectGraph) -> str | None:
    """``cluster_queue_of`` the one unit of a whole-object integration, from its labels alone."""
    routed = _object_local_queue(obj, ("metadata", "labels"), graph)
    cq = _cluster_queue_behind(routed[0], obj.namespace, graph) if routed is not None else None
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
    def build() -> dict[int, list[K8sObject]]:
        index: dict[int, list[K8sObject]] = {}
        for job in graph.of_kind("TrainJob", TRAINER_GROUP):
            target = training_runtime(job, graph)
            if target is not None:
                index.setdefault(id(target), []).append(job)
        return index
    return graph.memo("trainjobs_by_runtime", build).get(id(runtime), [])


def within_cluster_queue(cq: K8sObject) -> str:
    return text_or(cq.get("spec", "preemption", "withinClusterQueue"), NEVER)


# ------------------------------------------------------------------ workload priority

def workload_priority(target: K8sObject | ManagedWorkload, graph: ObjectGraph) -> WorkloadPriority:
    """B12: the WorkloadPriorityClass label; else the pod PriorityClass (Kubeflow: runPolicy
    first); else the global default; else 0. A class that cannot be resolved stops the chain
    (Kueue creates no Workload), so the result is unresolved rather than a guess."""
    unit = target if isinstance(target, ManagedWorkload) else _whole_object_unit(target, graph)
    label = unit.priority_label()
    if label is not None:
        return _wpc_priority(unit, label, graph)
    named = _pod_class_choice(unit)
    if named is not None:
        name, at = named
        pc = resolve_priority_class(name, graph)
        value = class_value(pc)
        return WorkloadPriority(value, "priority-class", name, pc, at, resolved=value is not None)
    default = global_default_class(graph)
    if default is not None:
        return WorkloadPriority(class_value(default), "global-default", default.name, default)
    return WorkloadPriority(0, "none")


def _whole_object_unit(obj: K8sObject, graph: ObjectGraph) -> ManagedWorkload:
    units = managed_workloads(obj, graph)
    if len(units) == 1:
        return units[0]
    templates = tuple(ordered_templates(obj, pod_templates(obj, graph)))
    return ManagedWorkload(obj, templates, object_labels_path(obj), "", False)


def _wpc_priority(unit: ManagedWorkload, name: str, graph: ObjectGraph) -> WorkloadPriority:
    wpc = resolve_workload_priority_class(name, graph)
    value = class_value(wpc)
    return WorkloadPriority(value, "workload-priority-class", name, wpc, unit.label_at(PRIORITY_LABEL),
                            resolved=value is not None)


def _pod_class_choice(unit: ManagedWorkload) -> tuple[str, Location] | None:
    """The PriorityClass name Kueue takes for the Workload, and where it is written."""
    obj = unit.obj
    if obj.group == K.KUBEFLOW_GROUP and obj.kind in KUBEFLOW_ROLE_ORDER:
        value = text(obj.get(*RUN_POLICY_CLASS))
        if value is not None:
            return value, obj.at(*RUN_POLICY_CLASS)
    for template in unit.templates:
        name = template.priority_class_name
        if name is not None:
            return name, template.at("priorityClassName")
    return None


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
