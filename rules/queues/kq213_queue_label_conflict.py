"""
## What it catches
A pod template of a Kueue-managed object (a Job's `spec.template`, a JobSet's replicated Job
template and its pod template, a Kubeflow replica, LeaderWorkerSet `leaderTemplate` /
`workerTemplate`, a Ray group, a StatefulSet or Deployment template) whose
`kueue.x-k8s.io/queue-name` label differs from the owner's own `queue-name` label (kueue.md
B19). One finding per template label, at it, with `related` the owner's label.

On a LeaderWorkerSet where the platform's Kueue is older than 0.18 it is an error: the pods
keep the template's queue. Elsewhere, and on LeaderWorkerSet from 0.18 (or an unknown
version), a warning: Kueue uses the owner's value and the template's never takes effect.

Silent when the values are equal, when the owner has no `queue-name` label (KQ208 reports a
label that is only on the template), and when the object is not Kueue-managed (its
integration off; without evidence, Kueue's default frameworks: Deployments, StatefulSets and
LeaderWorkerSets only where the platform model enables them).

## Why it breaks on a cluster
LeaderWorkerSet before Kueue 0.18 (kueue#10965, fixed by #4932): the pods carry the other
queue, stay `SchedulingGated` and cannot be evicted on preemption. From 0.18 the LWS and
Deployment webhooks overwrite the template label with the owner's value, the StatefulSet pod
reconciler overwrites each pod's label, and for Jobs, JobSets and the other job kinds the
pods' managed owner makes Kueue ignore the pod label: the queue the author wrote on the
template is never used.

## Bad
```yaml
apiVersion: batch/v1
kind: Job
metadata:
  name: train
  namespace: team-a
  labels:
    kueue.x-k8s.io/queue-name: training
spec:
  template:
    metadata:
      labels:
        kueue.x-k8s.io/queue-name: research   # ignored: the Job's queue is training
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox
```

## Good
```yaml
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  name: training
  namespace: team-a
spec:
  clusterQueue: team-a
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: team-a
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: ["cpu"]
    flavors:
    - name: default
      resources:
      - name: cpu
        nominalQuota: 8
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: default
---
apiVersion: batch/v1
kind: Job
metadata:
  name: train
  namespace: team-a
  labels:
    kueue.x-k8s.io/queue-name: training
spec:
  template:
    metadata:
      labels:
        kueue.x-k8s.io/queue-name: training
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox
```

## How to fix
Remove the `queue-name` label from the pod template (Kueue takes the queue from the owner's
own `metadata.labels`), or set the owner's label to the queue you meant.
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kqlint.domain import kinds as K
from kqlint.domain import reading
from kqlint.domain.fields import text
from kqlint.domain.kueue import CRONJOB, INTEGRATIONS, QUEUE_LABEL, object_labels_path
from kqlint.domain.kueue.routing import defaulting_applies
from kqlint.domain.objects import K8sObject
from kqlint.domain.platform import platform_of
from kqlint.domain.wording import fit_message, template_text
from kqlint.domain.workloads import own_templates
from kqlint.engine.rule import RuleContext, RuleMeta
from kqlint.model import Finding, Severity

# findings cache: reads the platform model (Kueue version, integrations) and own_templates (a TrainJob's runtime
# is looked up, its templates skipped)
META = RuleMeta(code="KQ213", slug="queue-label-conflict", severity=Severity.ERROR,
                summary="a pod template's queue-name label differs from its owner's",
                kinds=frozenset((INTEGRATIONS - {K.POD}) | {CRONJOB}),
                reads=reading.RUNTIMES)

LWS_OVERWRITES_SINCE = (0, 18)   # PR #4932: the LWS webhook writes the owner's queue into both templates


def check(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    labels_path = object_labels_path(obj)
    owner = labels_path is not None and obj.get(*labels_path)
    queue = text(owner.get(QUEUE_LABEL)) if isinstance(owner, dict) else None
    if labels_path is None or queue is None or not defaulting_applies(obj, ctx.graph):
        return
    stuck = K.LWS.of(obj) and platform_of(ctx.graph).kueue_at_least(*LWS_OVERWRITES_SINCE) is False
    for path, site in _template_label_paths(obj, ctx):
        value = obj.get(*path)
        if not isinstance(value, str) or value == queue:
            continue
        yield ctx.finding(
            at=obj.at(*path), severity=None if stuck else Severity.WARNING,
            related=[(obj.at(*labels_path, QUEUE_LABEL), f"the {obj.kind}'s queue: `{queue}`")],
            message=fit_message(f"{obj.display()}: the {site} sets `queue-name: {value}`, but the {obj.kind}'s is "
                                f"`{queue}`: " + (_stuck_effect() if stuck else _ignored_effect(obj, queue))),
            remedy=f"Remove the label from the {site}, or set the {obj.kind}'s own label to the queue you meant")


def _template_label_paths(obj: K8sObject, ctx: RuleContext) -> Iterator[tuple[tuple[Any, ...], str]]:
    """The ``queue-name`` label path of each pod template (and a JobSet's Job templates)."""
    if K.JOBSET.of(obj):
        jobs = obj.get("spec", "replicatedJobs")
        for index, job in enumerate(jobs if isinstance(jobs, list) else []):
            if isinstance(job, dict):
                yield (("spec", "replicatedJobs", index, "template", "metadata", "labels", QUEUE_LABEL),
                       f"Job template {job.get('name') or index}")
    for template in own_templates(obj, ctx.graph):
        if template.meta_path is not None:
            yield template.meta_path + ("labels", QUEUE_LABEL), template_text(template)


def _stuck_effect() -> str:
    return "on Kueue < 0.18 its pods keep the template's, stay SchedulingGated, can't be evicted (kueue#10965)"


def _ignored_effect(obj: K8sObject, queue: str) -> str:
    if K.LWS.of(obj) or K.DEPLOYMENT.of(obj):
        return f"Kueue's webhook overwrites the template label with `{queue}`, so the template's never takes effect"
    if K.STATEFULSET.of(obj):
        return f"Kueue sets each pod's label to `{queue}`, so the template's never takes effect"
    return f"Kueue ignores the label under a managed owner and queues the workload in `{queue}`"
