"""
## What it catches
A Kueue-managed workload routed to a ClusterQueue whose `withinClusterQueue` is not
`Never` (`LowerPriority` or `LowerOrNewerEqualPriority`) that has no
`kueue.x-k8s.io/priority-class` label where Kueue reads it. Points at the object's
labels (or its `metadata` when it has none; for a DynamoGraphDeployment component, at
its pod template's labels); `related` is the queue's preemption policy.

## Why it breaks on a cluster
Without the label Kueue falls back to the pod PriorityClass (Kubeflow: its
`runPolicy.schedulingPolicy.priorityClass` first), then the global default class, then
0, and uses that number to decide which workloads preempt which in the queue. The pod
class was chosen for kube-scheduler, not for ranking jobs: jobs end up preempting (or
being preempted by) each other by accident, and the label cannot be added later to a
running job.

## Bad
```yaml
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
  name: train
  namespace: ml
  labels:
    kueue.x-k8s.io/queue-name: training      # no priority-class label
spec:
  template:
    spec:
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
  name: normal
value: 500
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
  name: train
  namespace: ml
  labels:
    kueue.x-k8s.io/queue-name: training
    kueue.x-k8s.io/priority-class: normal
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: main
          image: trainer:1
```

## How to fix
Add `kueue.x-k8s.io/priority-class: <WorkloadPriorityClass>` next to the
`kueue.x-k8s.io/queue-name` label (on the object's own `metadata.labels`; for a
DynamoGraphDeployment, on each component's pod template labels), so Kueue ranks the job
on purpose.
"""
from __future__ import annotations

from collections.abc import Iterator

from kqlint.domain import kinds as K
from kqlint.domain import reading
from kqlint.domain.kueue import (
    MANAGED,
    NEVER,
    PRIORITY_LABEL,
    cluster_queue_of,
    describe_workload_priority,
    managed_workloads,
    within_cluster_queue,
    workload_priority,
)
from kqlint.domain.objects import K8sObject
from kqlint.engine.rule import RuleContext, RuleMeta
from kqlint.model import Finding, Severity

# findings cache: reads managed_workloads; LocalQueue -> ClusterQueue; workload_priority's fallback
META = RuleMeta(code="KQ108", slug="missing-workload-priority", severity=Severity.INFO,
                summary="a workload in a preempting ClusterQueue has no WorkloadPriorityClass label",
                kinds=MANAGED,
                reads=reading.ROUTING | {K.CLUSTER_QUEUE, K.WORKLOAD_PRIORITY_CLASS, K.PRIORITY_CLASS})


def check(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    for unit in managed_workloads(obj, ctx.graph):
        if unit.priority_label() is not None:
            continue
        cq = cluster_queue_of(unit, ctx.graph)
        if cq is None or within_cluster_queue(cq) == NEVER:
            continue
        policy = within_cluster_queue(cq)
        fallback = describe_workload_priority(workload_priority(unit, ctx.graph))
        message = (f"{unit.display()} has no {PRIORITY_LABEL} label, but ClusterQueue {cq.name} preempts by "
                   f"priority (withinClusterQueue: {policy}): Kueue ranks it by a pod-level fallback, {fallback}")
        related = [(cq.at("spec", "preemption", "withinClusterQueue"),
                    f"ClusterQueue {cq.name}: withinClusterQueue {policy}")]
        yield ctx.finding(at=unit.label_at(PRIORITY_LABEL), message=message, related=related,
                          remedy=f"Add {PRIORITY_LABEL}: <WorkloadPriorityClass> next to the queue-name label")
