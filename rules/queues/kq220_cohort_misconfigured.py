"""
## What it catches
(a) Cohorts whose `spec.parentName` chain loops: a Cohort that is its own parent, or A → B → A
(error). One finding per loop, at the `parentName:` of the loop's first Cohort by name, with
`related` the other Cohorts of the loop and the ClusterQueues whose cohort is on or below it.

Where the platform model establishes that Kueue's Fair Sharing is on (a Kueue `Configuration`
with a `fairSharing` section in `config.kueue.x-k8s.io/v1beta2`, `fairSharing.enable: true` in
v1beta1, or `platform.kueue.fair-sharing: true`):
(b) a ClusterQueue whose `spec.preemption.borrowWithinCohort` sets a `policy` other than `Never`
or a `maxPriorityThreshold` (warning, at `borrowWithinCohort:`);
(c) `spec.fairSharing.weight: 0` on a ClusterQueue or Cohort (info, at `weight:`).
(b) and (c) stay silent when Fair Sharing is off or unknown.

## Why it breaks on a cluster
(a) The Cohort webhook does not check for loops. Kueue's cache marks the hierarchy
`cohort has a cycle`, and the scheduler skips every ClusterQueue whose cohort is on or below the
loop (`HasCycle`): they never admit a workload. (b) Fair Sharing preempts with
`withinClusterQueue` and `reclaimWithinCohort` only; `borrowWithinCohort` "only works with
Classical Preemption", so the setting is silently ignored. (c) A zero weight is not "the
default": it means an infinite share, so that ClusterQueue or Cohort is always at a
disadvantage and is preempted first.

## Bad
```yaml
apiVersion: kueue.x-k8s.io/v1beta2
kind: Cohort
metadata:
  name: research
spec:
  parentName: org        # org's parent is research: a loop
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Cohort
metadata:
  name: org
spec:
  parentName: research
```

## Good
```yaml
apiVersion: kueue.x-k8s.io/v1beta2
kind: Cohort
metadata:
  name: research
spec:
  parentName: org
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Cohort
metadata:
  name: org              # the root: no parentName
```

## How to fix
(a) Make the hierarchy a tree: remove or correct `parentName` on one Cohort of the loop.
(b) Drop `borrowWithinCohort` (use `reclaimWithinCohort`), or turn Fair Sharing off if you
rely on it. (c) Remove `weight` (the default is 1) or give a positive weight.
"""
from __future__ import annotations

from collections.abc import Iterator

from kqlint.domain import kinds as K
from kqlint.domain.graph import ObjectGraph
from kqlint.domain.kinds import KUEUE_GROUP
from kqlint.domain.kueue import COHORT_FIELDS, NEVER
from kqlint.domain.kueue.cohorts import PARENT_FIELD, CohortCycle, cluster_queues_in_cycle, cohort_cycles
from kqlint.domain.objects import INPUT, K8sObject
from kqlint.domain.platform import platform_of
from kqlint.domain.quantity import parse_quantity
from kqlint.engine.rule import RuleContext, RuleMeta
from kqlint.model import Finding, Location, Severity

BORROW_WITHIN_COHORT = ("spec", "preemption", "borrowWithinCohort")
WEIGHT = ("spec", "fairSharing", "weight")

# findings cache: reads the Cohort hierarchy (Cohorts' parentName) and the ClusterQueues in it, and
# the platform's Fair Sharing fact (the platform model is in every graph key)
META = RuleMeta(code="KQ220", slug="cohort-misconfigured", severity=Severity.ERROR,
                summary="a Cohort loop (its ClusterQueues never admit), or a setting Fair Sharing ignores or inverts",
                scope="graph",
                reads=frozenset({K.COHORT, K.CLUSTER_QUEUE}))


def check_graph(graph: ObjectGraph, ctx: RuleContext) -> Iterator[Finding]:
    for cycle in cohort_cycles(graph):
        finding = _cycle_finding(cycle, graph, ctx)
        if finding is not None:
            yield finding
    if platform_of(graph).fair_sharing is not True:
        return
    for cq in graph.of_kind("ClusterQueue", KUEUE_GROUP, tiers=(INPUT,)):
        yield from _ignored_borrowing(cq, ctx)
        yield from _zero_weight(cq, ctx)
    for cohort in graph.of_kind("Cohort", KUEUE_GROUP, tiers=(INPUT,)):
        yield from _zero_weight(cohort, ctx)


def _cycle_finding(cycle: CohortCycle, graph: ObjectGraph, ctx: RuleContext) -> Finding | None:
    reported = next((c for c in sorted(cycle.members, key=lambda c: c.name) if c.source == INPUT), None)
    if reported is None:
        return None  # the loop lies in context or declared objects only
    loop = " -> ".join((*cycle.names, cycle.names[0]))
    queues = cluster_queues_in_cycle(cycle, graph)
    related: list[tuple[Location, str]] = [
        (cohort.at(*PARENT_FIELD), f"Cohort {cohort.name} is on the loop") for cohort in cycle.members
        if cohort is not reported]
    related += [(_cohort_field(cq), f"ClusterQueue {cq.name} is skipped (HasCycle)") for cq in queues]
    affected = (f": ClusterQueues {', '.join(cq.name for cq in queues)} never admit" if queues
                else ": a ClusterQueue put on or below it would never admit")
    message = (f"Cohort parentName chain loops ({loop}): Kueue marks the hierarchy `cohort has a cycle` and "
               f"skips every ClusterQueue on or below it (HasCycle){affected}")
    if len(message) > 240:
        message = message[:237] + "..."
    return ctx.finding(at=reported.at(*PARENT_FIELD), message=message, related=related,
                       remedy="Make the hierarchy a tree: remove or correct parentName on one Cohort of the loop")


def _cohort_field(cq: K8sObject) -> Location:
    field = COHORT_FIELDS[0] if cq.has("spec", COHORT_FIELDS[0]) else COHORT_FIELDS[1]
    return cq.at("spec", field)


def _ignored_borrowing(cq: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    borrow = cq.get(*BORROW_WITHIN_COHORT)
    if not isinstance(borrow, dict):
        return
    policy = borrow.get("policy")
    if (policy is None or policy == NEVER) and "maxPriorityThreshold" not in borrow:
        return
    setting = f"policy {policy}" if policy not in (None, NEVER) else "maxPriorityThreshold"
    yield ctx.finding(
        at=cq.at(*BORROW_WITHIN_COHORT), severity=Severity.WARNING,
        message=(f"ClusterQueue {cq.name} sets borrowWithinCohort ({setting}), but Fair Sharing is on: it preempts "
                 "with withinClusterQueue and reclaimWithinCohort only, so borrowWithinCohort is silently ignored"),
        remedy="Remove borrowWithinCohort (Fair Sharing decides with reclaimWithinCohort), or turn Fair Sharing off")


def _zero_weight(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    if not obj.has(*WEIGHT) or parse_quantity(obj.get(*WEIGHT)) != 0:
        return
    yield ctx.finding(
        at=obj.at(*WEIGHT), severity=Severity.INFO,
        message=(f"{obj.kind} {obj.name} has fairSharing.weight 0: a zero weight means an infinite share, so it is "
                 "always at disadvantage and its workloads are preempted first (it is not the default weight 1)"),
        remedy="Remove weight (the default is 1) or set a positive weight")
