"""What a gang needs at its minimum: the resources a gang scheduler must find before it starts
any pod of it (KQ309 compares them with a queue's hard caps).

Volcano: ``PodGroup.spec.minResources``, which the Volcano Job controller computes from the
job's tasks (volcano-sh/volcano ``pkg/controllers/job/job_controller_actions.go``
``calcPGMinResources``, ``job_controller_util.go`` ``CalcFirstCountResources`` and
``CalcPGMinResources``) after the mutating webhook defaulted each task's ``minAvailable``
(``pkg/webhooks/admission/jobs/mutate/mutate_job.go`` ``mutateSpec``, which changed across
releases: see ``TASK_MINIMUM_ERAS``); the podgroup controller gives other Volcano pods
``minMember`` × one pod's requests (``pkg/controllers/podgroup/pg_controller_handler.go``).

KAI: the PodGroup the pod grouper derives (shared/reference/workloads.md §9). Where the grouper
leaves a choice (which pods make up ``minMember``), the cheapest pods are taken, so the need is
a lower bound: a finding then holds whatever pods the scheduler picks.
"""
from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from kqlint.domain import kinds as K
from kqlint.domain.fields import count, integer, integer_or_digits, text
from kqlint.domain.objects import dig
from kqlint.domain.podspec import combine, containers
from kqlint.domain.quantity import Requests, add
from kqlint.domain.workloads.gang import (
    KAI_BATCH_MIN_MEMBER_ANNOTATION,
    KUBEFLOW_MIN_AVAILABLE_PATH,
    VOLCANO_MIN_MEMBER_ANNOTATION,
    is_kubeflow_job,
    pod_owner_annotations,
)
from kqlint.domain.workloads.templates import PodTemplate, job_pods, mappings_at

if TYPE_CHECKING:
    from kqlint.domain.objects import K8sObject

MAX_ORDERED_TASKS = 12   # Go's sort.Sort keeps the written order of up to 12 tasks (insertion sort)
MAX_PERMUTED_TASKS = 6   # tasks whose order is unknown: every order is tried up to this many


@dataclass(frozen=True)
class Need:
    """What a gang needs at its minimum, and how kqlint derived it (for the message)."""

    resources: Requests
    derivation: str


def spec_requests(spec: Any) -> Requests:
    """Requests of one pod of a PodSpec: containers (a limit alone counts as the request), the
    largest init container per resource, pod overhead (Kubernetes ``PodRequests``)."""
    return combine(spec if isinstance(spec, dict) else {}, [(c, c.resources) for c in containers(spec)])


# ------------------------------------------------------------------ Volcano Job

@dataclass(frozen=True)
class VolcanoTask:
    replicas: int
    min_available: int | None       # as written
    partition: dict[str, Any] | None
    priority: int | None            # its PriorityClass's value; None when it cannot be resolved
    requests: Requests


def _partition_product(task: VolcanoTask) -> int:
    policy = task.partition or {}
    return count(policy.get("minPartitions"), 0) * count(policy.get("partitionSize"), 0)


def _before_1_14(task: VolcanoTask) -> int:
    """A task with ``minPartitions > 0`` kept ``minAvailable`` unset; the job counted its replicas."""
    return task.replicas


def _from_1_14(task: VolcanoTask) -> int:
    """Any ``partitionPolicy`` set ``minAvailable`` to ``minPartitions × partitionSize`` (0 when
    ``minPartitions`` is omitted, volcano#5401)."""
    return _partition_product(task) if task.partition is not None else task.replicas


def _from_1_16(task: VolcanoTask) -> int:
    """``minPartitions × partitionSize`` only when ``minPartitions > 0`` (``e7cc35b31``)."""
    policy = task.partition or {}
    return _partition_product(task) if count(policy.get("minPartitions"), 0) > 0 else task.replicas


# (first release, last release, label, default of an unset task minAvailable)
TASK_MINIMUM_ERAS: tuple[tuple[tuple[int, int], tuple[int, int], str, Callable[[VolcanoTask], int]], ...] = (
    ((0, 0), (1, 13), "Volcano before 1.14", _before_1_14),
    ((1, 14), (1, 15), "Volcano 1.14-1.15", _from_1_14),
    ((1, 16), (999, 999), "Volcano 1.16 or later", _from_1_16),
)


def volcano_job_need(tasks: list[VolcanoTask], job_min_available: Any,
                     version: tuple[int, int] | None) -> Need | None:
    """The ``minResources`` Volcano's job controller writes for the job's PodGroup: per release
    of the mutating webhook that may run (all of them when ``version`` is unknown), the smallest
    per resource. None when the result depends on an order kqlint cannot know."""
    eras = [era for era in TASK_MINIMUM_ERAS if version is None or era[0] <= version <= era[1]]
    needs: list[tuple[str, Requests]] = []
    for _, _, label, default in eras:
        minimums = [task.min_available if task.min_available is not None else default(task) for task in tasks]
        explicit = integer(job_min_available)
        job_min = explicit if explicit else sum(minimums)  # 0 or unset: the webhook sums the tasks
        found = _over_orders(tasks, functools.partial(_pg_min_resources, tasks, minimums=minimums, job_min=job_min))
        if found is None:
            return None
        needs.append((label, found))
    if not needs:
        return None
    if len(needs) == 1:
        return Need(needs[0][1], f"minAvailable as {needs[0][0]} defaults it")
    if all(need == needs[0][1] for _, need in needs):
        return Need(needs[0][1], "minAvailable as Volcano's webhook defaults it")
    return Need(_smallest(need for _, need in needs), "minAvailable defaults of every Volcano release, the smallest")


