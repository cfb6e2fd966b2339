"""
## What it catches
A Kueue-managed workload that can never fit its ClusterQueue. Per covered resource and
flavor, the most the queue can ever provide (its capacity) is:
- `nominalQuota + borrowingLimit` when a `borrowingLimit` is set;
- in a cohort without a `borrowingLimit`: its own `nominalQuota` plus what the other
  ClusterQueues of that cohort in the inputs and context can lend (their `lendingLimit`, else their
  `nominalQuota`);
- otherwise `nominalQuota`.

It fires when one pod set's total request (pods × requests per pod) exceeds the largest
single-flavor capacity (Kueue puts a whole pod set on one flavor), or when the workload's
total exceeds the sum over all flavors. Requests are counted as Kueue counts them (limits
stand in for missing requests; `pods` counts pods when the queue covers it). A Job with
`kueue.x-k8s.io/job-min-parallelism` is judged at that minimum (partial admission), unless the
Kueue Configuration of the inputs turns the `PartialAdmission` gate off (Kueue then admits it
whole). A
Deployment's or DynamoGraphDeployment's pods are one Workload each and a LeaderWorkerSet is
one Workload per group: each of those must fit one flavor, and all of them together must fit
the sum over flavors, else part of the object never starts. Kueue gives all the resources of one
resource group one flavor, so it also fires when each resource a pod set requests fits some
flavor it can use but no one flavor gives them all (cpu only in flavor A, memory only in B).

Not judged: resources the queue does not cover (KQ209), a cohort with members kqlint has
no manifest of (ClusterQueues declared in config `external` or by a profile, or a Cohort
object with a parent or quotas of its own), and a queue whose quotas kqlint does not know.
Queues from the context (the project's other manifests, `--context`) are judged like inputs.

## Why it breaks on a cluster
Kueue never rejects such a workload: it stays pending for ever with `ExceedsMaxQuota`
(`insufficient quota for <res> in flavor <f> ... > maximum capacity (<c>)`), and nothing
frees enough quota for it, however long it waits.

## Bad
```yaml
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: team-a
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: ["nvidia.com/gpu"]
    flavors:
    - name: h100
      resources:
      - name: nvidia.com/gpu
        nominalQuota: 16
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  name: training
  namespace: team-a
spec:
  clusterQueue: team-a
---
apiVersion: batch/v1
kind: Job
metadata:
  name: train
  namespace: team-a
  labels:
    kueue.x-k8s.io/queue-name: training
spec:
  parallelism: 4
  completions: 4
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox
        resources:
          limits:
            nvidia.com/gpu: 8     # 4 pods x 8 = 32 > 16
```

## Good
```yaml
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: team-a
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: ["nvidia.com/gpu"]
    flavors:
    - name: h100
      resources:
      - name: nvidia.com/gpu
        nominalQuota: 16
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  name: training
  namespace: team-a
spec:
  clusterQueue: team-a
---
apiVersion: batch/v1
kind: Job
metadata:
  name: train
  namespace: team-a
  labels:
    kueue.x-k8s.io/queue-name: training
spec:
  parallelism: 2
  completions: 2
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox
        resources:
          limits:
            nvidia.com/gpu: 8     # 2 pods x 8 = 16: exactly the quota
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: h100
```

## How to fix
Shrink the workload (fewer pods or smaller requests), raise the ClusterQueue's
`nominalQuota`, let it borrow (`cohortName` plus a `borrowingLimit`, or lending peers in the
cohort), or send the workload to a bigger queue. A Kueue Configuration that excludes or
transforms resources is read from the `kueue-manager-config` ConfigMap in the repository; when
it is not there, mirror it in the options `exclude-resource-prefixes` and `transformations` (as
for KQ209).
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from kqlint.domain import kinds as K
from kqlint.domain import reading
from kqlint.domain.graph import ObjectGraph
from kqlint.domain.kueue import (
    QUEUE_LABEL,
    ManagedWorkload,
    PodSet,
    cluster_queue_candidates,
    count_location,
    managed_workloads,
    pod_sets,
    quota_known,
    request_location,
    resource_config,
)
from kqlint.domain.kueue.capacity import resource_group_list
from kqlint.domain.kueue.ceilings import Capacities, Capacity, capacity_table, cohort_peers
from kqlint.domain.kueue.flavors import usable_flavor_names
from kqlint.domain.kueue.limitranges import LIMIT_RANGE
from kqlint.domain.kueue.quota import quota_scope
from kqlint.domain.objects import K8sObject
from kqlint.domain.quantity import exact_sum, format_amount
from kqlint.domain.wording import pod_set_text
from kqlint.engine.rule import RuleContext, RuleMeta
from kqlint.model import Finding, Location, Severity

# findings cache: reads managed_workloads; LocalQueue -> ClusterQueue, its cohort's ClusterQueues and Cohorts; their
# quotas whole (scoped_reads); the ResourceFlavors a pod set can use (usable_flavor_names); LimitRanges
META = RuleMeta(code="KQ210", slug="exceeds-quota", severity=Severity.ERROR,
                summary="a Kueue-managed workload needs more than its ClusterQueue can ever provide",
                shows_route=True,
                reads=reading.ROUTING | {K.CLUSTER_QUEUE, K.COHORT, K.RESOURCE_FLAVOR, LIMIT_RANGE},
                scoped_reads=("ClusterQueue", quota_scope))

PODS = "pods"


@dataclass(frozen=True)
class Options:
    # Mirror of Kueue's Configuration `resources` (kqlint cannot read the running config).
    exclude_resource_prefixes: tuple[str, ...] = ()
    transformations: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True)
class Violation:
    pod_set: PodSet               # the offending pod set (for a total: the biggest one)
    resource: str
    needed: Fraction
    text: str
    capacities: tuple[Capacity, ...]   # the quotas it exceeds
    whole: bool = False                # the total over all pod sets (and Workloads)
    group: bool = False                # no one flavor of a resource group gives all of its resources


def check(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    config = resource_config(ctx.options, ctx.graph)
    for unit in managed_workloads(obj, ctx.graph):
        queues = cluster_queue_candidates(unit, ctx.graph)
        if not queues or not all(quota_known(cq) for cq in queues):
            continue
        sets = pod_sets(unit, ctx.graph, config)
        results = [(cq, _judge(sets, cq, ctx.graph)) for cq in queues]
        if all(violations for _, violations in results):  # duplicates: only when every candidate fails
            yield _finding(ctx, unit, results[0][0], results[0][1] or [])


def _judge(sets: list[PodSet], cq: K8sObject, graph: ObjectGraph) -> list[Violation] | None:
    """The violations against ``cq``; None (no judgement) for a cohort reaching beyond the inputs."""
    peers = cohort_peers(cq, graph)
    return None if peers is None else _violations(sets, cq, peers, graph)


# ------------------------------------------------------------------ requests vs capacity

def _total(pod_set: PodSet, resource: str, whole: bool = False) -> Fraction:
    if resource == PODS:
        return Fraction(pod_set.all_pods if whole else pod_set.count)
    return pod_set.whole(resource) if whole else pod_set.total(resource)


def _violations(sets: list[PodSet], cq: K8sObject, peers: list[K8sObject], graph: ObjectGraph) -> list[Violation]:
    table = capacity_table(cq, peers, graph)
    requested = sorted({r for ps in sets for r in ps.per_pod} | ({PODS} if PODS in table else set()))
    found: list[Violation] = []
    seen: dict[tuple[int, tuple[str, ...]], list[str]] = {}
    for resource in requested:
        caps = table.get(resource)  # not covered (KQ209's) or unreadable: not judged
        if caps:
            found += _resource_violations(sets, resource, caps, graph, seen)
    if not found:
        found = [v for covered, flavors in resource_group_list(cq)
                 for ps in sets if (v := _group_violation(ps, covered, flavors, table, graph)) is not None]
    return found


def _group_violation(ps: PodSet, covered: list[str], flavors: list[str], table: dict[str, Capacities],
                     graph: ObjectGraph) -> Violation | None:
    """Kueue gives all the resources of one resource group one flavor together
    (flavorassigner.go assignFlavors: per group, the first flavor that fits every requested
    resource of it): a pod set whose resources each fit some usable flavor, but no usable
    flavor alone, never fits (cpu only in flavor A, memory only in flavor B)."""
    if sum(r in table for r in covered) < 2:
        return None
    wanted = [r for r in covered if r in table and _total(ps, r) > 0]
    usable = usable_flavor_names(ps.template, flavors, graph) if len(wanted) > 1 else []
    caps = {r: {c.flavor: c for c in table[r].each} for r in wanted}
    usable = [f for f in usable if all(f in caps[r] for r in wanted)]
    if not usable or any(all(_total(ps, r) <= caps[r][f].amount for r in wanted) for f in usable):
        return None
    short = [", ".join(f"{r} {format_amount(caps[r][f].amount)}" for r in wanted
                       if _total(ps, r) > caps[r][f].amount) for f in usable]
    needs = " and ".join(f"{r} {format_amount(_total(ps, r))}" for r in wanted)
    text = (f"{pod_set_text(ps.template)} needs {needs} from one flavor of a resource group: "
            + ", ".join(f"{f} has {gap}" for f, gap in list(zip(usable, short, strict=True))[:2])
            + (", ..." if len(usable) > 2 else "") + " only: it stays pending for ever")
    first = next(r for r in wanted if any(_total(ps, r) > caps[r][f].amount for f in usable))
    return Violation(ps, first, _total(ps, first), text,
                     tuple(caps[r][f] for f in usable for r in wanted if _total(ps, r) > caps[r][f].amount), group=True)


def _resource_violations(sets: list[PodSet], resource: str, caps: Capacities, graph: ObjectGraph,
                         seen: dict[tuple[int, tuple[str, ...]], list[str]]) -> list[Violation]:
    """Only the flavors a pod set can use count (usable_flavor_names, as Kueue's flavor
    assigner checks them); a pod set no flavor suits is KQ217's and not judged here."""
    usable = {id(ps): _usable(ps, caps, graph, seen) for ps in sets}
    found = []
    for ps in sets:
        own = usable[id(ps)]
        if not own:
            continue
        largest = max(own, key=lambda c: c.amount)
        amount = _total(ps, resource)
        if amount > largest.amount:
            found.append(Violation(ps, resource, amount, _pod_set_text(ps, resource, largest), (largest,)))
    judged = [ps for ps in sets if usable[id(ps)]]
    if found or not judged or (len(judged) == 1 and judged[0].all_pods == judged[0].count):
        return found  # one Workload of one pod set: its total fits the largest flavor, so their sum
    flavors = {c.flavor: c for ps in judged for c in usable[id(ps)]}
    limit = exact_sum(c.amount for c in flavors.values())
    whole = exact_sum(_total(ps, resource, whole=True) for ps in judged)
    if whole > limit:
        biggest = max(judged, key=lambda ps: _total(ps, resource, whole=True))
        found.append(Violation(biggest, resource, whole, _whole_text(judged, resource, whole, limit),
                               tuple(flavors.values()), whole=True))
    return found


