"""``kqlint simulate``'s model: the Kueue-managed workloads of the inputs, each alone on an empty
cluster (stage 1), then all of them as one queue (stage 2), with what is not modelled said,
never assumed silently (cli.md, ``kqlint simulate``).

Routing, pod sets, requests and priorities come from the same domain functions the rules use
(``routing``, ``podsets``, ``priority``); flavor assignment from ``admission``, the quota tree
from ``capacity``, preemption from ``preemption``, the queue from ``queueing``.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from kqlint.domain import kinds as K
from kqlint.domain.fields import text, text_or
from kqlint.domain.kueue.admissibility import admissibility_error
from kqlint.domain.kueue.admission import FIT, NO_FIT, WAITING_FOR_QUOTA, Assignment, PodSetRequest, QueueView
from kqlint.domain.kueue.assumptions import PER_POD, starting_assumptions
from kqlint.domain.kueue.capacity import ZERO, FlavorResource, QuotaTree, build_tree
from kqlint.domain.kueue.partial import initial_assignment
from kqlint.domain.kueue.podsets import (
    ResourceConfig,
    job_min_count,
    partial_admission_on,
    pod_group_of,
    pod_set_name,
    pod_sets,
    resource_config,
    unrendered_request,
)
from kqlint.domain.kueue.preemption import Cluster, Holder
from kqlint.domain.kueue.priority import workload_priority
from kqlint.domain.kueue.queue_view import (
    admission_checks,
    assumed_to_exist,
    fair_sharing,
    inactive_reason,
    namespace_admitted,
    policy,
    queue_view,
    resource_flavors,
    stop_policy,
)
from kqlint.domain.kueue.queueing import BEST_EFFORT_FIFO, Entry, run
from kqlint.domain.kueue.quota import cohort_name, unrendered_quota
from kqlint.domain.kueue.routing import ManagedWorkload, all_managed_workloads, cluster_queue_name, local_queue
from kqlint.domain.kueue.running import Running, creation_ranks, pending_workloads, running_workloads
from kqlint.domain.objects import INPUT
from kqlint.domain.platform import platform_of
from kqlint.domain.podspec import pod_requests
from kqlint.domain.quantity import format_amount

if TYPE_CHECKING:
    from kqlint.domain.graph import ObjectGraph
    from kqlint.domain.objects import K8sObject
    from kqlint.domain.workloads.templates import PodTemplate

SCHEMA_VERSION = 1
MISCONFIGURED, INACTIVE = "Misconfigured", "Inactive"
UNSURE = "a placeholder in its name or namespace, a namespace chosen at apply time, or another unit's object"
GROUP_ANNOTATION = "kueue.x-k8s.io/podset-group-name"
FAIR_SHARING = "fair sharing is not simulated"


@dataclass
class PodSetResult:
    name: str
    count: int
    flavors: dict[str, str]
    borrowing: bool


@dataclass
class Stage1:
    mode: str                     # Fit | Borrow | NoFit
    pod_sets: list[PodSetResult]
    reason: str | None = None
    message: str | None = None


@dataclass(eq=False)
class WorkloadResult:
    unit: ManagedWorkload
    local_queue: str
    cluster_queue: str | None
    priority: int | None
    status: str = "not-simulated"
    pod_sets: list[PodSetResult] = field(default_factory=list)
    borrowing: bool = False
    preempted: list[tuple[WorkloadResult, str]] = field(default_factory=list)
    preemption_message: str | None = None
    preempted_by: tuple[WorkloadResult, str] | None = None
    waits_for: list[str] = field(default_factory=list)
    reason: str | None = None
    message: str | None = None
    empty_cluster: Stage1 | None = None
    requests: list[PodSetRequest] | None = None
    running: Running | None = None
    entry: Entry | None = None

    @property
    def line(self) -> int:
        return self.unit.obj.location().line

    @property
    def never_admissible(self) -> bool:
        stage1 = self.empty_cluster
        return self.status == "pending" and (
            self.reason in (MISCONFIGURED, INACTIVE)
            or (stage1 is not None and stage1.mode == "NoFit" and stage1.reason != "WaitingForQuota"))


@dataclass
class QueueResult:
    name: str
    cohort: str | None
    strategy: str
    usage: dict[str, dict[str, Any]]
    borrowed: dict[str, dict[str, Any]]


@dataclass
class Simulation:
    kueue_version: str | None
    assumptions: list[str]
    workloads: list[WorkloadResult]
    cluster_queues: list[QueueResult]


def simulate(graph: ObjectGraph, stage: int = 2, resources: ResourceConfig | None = None,
             running_file: Callable[[str], bool] | None = None) -> Simulation:
    """Stage 1 for every Kueue-managed input workload, then (``stage`` 2) the queue;
    ``resources``: Kueue's resource exclusions and transformations; ``running_file``: whether
    a file holds workloads already running (``--running``): admitted first, in file order."""
    version = platform_of(graph).kueue_version
    written = resource_config(None, graph)  # the Kueue Configuration in the inputs, if any
    resources = written if resources is None else replace(resources, ignore_undeclared=written.ignore_undeclared)
    partial = partial_admission_on(graph)  # kueue.partial
    assumptions = starting_assumptions(graph, version is not None, resources, partial)
    empty, live = build_tree(graph), build_tree(graph)
    queues = {name: node.queue for name, node in live.queues.items() if node.queue is not None}
    inactive = {name: why for name, cq in queues.items() if (why := inactive_reason(cq, live, graph)) is not None}
    if fair_sharing(graph):  # every ClusterQueue uses it: its queue is not simulated (cli.md)
        inactive = {name: FAIR_SHARING for name in queues}
    stand_ins, assumed = assumed_to_exist(list(queues.values()), graph)
    flavor_objects, assumptions = {**stand_ins, **resource_flavors(graph, assumptions)}, assumptions + assumed
    ignore = resources.ignore_undeclared
    empty_views = {name: queue_view(cq, empty, flavor_objects, ignore) for name, cq in queues.items()
                   if not empty.too_deep(empty.queues[name])}
    results = [_running_result(r, graph) for r in running_workloads(graph)]
    unknown: set[str] = set()
    inputs = _inputs(graph, resources)
    results += [_stage1(item, graph, queues, inactive, empty_views, unknown, partial) for item in inputs]
    if any(p.count != p.all_pods for item in inputs if item.unit.labels_path for p in pod_sets(item.unit, graph)):
        assumptions.append(PER_POD)
    if unknown:
        assumptions.append(f"{len(unknown)} namespace(s) without a Namespace object in the inputs assumed to match"
                           " the ClusterQueue's namespaceSelector (their labels are unknown)")
    if stage == 2:
        views = {name: queue_view(cq, live, flavor_objects, ignore) for name, cq in queues.items()
                 if name not in inactive and name in empty_views}
        _stage2(results, live, views, queues, running_file or (lambda _: False), assumptions, partial)
    for result in results:
        cq = queues.get(result.cluster_queue or "")
        if cq is not None and result.status != "not-simulated":
            result.waits_for = admission_checks(cq)
    return Simulation(".".join(map(str, version)) if version else None, assumptions,
                      sorted(results, key=lambda r: (r.unit.obj.file, r.unit.obj.doc, r.line)),
                      [_queue_result(name, cq, live) for name, cq in sorted(queues.items())])


# ------------------------------------------------------------------ inputs

@dataclass(frozen=True)
class _Input:
    """A workload to queue: its unit, Kueue's priority (None: no Workload is created) and pod sets."""

    unit: ManagedWorkload
    priority: int | None
    requests: list[PodSetRequest] | None