def _over_orders(tasks: list[VolcanoTask], compute: Callable[[list[int]], Requests]) -> Requests | None:
    """``compute`` over the order the controller sorts the tasks in (PriorityClass value,
    highest first; Go's sort keeps the written order of up to 12 tasks); the smallest over every
    order when a priority is unknown. None when neither is knowable."""
    indexes = list(range(len(tasks)))
    if all(task.priority is not None for task in tasks):
        if len(tasks) > MAX_ORDERED_TASKS and len({task.priority for task in tasks}) < len(tasks):
            return None  # pdqsort may reorder equal priorities here
        return compute(sorted(indexes, key=lambda i: -(tasks[i].priority or 0)))
    if len(tasks) > MAX_PERMUTED_TASKS:
        return None
    return _smallest(compute(list(order)) for order in itertools.permutations(indexes))


def _pg_min_resources(tasks: list[VolcanoTask], order: list[int], minimums: list[int], job_min: int) -> Requests:
    """``calcPGMinResources``: below the sum of the tasks' minimums, the first ``job_min`` pods
    in task order (``CalcFirstCountResources``); otherwise every task's minimum first, then
    the remaining replicas in task order up to ``job_min`` (``CalcPGMinResources``)."""
    need: Requests = {}
    if job_min < sum(minimums):
        left = job_min
        for i in order:
            taken = min(left, tasks[i].replicas)
            need, left = add(need, tasks[i].requests, taken), left - taken
            if left <= 0:
                break
        return need
    for i in order:  # job_min covers every task's minimum here
        need = add(need, tasks[i].requests, minimums[i])
    left = job_min - sum(minimums)
    for i in order:
        extra = min(max(tasks[i].replicas - minimums[i], 0), max(left, 0))
        need, left = add(need, tasks[i].requests, extra), left - extra
    return need


def _smallest(needs: Iterable[Requests]) -> Requests:
    """Per resource, the smallest amount over ``needs`` (a resource one of them lacks is 0)."""
    listed = list(needs)
    names: set[str] = set().union(*(need.keys() for need in listed)) if listed else set()
    return {name: min(need.get(name, Fraction(0)) for need in listed) for name in sorted(names)}


def volcano_pod_need(obj: K8sObject, template: PodTemplate) -> Need:
    """A Volcano pod without a PodGroup of its own: the podgroup controller's PodGroup has
    ``minMember`` from the owner's ``scheduling.volcano.sh/group-min-member`` (1 when unset or
    not a number) and ``minResources`` = ``minMember`` × the pod's requests."""
    written = integer_or_digits(pod_owner_annotations(obj).get(VOLCANO_MIN_MEMBER_ANNOTATION)) \
        if not K.POD.of(obj) else None
    members = written if written is not None and written >= 0 else 1
    how = f"minMember {members} from group-min-member" if written is not None and written >= 0 \
        else "minMember 1, the podgroup controller's default"
    return Need(add({}, spec_requests(template.spec), members), how)


# ------------------------------------------------------------------ KAI

Pool = list[tuple[Requests, int]]   # (one pod's requests, how many such pods there are)


def kai_need(obj: K8sObject, templates: list[PodTemplate]) -> Need | None:
    """The lower bound of what KAI's pod grouper makes the workload's PodGroup need (§9)."""
    pool: Pool = [(spec_requests(t.spec), t.pods) for t in templates if t.pods > 0]
    if not pool:
        return None
    kind = (obj.group, obj.kind)
    if kind in (K.JOB, K.CRONJOB):
        written = integer_or_digits(pod_owner_annotations(obj).get(KAI_BATCH_MIN_MEMBER_ANNOTATION))
        members = written if written is not None and written >= 1 else 1
        how = f"minMember {members} from batch-min-member" if members == written else \
            "minMember 1: a batch Job without batch-min-member"
        return Need(_cheapest(pool, members), how)
    if kind == K.JOBSET:
        return _jobset_need(obj)
    if kind == K.LWS:
        return _lws_need(obj, pool)
    if is_kubeflow_job(obj):
        wanted = _kubeflow_min_member(obj, sum(pods for _, pods in pool))
        return None if wanted is None else Need(_cheapest(pool, wanted), f"minMember {wanted}, the cheapest pods")
    return Need(_cheapest(pool, 1), "minMember 1, one pod")


