"""
## What it catches
(Profile `kakaocloud`.) A `kai.scheduler/queue` label whose value is not `default-queue`, on
an object, a pod template or a TrainJob's `spec.runtimePatches` metadata (on a TrainJob's own
metadata KQ501 reports it instead).

## Why it breaks on a cluster
The platform's KAI scheduler has a single queue, `default-queue`; tenant quota is enforced
by Kueue. Pods labelled with any other queue wait forever for a queue that does not exist.

## Bad
```yaml
apiVersion: batch/v1
kind: Job
metadata:
  name: sweep
  namespace: team-a
  labels:
    kueue.x-k8s.io/queue-name: training
  annotations:
    kai.scheduler/batch-min-member: "2"
spec:
  parallelism: 2
  template:
    metadata:
      labels:
        kai.scheduler/enabled: "true"
        kai.scheduler/queue: team-a
    spec:
      schedulerName: kai-scheduler
      restartPolicy: Never
      containers:
      - name: main
        image: busybox:1.36
```

## Good
```yaml
apiVersion: batch/v1
kind: Job
metadata:
  name: sweep
  namespace: team-a
  labels:
    kueue.x-k8s.io/queue-name: training
    kueue.x-k8s.io/priority-class: normal
  annotations:
    kai.scheduler/batch-min-member: "2"
spec:
  parallelism: 2
  template:
    metadata:
      labels:
        kai.scheduler/enabled: "true"
        kai.scheduler/queue: default-queue
    spec:
      schedulerName: kai-scheduler
      restartPolicy: Never
      containers:
      - name: main
        image: busybox:1.36
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  name: training
  namespace: team-a
spec:
  clusterQueue: team-a
```

## How to fix
Use `kai.scheduler/queue: default-queue` (or leave the label out).
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kqlint.domain.objects import K8sObject
from kqlint.domain.workloads import KAI_QUEUE_LABEL
from kqlint.engine.rule import RuleContext, RuleMeta
from kqlint.fix.model import Edit, Fix
from kqlint.model import Finding, Severity
from kqlint.rules.kakaocloud._markers import markers, reported_by_kq501

META = RuleMeta(code="KQ503", slug="kai-queue-not-default", severity=Severity.ERROR,
                summary="a kai.scheduler/queue label other than default-queue", profile="kakaocloud", fix="safe")

KEY, DEFAULT = KAI_QUEUE_LABEL, "default-queue"


def check(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    for path, value in markers(obj, ctx.graph, "labels", KEY):
        if value != DEFAULT and not reported_by_kq501(obj, path):
            yield ctx.finding(
                at=obj.at_value(*path),
                message=(f"{obj.display()}: {KEY}: {value} names a KAI queue that does not exist on this "
                         f"platform (only `{DEFAULT}`): the pods are never scheduled"),
                remedy=f"Set it to {DEFAULT}",
                fix=default_queue_fix(path))


def default_queue_fix(path: tuple[Any, ...]) -> Fix:
    """The platform has one KAI queue: naming it is the only way the pods get scheduled."""
    return Fix.safe(f"Use {KEY}: {DEFAULT}", Edit.replace(path, DEFAULT))
