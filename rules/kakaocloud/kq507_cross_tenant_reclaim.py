"""
## What it catches
(Profile `kakaocloud`.) A ClusterQueue that sets `spec.preemption.reclaimWithinCohort` to
anything but `Never`.

## Why it breaks on a cluster
Tenants on this platform must not preempt each other: a tenant ClusterQueue that reclaims
within its cohort evicts other tenants' running GPU jobs. The platform's own queues use
`Never`.

## Bad
```yaml
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: team-a
spec:
  namespaceSelector: {}
  preemption:
    withinClusterQueue: LowerPriority
    reclaimWithinCohort: Any
```

## Good
```yaml
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: team-a
spec:
  namespaceSelector: {}
  preemption:
    withinClusterQueue: LowerPriority
    reclaimWithinCohort: Never
```

## How to fix
Set `reclaimWithinCohort: Never` (or leave it unset: that is the default).
"""
from __future__ import annotations

from collections.abc import Iterator

from kqlint.domain.kinds import CLUSTER_QUEUE
from kqlint.domain.objects import K8sObject
from kqlint.engine.rule import RuleContext, RuleMeta
from kqlint.fix.model import Edit, Fix
from kqlint.model import Finding, Severity

# findings cache: pure, a ClusterQueue's own preemption settings (kakaocloud profile)
META = RuleMeta(code="KQ507", slug="cross-tenant-reclaim", severity=Severity.ERROR,
                summary="a ClusterQueue sets reclaimWithinCohort to anything but Never",
                kinds=frozenset({CLUSTER_QUEUE}), profile="kakaocloud", fix="unsafe",
                pure=True)


def check(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    value = obj.get("spec", "preemption", "reclaimWithinCohort")
    if value is not None and value != "Never":
        yield ctx.finding(
            at=obj.at_value("spec", "preemption", "reclaimWithinCohort"),
            message=(f"{obj.display()}: reclaimWithinCohort {value} lets this queue evict other tenants' "
                     "workloads in its cohort, which the platform forbids"),
            remedy="Set reclaimWithinCohort: Never",
            fix=never_reclaim_fix(obj))


def never_reclaim_fix(obj: K8sObject) -> Fix | None:
    """``reclaimWithinCohort: Never``; not offered while ``borrowWithinCohort.policy`` is not
    Never (Kueue rejects that pair, B8). Unsafe: the queue stops reclaiming its quota."""
    if obj.get("spec", "preemption", "borrowWithinCohort", "policy") not in (None, "Never"):
        return None
    return Fix.unsafe("Set reclaimWithinCohort: Never",
                      Edit.replace(("spec", "preemption", "reclaimWithinCohort"), "Never"))