def _cheapest(pool: Pool, members: int) -> Requests:
    """Per resource, the sum over the ``members`` pods that need least of it."""
    names = sorted(set().union(*(requests.keys() for requests, _ in pool)))
    need: Requests = {}
    for name in names:
        left, total = members, Fraction(0)
        for requests, pods in sorted(pool, key=lambda item: item[0].get(name, Fraction(0))):
            taken = min(left, pods)
            total, left = total + requests.get(name, Fraction(0)) * taken, left - taken
            if left <= 0:
                break
        need[name] = total
    return need


def _kubeflow_min_member(obj: K8sObject, replicas: int) -> int | None:
    """PyTorchJob: replicas, then ``elasticPolicy.minReplicas``, then ``schedulingPolicy
    .minAvailable`` (the last set wins); TF/XGBoost/JAX/MPI: ``minAvailable``, else the replicas;
    PaddleJob: the default grouper (1). None when a replica spec lacks ``replicas`` (the grouper
    refuses the job: KQ307)."""
    from kqlint.domain.workloads.gang import replica_specs

    if any(not spec.has_replicas or spec.replicas == 0 for spec in replica_specs(obj)):
        return None
    if K.PADDLEJOB.of(obj):
        return 1
    members = replicas
    if K.PYTORCHJOB.of(obj):
        elastic = integer(obj.get("spec", "elasticPolicy", "minReplicas"))
        members = elastic if elastic is not None and elastic > 0 else members
    available = integer(obj.get(*KUBEFLOW_MIN_AVAILABLE_PATH))
    return available if available is not None and available > 0 else members


def _jobset_need(obj: K8sObject) -> Need | None:
    """One SubGroup per replicatedJob (``replicas`` × the leaf minimum: its template's
    ``kai.scheduler/batch-min-member`` in 1..parallelism, else parallelism); the root needs
    every replicatedJob (``AnyOrder``), one (``InOrder``), or the JobSet's own annotation when
    lower: the cheapest of them."""
    groups: list[Requests] = []
    for _, job in mappings_at(obj.data, ("spec", "replicatedJobs")):
        job_spec = dig(job, ("template", "spec"))
        pods = job_pods(job_spec)
        leaf = integer_or_digits(dig(job, ("template", "metadata", "annotations", KAI_BATCH_MIN_MEMBER_ANNOTATION)))
        leaf = leaf if leaf is not None and 1 <= leaf <= pods else pods
        groups.append(add({}, spec_requests(dig(job_spec, ("template", "spec"))), count(job.get("replicas"), 1) * leaf))
    if not groups:
        return None
    wanted = 1 if obj.get("spec", "startupPolicy", "startupPolicyOrder") == "InOrder" else len(groups)
    override = integer_or_digits(obj.get("metadata", "annotations", KAI_BATCH_MIN_MEMBER_ANNOTATION))
    if override is not None and 0 < override < len(groups):
        wanted = min(wanted, override)
    how = "every replicatedJob, replicas × parallelism" if wanted == len(groups) else \
        f"the cheapest {wanted} of {len(groups)} replicatedJobs"
    return Need(_cheapest([(group, 1) for group in groups], wanted), how)


def _lws_need(obj: K8sObject, pool: Pool) -> Need:
    """One PodGroup per LWS group: ``size`` pods (leader + size − 1 workers) under
    ``LeaderCreated``; 1 under ``LeaderReady`` until the leader runs."""
    size = max(count(obj.get("spec", "leaderWorkerTemplate", "size"), 1), 1)
    if text(obj.get("spec", "startupPolicy")) == "LeaderReady":
        return Need(_cheapest(pool, 1), "minMember 1 under LeaderReady")
    leader = obj.get("spec", "leaderWorkerTemplate", "leaderTemplate", "spec")
    worker = spec_requests(obj.get("spec", "leaderWorkerTemplate", "workerTemplate", "spec"))
    group = add(spec_requests(leader), worker, size - 1) if isinstance(leader, dict) else add({}, worker, size)
    return Need(group, f"minMember {size}, one LWS group")


def volcano_job_tasks(obj: K8sObject, priority_of: Callable[[str], int | None]) -> list[VolcanoTask]:
    """A Volcano Job's tasks as the job controller sees them; a task's priority is its
    template's PriorityClass value (0 without one; None when ``priority_of`` cannot tell)."""
    found = []
    for _, task in mappings_at(obj.data, ("spec", "tasks")):
        spec = task.get("template", {}).get("spec") if isinstance(task.get("template"), dict) else None
        class_name = text(spec.get("priorityClassName")) if isinstance(spec, dict) else None
        written = integer(task.get("minAvailable"))
        partition = task.get("partitionPolicy")
        found.append(VolcanoTask(count(task.get("replicas"), 0), written if written is not None and written >= 0
                                 else None, partition if isinstance(partition, dict) else None,
                                 priority_of(class_name) if class_name else 0, spec_requests(spec)))
    return found
