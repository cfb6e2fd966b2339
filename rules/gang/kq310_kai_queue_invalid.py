"""
## What it catches
A workload whose pods go to KAI Scheduler (a pod template's `schedulerName` is in
`kai-scheduler-names`, default `kai-scheduler`) and whose queue KAI cannot use:
- (a) the `kai.scheduler/queue` label names a Queue that has child Queues: only leaf queues
  are scheduled;
- (b) the label names no Queue kqlint knows (and not KAI's own `default-queue` or
  `default-parent-queue`), when the inputs, context, `external` objects or profile hold KAI
  Queues (`scheduling.run.ai/v2`);
- (c) the legacy label `runai/queue` without `kai.scheduler/queue`;
- (d) `kai.scheduler/queue` written as an annotation instead of a label.
The label is read on the workload, then on its pod template (KAI's pod grouper,
`default_grouper.go`). Under the `kakaocloud` profile KQ503 owns the label's value: there only
(c) and (d) are reported.

In the files of a chainsaw or kuttl test, which the harness applies beside objects only the
system under test makes, no queue is reported unknown.

## Why it breaks on a cluster
KAI skips jobs of non-leaf queues (`input_jobs.go`), so they stay Pending; a queue that does not
exist leaves the PodGroup unschedulable; since v0.6.0 KAI no longer reads `runai/queue`, and the
pod grouper reads labels only, so both land in the default queue instead of the one meant.

## Bad
```yaml
apiVersion: batch/v1
kind: Job
metadata:
  name: finetune
  annotations:
    kai.scheduler/queue: research-nlp
spec:
  template:
    spec:
      schedulerName: kai-scheduler
      restartPolicy: Never
      containers:
      - name: main
        image: trainer:1.0
```

## Good
```yaml
apiVersion: batch/v1
kind: Job
metadata:
  name: finetune
  labels:
    kai.scheduler/queue: research-nlp
spec:
  template:
    spec:
      schedulerName: kai-scheduler
      restartPolicy: Never
      containers:
      - name: main
        image: trainer:1.0
```

## How to fix
Send the workload to a leaf queue that exists (or declare the Queue under `external:` in
`.kqlint.yaml` if it exists on the cluster), and write the queue as the label
`kai.scheduler/queue` (`kqlint check --fix` renames `runai/queue` and moves the annotation).
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from kqlint.domain.kinds import KAI_QUEUE
from kqlint.domain.objects import K8sObject
from kqlint.domain.workloads import KAI_SCHEDULER_NAMES, is_workload, own_templates
from kqlint.engine.rule import RuleContext, RuleMeta, Run
from kqlint.fix.model import Edit, Fix
from kqlint.model import Finding, Severity
from kqlint.rules.gang._queues import child_queue_notes, children_of, queues_by_name
from kqlint.spelling import suggest

META = RuleMeta(code="KQ310", slug="kai-queue-invalid", severity=Severity.ERROR,
                summary="a workload sent to KAI names a parent or unknown queue, or writes its queue "
                        "where KAI does not read it", fix="safe")
QUEUE_LABEL, LEGACY_LABEL = "kai.scheduler/queue", "runai/queue"
BUILT_IN_QUEUES = ("default-queue", "default-parent-queue")  # KAI's Helm chart creates them


@dataclass(frozen=True)
class Options:
    kai_scheduler_names: tuple[str, ...] = KAI_SCHEDULER_NAMES


def prepare(run: Run) -> bool:
    """Whether the label's value is judged here: under kakaocloud KQ503 owns it."""
    return run.config.profile != "kakaocloud"


def check(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    if not is_workload(obj):
        return
    templates = [t for t in own_templates(obj) if t.scheduler_name in ctx.options.kai_scheduler_names]
    if not templates:
        return
    places = [(("metadata",), obj.labels, obj.annotations)]
    places += [(t.meta_path, t.labels, t.annotations) for t in templates if t.meta_path is not None]
    labelled = [(meta, labels) for meta, labels, _ in places if QUEUE_LABEL in labels]
    if labelled and ctx.state:
        meta, labels = labelled[0]  # the owner's label wins over the pod's
        yield from _queue_value(obj, ctx, meta, labels[QUEUE_LABEL])
    if labelled:
        return
    for meta, labels, notes in places:
        yield from _misplaced(obj, ctx, meta, labels, notes)


def _queue_value(obj: K8sObject, ctx: RuleContext, meta: tuple[Any, ...], queue: Any) -> Iterator[Finding]:
    queues = queues_by_name(ctx.graph, KAI_QUEUE)
    if not queues or not isinstance(queue, str) or queue in BUILT_IN_QUEUES:
        return
    at = obj.at_value(*meta, "labels", QUEUE_LABEL)
    children = children_of(ctx.graph, KAI_QUEUE, queue, "parentQueue")
    if children:
        related, names = child_queue_notes(children, "parentQueue")
        yield ctx.finding(
            at=at, related=related, remedy=f"Send it to a leaf queue ({names})",
            message=(f"{obj.display()}: KAI queue `{queue}` has {len(children)} child queues: KAI schedules only "
                     "jobs of leaf queues, so the workload stays Pending"))
    elif queue not in queues and not ctx.graph.open_world:  # a harness test's system may create it
        yield ctx.finding(
            at=at, message=(f"{obj.display()}: KAI queue `{queue}` names no Queue kqlint knows"
                            f"{suggest(queue, [*queues, *BUILT_IN_QUEUES])}: the workload is never scheduled"),
            remedy="Fix the name, create the Queue, or declare it under `external:` if it exists on the cluster")


def _misplaced(obj: K8sObject, ctx: RuleContext, meta: tuple[Any, ...], labels: dict[str, Any],
               annotations: dict[str, Any]) -> Iterator[Finding]:
    """(c) the legacy label, (d) the label written as an annotation (moved by the fix where the
    metadata has labels already)."""
    if LEGACY_LABEL in labels:
        yield ctx.finding(
            at=obj.at(*meta, "labels", LEGACY_LABEL),
            message=(f"{obj.display()}: the label `{LEGACY_LABEL}` is not read since KAI v0.6.0: the workload goes "
                     "to the default queue, not the one named"),
            remedy=f"Rename the label to `{QUEUE_LABEL}`",
            fix=Fix.safe(f"Rename `{LEGACY_LABEL}` to `{QUEUE_LABEL}`",
                         Edit.rename((*meta, "labels", LEGACY_LABEL), QUEUE_LABEL)))
    if QUEUE_LABEL in annotations:
        value = annotations[QUEUE_LABEL]
        move = Fix.safe(f"Move `{QUEUE_LABEL}` to the labels", Edit.remove((*meta, "annotations", QUEUE_LABEL)),
                        Edit.insert((*meta, "labels"), QUEUE_LABEL, value)) if labels else None
        yield ctx.finding(
            at=obj.at(*meta, "annotations", QUEUE_LABEL),
            message=(f"{obj.display()}: `{QUEUE_LABEL}` is an annotation here, but KAI's pod grouper reads labels "
                     "only: the workload goes to the default queue, not the one named"),
            remedy="Move it to the labels of the same metadata", fix=move)
