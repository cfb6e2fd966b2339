"""
## What it catches
A Kueue-managed workload that requests a resource its ClusterQueue (workload → LocalQueue →
ClusterQueue) does not cover in any resource group. Requests are counted the way Kueue counts
them: per pod, containers summed, a limit without a request counting as the request, init
containers and sidecars included, a TrainJob's `resourcesPerNode` applied. A request of zero
is ignored (Kueue skips it). One finding per workload, at its `queue-name` label (the
routing); `related` lists the requests and the ClusterQueue's resource groups.

Silent when the ClusterQueue cannot be resolved (KQ203/KQ204 report that) or when only its
name is known (a profile's or config `external` ClusterQueue without `spec.resourceGroups`).

## Why it breaks on a cluster
Kueue's flavor assigner stops with `resource <name> unavailable in ClusterQueue`: the
Workload stays pending (`QuotaReserved=False`) and is never admitted, however much capacity
the cluster has. (Unless Kueue is configured with `resources.excludeResourcePrefixes` or
`quotaCheckStrategy: IgnoreUndeclared`, which kqlint cannot see.)

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
ClusterQueue covers it, or drop the request. If your Kueue Configuration excludes or
transforms resources (`resources.excludeResourcePrefixes`, `resources.transformations`, e.g.
HAMi's `nvidia.com/gpucores` → `nvidia.com/total-gpucores`), mirror it in `.kqlint.yaml` so
kqlint counts what Kueue counts:
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
from kqlint.domain.objects import K8sObject
from kqlint.domain.quantity import format_amount
from kqlint.domain.wording import pod_set_text
from kqlint.engine.rule import RuleContext, RuleMeta
from kqlint.model import Finding, Severity

# findings cache: reads managed_workloads; LocalQueue -> ClusterQueue candidates; the ClusterQueue's resource groups
META = RuleMeta(code="KQ209", slug="resource-not-covered", severity=Severity.ERROR,
                summary="a Kueue-managed workload requests a resource its ClusterQueue does not cover",
                shows_route=True,
                reads=reading.ROUTING | {K.CLUSTER_QUEUE})


@dataclass(frozen=True)
class Options:
    # Mirror of Kueue's Configuration `resources` (kqlint cannot read the running config).
    exclude_resource_prefixes: tuple[str, ...] = ()
    transformations: tuple[dict[str, Any], ...] = ()


def check(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    config = resource_config(ctx.options)
    for unit in managed_workloads(obj, ctx.graph):
        queues = cluster_queue_candidates(unit, ctx.graph)
        if not queues or not all(quota_known(cq) for cq in queues):
            continue
        sets = pod_sets(unit, ctx.graph, config)
        results = [(cq, uncovered(sets, cq)) for cq in queues]
        if all(missing for _, missing in results):  # duplicates: only when every candidate fails
            yield _finding(ctx, unit, results[0][0], results[0][1])


def uncovered(sets: list[PodSet], cq: K8sObject) -> list[tuple[PodSet, str]]:
    """(pod set, resource) for every non-zero request ``cq`` covers in no resource group."""
    covered = covered_resources(cq)
    return [(ps, r) for ps in sets for r in sorted(ps.per_pod) if r not in covered and ps.total(r) > 0]


def _finding(ctx: RuleContext, unit: ManagedWorkload, cq: K8sObject,
             missing: list[tuple[PodSet, str]]) -> Finding:
    obj = unit.obj
    covered = covered_resources(cq)
    names = sorted({r for _, r in missing})
    spots = [(loc, f"{pod_set_text(ps.template)} requests {r} {format_amount(ps.per_pod[r])} per pod")
             for ps, r in missing if (loc := request_location(obj, ps, r)) is not None]
    covers = ", ".join(sorted(covered)) or "nothing"
    return ctx.finding(
        at=unit.label_at(QUEUE_LABEL),
        message=(f"{unit.display()} requests {', '.join(names)}, which its ClusterQueue {cq.name} does not cover: "
                 f"Kueue reports \"resource {names[0]} unavailable in ClusterQueue\" and never admits the workload"),
        related=[(cq.at("spec", "resourceGroups"), f"ClusterQueue {cq.name} covers {covers}"), *spots],
        remedy=(f"Add {', '.join(names)} to a resource group of {cq.name} or send the workload to a queue "
                "that covers it"))