def _inputs(graph: ObjectGraph, resources: ResourceConfig | None) -> list[_Input]:
    """The Kueue-managed objects and pending Workload objects of the inputs, in creation order:
    timestamped ones first, by timestamp, then the order the documents are read."""
    found = [_Input(u, workload_priority(u, graph).value, _requests(u, graph, resources))
             for u in all_managed_workloads(graph) if u.obj.source == INPUT]
    for pending in pending_workloads(graph):
        unit = ManagedWorkload(pending.obj, tuple(t for _, _, _, t in pending.pod_sets), None, pending.local_queue)
        requests = [_pod_set_request(name, count, t, resources.apply(pod_requests(t)) if resources else pod_requests(t),
                                     minimum) for name, count, minimum, t in pending.pod_sets]
        found.append(_Input(unit, pending.priority, requests))
    found.sort(key=lambda i: (i.unit.obj.file, i.unit.obj.doc))
    stamp = {id(i): text(i.unit.obj.get("metadata", "creationTimestamp")) or "" for i in found}
    stamped = sorted((i for i in found if stamp[id(i)]), key=lambda i: stamp[id(i)])
    return stamped + [i for i in found if not stamp[id(i)]]


def _pod_set_request(name: str, count: int, template: PodTemplate, per_pod: dict[str, Fraction],
                     min_count: int | None = None) -> PodSetRequest:
    return PodSetRequest(name, count, {r: a * count for r, a in per_pod.items()}, template.spec,
                         text(template.annotations.get(GROUP_ANNOTATION)), min_count)


