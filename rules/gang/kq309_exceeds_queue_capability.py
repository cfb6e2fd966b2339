"""
## What it catches
A gang that its Volcano or KAI queue can never admit, because what the gang needs at its
minimum is above a hard cap of the queue or of one of its ancestors (the twin of KQ210 for
gang schedulers).

**Volcano.** The gang's minimum is a PodGroup's `spec.minResources`; for a Volcano Job, what
the job controller writes there (`calcPGMinResources`): tasks ordered by their PriorityClass
value, highest first, each task's `minAvailable` pods first, then more replicas up to the
job's `minAvailable`, with `minAvailable` as Volcano's webhook defaults it (a task's unset
`minAvailable` became `minPartitions × partitionSize` from Volcano 1.14: with an unknown
Volcano version, the smallest result over releases is used); for other pods sent to Volcano
with `scheduling.volcano.sh/queue-name` and no PodGroup of their own, `minMember` (the owner's
`scheduling.volcano.sh/group-min-member`, else 1) times one pod's requests. It fires when, for
a resource the Queue's `spec.capability` lists with a value above 0, that minimum is above the
capability of the Queue or of an ancestor reached through `spec.parent`. Volcano's enqueue
check compares the minimum plus what the queue already runs with the capability, so the job is
never enqueued.

**KAI.** The gang's minimum is the `minMember` pods of the PodGroup KAI's pod grouper makes
(a batch Job without `kai.scheduler/batch-min-member` is a gang of one pod; a PyTorchJob the
sum of its replicas, or `minAvailable`; an LWS group `size` pods ...), the cheapest pods where
the grouper leaves a choice. Per `gpu` (`nvidia.com/gpu`), `cpu` (millicores) and `memory`
(megabytes, 10⁶ bytes), it fires when that minimum is above `spec.resources.<r>.limit` of the
queue named by the `kai.scheduler/queue` label, or of an ancestor (`spec.parentQueue`). `-1`
is unlimited; `0` is a real bound (any request of that resource is over the limit); an unset
`limit` is not judged. Quota is not a cap.

A Queue manifest named `default` or `root` (the queues Volcano's scheduler creates on every
cluster, without a capability) counts only where it is applied with the job: in the job's folder
or unit. Caps more than 64 levels above the gang's queue are not judged (as a Cohort tree deeper than
that is not simulated). Silent when the queue cannot be resolved (KQ310/KQ312 report unknown queues), when the
pods do not go to that scheduler, for a Volcano Job whose `minAvailable` the webhook rejects (KQ301),
and under the `kakaocloud` profile for Volcano queues (KQ502).

What it assumes: the queues are those in the inputs, context, `external` objects or profile (a
queue not in view is never judged, and a cap set only on the cluster is not known); the Volcano
release is `platform.volcano.version` or a `volcanosh/vc-*` image tag in the repository (the
platform model's "volcano version" in `kqlint graph` and `--statistics`), and, when unknown,
the smallest result over releases is used.

## Why it breaks on a cluster
The gang scheduler admits a gang only when its minimum fits under the queue's cap. Above the
cap it stays Pending (`queue resource quota insufficient`, `OverLimit`) for ever, however idle
the cluster is.

## Bad
```yaml
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata:
  name: research
spec:
  capability:
    nvidia.com/gpu: 8
---
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata:
  name: pretrain
spec:
  queue: research
  tasks:
  - name: worker
    replicas: 4
    template:
      spec:
        containers:
        - name: main
          image: trainer:1.0
          resources:
            limits: {nvidia.com/gpu: 4}
```

## Good
```yaml
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata:
  name: research
spec:
  capability:
    nvidia.com/gpu: 16
---
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata:
  name: pretrain
spec:
  queue: research
  tasks:
  - name: worker
    replicas: 4
    template:
      spec:
        containers:
        - name: main
          image: trainer:1.0
          resources:
            limits: {nvidia.com/gpu: 4}
```

## How to fix
Raise the queue's `capability` (Volcano) or `limit` (KAI) — and its ancestors' — to at least
the gang's minimum, lower the gang's minimum (fewer or smaller pods, a smaller
`minAvailable`), or send the workload to a queue that can hold it.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from kqlint.domain import kinds as K
from kqlint.domain.kueue.priority import class_value, resolve_priority_class
from kqlint.domain.objects import K8sObject
from kqlint.domain.platform import platform_of
from kqlint.domain.quantity import format_amount, parse_quantity
from kqlint.domain.workloads import (
    KAI_SCHEDULER_NAMES,
    VOLCANO_GROUP_ANNOTATION,
    VOLCANO_QUEUE_ANNOTATION,
    VOLCANO_SCHEDULER_NAMES,
    is_workload,
    own_templates,
)
from kqlint.domain.workloads.gang import effective_scheduler_name
from kqlint.domain.workloads.gang_needs import (
    Need,
    kai_need,
    volcano_job_need,
    volcano_job_tasks,
    volcano_pod_need,
)
from kqlint.engine.rule import RuleContext, RuleMeta, Run
from kqlint.model import Finding, Location, Severity
from kqlint.rules.gang._queues import queue_chain, queues_by_name

# findings cache: reads the Volcano and KAI Queues (the queue and its ancestors) and the PriorityClasses that order a
# Volcano Job's tasks; the rest is the object itself and the platform model (the Volcano version)
META = RuleMeta(code="KQ309", slug="exceeds-queue-capability", severity=Severity.ERROR,
                summary="a gang's minimum is above its Volcano queue's capability or its KAI queue's limit: "
                        "it is never admitted",
                reads=frozenset({K.VOLCANO_QUEUE, K.KAI_QUEUE, K.PRIORITY_CLASS}))
VOLCANO_POD_OWNERS = frozenset({K.POD, K.DEPLOYMENT, K.STATEFULSET, K.REPLICASET, K.DAEMONSET, K.JOB, K.CRONJOB})
KAI_QUEUE_LABEL = "kai.scheduler/queue"
# KAI's queue resources and how a pod's request converts to the queue's unit (proportion.go)
KAI_RESOURCES = (("gpu", "nvidia.com/gpu", Fraction(1)), ("cpu", "cpu", Fraction(1000)),
                 ("memory", "memory", Fraction(1, 10**6)))
MAX_MESSAGE = 240
KAI_UNITS = {"gpu": "", "cpu": " millicores", "memory": " MB"}


# Volcano's scheduler creates `root` and its default queue (`default`) on every cluster, without a
# capability (pkg/scheduler/cache/cache.go newDefaultAndRootQueue): a repository's manifest of one
# is what the cluster holds only where it is applied with the job (one folder, or one unit).
VOLCANO_OWN_QUEUES = frozenset({"default", "root"})


@dataclass(frozen=True)
class Options:
    volcano_scheduler_names: tuple[str, ...] = VOLCANO_SCHEDULER_NAMES
    kai_scheduler_names: tuple[str, ...] = KAI_SCHEDULER_NAMES


@dataclass(frozen=True)
class Over:
    """One resource of the gang's minimum above one queue's cap."""

    resource: str
    need: str
    cap: str
    queue: K8sObject
    path: tuple[Any, ...]  # of the cap in the queue (located only for the related entries shown)
    note: str = ""


def prepare(run: Run) -> dict[str, bool]:
    """Volcano queues are judged except under kakaocloud, where KQ502 owns their references."""
    return {"volcano": run.config.profile != "kakaocloud"}


def check(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    if ctx.state["volcano"]:
        if K.VOLCANO_PODGROUP.of(obj):
            yield from _volcano_pod_group(obj, ctx)
            return
        if K.VOLCANO_JOB.of(obj):
            yield from _volcano_job(obj, ctx)
            return
    if not is_workload(obj):
        return
    templates = own_templates(obj)
    if ctx.state["volcano"] and (obj.group, obj.kind) in VOLCANO_POD_OWNERS:
        yield from _volcano_pods(obj, ctx, templates)
    yield from _kai(obj, ctx, templates)


# ------------------------------------------------------------------ Volcano

def _volcano_pod_group(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    from kqlint.domain.quantity import requirement_requests

    need = requirement_requests({"requests": obj.get("spec", "minResources")})
    if need:
        yield from _volcano(obj, ctx, Need(need, "spec.minResources"), obj.get("spec", "queue"), ("spec", "queue"))


def _volcano_job(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    scheduler = obj.get("spec", "schedulerName")
    if isinstance(scheduler, str) and scheduler and scheduler not in ctx.options.volcano_scheduler_names:
        return
    tasks = volcano_job_tasks(obj, lambda name: _priority_value(name, ctx))
    total = sum(task.replicas for task in tasks)
    job_min = obj.get("spec", "minAvailable")
    if not tasks or any(t.min_available is not None and t.min_available > t.replicas for t in tasks) \
            or (isinstance(job_min, int) and job_min > total):
        return  # the webhook rejects the job: KQ301 reports it
    need = volcano_job_need(tasks, job_min, platform_of(ctx.graph).volcano_version)
    if need is not None:
        yield from _volcano(obj, ctx, need, obj.get("spec", "queue"), ("spec", "queue"))


def _priority_value(name: str, ctx: RuleContext) -> int | None:
    return class_value(resolve_priority_class(name, ctx.graph))


def _volcano_pods(obj: K8sObject, ctx: RuleContext, templates: list[Any]) -> Iterator[Finding]:
    for template in templates:
        queue = template.annotations.get(VOLCANO_QUEUE_ANNOTATION)
        if not isinstance(queue, str) or VOLCANO_GROUP_ANNOTATION in template.annotations:
            continue  # a pod of a PodGroup of its own: the PodGroup's minResources and queue count
        if effective_scheduler_name(template) not in ctx.options.volcano_scheduler_names:
            continue
        meta = template.meta_path or ()
        yield from _volcano(obj, ctx, volcano_pod_need(obj, template), queue,
                            (*meta, "annotations", VOLCANO_QUEUE_ANNOTATION))


def _volcano(obj: K8sObject, ctx: RuleContext, need: Need, queue: Any, path: tuple[Any, ...]) -> Iterator[Finding]:
    written = isinstance(queue, str) and bool(queue)
    name = queue if written else "default"  # the CRD default and the Job webhook's
    queues = queues_by_name(ctx.graph, K.VOLCANO_QUEUE)
    queue_object = queues.get(name)
    if name in VOLCANO_OWN_QUEUES and queue_object is not None \
            and not ctx.graph.one_apply_place(obj.file, queue_object.file):
        return  # Volcano's own queue (below): a manifest of it elsewhere is no proof of the cluster's
    overs = []
    for ancestor in queue_chain(queue_object, queues, "parent"):
        if ancestor.name in VOLCANO_OWN_QUEUES and not ctx.graph.one_apply_place(obj.file, ancestor.file):
            continue
        for resource, amount in sorted(need.resources.items()):
            cap = parse_quantity(ancestor.get("spec", "capability", resource))
            if cap is not None and cap > 0 and amount > cap:
                overs.append(Over(resource, format_amount(amount), str(ancestor.get("spec", "capability", resource)),
                                  ancestor, ("spec", "capability", resource)))
    if overs:
        at = obj.at_value(*path) if written else obj.at("spec") if obj.has("spec") else obj.location()
        yield _finding(obj, ctx, at, overs, "Volcano", "capability", need.derivation)


# ------------------------------------------------------------------ KAI

def _kai(obj: K8sObject, ctx: RuleContext, templates: list[Any]) -> Iterator[Finding]:
    kai = [t for t in templates if t.scheduler_name in ctx.options.kai_scheduler_names]
    if not kai:
        return
    places = [(("metadata",), obj.labels)] + [(t.meta_path, t.labels) for t in kai if t.meta_path is not None]
    labelled = [(meta, labels[KAI_QUEUE_LABEL]) for meta, labels in places if KAI_QUEUE_LABEL in labels]
    if not labelled or not isinstance(labelled[0][1], str):
        return
    meta, name = labelled[0]  # the top owner's label wins over the pod's (default_grouper.go)
    queues = queues_by_name(ctx.graph, K.KAI_QUEUE)
    need = kai_need(obj, kai) if name in queues else None
    if need is None:
        return
    overs = []
    for ancestor in queue_chain(queues[name], queues, "parentQueue"):
        for queue_key, request_key, scale in KAI_RESOURCES:
            over = _kai_over(ancestor, queue_key, need.resources.get(request_key, Fraction(0)) * scale)
            if over is not None:
                overs.append(over)
    if overs:
        yield _finding(obj, ctx, obj.at_value(*meta, "labels", KAI_QUEUE_LABEL), overs, "KAI", "limit",
                       need.derivation)


def _kai_over(queue: K8sObject, resource: str, amount: Fraction) -> Over | None:
    written = queue.get("spec", "resources", resource, "limit")
    limit = _number(written)
    if limit is None or limit == -1 or amount <= 0 or amount <= limit:
        return None
    note = " (0 is a bound; only -1 is unlimited)" if limit == 0 else ""
    return Over(resource, f"{_plain(amount)}{KAI_UNITS[resource]}", str(written), queue,
                ("spec", "resources", resource, "limit"), note)


def _number(value: Any) -> Fraction | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return Fraction(str(value))


def _plain(amount: Fraction) -> str:
    return str(amount.numerator) if amount.denominator == 1 else f"{float(amount):.1f}"


# ------------------------------------------------------------------ shared

def _caps(overs: list[Over], cap: str) -> str:
    """``the limit of Queue `team`: cpu 3000 millicores > 2000, memory 67.1 MB > 0 (…)``, per queue."""
    queues: dict[str, list[Over]] = {}
    for over in overs:
        queues.setdefault(over.queue.name, []).append(over)
    return "; ".join(f"the {cap} of Queue `{name}`: " + ", ".join(f"{o.resource} {o.need} > {o.cap}{o.note}"
                                                                  for o in found)
                     for name, found in queues.items())


def _finding(obj: K8sObject, ctx: RuleContext, at: Location, overs: list[Over], scheduler: str, cap: str,
             derivation: str) -> Finding:
    """need vs cap per resource and how the minimum was derived, in at most 240 characters
    (fewer resources, then no derivation, when the object's name is long)."""
    related = [(over.queue.at_value(*over.path), f"Queue {over.queue.name} {cap} of {over.resource}")
               for over in overs[:8]]
    never = "never enqueued (`queue resource quota insufficient`)" if scheduler == "Volcano" else \
        "never scheduled (`OverLimit`)"
    message = ""
    for shown, how in ((overs, f" ({derivation})"), (overs[:1], f" ({derivation})"), (overs[:1], "")):
        message = f"{obj.display()}: gang minimum{how} is above {_caps(shown, cap)}: {never}"
        if len(message) <= MAX_MESSAGE:
            break
    return ctx.finding(at=at, related=related, message=message,
                       remedy=f"Raise the queue's {cap} (and its ancestors') to at least the gang's minimum, "
                              "shrink the gang, or send it to a queue that can hold it")
