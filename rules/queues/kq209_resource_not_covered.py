"""
## What it catches
A Kueue-managed workload that requests a resource its ClusterQueue (workload → LocalQueue →
ClusterQueue) does not cover in any resource group. Requests are counted the way Kueue counts
them: per pod, containers summed, a limit without a request counting as the request, init
containers and sidecars included, a TrainJob's `resourcesPerNode` applied, and the `default`
and `defaultRequest` of the namespace's `type: Container` LimitRanges (in the inputs or
context; the first LimitRange by name that sets a resource wins, the container's own values
always win; `type: Pod` defaults only where the template sets pod-level `resources`). A
request of zero is ignored (Kueue skips it). One finding per workload, at its `queue-name`
label (the routing); `related` lists the requests and the ClusterQueue's resource groups. A
resource that only a LimitRange adds is reported at the LimitRange's entry (one finding per
resource, `related` the workload), naming the LimitRange (kueue#4848); a LimitRange of the
`--context` is named at the workload's label instead.

Silent when the ClusterQueue cannot be resolved (KQ203/KQ204 report that) or when only its
name is known (a profile's or config `external` ClusterQueue without `spec.resourceGroups`).

## Why it breaks on a cluster
Kueue's flavor assigner stops with `resource <name> unavailable in ClusterQueue`: the
Workload stays pending (`QuotaReserved=False`) and is never admitted, however much capacity
the cluster has. Silent where the Kueue Configuration in the repository sets
`resources.quotaCheckStrategy: IgnoreUndeclared` (and its `QuotaCheckStrategy` gate is or may
be on: beta and on by default from Kueue 0.19): Kueue then leaves such a resource out of the
quota.

## Bad
```yaml
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: cpu-only
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: ["cpu", "memory"]
    flavors:
    - name: default
      resources:
      - name: cpu
        nominalQuota: 64
      - name: memory
        nominalQuota: 256Gi
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  name: training
  namespace: team-a
spec:
  clusterQueue: cpu-only
---
apiVersion: batch/v1
kind: Job
metadata:
  name: train
  namespace: team-a
  labels:
    kueue.x-k8s.io/queue-name: training
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox
        resources:
          limits:
            nvidia.com/gpu: 1     # not covered by cpu-only
```

## Good
```yaml
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: gpu
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: ["cpu", "memory"]
    flavors:
    - name: default
      resources:
      - name: cpu
        nominalQuota: 64
      - name: memory
        nominalQuota: 256Gi
  - coveredResources: ["nvidia.com/gpu"]
    flavors:
    - name: a100
      resources:
      - name: nvidia.com/gpu
        nominalQuota: 8
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  name: training
  namespace: team-a
spec:
  clusterQueue: gpu
---
apiVersion: batch/v1
kind: Job
metadata:
  name: train
  namespace: team-a
  labels:
    kueue.x-k8s.io/queue-name: training
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox
        resources:
          limits:
            nvidia.com/gpu: 1
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: default
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: a100
```

## How to fix
Add the resource to a resource group of the ClusterQueue (`coveredResources` plus a
`nominalQuota` in every flavor of that group), send the workload to a LocalQueue whose
ClusterQueue covers it, or drop the request. A Kueue Configuration that excludes or
transforms resources (`resources.excludeResourcePrefixes`, `resources.transformations`, e.g.
HAMi's `nvidia.com/gpucores` → `nvidia.com/total-gpucores`) is read from the
`kueue-manager-config` ConfigMap among the inputs or context; when it is not in the repository,
mirror it in `.kqlint.yaml` so kqlint counts what Kueue counts (the options win over it):
`rules: {KQ209: {exclude-resource-prefixes: [...],
transformations: [{input: ..., strategy: Replace, multiplyBy: ..., outputs: {...}}]}}`
(KQ210 takes the same options).
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from kqlint.domain import kinds as K
from kqlint.domain import reading
from kqlint.domain.kueue import (
    QUEUE_LABEL,
    ManagedWorkload,
    PodSet,
    cluster_queue_candidates,
    covered_resources,
    managed_workloads,
    pod_sets,
    quota_known,
    request_location,
    resource_config,
)
from kqlint.domain.kueue.limitranges import LIMIT_RANGE, LimitDefault, limit_range_additions
from kqlint.domain.objects import INPUT, K8sObject
from kqlint.domain.podspec import pod_requests
from kqlint.domain.quantity import format_amount
from kqlint.domain.wording import fit_message, pod_set_text
from kqlint.engine.rule import RuleContext, RuleMeta
from kqlint.model import Finding, Severity

# findings cache: reads managed_workloads; LocalQueue -> ClusterQueue candidates; the ClusterQueue's resource groups;
# the namespace's LimitRanges (their defaults are requests)
META = RuleMeta(code="KQ209", slug="resource-not-covered", severity=Severity.ERROR,
                summary="a Kueue-managed workload requests a resource its ClusterQueue does not cover",
                shows_route=True,
                reads=reading.ROUTING | {K.CLUSTER_QUEUE, LIMIT_RANGE})


@dataclass(frozen=True)
class Options:
    # Mirror of Kueue's Configuration `resources` (kqlint cannot read the running config).
    exclude_resource_prefixes: tuple[str, ...] = ()
    transformations: tuple[dict[str, Any], ...] = ()


def check(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    config = resource_config(ctx.options, ctx.graph)
    if config.ignore_undeclared:  # Kueue leaves what the ClusterQueue does not cover out of its quota
        return
    for unit in managed_workloads(obj, ctx.graph):
        queues = cluster_queue_candidates(unit, ctx.graph)
        if not queues or not all(quota_known(cq) for cq in queues):
            continue
        sets = pod_sets(unit, ctx.graph, config)
        results = [(cq, uncovered(sets, cq)) for cq in queues]
        if not all(missing for _, missing in results):  # duplicates: only when every candidate fails
            continue
        cq, missing = results[0]
        sources = [_added_by_limit_range(ps, r, ctx) for ps, r in missing]
        explicit = [item for item, source in zip(missing, sources, strict=True)
                    if source is None or source.owner.source != INPUT]
        if explicit:
            elsewhere = {r: source for (_, r), source in zip(missing, sources, strict=True) if source is not None}
            yield _finding(ctx, unit, cq, explicit, {r: s for r, s in elsewhere.items() if s.owner.source != INPUT})
        seen: set[tuple[str, int]] = set()
        for (_, r), source in zip(missing, sources, strict=True):
            if source is not None and source.owner.source == INPUT and (r, id(source.owner)) not in seen:
                seen.add((r, id(source.owner)))
                yield _limit_range_finding(ctx, unit, cq, r, source)


def uncovered(sets: list[PodSet], cq: K8sObject) -> list[tuple[PodSet, str]]:
    """(pod set, resource) for every non-zero request ``cq`` covers in no resource group."""
    covered = covered_resources(cq)
    return [(ps, r) for ps in sets for r in sorted(ps.per_pod) if r not in covered and ps.total(r) > 0]


def _added_by_limit_range(pod_set: PodSet, resource: str, ctx: RuleContext) -> LimitDefault | None:
    """The LimitRange entry that alone makes ``pod_set`` request ``resource``, if one does."""
    own = pod_requests(pod_set.template)
    return limit_range_additions(pod_set.template, own, ctx.graph).get(resource)


def _limit_range_finding(ctx: RuleContext, unit: ManagedWorkload, cq: K8sObject, resource: str,
                         source: LimitDefault) -> Finding:
    lr = source.owner
    key = source.path[-2]
    return ctx.finding(
        at=lr.at(*source.path),
        message=fit_message(f"{lr.display()} gives {unit.display()} `{resource}: {source.value}` ({key}), which "
                            f"ClusterQueue {cq.name} does not cover: Kueue reports \"resource {resource} "
                            "unavailable in ClusterQueue\" and never admits the workload"),
        related=[(unit.label_at(QUEUE_LABEL), f"{unit.display()} is routed to ClusterQueue {cq.name}"),
                 (cq.at("spec", "resourceGroups"), f"ClusterQueue {cq.name} covers "
                                                   f"{', '.join(sorted(covered_resources(cq))) or 'nothing'}")],
        remedy=(f"Cover {resource} in a resource group of {cq.name}, remove the default from the LimitRange, "
                f"or configure Kueue to exclude it (resources.excludeResourcePrefixes)"))


def _finding(ctx: RuleContext, unit: ManagedWorkload, cq: K8sObject,
             missing: list[tuple[PodSet, str]], sources: dict[str, LimitDefault]) -> Finding:
    obj = unit.obj
    covered = covered_resources(cq)
    names = sorted({r for _, r in missing})
    spots = [(loc, f"{pod_set_text(ps.template)} requests {r} {format_amount(ps.per_pod[r])} per pod")
             for ps, r in missing if (loc := request_location(obj, ps, r)) is not None]
    spots += [(source.owner.at(*source.path), f"{source.owner.display()} adds {r} ({source.path[-2]})")
              for r, source in sorted(sources.items())]
    via = "".join(f" ({s.owner.display()} adds {r})" for r, s in sorted(sources.items())[:1])
    covers = ", ".join(sorted(covered)) or "nothing"
    return ctx.finding(
        at=unit.label_at(QUEUE_LABEL),
        message=fit_message(f"{unit.display()} requests {', '.join(names)}{via}, which its ClusterQueue {cq.name} "
                            f"does not cover: Kueue reports \"resource {names[0]} unavailable in ClusterQueue\" and "
                            "never admits the workload"),
        related=[(cq.at("spec", "resourceGroups"), f"ClusterQueue {cq.name} covers {covers}"), *spots],
        remedy=(f"Add {', '.join(names)} to a resource group of {cq.name} or send the workload to a queue "
                "that covers it"))
