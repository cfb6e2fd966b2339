"""
## What it catches
A pod template's (or bare Pod's) `priorityClassName`, or a PodGroup's `spec.priorityClassName`,
that names a PriorityClass that cannot be resolved: not in the inputs, `--context`, config
`external` or the active profile, and not one the platform model knows is installed
(`system-node-critical` and `system-cluster-critical` everywhere; KAI Scheduler's `train`,
`build-preemptible`, `build` and `inference` for pods on `kai-scheduler` and KAI PodGroups, or
everywhere when the platform model says KAI is installed). A typo of a built-in name is still
reported, with a "did you mean". One finding per pod template written in the manifest. The
message says "pod" for a bare Pod and mentions Kueue only when Kueue manages the object.

An envsubst placeholder in the written name or in an object's name (`user-queue-${TOPOLOGY}`,
`$QUEUE`, `${QUEUE:-x}`) stands for any non-empty name: a reference it can render to is
not reported (nor resolved: which object it is would be a guess).

In the files of a chainsaw or kuttl test, which the harness applies into a namespace it
creates beside objects only the system under test makes (an operator's LocalQueue made from
its CR), no name is reported unknown; their assert and error files are never objects.

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
When exactly one known name is a slip away (the one "did you mean"), `kqlint check --fix
--unsafe-fixes` writes it in place of the reference; unsafe, since the workload then uses
another object than the one written.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator

from kqlint.domain import kinds as K
from kqlint.domain import reading
from kqlint.domain.graph import ObjectGraph
from kqlint.domain.kinds import POD
from kqlint.domain.kueue import is_kueue_managed, trainjobs_using
from kqlint.domain.objects import K8sObject
from kqlint.domain.platform import INSTALLED_PRIORITY_CLASSES, platform_of
from kqlint.domain.refs import POD_GROUP_PRIORITY_REF, TEMPLATE_PRIORITY_REF, Reference, references, unresolved
from kqlint.domain.wording import LOOKED_IN, template_text
from kqlint.domain.workloads import KAI_PODGROUP, KAI_SCHEDULER_NAMES, PodTemplate
from kqlint.engine.rule import RuleContext, RuleMeta
from kqlint.model import Finding, Severity
from kqlint.rules.queues._rename import rename_fix

# findings cache: reads own_templates: their PriorityClass (close names, the global default); a PodGroup's;
# managed_workloads
META = RuleMeta(code="KQ205", slug="unknown-priority-class", severity=Severity.ERROR,
                summary="a pod template's or PodGroup's priorityClassName names a PriorityClass that "
                        "cannot be resolved",
                reads=reading.ROUTING | {K.TRAINJOB, K.PRIORITY_CLASS}, fix="unsafe")

KAI_CLASSES = tuple(INSTALLED_PRIORITY_CLASSES["kai"])


def check(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    if obj.kind == "PodGroup":
        installed = _installed(ctx.graph, on_kai=obj.group == KAI_PODGROUP[0])
        for ref in references(obj, ctx.graph, [POD_GROUP_PRIORITY_REF]):
            if _unknown(ref, ctx.graph, installed):
                yield _finding(ctx, ref, f"{obj.display()}",
                               "the gang scheduler cannot look up the group's priority (KAI then treats the whole "
                               "gang as preemptible)", installed)
        return
    managed = _kueue_manages(obj, ctx.graph)
    for ref in references(obj, ctx.graph, [TEMPLATE_PRIORITY_REF]):
        template = ref.site.template
        if template is None or ref.site.implied:
            continue  # the global default class: nothing is written
        installed = _installed(ctx.graph, on_kai=template.scheduler_name in KAI_SCHEDULER_NAMES)
        if _unknown(ref, ctx.graph, installed):
            yield _finding(ctx, ref, f"{obj.display()}{_where(obj, template)}", _effect(obj, ref.name, managed),
                           installed)


def _installed(graph: ObjectGraph, on_kai: bool) -> tuple[str, ...]:
    """PriorityClasses the platform model knows are installed for these pods: KAI's own
    classes for pods on a KAI scheduler (or wherever the model says KAI is installed)."""
    return KAI_CLASSES if on_kai or "kai" in platform_of(graph).gang_schedulers else ()


def _kueue_manages(obj: K8sObject, graph: ObjectGraph) -> bool:
    """Kueue manages the object (or, for a TrainingRuntime, a TrainJob that runs it)."""
    return is_kueue_managed(obj, graph) or any(is_kueue_managed(tj, graph) for tj in trainjobs_using(obj, graph))


def _where(obj: K8sObject, template: PodTemplate) -> str:
    """`` pod template Worker``; nothing for a bare Pod (the object is the pod)."""
    return "" if POD.of(obj) else f" {template_text(template)}"


def _effect(obj: K8sObject, name: str, managed: bool) -> str:
    if POD.of(obj):
        text = "the API server rejects the pod at creation"
    else:
        text = "the API server rejects its pods at creation"
    return text + (" and Kueue cannot compute the workload's priority" if managed else "")


def _unknown(ref: Reference, graph: ObjectGraph, installed: Iterable[str]) -> bool:
    return ref.name not in installed and ref.target is None and not ref.may_exist(graph)


def _finding(ctx: RuleContext, ref: Reference, where: str, effect: str, installed: tuple[str, ...]) -> Finding:
    looked_in = LOOKED_IN + (", or KAI's built-in classes" if installed else "")
    found = unresolved(ref, ctx.graph, where, effect, f"create PriorityClass `{ref.name}` or fix the name",
                       extra=installed, looked_in=looked_in)
    return ctx.finding(at=ref.at, message=found.message, remedy=found.remedy, fix=rename_fix(ref, found.rename))
