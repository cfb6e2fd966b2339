"""
## What it catches
Two Kueue-managed workloads A and B routed to the same ClusterQueue where Kueue and
kube-scheduler disagree: A has the higher workload priority (WorkloadPriorityClass label,
else the pod-class fallback chain), but some pod template of B runs at a pod priority above
A's lowest template pod priority and can preempt (effective `preemptionPolicy:
PreemptLowerPriority`). Reported on A, the workload at risk, at its lowest-priority
template's `priorityClassName`; `related` is B's preempting template. When several
workloads threaten A, the one with the highest pod priority is named. Workloads whose
classes cannot be resolved are skipped (KQ202/KQ205).

## Why it breaks on a cluster
Kueue admits and preempts Workloads by workload priority; kube-scheduler places and
preempts pods by pod priority, and the two are independent. When B's pods need room on a
node, kube-scheduler may evict pods of A even though Kueue ranks A higher: A loses single
workers and stalls, Kueue sees it as admitted and running, and B got ahead of the job the
queue was configured to favour.

## Bad
```yaml
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata:
  name: prod
value: 1000
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata:
  name: dev
value: 100
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: pods-high
value: 5000
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: gpu
spec:
  namespaceSelector: {}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  name: training
  namespace: ml
spec:
  clusterQueue: gpu
---
apiVersion: batch/v1
kind: Job
metadata:
  name: prod-train          # Kueue ranks it first, its pods run at priority 0
  namespace: ml
  labels:
    kueue.x-k8s.io/queue-name: training
    kueue.x-k8s.io/priority-class: prod
spec:
  parallelism: 4
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: main
          image: trainer:1
---
apiVersion: batch/v1
kind: Job
metadata:
  name: dev-sweep           # ranked lower by Kueue, but its pods preempt at 5000
  namespace: ml
  labels:
    kueue.x-k8s.io/queue-name: training
    kueue.x-k8s.io/priority-class: dev
spec:
  parallelism: 4
  template:
    spec:
      priorityClassName: pods-high
      restartPolicy: Never
      containers:
        - name: main
          image: trainer:1
```

## Good
```yaml
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata:
  name: prod
value: 1000
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata:
  name: dev
value: 100
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: gang-pods
value: 0
preemptionPolicy: Never
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: gpu
spec:
  namespaceSelector: {}
  preemption:
    withinClusterQueue: LowerPriority
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  name: training
  namespace: ml
spec:
  clusterQueue: gpu
---
apiVersion: batch/v1
kind: Job
metadata:
  name: prod-train
  namespace: ml
  labels:
    kueue.x-k8s.io/queue-name: training
    kueue.x-k8s.io/priority-class: prod
spec:
  parallelism: 4
  template:
    spec:
      priorityClassName: gang-pods
      restartPolicy: Never
      containers:
        - name: main
          image: trainer:1
---
apiVersion: batch/v1
kind: Job
metadata:
  name: dev-sweep
  namespace: ml
  labels:
    kueue.x-k8s.io/queue-name: training
    kueue.x-k8s.io/priority-class: dev
spec:
  parallelism: 4
  template:
    spec:
      priorityClassName: gang-pods
      restartPolicy: Never
      containers:
        - name: main
          image: trainer:1
```

## How to fix
Give the pods of all workloads in the queue one shared PriorityClass with
`preemptionPolicy: Never` and rank workloads only with WorkloadPriorityClasses; or, if pod
priorities must differ, make them follow the workload priorities (never let a lower-ranked
workload's pods preempt at a higher pod priority).
"""
from __future__ import annotations

from collections.abc import Iterator
from itertools import groupby

from kqlint.domain import reading
from kqlint.domain.graph import ObjectGraph
from kqlint.domain.kueue import (
    ManagedWorkload,
    PodProfile,
    WorkloadPriority,
    defaulted_route,
    describe_pod_priority,
    describe_workload_priority,
    pod_profile,
    queues_of,
    workload_priority,
    workloads_routed_to,
)
from kqlint.domain.objects import INPUT
from kqlint.engine.rule import RuleContext, RuleMeta
from kqlint.model import Finding, Severity
from kqlint.rules.priority._shared_class import SHARED_CLASS_REMEDY

# findings cache: reads graph rule: every workload Kueue may manage, its route (LocalQueue -> ClusterQueue), its
# workload priority and its pods' priorities
META = RuleMeta(code="KQ105", slug="priority-mismatch", severity=Severity.WARNING,
                summary="Kueue ranks a workload higher, but a lower-ranked workload's pods can preempt it",
                scope="graph", shows_route=True,
                reads=reading.ROUTED)

Ranked = tuple[int, WorkloadPriority, PodProfile]


def check_graph(graph: ObjectGraph, ctx: RuleContext) -> Iterator[Finding]:
    for queue in queues_of(graph.inputs, graph):  # a finding needs an input workload in the queue
        yield from _check_queue(queue, _ranked(workloads_routed_to(queue, graph), graph), ctx)


def _ranked(units: list[ManagedWorkload], graph: ObjectGraph) -> list[Ranked]:
    ranked = []
    for unit in units:
        priority, profile = workload_priority(unit, graph), pod_profile(unit, graph)
        if priority.resolved and priority.value is not None and profile is not None:
            ranked.append((priority.value, priority, profile))
    return sorted(ranked, key=lambda item: item[0])


def _check_queue(queue: str, ranked: list[Ranked], ctx: RuleContext) -> Iterator[Finding]:
    """Sweep by ascending workload priority, keeping the strongest preemptor seen so far among
    strictly lower-ranked workloads: each workload is compared once (n log n, not n^2)."""
    threat: Ranked | None = None
    for _, group in groupby(ranked, key=lambda item: item[0]):
        members = list(group)
        for item in members:
            at_risk = item[2].unit.obj.source == INPUT and threat is not None
            if at_risk and threat is not None and _strength(threat) > item[2].lowest_value:
                yield from _finding(queue, item, threat, ctx)
        for item in members:
            if item[2].preemptor is not None and (threat is None or _strength(item) > _strength(threat)):
                threat = item


def _strength(item: Ranked) -> int:
    preemptor = item[2].preemptor
    return preemptor[1].value or 0 if preemptor is not None else -(2 ** 31) - 1


def _finding(queue: str, at_risk: Ranked, threat: Ranked, ctx: RuleContext) -> Iterator[Finding]:
    (_, a_priority, a), (_, b_priority, b) = at_risk, threat
    low_template, low_priority = a.lowest
    if b.preemptor is None:  # a threat always has one; keeps the types honest
        return
    b_template, b_pod = b.preemptor
    message = (f"{a.unit.display()} ranks above {b.unit.display()} in ClusterQueue {queue} (workload "
               f"priority {a_priority.value} > {b_priority.value}), but its pods run at pod priority "
               f"{low_priority.value}, below {b_pod.value}: kube-scheduler can evict them to place "
               f"{b.unit.obj.name}'s pods, against Kueue's order")
    related = [(b_template.at("priorityClassName"),
                f"{b.unit.display()}: pods at {describe_pod_priority(b_pod)} can preempt "
                f"(workload priority {describe_workload_priority(b_priority)})"),
               *defaulted_route([a.unit, b.unit], ctx.graph)]
    yield ctx.finding(at=low_template.at("priorityClassName"), message=message, related=related,
                      obj=a.unit.obj.ref, remedy=SHARED_CLASS_REMEDY)
