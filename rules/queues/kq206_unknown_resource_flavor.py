"""
## What it catches
A ClusterQueue flavor (`spec.resourceGroups[].flavors[].name`) that names a ResourceFlavor
that cannot be resolved (not in the inputs, `--context`, config `external` or the active
profile). One finding per flavor entry.

An envsubst placeholder in the written name or in an object's name (`user-queue-${TOPOLOGY}`,
`$QUEUE`, `${QUEUE:-x}`) stands for any non-empty name: a reference it can render to is
not reported (nor resolved: which object it is would be a guess).

In the files of a chainsaw or kuttl test, which the harness applies into a namespace it
creates beside objects only the system under test makes (an operator's LocalQueue made from
its CR), no name is reported unknown; their assert and error files are never objects.

## Why it breaks on a cluster
The API server accepts the ClusterQueue, but Kueue marks it `Active=False` with reason
`FlavorNotFound` and admits nothing through it until the ResourceFlavor exists: every
workload of every LocalQueue that points to it stays pending.

## Bad
```yaml
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: h100
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: training
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: ["nvidia.com/gpu"]
    flavors:
    - name: h100-sxm          # no ResourceFlavor of that name
      resources:
      - name: nvidia.com/gpu
        nominalQuota: 16
```

## Good
```yaml
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: h100
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: training
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: ["nvidia.com/gpu"]
    flavors:
    - name: h100
      resources:
      - name: nvidia.com/gpu
        nominalQuota: 16
```

## How to fix
Create the ResourceFlavor (an empty `spec` is enough for a homogeneous cluster) or fix the
flavor name. If the flavors are managed elsewhere, pass them with `--context` or declare them
under `external: {ResourceFlavor: [{name: ...}]}` in `.kqlint.yaml`.
When exactly one known name is a slip away (the one "did you mean"), `kqlint check --fix
--unsafe-fixes` writes it in place of the reference; unsafe, since the ClusterQueue then uses
another object than the one written.
"""
from __future__ import annotations

from collections.abc import Iterator

from kqlint.domain import kinds as K
from kqlint.domain.kinds import CLUSTER_QUEUE
from kqlint.domain.objects import K8sObject
from kqlint.domain.refs import FLAVOR_REF, references, unresolved
from kqlint.engine.rule import RuleContext, RuleMeta
from kqlint.model import Finding, Severity
from kqlint.rules.queues._rename import rename_fix

# findings cache: reads the ClusterQueue's flavors: ResourceFlavors (resolved, close names)
META = RuleMeta(code="KQ206", slug="unknown-resource-flavor", severity=Severity.ERROR,
                summary="a ClusterQueue flavor names a ResourceFlavor that cannot be resolved",
                kinds=frozenset({CLUSTER_QUEUE}),
                reads=frozenset({K.RESOURCE_FLAVOR}), fix="unsafe")


def check(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    # a missing or mistyped flavor name is no reference: a schema violation (KQ002)
    for ref in references(obj, ctx.graph, [FLAVOR_REF]):
        if ref.target is not None or ref.may_exist(ctx.graph):
            continue
        found = unresolved(ref, ctx.graph, obj.display(),
                                     "Kueue marks the ClusterQueue inactive (FlavorNotFound) and admits no "
                                     "workload through it", f"create ResourceFlavor `{ref.name}` or fix the name")
        yield ctx.finding(at=ref.at, message=found.message, remedy=found.remedy, fix=rename_fix(ref, found.rename))
