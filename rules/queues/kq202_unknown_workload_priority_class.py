"""
## What it catches
A Kueue-managed workload whose `kueue.x-k8s.io/priority-class` label (where Kueue reads it:
the object's own `metadata.labels`, or each component pod template of a
DynamoGraphDeployment) names a WorkloadPriorityClass that cannot be resolved (not in the
inputs, `--context`, config `external` or the active profile).

## Why it breaks on a cluster
Kueue does not fall back to the pod PriorityClass, the global default or 0 when the class is
missing: it creates no Workload at all. The job stays suspended and is never admitted, with
no condition on the job explaining why (newer Kueue releases emit a
`WorkloadPriorityClassNotFound` warning event). The label cannot be removed afterwards.

## Bad
```yaml
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata:
  name: high
value: 1000
---
apiVersion: batch/v1
kind: Job
metadata:
  name: train
  namespace: team-a
  labels:
    kueue.x-k8s.io/queue-name: training
    kueue.x-k8s.io/priority-class: high-priority   # no such WorkloadPriorityClass
spec:
  suspend: true
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
kind: WorkloadPriorityClass
metadata:
  name: high
value: 1000
---
apiVersion: batch/v1
kind: Job
metadata:
  name: train
  namespace: team-a
  labels:
    kueue.x-k8s.io/queue-name: training
    kueue.x-k8s.io/priority-class: high
spec:
  suspend: true
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  name: training
  namespace: team-a
spec:
  clusterQueue: gpu
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: gpu
spec:
  namespaceSelector: {}
```

## How to fix
Create the WorkloadPriorityClass or fix the label value. If the classes are managed elsewhere
(a platform profile, another repository), pass them with `--context`, declare them under
`external: {WorkloadPriorityClass: [{name: ..., value: ...}]}` in `.kqlint.yaml`, or select
the platform's `profile`.
"""
from __future__ import annotations

from collections.abc import Iterator

from kqlint.kinds import KUEUE_GROUP
from kqlint.kueue import PRIORITY_LABEL, managed_workloads, resolve_priority_class, resolve_workload_priority_class
from kqlint.model import Finding, Severity
from kqlint.objects import K8sObject
from kqlint.rule import RuleContext, RuleMeta
from kqlint.wording import LOOKED_IN, did_you_mean

META = RuleMeta(code="KQ202", slug="unknown-workload-priority-class", severity=Severity.ERROR,
                summary="a kueue.x-k8s.io/priority-class label names a WorkloadPriorityClass that cannot "
                        "be resolved")


def check(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    for unit in managed_workloads(obj, ctx.graph):
        name = unit.priority_label()
        if name is None or unit.labels_path is None:
            continue
        if resolve_workload_priority_class(name, ctx.graph) is not None \
                or ctx.graph.may_exist("WorkloadPriorityClass", name, group=KUEUE_GROUP):
            continue
        yield ctx.finding(
            at=obj.at_value(*unit.labels_path, PRIORITY_LABEL),
            message=(f"{unit.display()}: `{PRIORITY_LABEL}: {name}` names no WorkloadPriorityClass in "
                     f"{LOOKED_IN}{_hint(name, ctx)}: "
                     "Kueue creates no Workload for it (no fallback to the pod priority), so it stays "
                     f"suspended and is never admitted; create WorkloadPriorityClass `{name}` or fix the label"))


def _hint(name: str, ctx: RuleContext) -> str:
    if resolve_priority_class(name, ctx.graph) is not None:
        return f" (`{name}` is a pod PriorityClass, which this label cannot name)"
    return did_you_mean(name, "WorkloadPriorityClass", ctx.graph, KUEUE_GROUP)