def _requests(unit: ManagedWorkload, graph: ObjectGraph, resources: ResourceConfig | None
              ) -> list[PodSetRequest] | None:
    found = pod_sets(unit, graph, resources)
    if not found or any(p.count < 1 for p in found):
        return None
    job = (unit.obj.group, unit.obj.kind) == K.JOB  # the whole Job, down to its minimum (kueue.partial)
    return [_pod_set_request(pod_set_name(p.template.role, len(found) == 1), p.template.pods if job else p.count,
                             p.template, p.per_pod, job_min_count(unit.obj, p.template.pods) if job else None)
            for p in found]


def _stage1(item: _Input, graph: ObjectGraph, queues: dict[str, K8sObject], inactive: dict[str, str],
            views: dict[str, QueueView], unknown: set[str], partial: bool) -> WorkloadResult:
    unit, priority, requests = item.unit, item.priority, item.requests
    lq = local_queue(unit, graph)
    cq_name = text(cluster_queue_name(lq)) if lq is not None else None
    result = WorkloadResult(unit, f"{unit.obj.namespace}/{unit.queue}", cq_name, priority, requests=requests)
    if priority is None:
        result.message = "the workload's priority class does not exist: Kueue creates no Workload"
        return result
    if unit.obj.get("spec", "active") is False:  # a Workload object Kueue neither queues nor keeps admitted
        result.message = "spec.active is false: Kueue does not queue a deactivated Workload"
        return result
    if requests is None:
        result.message = "the pod counts of this kind cannot be determined"
        return result
    result.status = "pending"
    cq = queues.get(cq_name or "")
    if lq is None:
        return _missing(result, "LocalQueue", unit.queue, unit.obj.namespace, graph)
    if stop_policy(lq) is not None:  # workload_controller.go getQueueBlocker
        return _fail(result, INACTIVE, f"LocalQueue {unit.queue} is inactive")
    if cq is None:
        return _missing(result, "ClusterQueue", cq_name or "", None, graph)
    if cq.name in inactive and inactive[cq.name] != FAIR_SHARING:  # getQueueBlocker, before admissibility
        return _fail(result, INACTIVE, f"ClusterQueue {cq.name} is inactive: {inactive[cq.name]}")
    if not namespace_admitted(cq, unit.obj.namespace, graph, unknown):
        return _fail(result, MISCONFIGURED, "workload namespace doesn't match ClusterQueue selector")
    if (invalid := admissibility_error(unit.templates, graph)) is not None:
        return _fail(result, MISCONFIGURED, invalid)
    if inactive.get(cq.name) == FAIR_SHARING:
        result.status, result.message = "not-simulated", FAIR_SHARING
        return result
    if cq.name not in views:
        result.status, result.message = "not-simulated", f"the Cohort tree of ClusterQueue {cq.name} is too deep"
        return result
    if (group := pod_group_of(unit.obj)) is not None:  # one Workload of every pod of the group (pod integration)
        result.status = "not-simulated"
        result.message = f"pod group {group}: its pods are one Workload, admitted together: not simulated"
        return result
    for owner, unknown_amount in (("its resource requests", unrendered_request(unit)),
                                  (f"ClusterQueue {cq.name}'s quotas", unrendered_quota(cq))):
        if unknown_amount is not None:  # a template's amounts: known once it is rendered
            result.status = "not-simulated"
            result.message = f"{owner} hold an envsubst placeholder (`{unknown_amount}`): render the template first"
            return result
    assignment, _ = initial_assignment(requests, views[cq.name], partial=partial)
    result.empty_cluster = _stage1_result(assignment)
    result.reason, result.message = result.empty_cluster.reason, result.empty_cluster.message
    return result


