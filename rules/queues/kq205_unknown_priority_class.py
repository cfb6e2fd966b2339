"""
## What it catches
A pod template's `priorityClassName`, or a PodGroup's `spec.priorityClassName`, that names a
PriorityClass that cannot be resolved (not in the inputs, `--context`, config `external` or
the active profile; `system-node-critical` and `system-cluster-critical` are built in). One
finding per pod template written in the manifest.

## Why it breaks on a cluster
The Priority admission plugin rejects every pod whose class does not exist
(`no PriorityClass with name <x> was found`). A Job or Deployment is accepted, but its
controller never manages to create a pod. Under Kueue, a workload without a
`kueue.x-k8s.io/priority-class` label takes its priority from this class, so the lookup
fails and no Workload is created: the job stays suspended. A gang scheduler cannot look
up the priority of a PodGroup that names a missing class (KAI then treats the gang as
preemptible).

## Bad
```yaml
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: gang-no-preempt
value: 1000
preemptionPolicy: Never
---
apiVersion: batch/v1
kind: Job
metadata:
  name: train
  namespace: team-a
spec:
  template:
    spec:
      priorityClassName: gang-nopreempt   # typo: no such PriorityClass
      restartPolicy: Never
      containers:
      - name: main
        image: busybox
```

## Good
```yaml
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: gang-no-preempt
value: 1000
preemptionPolicy: Never
---
apiVersion: batch/v1
kind: Job
metadata:
  name: train
  namespace: team-a
spec:
  template:
    spec:
      priorityClassName: gang-no-preempt
      restartPolicy: Never
      containers:
      - name: main
        image: busybox
---
apiVersion: v1
kind: Pod
metadata:
  name: agent
  namespace: kube-system
spec:
  priorityClassName: system-node-critical   # built in
  containers:
  - name: agent
    image: busybox
```

## How to fix
Create the PriorityClass or fix the name. If your platform installs the class, pass its
manifest with `--context` or declare it under `external: {PriorityClass: [{name: ...,
value: ...}]}` in `.kqlint.yaml`.
"""
from __future__ import annotations

from typing import Iterator

from kqlint.graph import ObjectGraph
from kqlint.model import Finding, Location, Severity
from kqlint.objects import K8sObject
from kqlint.rule import RuleContext, RuleMeta
from kqlint.rules.queues._refs import LOOKED_IN, did_you_mean, template_text
from kqlint.workloads import own_templates

META = RuleMeta(code="KQ205", slug="unknown-priority-class", severity=Severity.ERROR,
                summary="a pod template's or PodGroup's priorityClassName names a PriorityClass that "
                        "cannot be resolved")

PRIORITY_GROUP = "scheduling.k8s.io"


def check(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    if obj.kind == "PodGroup":
        name = obj.get("spec", "priorityClassName")
        if _unknown(name, ctx.graph):
            yield _finding(ctx, obj.at_value("spec", "priorityClassName"), f"{obj.display()}", str(name),
                           "the gang scheduler cannot look up the group's priority (KAI then treats the whole "
                           "gang as preemptible)")
        return
    for template in own_templates(obj, ctx.graph):
        name = template.spec.get("priorityClassName")
        if _unknown(name, ctx.graph):
            yield _finding(ctx, obj.at_value(*template.spec_path, "priorityClassName"),
                           f"{obj.display()} {template_text(template)}", str(name),
                           "the API server rejects its pods at creation (\"no PriorityClass with name "
                           f"{name} was found\") and Kueue cannot compute the workload's priority")


def _unknown(name: object, graph: ObjectGraph) -> bool:
    return (isinstance(name, str) and bool(name)
            and graph.resolve("PriorityClass", name, group=PRIORITY_GROUP) is None
            and not graph.may_exist("PriorityClass", name, group=PRIORITY_GROUP))


def _finding(ctx: RuleContext, at: Location, where: str, name: str, effect: str) -> Finding:
    return ctx.finding(
        at=at,
        message=(f"{where}: priorityClassName `{name}` names no PriorityClass in {LOOKED_IN}"
                 f"{did_you_mean(name, 'PriorityClass', ctx.graph, PRIORITY_GROUP)}: {effect}; "
                 f"create PriorityClass `{name}` or fix the name"))
