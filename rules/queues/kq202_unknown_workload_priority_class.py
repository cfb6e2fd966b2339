"""
## What it catches
A Kueue-managed workload whose `kueue.x-k8s.io/priority-class` label (where Kueue reads it:
the object's own `metadata.labels`, or each component pod template of a
DynamoGraphDeployment) names a WorkloadPriorityClass that cannot be resolved (not in the
inputs, `--context`, config `external` or the active profile). Also a workload that carries
the label but no queue name (KQ207): one finding does not hide the other, and the queue name
the user adds next would leave it never admitted.

An envsubst placeholder in the written name or in an object's name (`user-queue-${TOPOLOGY}`,
`$QUEUE`, `${QUEUE:-x}`) stands for any non-empty name: a reference it can render to is
not reported (nor resolved: which object it is would be a guess).

In the files of a chainsaw or kuttl test, which the harness applies into a namespace it
creates beside objects only the system under test makes (an operator's LocalQueue made from
its CR), no name is reported unknown; their assert and error files are never objects.

## Why it breaks on a cluster
Kueue does not fall back to the pod PriorityClass, the global default or 0 when the class is
missing: it creates no Workload at all. The job stays suspended and is never admitted, with
no condition on the job explaining why (newer Kueue releases emit a
`WorkloadPriorityClassNotFound` warning event). The label cannot be removed afterwards.

## Bad
```yaml
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata:
  name: high
value: 1000
---
apiVersion: batch/v1
kind: Job
metadata:
  name: train
  namespace: team-a
  labels:
    kueue.x-k8s.io/queue-name: training
    kueue.x-k8s.io/priority-class: high-priority   # no such WorkloadPriorityClass
spec:
  suspend: true
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox
```

## Good
```yaml
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata:
  name: high
value: 1000
---
apiVersion: batch/v1
kind: Job
metadata:
  name: train
  namespace: team-a
  labels:
    kueue.x-k8s.io/queue-name: training
    kueue.x-k8s.io/priority-class: high
spec:
  suspend: true
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  name: training
  namespace: team-a
spec:
  clusterQueue: gpu
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: gpu
spec:
  namespaceSelector: {}
```

## How to fix
Create the WorkloadPriorityClass or fix the label value. If the classes are managed elsewhere
(a platform profile, another repository), pass them with `--context`, declare them under
`external: {WorkloadPriorityClass: [{name: ..., value: ...}]}` in `.kqlint.yaml`, or select
the platform's `profile`.
When exactly one known name is a slip away (the one "did you mean"), `kqlint check --fix
--unsafe-fixes` writes it in place of the reference; unsafe, since the workload then uses
another object than the one written.
"""
from __future__ import annotations

from collections.abc import Iterator

from kqlint.domain import kinds as K
from kqlint.domain import reading
from kqlint.domain.kueue import resolve_priority_class
from kqlint.domain.objects import K8sObject
from kqlint.domain.refs import UNQUEUED_PRIORITY_REF, WORKLOAD_PRIORITY_REF, Reference, references, unresolved
from kqlint.engine.rule import RuleContext, RuleMeta
from kqlint.model import Finding, Severity
from kqlint.rules.queues._rename import rename_fix

# findings cache: reads managed_workloads; the label's WorkloadPriorityClass (close names); a PriorityClass of that
# name; without a queue name, what KQ207 reads (unqueued_priority_labels)
META = RuleMeta(code="KQ202", slug="unknown-workload-priority-class", severity=Severity.ERROR,
                summary="a kueue.x-k8s.io/priority-class label names a WorkloadPriorityClass that cannot "
                        "be resolved",
                reads=reading.ROUTING | {K.WORKLOAD_PRIORITY_CLASS, K.PRIORITY_CLASS}, fix="unsafe")
ADMITTED_NEVER = "Kueue creates no Workload for it, so it stays suspended"


def check(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    for ref in references(obj, ctx.graph, [WORKLOAD_PRIORITY_REF, UNQUEUED_PRIORITY_REF]):
        if ref.target is not None or ref.may_exist(ctx.graph):
            continue
        if ref.site.unit is not None:
            subject, effect = ref.site.unit.display(), ADMITTED_NEVER
        elif ref.ref is UNQUEUED_PRIORITY_REF:
            subject, effect = obj.display(), "once it gets a queue name, " + ADMITTED_NEVER
        else:
            continue
        found = unresolved(ref, ctx.graph, subject, effect,
                           f"create WorkloadPriorityClass `{ref.name}` or fix the label", hint=_hint(ref, ctx))
        yield ctx.finding(at=ref.at, message=found.message, remedy=found.remedy, fix=rename_fix(ref, found.rename))


def _hint(ref: Reference, ctx: RuleContext) -> str | None:
    """A pod PriorityClass of that name is the likelier slip (no rename then); else the
    "did you mean" among WorkloadPriorityClasses (None)."""
    if resolve_priority_class(ref.name, ctx.graph) is not None:
        return f" (`{ref.name}` is a pod PriorityClass, which this label cannot name)"
    return None
