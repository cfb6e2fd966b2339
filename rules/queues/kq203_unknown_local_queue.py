"""
## What it catches
A workload whose `kueue.x-k8s.io/queue-name` label (where Kueue reads it: the object's own
`metadata.labels`, a CronJob's `spec.jobTemplate.metadata.labels`, or each component pod
template of a DynamoGraphDeployment) names a LocalQueue that cannot be resolved in the
workload's namespace (LocalQueues are namespaced: one of the same name in another namespace
does not count).

An envsubst placeholder in the written name or in an object's name (`user-queue-${TOPOLOGY}`,
`$QUEUE`, `${QUEUE:-x}`) stands for any non-empty name: a reference it can render to is
not reported (nor resolved: which object it is would be a guess). So does a namespace written
as a placeholder (`namespace: ${NAMESPACE}`, or a sample's `<user_namespace>`), on the workload
or on the LocalQueue: a LocalQueue of that name in any namespace may be the one it uses. A name
that no namespace holds is still reported.

In the files of a chainsaw or kuttl test, which the harness applies into a namespace it
creates beside objects only the system under test makes (an operator's LocalQueue made from
its CR), no name is reported unknown; their assert and error files are never objects.

## Why it breaks on a cluster
Kueue does not check at creation time that the LocalQueue exists. The job is suspended, its
Workload is created and then stays pending for ever with `LocalQueue <name> doesn't exist`;
nothing runs, and for pod-based integrations the pods sit behind a scheduling gate.

## Bad
```yaml
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  name: training
  namespace: team-b          # a different namespace
spec:
  clusterQueue: shared
---
apiVersion: batch/v1
kind: Job
metadata:
  name: train
  namespace: team-a
  labels:
    kueue.x-k8s.io/queue-name: training
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
kind: LocalQueue
metadata:
  name: training
  namespace: team-a
spec:
  clusterQueue: shared
---
apiVersion: batch/v1
kind: Job
metadata:
  name: train
  namespace: team-a
  labels:
    kueue.x-k8s.io/queue-name: training
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
kind: ClusterQueue
metadata:
  name: shared
spec:
  namespaceSelector: {}
```

## How to fix
Create the LocalQueue in the workload's namespace or fix the label. If the queues are managed
elsewhere, pass them with `--context` or declare them under
`external: {LocalQueue: [{name: ..., namespace: ...}]}` in `.kqlint.yaml`.
When exactly one known name is a slip away (the one "did you mean"), `kqlint check --fix
--unsafe-fixes` writes it in place of the reference; unsafe, since the workload then uses
another object than the one written.
"""
from __future__ import annotations

from collections.abc import Iterator

from kqlint.domain import reading
from kqlint.domain.kinds import KUEUE_GROUP
from kqlint.domain.objects import K8sObject
from kqlint.domain.refs import QUEUE_REF, references, unresolved
from kqlint.engine.rule import RuleContext, RuleMeta
from kqlint.model import Finding, Severity
from kqlint.rules.queues._rename import rename_fix

# findings cache: reads managed_workloads; the LocalQueue (resolved, close names, other namespaces)
META = RuleMeta(code="KQ203", slug="unknown-local-queue", severity=Severity.ERROR,
                summary="a kueue.x-k8s.io/queue-name label names a LocalQueue that cannot be resolved in "
                        "the workload's namespace",
                reads=reading.ROUTING, fix="unsafe")


def check(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    for ref in references(obj, ctx.graph, [QUEUE_REF]):
        unit = ref.site.unit
        if unit is None or ref.site.implied or unit.labels_path is None:
            continue  # LocalQueueDefaulting only applies when `default` exists
        if ref.target is not None or ref.may_exist(ctx.graph):
            continue  # resolved, or ambiguous (namespace chosen at apply time, another unit)
        found = unresolved(ref, ctx.graph, unit.display(),
                                     "the Workload stays pending for ever (\"LocalQueue doesn't exist\")",
                                     "create the LocalQueue in this namespace or fix the label",
                                          note=_elsewhere(ref.name, obj.namespace or "", ctx))
        yield ctx.finding(at=ref.at, message=found.message, remedy=found.remedy, fix=rename_fix(ref, found.rename))


def _elsewhere(name: str, namespace: str, ctx: RuleContext) -> str:
    others = sorted({lq.namespace or "" for lq in ctx.graph.of_kind("LocalQueue", KUEUE_GROUP)
                     if lq.name == name and lq.namespace != namespace})
    return f" (LocalQueues are namespaced: `{name}` is in {', '.join(others)})" if others else ""
