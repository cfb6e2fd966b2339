"""
## What it catches
A ClusterQueue whose Kueue-managed multi-pod workloads (gangs) run their pods at more
than one pod priority value. One finding per ClusterQueue, at its `metadata.name`;
`related` lists one pod template per distinct value. Workloads with a class that cannot
be resolved are left out.

## Why it breaks on a cluster
Within one queue Kueue decides who runs, by workload priority. Different pod priorities
under it add a second, independent ranking that kube-scheduler applies pod by pod: gangs
with higher pod priority can take nodes from, or preempt single pods of, gangs Kueue
already admitted. A uniform pod priority leaves the ranking to Kueue alone.

## Bad
```yaml
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: team-a
value: 100
preemptionPolicy: Never
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: team-b
value: 200
preemptionPolicy: Never
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
  name: a
  namespace: ml
  labels:
    kueue.x-k8s.io/queue-name: training
spec:
  parallelism: 2
  template:
    spec:
      priorityClassName: team-a
      restartPolicy: Never
      containers:
        - name: main
          image: app:1
---
apiVersion: batch/v1
kind: Job
metadata:
  name: b
  namespace: ml
  labels:
    kueue.x-k8s.io/queue-name: training
spec:
  parallelism: 2
  template:
    spec:
      priorityClassName: team-b
      restartPolicy: Never
      containers:
        - name: main
          image: app:1
```

## Good
```yaml
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: gang-pods
value: 100
preemptionPolicy: Never
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
  name: a
  namespace: ml
  labels:
    kueue.x-k8s.io/queue-name: training
spec:
  parallelism: 2
  template:
    spec:
      priorityClassName: gang-pods
      restartPolicy: Never
      containers:
        - name: main
          image: app:1
---
apiVersion: batch/v1
kind: Job
metadata:
  name: b
  namespace: ml
  labels:
    kueue.x-k8s.io/queue-name: training
spec:
  parallelism: 2
  template:
    spec:
      priorityClassName: gang-pods
      restartPolicy: Never
      containers:
        - name: main
          image: app:1
```

## How to fix
Use one PriorityClass (with `preemptionPolicy: Never`) for the pods of every gang in the
queue, and express which job matters more with WorkloadPriorityClasses.
"""
from __future__ import annotations

from collections.abc import Iterator

from kqlint.domain import reading
from kqlint.domain.graph import ObjectGraph
from kqlint.domain.kueue import (
    KUEUE_GROUP,
    ManagedWorkload,
    PodPriority,
    describe_pod_priority,
    describe_template,
    is_multi_pod,
    pod_priority,
    workloads_routed_to,
)
from kqlint.domain.objects import INPUT
from kqlint.domain.workloads import PodTemplate
from kqlint.engine.rule import RuleContext, RuleMeta
from kqlint.model import Finding, Location, Severity
from kqlint.rules.priority._shared_class import SHARED_CLASS_REMEDY

# findings cache: reads graph rule: the input ClusterQueues, the workloads routed to them and their pods'
# PriorityClasses
META = RuleMeta(code="KQ106", slug="non-uniform-pod-priority", severity=Severity.INFO,
                summary="gangs routed to one ClusterQueue run at different pod priorities", scope="graph",
                reads=reading.ROUTED)


def check_graph(graph: ObjectGraph, ctx: RuleContext) -> Iterator[Finding]:
    for cq in graph.of_kind("ClusterQueue", KUEUE_GROUP, tiers=(INPUT,)):
        units = workloads_routed_to(cq.name, graph)
        by_value = _pod_values([u for u in units if is_multi_pod(u.obj, graph)], graph)
        if len(by_value) < 2:
            continue
        values = ", ".join(str(v) for v in sorted(by_value))
        message = (f"ClusterQueue {cq.name}: the Kueue-managed multi-pod workloads routed to it run their pods "
                   f"at {len(by_value)} pod priority values ({values}): kube-scheduler ranks and preempts "
                   "those gangs' pods by these values, apart from Kueue's workload priorities")
        related = [item for _, item in sorted(by_value.items())]
        yield ctx.finding(at=cq.at("metadata", "name"), message=message, related=related,
                          remedy=SHARED_CLASS_REMEDY)


def _pod_values(units: list[ManagedWorkload], graph: ObjectGraph) -> dict[int, tuple[Location, str]]:
    """Pod priority value -> (the first template running at it, its description)."""
    found: dict[int, tuple[Location, str]] = {}
    for unit in units:
        pairs = [(t, pod_priority(t, graph)) for t in unit.written_templates]
        if not all(p.resolved for _, p in pairs):
            continue
        for template, priority in pairs:
            if priority.value is not None and priority.value not in found:
                found[priority.value] = (template.at("priorityClassName"), _describe(template, unit, priority))
    return found


def _describe(template: PodTemplate, unit: ManagedWorkload, priority: PodPriority) -> str:
    return f"{describe_template(template, unit)}: {describe_pod_priority(priority)}"
