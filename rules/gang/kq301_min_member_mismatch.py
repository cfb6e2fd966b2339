"""
## What it catches
A gang whose declared minimum differs from the number of pods that will actually join it:

- a Volcano (`scheduling.volcano.sh`), KAI (`scheduling.run.ai`) or coscheduling
  (scheduler-plugins, `scheduling.x-k8s.io`) PodGroup whose `minMember` differs from the total
  pods of the workload templates that name it in the same namespace (the annotation
  `scheduling.k8s.io/group-name` for Volcano, `pod-group-name` for KAI, the label
  `scheduling.x-k8s.io/pod-group` for coscheduling); PodGroups and workloads wrapped in an
  AppWrapper (`spec.components[].template`) count like written ones; a PodGroup no template
  joins is left alone (operators create those);
- `kai.scheduler/batch-min-member` on a Job (or a CronJob's `jobTemplate`, or a JobSet
  replicatedJob's Job template) versus the pods that Job runs at once;
- a Volcano Job's `spec.minAvailable` versus the sum of its task replicas, and a task's
  `minAvailable` versus that task's `replicas`;
- a Kubeflow job's `runPolicy.schedulingPolicy.minAvailable` versus the sum of its replicas.

A minimum above the pod count is an error; a minimum below it is a warning.

## Why it breaks on a cluster
The gang scheduler binds nothing until `minMember` pods of the group can be placed at once.
When fewer pods than that exist, the group waits forever and its GPUs stay reserved for
nobody (Volcano's webhook even refuses such a Volcano Job). When the minimum is lower than
the pod count, the scheduler starts the gang as soon as that many fit: the first workers
hold GPUs and wait in collective setup for peers that are still Pending.

## Bad
```yaml
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata:
  name: train-gang
  namespace: ml
spec:
  minMember: 5
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: train
  namespace: ml
spec:
  replicas: 4
  selector: {matchLabels: {app: train}}
  template:
    metadata:
      labels: {app: train}
      annotations:
        scheduling.k8s.io/group-name: train-gang
    spec:
      schedulerName: volcano
      containers:
      - name: trainer
        image: trainer:1.0
```

## Good
```yaml
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata:
  name: train-gang
  namespace: ml
spec:
  minMember: 4
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: train
  namespace: ml
spec:
  replicas: 4
  selector: {matchLabels: {app: train}}
  template:
    metadata:
      labels: {app: train}
      annotations:
        scheduling.k8s.io/group-name: train-gang
    spec:
      schedulerName: volcano
      containers:
      - name: trainer
        image: trainer:1.0
```

## How to fix
Set the minimum to the number of pods that must start together: the sum of the replicas
(Job: parallelism, lowered to completions) of every template that joins the gang. If only
part of the workload must start together (elastic training), lower the replicas instead or
make that explicit with an elastic policy. `kqlint check --fix --unsafe-fixes` sets the
minimum to the pod count (unsafe: the gang then waits for a different number of pods).
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from typing import Any

from kqlint.domain import reading
from kqlint.domain.fields import integer_or_digits
from kqlint.domain.graph import ObjectGraph
from kqlint.domain.objects import K8sObject
from kqlint.domain.wording import role_suffix
from kqlint.domain.workloads import (
    KUBEFLOW_MIN_AVAILABLE_PATH,
    POD_GROUP_MIN_MEMBER_PATH,
    SCHEDULER_TITLES,
    VOLCANO_JOB,
    VOLCANO_JOB_MIN_AVAILABLE_PATH,
    PodGroupRef,
    PodTemplate,
    as_count,
    batch_min_member_sites,
    is_kubeflow_job,
    is_pod_group,
    is_workload,
    pod_group_refs,
    pod_templates,
    total_pods,
    volcano_tasks,
    wrapped_objects,
)
from kqlint.engine.rule import RuleContext, RuleMeta
from kqlint.fix.model import Edit, Fix
from kqlint.model import Finding, Severity

# findings cache: reads graph rule: the PodGroups (also wrapped in AppWrappers) and every workload's templates that
# join one
META = RuleMeta(code="KQ301", slug="min-member-mismatch", severity=Severity.ERROR,
                summary="a gang's declared minimum differs from the pods that join it",
                scope="graph", fix="unsafe",
                reads=reading.TEMPLATES | reading.POD_GROUPS)

_REJECTED = "Volcano's admission webhook rejects the Job, and the gang could never fill anyway"
Members = dict[tuple[str, str | None, str], list[tuple[PodTemplate, PodGroupRef]]]


def check_graph(graph: ObjectGraph, ctx: RuleContext) -> Iterator[Finding]:
    members: Members | None = None  # every workload's templates: read only for an input PodGroup
    for obj in graph.inputs:
        for group in [obj] if is_pod_group(obj) else [o for o in wrapped_objects(obj) if is_pod_group(o)]:
            members = _pod_group_members(graph) if members is None else members
            joined = members.get((group.group, group.namespace, group.name), [])
            yield from _pod_group(group, joined, ctx, fixable=group is obj)  # fixes edit top-level objects only
        if is_pod_group(obj):
            continue
        elif (obj.group, obj.kind) == VOLCANO_JOB:
            yield from _volcano_job(obj, ctx)
        elif is_kubeflow_job(obj):
            yield from _kubeflow(obj, ctx)
        else:
            yield from _batch_min_member(obj, ctx)


def _pod_group_members(graph: ObjectGraph) -> Members:
    """Templates joining each PodGroup, keyed by (API group, namespace, name); each workload
    counted once (the first tier that defines it)."""
    members: Members = defaultdict(list)
    seen: set[tuple[str, str, str | None, str]] = set()
    for obj in graph.objects:
        if obj.key in seen or not is_workload(obj):
            continue
        seen.add(obj.key)
        for tpl in pod_templates(obj, graph):
            for ref in pod_group_refs(tpl):
                members[(ref.group, tpl.workload.namespace, ref.name)].append((tpl, ref))
    return members


def _compare(ctx: RuleContext, at: Any, what: str, declared: int, pods: int, detail: str,
             fix: str, related: list[Any] | None = None,
             never: str = "the gang can never be scheduled", as_text: bool = False,
             fixable: bool = True) -> Iterator[Finding]:
    # unsafe: the gang then waits for (or starts with) a different number of pods
    if declared < 0:
        return  # the schema's minimum rejects it (KQ002): the gang's size means nothing yet
    remedy = fix[0].upper() + fix[1:]
    change = Fix.unsafe(remedy, Edit.replace(at.path, str(pods) if as_text else pods)) if fixable else None
    if declared > pods:
        yield ctx.finding(at, f"{what} {declared} > {pods} pods{detail}: {never}",
                          related=related or [], fix=change, remedy=remedy)
    elif declared < pods:
        yield ctx.finding(at, f"{what} {declared} < {pods} pods{detail}: the gang starts once {declared} "
                              "fit, and started pods hold their GPUs/CPUs while the rest wait Pending",
                          related=related or [], severity=Severity.WARNING, fix=change, remedy=remedy)


def _pod_group(group: K8sObject, joined: list[tuple[PodTemplate, PodGroupRef]],
               ctx: RuleContext, fixable: bool) -> Iterator[Finding]:
    declared = integer_or_digits(group.get(*POD_GROUP_MIN_MEMBER_PATH))
    if declared is None or not joined:
        return
    templates = [t for t, _ in joined]
    pods = sum(t.pods for t in templates)
    parts = " + ".join(f"{t.workload.kind} {t.workload.name}{role_suffix(t)} {t.pods}" for t in templates)
    related = [(t.at_meta(ref.where), f"{t.describe()} puts {t.pods} pod(s) into this PodGroup")
               for t, ref in joined]
    scheduler = SCHEDULER_TITLES[joined[0][1].family]
    yield from _compare(ctx, group.at(*POD_GROUP_MIN_MEMBER_PATH), f"{scheduler} {group.display()}: minMember",
                        declared, pods, f" that join it ({parts})", f"set minMember: {pods}", related,
                        fixable=fixable)


def _volcano_job(job: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    tasks = volcano_tasks(job)
    declared = integer_or_digits(job.get(*VOLCANO_JOB_MIN_AVAILABLE_PATH))  # 0 means unset: the webhook defaults it
    pods = total_pods(job)
    staged = any(task.get("dependsOn") for _, task in tasks)  # later tasks start after earlier ones
    if declared and not (staged and declared < pods):
        yield from _compare(ctx, job.at(*VOLCANO_JOB_MIN_AVAILABLE_PATH),
                            f"Volcano {job.display()}: minAvailable", declared, pods,
                            " in its tasks", f"set minAvailable: {pods}", never=_REJECTED)
    for index, task in tasks:
        minimum = integer_or_digits(task.get("minAvailable"))
        if minimum is not None:
            replicas = as_count(task.get("replicas"), 0)
            yield from _compare(ctx, job.at("spec", "tasks", index, "minAvailable"),
                                f"Volcano {job.display()} task {task.get('name') or index}: minAvailable",
                                minimum, replicas, " in the task", f"set minAvailable: {replicas}",
                                never=_REJECTED)


def _kubeflow(job: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    declared = integer_or_digits(job.get(*KUBEFLOW_MIN_AVAILABLE_PATH))
    templates = pod_templates(job) if declared is not None else []  # one per replica spec: its replicas
    if declared is None or not templates:
        return
    pods = sum(t.pods for t in templates)
    if declared < pods and isinstance(job.get("spec", "elasticPolicy"), dict):
        return  # elastic training starts with fewer workers on purpose
    parts = " + ".join(f"{t.role} {t.pods}" for t in templates)
    yield from _compare(ctx, job.at(*KUBEFLOW_MIN_AVAILABLE_PATH),
                        f"{job.display()}: schedulingPolicy.minAvailable", declared, pods,
                        f" in its replicas ({parts})", f"set minAvailable: {pods}")


def _batch_min_member(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    for site in batch_min_member_sites(obj):
        declared = integer_or_digits(site.value)
        if declared is not None:
            yield from _compare(ctx, obj.at(*site.path),
                                f"{obj.display()}{site.job}: kai.scheduler/batch-min-member",
                                declared, site.pods, " the Job runs at once (parallelism, capped by completions)",
                                f'set the annotation to "{site.pods}"', as_text=True)
