"""
## What it catches
Pod templates of one workload (PyTorchJob Master/Worker, LeaderWorkerSet leader/worker,
JobSet replicated jobs, RayCluster head/workers, DynamoGraphDeployment components ...)
whose pods get different pod priority values or different effective `preemptionPolicy`.
A template without `priorityClassName` counts as the global default class (or 0).
Differently named classes with the same value and policy behave the same and do not
fire. The first template in the operator's order (Master, Launcher, leader, head, the
first replicated job) is the reference; one finding per template that differs from it,
at its `priorityClassName`, with the reference template as `related`. Templates whose
class cannot be resolved are left to KQ205. For an LLMInferenceService, decode and
prefill are separate workloads and are compared separately.

## Why it breaks on a cluster
kube-scheduler ranks and preempts pods one by one by pod priority. A gang whose parts run
at different priorities can lose only its lower-priority part to preemption (the rest
keeps its GPUs and waits), or get its higher-priority part scheduled ahead of the rest
while the remainder stays Pending. Either way the gang is half-running.

## Bad
```yaml
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: high
value: 1000
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: low
value: 10
---
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: bert
  namespace: ml
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          priorityClassName: high
          containers:
            - name: pytorch
              image: bert:1
    Worker:
      replicas: 4
      template:
        spec:
          priorityClassName: low     # workers can be preempted, the master keeps running
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
```

## How to fix
Use one PriorityClass for every pod template of the workload (for gangs under Kueue, one
shared class with `preemptionPolicy: Never`), and express job ranking with a
WorkloadPriorityClass (`kueue.x-k8s.io/priority-class` label) instead.
"""
from __future__ import annotations

from collections.abc import Iterator

from kqlint.domain import kinds as K
from kqlint.domain import reading
from kqlint.domain.kinds import LLMISVC
from kqlint.domain.kueue import (
    PodPriority,
    describe_pod_priority,
    describe_template,
    ordered_templates,
    resolved_pod_priorities,
)
from kqlint.domain.objects import K8sObject
from kqlint.domain.workloads import PodTemplate, has_pod_templates, own_templates
from kqlint.engine.rule import RuleContext, RuleMeta
from kqlint.model import Finding, Severity

# findings cache: reads own_templates (a TrainJob's from its runtime); pod_priority
META = RuleMeta(code="KQ104", slug="mixed-priority-in-workload", severity=Severity.ERROR,
                summary="pod templates of one workload get different pod priorities or preemption policies",
                reads=reading.RUNTIMES | {K.PRIORITY_CLASS})

LLM_SERVICE = LLMISVC


def check(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    if not has_pod_templates(obj):
        return
    templates = ordered_templates(obj, own_templates(obj, ctx.graph))
    for part in _workload_parts(obj, templates):
        pairs = resolved_pod_priorities(part, ctx.graph)
        if len(pairs) < 2:
            continue
        reference, ref_priority = pairs[0]
        for template, priority in pairs[1:]:
            if _key(priority) != _key(ref_priority):
                yield _finding(template, priority, reference, ref_priority, ctx)


def _key(priority: PodPriority) -> tuple[int | None, str | None]:
    return priority.value, priority.policy


def _workload_parts(obj: K8sObject, templates: list[PodTemplate]) -> list[list[PodTemplate]]:
    """Templates that form one workload. KServe runs an LLMInferenceService's decode and
    prefill as separate Deployments/LeaderWorkerSets (shared/reference/workloads.md 6)."""
    if (obj.group, obj.kind) != LLM_SERVICE:
        return [templates]
    prefill = [t for t in templates if t.role.startswith("prefill.")]
    return [[t for t in templates if t not in prefill], prefill]


def _finding(template: PodTemplate, priority: PodPriority, reference: PodTemplate,
             ref_priority: PodPriority, ctx: RuleContext) -> Finding:
    message = (f"{template.owner.display()} {template.role} runs at {describe_pod_priority(priority)}, unlike "
               f"{reference.role}: kube-scheduler can preempt or place part of the gang apart from the rest")
    related = [(reference.at("priorityClassName"), f"{describe_template(reference)}: "
                f"{describe_pod_priority(ref_priority)}")]
    return ctx.finding(at=template.at("priorityClassName"), message=message, related=related,
                       remedy="Use one PriorityClass for every pod template of the workload")
