"""
## What it catches
(Profile `kakaocloud`.) A LocalQueue whose `spec.clusterQueue` is not its own namespace.

## Why it breaks on a cluster
On this platform each tenant namespace has exactly one ClusterQueue, named after the
namespace, whose namespaceSelector admits only that namespace. A LocalQueue pointing at
another tenant's ClusterQueue is never matched: every workload behind it stays inadmissible.

## Bad
```yaml
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  name: training
  namespace: team-a
spec:
  clusterQueue: team-b
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
```

## How to fix
Set `spec.clusterQueue` to the LocalQueue's namespace (recreate it: the field is immutable).
"""
from __future__ import annotations

from collections.abc import Iterator

from kqlint.domain.kinds import LOCAL_QUEUE
from kqlint.domain.objects import K8sObject
from kqlint.engine.rule import RuleContext, RuleMeta
from kqlint.model import Finding, Severity

# findings cache: pure, a LocalQueue's own clusterQueue against its namespace (kakaocloud profile)
META = RuleMeta(code="KQ504", slug="localqueue-foreign-cluster-queue", severity=Severity.ERROR,
                summary="a LocalQueue's spec.clusterQueue differs from its own namespace",
                kinds=frozenset({LOCAL_QUEUE}), profile="kakaocloud",
                pure=True)


def check(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    target = obj.get("spec", "clusterQueue")
    if isinstance(target, str) and target != obj.namespace:
        yield ctx.finding(
            at=obj.at_value("spec", "clusterQueue"),
            message=(f"{obj.display()}: spec.clusterQueue `{target}` is not the tenant's own ClusterQueue "
                     f"`{obj.namespace}`: on this platform a ClusterQueue admits only its own namespace, so "
                     "nothing behind this LocalQueue is ever admitted"),
            remedy=f"Recreate it with clusterQueue: {obj.namespace} (the field is immutable)")
