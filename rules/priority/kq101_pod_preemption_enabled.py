"""
## What it catches
A pod template of a Kueue-managed multi-pod workload (more than one pod in total) that
names a PriorityClass whose effective `preemptionPolicy` is `PreemptLowerPriority` (the
default when the class leaves it unset; the built-in `system-*` classes too). One
finding per template, at its `priorityClassName`; `related` is the class. Templates
without a class are KQ102's; classes that cannot be resolved are KQ205's. A
TrainingRuntime's templates are judged once, on the runtime, when a Kueue-managed
multi-pod TrainJob uses it.

## Why it breaks on a cluster
Kueue admits and preempts whole workloads; kube-scheduler preempts single pods. Pods of a
preempting class can make kube-scheduler evict single pods of other, already admitted
gangs to place themselves: those gangs keep their remaining workers idle on GPUs, waiting
for a peer that will not come back, while Kueue still counts them as running.

## Bad
```yaml
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: training-high
value: 1000                  # preemptionPolicy unset: PreemptLowerPriority
---
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: bert
  namespace: ml
  labels:
    kueue.x-k8s.io/queue-name: training
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          priorityClassName: training-high
          containers:
            - name: pytorch
              image: bert:1
    Worker:
      replicas: 4
      template:
        spec:
          priorityClassName: training-high
          containers:
            - name: pytorch
              image: bert:1
```

## Good
```yaml
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: gang-pods
value: 0
preemptionPolicy: Never
---
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: bert
  namespace: ml
  labels:
    kueue.x-k8s.io/queue-name: training
    kueue.x-k8s.io/priority-class: high     # rank the job with a WorkloadPriorityClass
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          priorityClassName: gang-pods
          containers:
            - name: pytorch
              image: bert:1
    Worker:
      replicas: 4
      template:
        spec:
          priorityClassName: gang-pods
          containers:
            - name: pytorch
              image: bert:1
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  name: training
  namespace: ml
spec:
  clusterQueue: gpu
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: gpu
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
Give all gang pods one shared PriorityClass with `preemptionPolicy: Never` (a new class:
the policy of an existing class cannot be changed) and rank jobs with a
WorkloadPriorityClass (`kueue.x-k8s.io/priority-class` label), which Kueue uses to
preempt whole workloads. Note that `Never` only stops these pods from preempting; it does
not protect them from being preempted (see KQ107).
"""
from __future__ import annotations

from collections.abc import Iterator

from kqlint.domain import kinds as K
from kqlint.domain import reading
from kqlint.domain.kueue import (
    MANAGED,
    class_location,
    describe_pod_priority,
    describe_template,
    is_multi_pod,
    managed_templates,
    pod_priority,
)
from kqlint.domain.objects import K8sObject
from kqlint.engine.rule import RuleContext, RuleMeta
from kqlint.model import Finding, Severity
from kqlint.rules.priority._shared_class import SHARED_CLASS_REMEDY, use_class_fix

# findings cache: reads managed_workloads (queue label or a LocalQueue `default`, a runtime's TrainJobs); pod_priority
# and the fix's shared non-preempting class; is_multi_pod
META = RuleMeta(code="KQ101", slug="pod-preemption-enabled", severity=Severity.ERROR,
                summary="gang pods of a Kueue-managed workload use a preempting PriorityClass",
                kinds=MANAGED, fix="unsafe",
                reads=reading.ROUTING | {K.TRAINJOB, K.PRIORITY_CLASS})


def check(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    for template, unit in managed_templates(obj, ctx.graph):
        priority = pod_priority(template, ctx.graph)
        if priority.source != "named" or not priority.can_preempt or priority.class_obj is None:
            continue
        if not is_multi_pod(unit.obj, ctx.graph):
            continue
        pc = priority.class_obj
        message = (f"{describe_template(template, unit)}: {describe_pod_priority(priority)} lets kube-scheduler "
                   "evict single pods of other Kueue gangs, idling the rest")
        # the built-in system classes have no manifest to point at
        related = [(class_location(pc, "preemptionPolicy"), f"PriorityClass {pc.name}")] if pc.root else []
        yield ctx.finding(at=template.at("priorityClassName"), message=message, related=related,
                          fix=use_class_fix(obj, template, ctx.graph), remedy=SHARED_CLASS_REMEDY)