def _running_result(running: Running, graph: ObjectGraph) -> WorkloadResult:
    obj = running.obj
    unit = ManagedWorkload(obj, (), None, running.local_queue or "")
    pods = [PodSetResult(name, count, dict(sorted(flavors.items())), False) for name, count, flavors in running.flavors]
    result = WorkloadResult(unit, f"{obj.namespace}/{running.local_queue}" if running.local_queue else "",
                            running.queue, running.priority, "running", pods, running=running)
    if running.local_queue and stop_policy(local_queue(unit, graph)) == "HoldAndDrain":  # evicted, held
        result.status, result.pod_sets, result.running = "pending", [], None
        return _fail(result, INACTIVE, f"LocalQueue {running.local_queue} is inactive")
    return result


def _missing(result: WorkloadResult, kind: str, name: str, namespace: str | None, graph: ObjectGraph) -> WorkloadResult:
    if graph.may_exist(kind, name, namespace, K.KUEUE_GROUP):  # as KQ203/KQ204 judge it: a guess either way
        result.status, result.message = "not-simulated", f"{kind} {name} cannot be resolved for certain: {UNSURE}"
        return result
    return _fail(result, MISCONFIGURED, f"{kind} {name} doesn't exist")


def _fail(result: WorkloadResult, reason: str, message: str) -> WorkloadResult:
    result.reason, result.message = reason, message
    result.empty_cluster = Stage1("NoFit", [], reason, message)
    return result


def _stage1_result(assignment: Assignment) -> Stage1:
    pods = pod_set_results(assignment)
    if assignment.mode == FIT:
        return Stage1("Borrow" if assignment.borrowing else "Fit", pods)
    return Stage1("NoFit", pods if assignment.mode != NO_FIT else [],
                  assignment.no_fit_reason or "WaitingForQuota", assignment.message())


def pod_set_results(assignment: Assignment) -> list[PodSetResult]:
    return [PodSetResult(p.name, p.count, dict(sorted(p.flavors.items())), p.borrowing)
            for p in assignment.pod_sets if p.flavors]


# ------------------------------------------------------------------ ClusterQueues

def _queue_result(name: str, cq: K8sObject, tree: QuotaTree) -> QueueResult:
    node = tree.queues[name]
    usage: dict[str, dict[str, Any]] = {}
    borrowed: dict[str, dict[str, Any]] = {}
    for (flavor, resource), amount in sorted(node.usage.items()):
        usage.setdefault(flavor, {})[resource] = format_amount(amount)
        over = max(amount - node.nominal((flavor, resource)), ZERO)
        borrowed.setdefault(flavor, {})[resource] = format_amount(over)
    return QueueResult(name, cohort_name(cq), text_or(cq.get("spec", "queueingStrategy"), BEST_EFFORT_FIFO),
                       usage, borrowed)


# ------------------------------------------------------------------ stage 2

