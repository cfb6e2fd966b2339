"""
## What it catches
A ClusterQueue that does not set `spec.preemption.withinClusterQueue` (so it is `Never`)
while priorities are clearly meant to matter: the Kueue-managed workloads routed to it
carry at least two distinct workload priorities (by Kueue's full fallback chain:
WorkloadPriorityClass label, pod PriorityClass, global default, 0), or at least two
WorkloadPriorityClasses can be resolved (inputs, `--context`, config `external`,
profile) among the objects applied with the queue: classes read from manifests count
from the queue's own unit and from the shared files (in no unit: a platform repository's
`priorities/` beside its `queues/`), never from another unit (README "What is applied
together"; a repository of independent samples declares them as `units:`). Points at
`preemption:` when present, else at `spec:`; `related` lists one workload per priority, or
the WorkloadPriorityClasses. An explicit
`withinClusterQueue: Never` is a deliberate choice (e.g. a queue that must never
preempt) and does not fire.

## Why it breaks on a cluster
`withinClusterQueue` defaults to `Never`: inside the queue, priorities then only order
the pending workloads. A high-priority job that arrives while the quota is used by
low-priority jobs waits for them to finish; it never preempts them, which is rarely what
a team that set up priority classes expects.

## Bad
```yaml
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata:
  name: high
value: 1000
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata:
  name: low
value: 100
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: gpu
spec:                       # no preemption.withinClusterQueue: Never by default
  namespaceSelector: {}
  resourceGroups:
    - coveredResources: ["nvidia.com/gpu"]
      flavors:
        - name: a100
          resources:
            - name: nvidia.com/gpu
              nominalQuota: 8
```

## Good
```yaml
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata:
  name: high
value: 1000
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata:
  name: low
value: 100
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: gpu
spec:
  namespaceSelector: {}
  preemption:
    withinClusterQueue: LowerPriority
  resourceGroups:
    - coveredResources: ["nvidia.com/gpu"]
      flavors:
        - name: a100
          resources:
            - name: nvidia.com/gpu
              nominalQuota: 8
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: a100
```

## How to fix
Set `spec.preemption.withinClusterQueue: LowerPriority` (or
`LowerOrNewerEqualPriority`) so that higher-priority workloads preempt lower ones in the
queue. If the queue must never preempt, write `withinClusterQueue: Never` explicitly.
"""
from __future__ import annotations

from collections.abc import Iterator

from kqlint.domain import reading
from kqlint.domain.kinds import CLUSTER_QUEUE
from kqlint.domain.kueue import (
    QUEUE_LABEL,
    ManagedWorkload,
    WorkloadPriority,
    defaulted_route,
    describe_workload_priority,
    workload_priority,
    workload_priority_classes,
    workloads_routed_to,
)
from kqlint.domain.objects import K8sObject
from kqlint.engine.rule import RuleContext, RuleMeta
from kqlint.fix.model import Edit, Fix
from kqlint.model import Finding, Location, Severity

# findings cache: reads a ClusterQueue: the workloads routed to it and their workload priorities; the
# WorkloadPriorityClasses of its graph
META = RuleMeta(code="KQ201", slug="missing-within-cluster-queue", severity=Severity.WARNING,
                summary="a ClusterQueue with several priorities in play leaves withinClusterQueue at Never",
                kinds=frozenset({CLUSTER_QUEUE}), fix="unsafe",
                reads=reading.ROUTED)

MAX_RELATED = 10
WITHIN = ("spec", "preemption", "withinClusterQueue")
ADVICE = ("Set spec.preemption.withinClusterQueue: LowerPriority so higher-priority workloads preempt "
          "lower ones, or write withinClusterQueue: Never if this queue must never preempt")


def check(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    if obj.get(*WITHIN) is not None:
        return
    by_value = _distinct_priorities(workloads_routed_to(obj.name, ctx.graph), ctx)
    if len(by_value) >= 2:
        values = ", ".join(str(v) for v in sorted(by_value))
        message = (f"ClusterQueue {obj.name} does not set spec.preemption.withinClusterQueue (default Never) "
                   f"while the workloads routed to it carry {len(by_value)} workload priorities ({values}): "
                   "priorities only order the queue and never preempt")
        shown = [pair for _, pair in sorted(by_value.items())][:MAX_RELATED]
        related = [*(_workload_related(unit, prio) for unit, prio in shown),
                   *defaulted_route([unit for unit, _ in shown], ctx.graph)]
        yield ctx.finding(at=_missing_at(obj), message=message, related=related,
                          fix=lower_priority_fix(obj), remedy=ADVICE)
        return
    classes = workload_priority_classes(ctx.graph)  # this queue's unit and the shared files
    if len(classes) >= 2:
        names = ", ".join(sorted(c.name for c in classes))
        message = (f"ClusterQueue {obj.name} does not set spec.preemption.withinClusterQueue (default Never) "
                   f"while {len(classes)} WorkloadPriorityClasses exist ({names}): priorities only order "
                   "the queue and never preempt")
        related = [(c.at("metadata", "name"), f"WorkloadPriorityClass {c.name}") for c in classes]
        yield ctx.finding(at=_missing_at(obj), message=message, related=related[:MAX_RELATED],
                          fix=lower_priority_fix(obj), remedy=ADVICE)


def _distinct_priorities(units: list[ManagedWorkload], ctx: RuleContext
                         ) -> dict[int, tuple[ManagedWorkload, WorkloadPriority]]:
    """Workload priority value -> the first unit carrying it (unresolved chains are skipped)."""
    found: dict[int, tuple[ManagedWorkload, WorkloadPriority]] = {}
    for unit in units:
        priority = workload_priority(unit, ctx.graph)
        if priority.resolved and priority.value is not None:
            found.setdefault(priority.value, (unit, priority))
    return found


def _workload_related(unit: ManagedWorkload, priority: WorkloadPriority) -> tuple[Location, str]:
    at = priority.at if priority.at is not None else unit.label_at(QUEUE_LABEL)
    return at, f"{unit.display()}: workload priority {describe_workload_priority(priority)}"


def _missing_at(obj: K8sObject) -> Location:
    """The nearest existing ancestor of withinClusterQueue: `preemption:`, else `spec:`."""
    return obj.at(*WITHIN) if obj.has("spec") else obj.location()


def lower_priority_fix(obj: K8sObject) -> Fix | None:
    """``withinClusterQueue: LowerPriority`` written where it belongs. Unsafe: the queue starts
    preempting admitted workloads."""
    title = "Set spec.preemption.withinClusterQueue: LowerPriority"
    preemption = obj.get("spec", "preemption")
    if obj.has(*WITHIN):  # written without a value (null)
        return Fix.unsafe(title, Edit.replace(WITHIN, "LowerPriority"))
    if isinstance(preemption, dict):
        return Fix.unsafe(title, Edit.insert(WITHIN[:-1], WITHIN[-1], "LowerPriority"))
    if not obj.has("spec", "preemption") and isinstance(obj.get("spec"), dict):
        return Fix.unsafe(title, Edit.insert(("spec",), "preemption", {"withinClusterQueue": "LowerPriority"}))
    return None
