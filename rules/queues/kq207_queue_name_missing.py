"""
## What it catches
A workload that carries `kueue.x-k8s.io/priority-class` but no `kueue.x-k8s.io/queue-name`
where Kueue reads its labels (the object's own `metadata.labels`; a CronJob's
`spec.jobTemplate.metadata.labels`; each component pod template of a
DynamoGraphDeployment), in a namespace without a LocalQueue named `default`. Points at the
`priority-class` label.

Silent when a LocalQueue named `default` exists in the namespace (LocalQueueDefaulting gives
the workload `queue-name: default`), and when a pod template carries the queue-name: either it
is misplaced (KQ208 reports that, and moving the label fixes both) or the platform's `pod`
integration reads it from each pod.

## Why it breaks on a cluster
With the default `manageJobsWithoutQueueName: false`, Kueue ignores every job without a
queue name: it is not suspended, gets no Workload and starts at once, outside the quota.
The priority label then has no effect at all, which is easy to miss because it looks as if
the job was meant for Kueue.

## Bad
```yaml
apiVersion: batch/v1
kind: Job
metadata:
  name: train
  namespace: team-a
  labels:
    kueue.x-k8s.io/priority-class: high    # but no queue-name
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox
```

## Good
```yaml
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  name: default          # LocalQueueDefaulting supplies queue-name: default
  namespace: team-a
spec:
  clusterQueue: team-a
---
apiVersion: batch/v1
kind: Job
metadata:
  name: train
  namespace: team-a
  labels:
    kueue.x-k8s.io/priority-class: high
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: team-a
spec:
  namespaceSelector: {}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata:
  name: high
value: 1000
```

## How to fix
Add `kueue.x-k8s.io/queue-name: <LocalQueue>` next to the priority label (or create a
LocalQueue named `default` in the namespace). If the job is deliberately not queued, drop the
priority label.
"""
from __future__ import annotations

from collections.abc import Iterator

from kqlint.domain import reading
from kqlint.domain.graph import ObjectGraph
from kqlint.domain.kueue import KUEUE_GROUP, PRIORITY_LABEL, QUEUE_LABEL, unqueued_priority_labels
from kqlint.domain.objects import K8sObject
from kqlint.engine.rule import RuleContext, RuleMeta
from kqlint.model import Finding, Severity

# findings cache: reads a LocalQueue `default` in its namespace, the LocalQueues there; own templates
META = RuleMeta(code="KQ207", slug="queue-name-missing", severity=Severity.WARNING,
                summary="a workload has a Kueue priority-class label but no queue-name, so Kueue ignores it",
                reads=reading.ROUTING)


def check(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    for path, who in unqueued_priority_labels(obj, ctx.graph):
        yield ctx.finding(
            at=obj.at(*path, PRIORITY_LABEL),
            message=(f"{who} carries `{PRIORITY_LABEL}: {obj.get(*path, PRIORITY_LABEL)}` but no "
                     f"`{QUEUE_LABEL}`, and its namespace has no `default` LocalQueue: "
                     "Kueue ignores it and it starts outside the quota"),
            remedy=f"Add `{QUEUE_LABEL}: <LocalQueue>`{_queues_hint(obj, ctx.graph)}")


def _queues_hint(obj: K8sObject, graph: ObjectGraph) -> str:
    names = sorted({lq.name for lq in graph.of_kind("LocalQueue", KUEUE_GROUP) if lq.namespace == obj.namespace})
    return f" (LocalQueues in {obj.namespace}: {', '.join(names)})" if names else ""
