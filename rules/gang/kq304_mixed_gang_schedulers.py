"""
## What it catches
One workload whose pod templates go to different schedulers (Master and Worker, leader and
workers, driver and replicated jobs, a runtime's steps), or that carries markers of both
Volcano and KAI: a Volcano scheduler name or key (`scheduling.k8s.io/group-name`,
`scheduling.volcano.sh/queue-name`, `scheduling.volcano.sh/group-min-member`, ...) next to a
KAI scheduler name or key (`kai.scheduler/queue`, `pod-group-name`,
`kai.scheduler/batch-min-member`, ...). An unset `schedulerName` is `default-scheduler`,
except where the operator fills it in (Kubeflow jobs, Ray, DynamoGraphDeployment: ignored;
a Volcano Job: its `spec.schedulerName`, default `volcano`). training-operator never fills in
KAI, so a Kubeflow template without `schedulerName` next to one sent to KAI is mixed.
LLMInferenceService scheduler names belong to KQ305: KQ304 neither compares them nor counts
them as markers (an LLMInferenceService with both Volcano and KAI labels or annotations is
still mixed).

## Why it breaks on a cluster
A gang is formed by one scheduler. Pods sent elsewhere never join it: the gang scheduler
waits for members that another scheduler places (or never sees), so the job never starts or
starts without its coordinator. Markers of the other scheduler are silently ignored, so the
queue, group or minimum you configured for it never applies.

## Bad
```yaml
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: train
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          schedulerName: volcano
          containers: [{name: pytorch, image: torch}]
    Worker:
      replicas: 4
      template:
        spec:
          schedulerName: kai-scheduler
          containers: [{name: pytorch, image: torch}]
```

## Good
```yaml
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: train
  labels:
    kai.scheduler/queue: team-a
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          schedulerName: kai-scheduler
          containers: [{name: pytorch, image: torch}]
    Worker:
      replicas: 4
      template:
        spec:
          schedulerName: kai-scheduler
          containers: [{name: pytorch, image: torch}]
```

## How to fix
Pick one scheduler per workload: set the same `schedulerName` in every pod template and keep
only that scheduler's labels and annotations.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from kqlint.domain import reading
from kqlint.domain.kinds import LLMISVC
from kqlint.domain.objects import K8sObject
from kqlint.domain.workloads import (
    COSCHEDULING_SCHEDULER_NAMES,
    KAI_SCHEDULER_NAMES,
    VOLCANO_SCHEDULER_NAMES,
    PodTemplate,
    effective_scheduler_name,
    gang_markers,
    has_pod_templates,
    is_kubeflow_job,
    own_templates,
)
from kqlint.engine.rule import RuleContext, RuleMeta
from kqlint.model import Finding, Severity
from kqlint.rules.gang._scheduler_names import SCHEDULER_SETUP_READS, typo_targets

# findings cache: reads gang_markers (the object's own markers and its templates': TrainJob runtimes) and, through
# typo_targets, the objects that set up scheduler names (a typo of one is KQ308's, not compared here)
META = RuleMeta(code="KQ304", slug="mixed-gang-schedulers", severity=Severity.ERROR,
                summary="one workload's pods go to different schedulers or carry Volcano and KAI markers",
                reads=reading.RUNTIMES | SCHEDULER_SETUP_READS)


@dataclass(frozen=True)
class Options:
    volcano_scheduler_names: tuple[str, ...] = VOLCANO_SCHEDULER_NAMES
    kai_scheduler_names: tuple[str, ...] = KAI_SCHEDULER_NAMES


_NAMES = {"volcano": "Volcano", "kai": "KAI"}


def check(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    if not has_pod_templates(obj):
        return
    mixed = None if LLMISVC.of(obj) else _mixed_names(obj, ctx)
    if mixed is not None:
        yield mixed
        return
    yield from _mixed_markers(obj, ctx)


def _mixed_names(obj: K8sObject, ctx: RuleContext) -> Finding | None:
    templates = own_templates(obj)
    names = (*ctx.options.volcano_scheduler_names, *ctx.options.kai_scheduler_names, *COSCHEDULING_SCHEDULER_NAMES)
    known = [(t, name) for t in templates  # a typo of a known name is KQ308's
             if (name := effective_scheduler_name(t)) is not None and not typo_targets(name, ctx.graph, names)]
    first, first_name = known[0] if known else (None, "")
    for tpl, name in known[1:]:
        if name != first_name and first is not None:
            return _report(obj, tpl, name, first, first_name, "", ctx)
    if first is not None and is_kubeflow_job(obj) and first_name in ctx.options.kai_scheduler_names:
        unset = [t for t in templates if effective_scheduler_name(t) is None]
        if unset:
            return _report(obj, unset[0], "no schedulerName", first, first_name,
                           " (training-operator never fills in KAI)", ctx)
    return None


def _report(obj: K8sObject, tpl: PodTemplate, name: str, first: PodTemplate, first_name: str,
            why: str, ctx: RuleContext) -> Finding:
    return ctx.finding(
        tpl.at("schedulerName"),
        f"{obj.display()}: template {tpl.role} goes to {name} but template {first.role} to "
        f"{first_name}{why}: one scheduler forms a gang, so the workload waits or starts partially",
        related=[(first.at("schedulerName"), f"template {first.role}: {first_name}")],
        remedy=f"Use schedulerName: {first_name} in every template")


def _mixed_markers(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    options: Options = ctx.options
    markers = gang_markers(obj, ctx.graph, options.volcano_scheduler_names, options.kai_scheduler_names)
    if LLMISVC.of(obj):  # KQ305 owns its scheduler names (rules.md: a more specific rule wins)
        markers = [m for m in markers if not m.is_scheduler_name]
    if len({m.family for m in markers}) < 2 or not any(m.in_object for m in markers):
        return
    named = [m for m in markers if m.is_scheduler_name]
    primary = (named or markers)[0].family
    others = [m for m in markers if m.family != primary]
    at = next((m for m in others if m.in_object), None) or next(m for m in markers if m.in_object)
    yield ctx.finding(
        at.at,
        f"{obj.display()}: carries both {_NAMES[primary]} and {_NAMES[others[0].family]} markers ({at.what} "
        "among them): one scheduler gets the pods and silently ignores the other's queue, group and "
        "minimum settings",
        related=[(m.at, m.what) for m in markers if m is not at][:6],
        remedy="Keep one scheduler's schedulerName, labels and annotations")