def _stage2(results: list[WorkloadResult], tree: QuotaTree, views: dict[str, QueueView], queues: dict[str, K8sObject],
            running_file: Callable[[str], bool], assumptions: list[str], partial: bool) -> None:
    cluster = Cluster(tree, {name: policy(queues[name]) for name in queues})
    entries, ranks = [], creation_ranks([result.unit.obj for result in results])
    held = [(r.running, i) for i, r in enumerate(results) if r.running is not None and r.running.queue in views]
    for running, index in sorted(held, key=lambda pair: (pair[0].reserved_at, pair[1])):  # admitted in that order
        _hold(results[index], Entry(_name(results[index]), running.queue, running.priority, ranks[index], [],
                                    "admitted"), running.usage, cluster, running.evicted)  # inactive queues: unmodelled
    for created, result in zip(ranks, results, strict=True):
        if running_file(result.unit.obj.file):
            _admit_running(result, created, views, cluster, partial)
            continue
        if result.status != "pending" or result.reason in (MISCONFIGURED, INACTIVE):
            continue
        requests = result.requests
        if result.cluster_queue not in views or requests is None:
            continue
        result.entry = Entry(_name(result), result.cluster_queue,
                             result.priority or 0, created, requests)
        entries.append(result.entry)
    strategies = {name: text_or(queues[name].get("spec", "queueingStrategy"), BEST_EFFORT_FIFO) for name in views}
    if not run(entries, cluster, views, strategies, partial):
        assumptions.append("the queue was cut short after 8 scheduling cycles per workload: later results are partial")
    by_entry = {id(r.entry): r for r in results if r.entry is not None}
    for result in results:
        if result.entry is not None:
            _copy(result, result.entry, by_entry)


def _hold(result: WorkloadResult, entry: Entry, usage: dict[FlavorResource, Fraction], cluster: Cluster,
          evicted: bool = False) -> None:
    result.entry = entry
    entry.holder = Holder(entry, entry.queue, usage, entry.priority, entry.created, evicted=evicted)
    cluster.add(entry.holder)


def _admit_running(result: WorkloadResult, created: int, views: dict[str, QueueView], cluster: Cluster,
                   partial: bool) -> None:
    """A Kueue-managed object of a ``--running`` file: admitted by stage 1 against the usage so
    far, never by preemption; one that does not fit stays pending with Kueue's reason."""
    view = views.get(result.cluster_queue or "")
    if result.status != "pending" or result.requests is None or view is None or result.running is not None:
        return
    assignment, _ = initial_assignment(result.requests, view, partial=partial)
    if assignment.mode != FIT:
        result.reason = assignment.no_fit_reason or WAITING_FOR_QUOTA
        result.message = assignment.message()
        return
    entry = Entry(_name(result), view.name, result.priority or 0, created, result.requests, "admitted")
    entry.assignment = assignment
    _hold(result, entry, dict(assignment.usage), cluster)
    result.status, result.reason, result.message = "running", None, None
    result.pod_sets, result.borrowing = pod_set_results(assignment), assignment.borrowing > 0


def _name(result: WorkloadResult) -> str:
    return f"{result.unit.obj.namespace}/{result.unit.obj.name}"


def _copy(result: WorkloadResult, entry: Entry, by_entry: dict[int, WorkloadResult]) -> None:
    if entry.preempted_by is not None:
        result.preempted_by = (by_entry[id(entry.preempted_by[0])], entry.preempted_by[1])
    if result.running is not None or result.status == "running":
        if entry.status == "preempted":
            result.status, result.reason = "preempted", entry.reason
        return
    result.status = entry.status
    result.reason, result.message = entry.reason, entry.message
    assignment = entry.assignment
    if assignment is not None and entry.status != "pending":
        result.pod_sets = pod_set_results(assignment)
        result.borrowing = assignment.borrowing > 0
    result.preempted = [(by_entry[id(victim)], reason) for victim, reason in entry.preempted]
    result.preemption_message = entry.preemption_message
