"""
## What it catches
(Profile `kakaocloud`.) A Volcano queue anywhere: the annotation
`scheduling.volcano.sh/queue-name` on any object or pod template, the Ray label
`volcano.sh/queue-name`, Dynamo's `nvidia.com/volcano-queue`, Grove's
`scheduling.grove.io/volcano-queue`, or a Volcano PodGroup with `spec.queue`.
A TrainJob's `spec.runtimePatches` metadata (its runtime's JobSet, Job and pod templates)
counts like a pod template's; on a TrainJob's own metadata KQ501 reports the queue keys instead.

## Why it breaks on a cluster
This platform runs Volcano with no tenant queues: quota lives in Kueue. A workload or
PodGroup pointed at a Volcano queue that does not exist is never scheduled.

## Bad
```yaml
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata:
  name: train-gang
  namespace: team-a
spec:
  minMember: 4
  queue: research
```

## Good
```yaml
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata:
  name: train-gang
  namespace: team-a
spec:
  minMember: 4
```

## How to fix
Delete the queue annotation/label and `spec.queue`; Kueue's LocalQueue
(`kueue.x-k8s.io/queue-name`) decides admission.
"""
from __future__ import annotations

from collections.abc import Iterator

from kqlint.domain.objects import K8sObject
from kqlint.domain.workloads import KUBERAY_VOLCANO_QUEUE_LABEL, VOLCANO_PODGROUP, VOLCANO_QUEUE_ANNOTATION
from kqlint.engine.rule import RuleContext, RuleMeta
from kqlint.model import Finding, Severity
from kqlint.rules.kakaocloud._markers import markers, reported_by_kq501

META = RuleMeta(code="KQ502", slug="volcano-queue-used", severity=Severity.ERROR,
                summary="a Volcano queue annotation anywhere, or a Volcano PodGroup with spec.queue",
                profile="kakaocloud")

QUEUE_KEYS = (VOLCANO_QUEUE_ANNOTATION, KUBERAY_VOLCANO_QUEUE_LABEL, "nvidia.com/volcano-queue",
              "scheduling.grove.io/volcano-queue")


def check(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    if VOLCANO_PODGROUP.of(obj) and obj.get("spec", "queue"):
        yield _finding(obj, ctx, obj.at("spec", "queue"), "spec.queue")
    for section in ("annotations", "labels"):
        for key in QUEUE_KEYS:
            for path, _ in markers(obj, ctx.graph, section, key):
                if not reported_by_kq501(obj, path):
                    yield _finding(obj, ctx, obj.at(*path), f"`{key}`")


def _finding(obj: K8sObject, ctx: RuleContext, at: object, what: str) -> Finding:
    return ctx.finding(
        at=at,  # type: ignore[arg-type]
        message=(f"{obj.display()}: {what} selects a Volcano queue, but this platform runs Volcano without "
                 "tenant queues (Kueue holds the quota): the pods are never scheduled"),
        remedy="Remove it and route through kueue.x-k8s.io/queue-name")
