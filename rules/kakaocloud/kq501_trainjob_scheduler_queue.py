"""
## What it catches
(Profile `kakaocloud`.) A TrainJob that carries the Volcano queue annotation
`scheduling.volcano.sh/queue-name` or the KAI queue label `kai.scheduler/queue` (as a label
or an annotation, under either key) in its own `metadata`: one finding per key and place. KQ502
and KQ503 do not report these keys there; the same keys in `spec.runtimePatches` (metadata the
TrainJob puts on its runtime's JobSet, Jobs and pods) are theirs.

## Why it breaks on a cluster
On this platform Kueue owns quota and preemption for TrainJobs; the platform's admission
policy rejects a TrainJob that tries to pick a Volcano or KAI queue, so it is never created.

## Bad
```yaml
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: llama-sft
  namespace: team-a
  labels:
    kueue.x-k8s.io/queue-name: training
    kai.scheduler/queue: default-queue
spec:
  runtimeRef:
    name: torch-distributed
```

## Good
```yaml
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: llama-sft
  namespace: team-a
  labels:
    kueue.x-k8s.io/queue-name: training
    kueue.x-k8s.io/priority-class: normal
spec:
  runtimeRef:
    name: torch-distributed
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
Remove the queue label/annotation; route the TrainJob with `kueue.x-k8s.io/queue-name`
only. The runtime picks the scheduler and the gang policy.
"""
from __future__ import annotations

from collections.abc import Iterator

from kqlint.domain.kinds import TRAINJOB
from kqlint.domain.objects import K8sObject
from kqlint.domain.workloads import KAI_QUEUE_LABEL, VOLCANO_QUEUE_ANNOTATION
from kqlint.engine.rule import RuleContext, RuleMeta
from kqlint.model import Finding, Severity

# findings cache: pure, a TrainJob's own labels and annotations (kakaocloud profile)
META = RuleMeta(code="KQ501", slug="trainjob-scheduler-queue", severity=Severity.ERROR,
                summary="a TrainJob carries a Volcano or KAI queue label/annotation (creation is rejected)",
                kinds=frozenset({TRAINJOB}), profile="kakaocloud",
                pure=True)

QUEUE_KEYS = (VOLCANO_QUEUE_ANNOTATION, KAI_QUEUE_LABEL)


def check(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    for section in ("labels", "annotations"):
        values = obj.get("metadata", section)
        for key in QUEUE_KEYS:
            if isinstance(values, dict) and key in values:
                yield ctx.finding(
                    at=obj.at("metadata", section, key),
                    message=(f"TrainJob {obj.namespace}/{obj.name}: `{key}` is not allowed on TrainJobs on this "
                             "platform (Kueue owns their quota and preemption): creation is rejected"),
                    remedy="Remove it and route the job with kueue.x-k8s.io/queue-name only")
