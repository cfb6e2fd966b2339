"""
## What it catches
A pod template of a Kueue-managed workload that sets no `priorityClassName` while a
PriorityClass with `globalDefault: true` and effective `preemptionPolicy:
PreemptLowerPriority` (the default when unset) exists. With several defaults, the one
pods actually get (the lowest value) is judged. One finding per template, at the pod
spec (where `priorityClassName` belongs); `related` is the default class. A
TrainingRuntime's templates are judged once, on the runtime, when a Kueue-managed
TrainJob uses it.

## Why it breaks on a cluster
The Priority admission plugin gives every pod without a class the global default's
value and preemption policy. Those pods silently become preemptors: kube-scheduler may
evict single pods of other, already admitted gangs to place them, leaving the rest of
those gangs idle on their GPUs, behind Kueue's back. Kueue ranks the workloads itself;
pod-level preemption only fights it.

## Bad
```yaml
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: cluster-default
value: 1000
globalDefault: true          # preemptionPolicy unset: PreemptLowerPriority
---
apiVersion: batch/v1
kind: Job
metadata:
  name: train
  namespace: ml
  labels:
    kueue.x-k8s.io/queue-name: training
spec:
  parallelism: 4
  template:
    spec:                    # no priorityClassName: inherits cluster-default
      restartPolicy: Never
      containers:
        - name: main
          image: trainer:1.0
```

## Good
```yaml
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: cluster-default
value: 1000
globalDefault: true
preemptionPolicy: Never
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: gang-pods
value: 0
preemptionPolicy: Never
---
apiVersion: batch/v1
kind: Job
metadata:
  name: train
  namespace: ml
  labels:
    kueue.x-k8s.io/queue-name: training
spec:
  parallelism: 4
  template:
    spec:
      priorityClassName: gang-pods   # explicit, non-preempting class
      restartPolicy: Never
      containers:
        - name: main
          image: trainer:1.0
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
```

## How to fix
Set `priorityClassName` on every pod template of Kueue-managed workloads to one shared
class with `preemptionPolicy: Never`, and rank workloads with a WorkloadPriorityClass
(`kueue.x-k8s.io/priority-class` label). Alternatively give the global default
`preemptionPolicy: Never` (a new class: the policy cannot be changed in place).
"""
from __future__ import annotations

from collections.abc import Iterator

from kqlint.domain import kinds as K
from kqlint.domain import reading
from kqlint.domain.kueue import (
    MANAGED,
    PREEMPT_LOWER,
    class_location,
    class_value,
    defaulted_route,
    describe_template,
    effective_preemption_policy,
    global_default_class,
    managed_templates,
)
from kqlint.domain.objects import K8sObject
from kqlint.engine.rule import RuleContext, RuleMeta
from kqlint.model import Finding, Severity
from kqlint.rules.priority._shared_class import use_class_fix

# findings cache: reads managed_workloads; global_default_class; pod_priority
META = RuleMeta(code="KQ102", slug="global-default-leak", severity=Severity.ERROR,
                summary="a Kueue-managed pod template without a class inherits a preempting global default",
                kinds=MANAGED, fix="unsafe",
                reads=reading.ROUTING | {K.TRAINJOB, K.PRIORITY_CLASS})


def check(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    default = global_default_class(ctx.graph)
    if default is None or effective_preemption_policy(default) != PREEMPT_LOWER:
        return
    for template, unit in managed_templates(obj, ctx.graph):
        if template.priority_class_name is not None:
            continue
        message = (f"{describe_template(template, unit)} has no priorityClassName: the global default "
                   f"{default.name} ({class_value(default)}, PreemptLowerPriority) lets kube-scheduler evict "
                   "other gangs' pods")
        related = [(class_location(default, "globalDefault"), f"global default PriorityClass {default.name}"),
                   *defaulted_route([unit], ctx.graph)]
        yield ctx.finding(at=template.at("priorityClassName"), message=message, related=related,
                          fix=use_class_fix(obj, template, ctx.graph),
                          remedy=("Set priorityClassName to a shared class with preemptionPolicy: Never and "
                                  "rank workloads with a WorkloadPriorityClass"))
