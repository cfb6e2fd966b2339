"""
## What it catches
A LocalQueue whose `spec.clusterQueue` names a ClusterQueue that cannot be resolved (not in
the inputs, `--context`, config `external` or the active profile), or that sets no
`spec.clusterQueue` at all.

An envsubst placeholder in the written name or in an object's name (`user-queue-${TOPOLOGY}`,
`$QUEUE`, `${QUEUE:-x}`) stands for any non-empty name: a reference it can render to is
not reported (nor resolved: which object it is would be a guess).

In the files of a chainsaw or kuttl test, which the harness applies into a namespace it
creates beside objects only the system under test makes (an operator's LocalQueue made from
its CR), no name is reported unknown; their assert and error files are never objects.

## Why it breaks on a cluster
Kueue accepts the LocalQueue but marks it `Active=False` with reason
`ClusterQueueDoesNotExist`. Every workload submitted to it stays pending with
`ClusterQueue <name> doesn't exist` and is never admitted. `spec.clusterQueue` is immutable,
so a typo cannot be patched: the LocalQueue has to be deleted and recreated.

## Bad
```yaml
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: team-a-cq
spec:
  namespaceSelector: {}
  resourceGroups: []
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  name: training
  namespace: team-a
spec:
  clusterQueue: team-a-clusterqueue   # no such ClusterQueue
```

## Good
```yaml
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: team-a-cq
spec:
  namespaceSelector: {}
  resourceGroups: []
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  name: training
  namespace: team-a
spec:
  clusterQueue: team-a-cq
```

## How to fix
Point `spec.clusterQueue` at an existing ClusterQueue (recreate the LocalQueue: the field is
immutable), or create the ClusterQueue. If the ClusterQueue is managed elsewhere, pass its
manifests with `--context` or declare it under `external: {ClusterQueue: [{name: ...}]}` in
`.kqlint.yaml`.
When exactly one ClusterQueue is a slip away, or is the written name with a `-cq`, `-queue`,
`-clusterqueue` or `-cluster-queue` marker (or a `cq-`, `queue-` ... prefix) added, dropped or
swapped (`ml-cq` for `ml`), that name is the "did you mean" and `kqlint check --fix
--unsafe-fixes` writes it; unsafe, since the LocalQueue then feeds another ClusterQueue than
the one written.
"""
from __future__ import annotations

from collections.abc import Iterator

from kqlint.domain import kinds as K
from kqlint.domain.kinds import LOCAL_QUEUE
from kqlint.domain.objects import K8sObject
from kqlint.domain.refs import CLUSTER_QUEUE_REF, references, unresolved
from kqlint.engine.rule import RuleContext, RuleMeta
from kqlint.model import Finding, Severity
from kqlint.rules.queues._rename import rename_fix

# findings cache: reads the LocalQueue's ClusterQueue (resolved, close names, other units)
META = RuleMeta(code="KQ204", slug="unknown-cluster-queue", severity=Severity.ERROR,
                summary="a LocalQueue's spec.clusterQueue names a ClusterQueue that cannot be resolved",
                kinds=frozenset({LOCAL_QUEUE}),
                reads=frozenset({K.CLUSTER_QUEUE}), fix="unsafe")


def check(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    name = obj.get("spec", "clusterQueue")
    if name is None or name == "":
        yield ctx.finding(
            at=obj.at("spec", "clusterQueue"),
            message=(f"{obj.display()} sets no spec.clusterQueue: the LocalQueue stays inactive and "
                     "workloads sent to it are never admitted"),
            remedy="Set spec.clusterQueue to a ClusterQueue")
        return
    for ref in references(obj, ctx.graph, [CLUSTER_QUEUE_REF]):
        if ref.target is not None or ref.may_exist(ctx.graph):
            continue  # resolved, or defined in another unit: not proof it is missing
        found = unresolved(ref, ctx.graph, obj.display(),
                                     "Kueue marks the LocalQueue inactive (ClusterQueueDoesNotExist) and none of "
                                     "its workloads is ever admitted",
                                     "create the ClusterQueue or recreate the LocalQueue pointing at an existing "
                                     "one (the field is immutable)")
        yield ctx.finding(at=ref.at, message=found.message, remedy=found.remedy, fix=rename_fix(ref, found.rename))