def _usable(ps: PodSet, caps: Capacities, graph: ObjectGraph,
            seen: dict[tuple[int, tuple[str, ...]], list[str]]) -> list[Capacity]:
    """``seen``: the usable flavors of each pod set (of this check) by group, asked once per
    pod set and not per resource."""
    group = tuple(c.flavor for c in caps.each)
    names = seen.get((id(ps), group))
    if names is None:
        names = seen[(id(ps), group)] = usable_flavor_names(ps.template, list(group), graph)
    return [c for c in caps.each if c.flavor in names]


def _whole_text(sets: list[PodSet], resource: str, whole: Fraction, limit: Fraction) -> str:
    text = (f"the workload needs {resource} {format_amount(whole)} in total, more than all flavors together "
            f"can give ({format_amount(limit)})")
    if any(ps.all_pods != ps.count for ps in sets):  # several Workloads: part of it runs
        return text + ": part of it (a Workload per pod or group) never starts"
    return text + ": it stays pending for ever"


def _pod_set_text(ps: PodSet, resource: str, largest: Capacity) -> str:
    per_pod = "1" if resource == PODS else format_amount(ps.per_pod.get(resource, Fraction(0)))
    pods = f"{ps.count} pod{'s' if ps.count != 1 else ''}"
    return (f"{pod_set_text(ps.template)} needs {resource} {format_amount(_total(ps, resource))} ({pods} x {per_pod}), "
            f"more than the largest single-flavor capacity {format_amount(largest.amount)} (flavor {largest.flavor}): "
            "it stays pending for ever")


def _finding(ctx: RuleContext, unit: ManagedWorkload, cq: K8sObject, violations: list[Violation]) -> Finding:
    return ctx.finding(
        at=_where(unit, violations[0]),
        message=f"{unit.display()} can never fit ClusterQueue {cq.name} (ExceedsMaxQuota): "
                + "; ".join(v.text for v in violations),
        related=[(c.at, f"ClusterQueue {cq.name}: {v.resource} in flavor {c.flavor}: {c.how}")
                 for v in violations for c in v.capacities],
        remedy=f"Shrink the workload or raise the quota of {cq.name}")


def _where(unit: ManagedWorkload, violation: Violation) -> Location:
    """The pod count when one pod alone would fit (the count is what is too big), else (and for
    a resource group no one flavor serves) the request; the queue label when the manifest writes
    neither."""
    ps, resource = violation.pod_set, violation.resource
    largest = max(c.amount for c in violation.capacities)
    one_pod = Fraction(1) if resource == PODS else ps.per_pod.get(resource, Fraction(0))
    spots = [request_location(unit.obj, ps, resource), count_location(unit.obj, ps, violation.whole)]
    if one_pod <= largest and not violation.group:
        spots.reverse()
    return next((spot for spot in spots if spot is not None), unit.label_at(QUEUE_LABEL))
