"""
## What it catches
A Kueue-managed workload that yields more PodSets than a Kueue Workload's `spec.podSets`
allows on the platform's Kueue: 8 up to 0.17, 10 in 0.18, 18 from 0.19 (`MaxPodSets`). An
unknown version uses 18, so without a known version the rule fires only above every limit.
PodSets per kind, as Kueue builds them: JobSet, one per `replicatedJobs[]`; Kubeflow job
and MPIJob, one per replica type; RayCluster and RayService, the head plus one per
`workerGroupSpecs[]`; RayJob, the same plus the submitter in `K8sJobMode` (the default);
AppWrapper, one per `components[].podSets[]` written (a component without `podSets` is not
counted, so the count is a lower bound). One finding per workload, at the list key that
yields the PodSets (`replicatedJobs:`, `workerGroupSpecs:`, `pytorchReplicaSpecs:`,
`components:`), with `related` the first entry beyond the limit.

## Why it breaks on a cluster
For RayCluster, RayJob and RayService Kueue's webhook rejects the object when the head and
worker groups exceed the limit (`spec.rayClusterSpec.workerGroupSpecs: Too many`). For the
other kinds, and a RayJob whose submitter is the one PodSet too many, the object is accepted
and suspended, but Kueue can never create its Workload: the job stays suspended for ever.

## Bad
```yaml
apiVersion: ray.io/v1
kind: RayCluster
metadata:
  name: sweep
  namespace: team-a
  labels:
    kueue.x-k8s.io/queue-name: training
spec:
  headGroupSpec:
    template:
      spec:
        containers: [{name: head, image: rayproject/ray}]
  workerGroupSpecs:            # head + 18 worker groups = 19 PodSets > 18
  - {groupName: g1, replicas: 1, template: {spec: {containers: [{name: w, image: rayproject/ray}]}}}
  - {groupName: g2, replicas: 1, template: {spec: {containers: [{name: w, image: rayproject/ray}]}}}
  - {groupName: g3, replicas: 1, template: {spec: {containers: [{name: w, image: rayproject/ray}]}}}
  - {groupName: g4, replicas: 1, template: {spec: {containers: [{name: w, image: rayproject/ray}]}}}
  - {groupName: g5, replicas: 1, template: {spec: {containers: [{name: w, image: rayproject/ray}]}}}
  - {groupName: g6, replicas: 1, template: {spec: {containers: [{name: w, image: rayproject/ray}]}}}
  - {groupName: g7, replicas: 1, template: {spec: {containers: [{name: w, image: rayproject/ray}]}}}
  - {groupName: g8, replicas: 1, template: {spec: {containers: [{name: w, image: rayproject/ray}]}}}
  - {groupName: g9, replicas: 1, template: {spec: {containers: [{name: w, image: rayproject/ray}]}}}
  - {groupName: g10, replicas: 1, template: {spec: {containers: [{name: w, image: rayproject/ray}]}}}
  - {groupName: g11, replicas: 1, template: {spec: {containers: [{name: w, image: rayproject/ray}]}}}
  - {groupName: g12, replicas: 1, template: {spec: {containers: [{name: w, image: rayproject/ray}]}}}
  - {groupName: g13, replicas: 1, template: {spec: {containers: [{name: w, image: rayproject/ray}]}}}
  - {groupName: g14, replicas: 1, template: {spec: {containers: [{name: w, image: rayproject/ray}]}}}
  - {groupName: g15, replicas: 1, template: {spec: {containers: [{name: w, image: rayproject/ray}]}}}
  - {groupName: g16, replicas: 1, template: {spec: {containers: [{name: w, image: rayproject/ray}]}}}
  - {groupName: g17, replicas: 1, template: {spec: {containers: [{name: w, image: rayproject/ray}]}}}
  - {groupName: g18, replicas: 1, template: {spec: {containers: [{name: w, image: rayproject/ray}]}}}
```

## Good
```yaml
apiVersion: ray.io/v1
kind: RayCluster
metadata:
  name: sweep
  namespace: team-a
spec:                          # not Kueue-managed: Kueue builds no Workload for it
  headGroupSpec:
    template:
      spec:
        containers: [{name: head, image: rayproject/ray}]
  workerGroupSpecs:
  - {groupName: g1, replicas: 1, template: {spec: {containers: [{name: w, image: rayproject/ray}]}}}
  - {groupName: g2, replicas: 1, template: {spec: {containers: [{name: w, image: rayproject/ray}]}}}
  - {groupName: g3, replicas: 1, template: {spec: {containers: [{name: w, image: rayproject/ray}]}}}
  - {groupName: g4, replicas: 1, template: {spec: {containers: [{name: w, image: rayproject/ray}]}}}
  - {groupName: g5, replicas: 1, template: {spec: {containers: [{name: w, image: rayproject/ray}]}}}
  - {groupName: g6, replicas: 1, template: {spec: {containers: [{name: w, image: rayproject/ray}]}}}
  - {groupName: g7, replicas: 1, template: {spec: {containers: [{name: w, image: rayproject/ray}]}}}
  - {groupName: g8, replicas: 1, template: {spec: {containers: [{name: w, image: rayproject/ray}]}}}
  - {groupName: g9, replicas: 1, template: {spec: {containers: [{name: w, image: rayproject/ray}]}}}
  - {groupName: g10, replicas: 1, template: {spec: {containers: [{name: w, image: rayproject/ray}]}}}
  - {groupName: g11, replicas: 1, template: {spec: {containers: [{name: w, image: rayproject/ray}]}}}
  - {groupName: g12, replicas: 1, template: {spec: {containers: [{name: w, image: rayproject/ray}]}}}
  - {groupName: g13, replicas: 1, template: {spec: {containers: [{name: w, image: rayproject/ray}]}}}
  - {groupName: g14, replicas: 1, template: {spec: {containers: [{name: w, image: rayproject/ray}]}}}
  - {groupName: g15, replicas: 1, template: {spec: {containers: [{name: w, image: rayproject/ray}]}}}
  - {groupName: g16, replicas: 1, template: {spec: {containers: [{name: w, image: rayproject/ray}]}}}
  - {groupName: g17, replicas: 1, template: {spec: {containers: [{name: w, image: rayproject/ray}]}}}
  - {groupName: g18, replicas: 1, template: {spec: {containers: [{name: w, image: rayproject/ray}]}}}
```

## How to fix
Merge roles so the workload yields at most the limit of PodSets (worker groups or replicated
Jobs with the same pod template can be one entry with more replicas), split it into several
workloads, or upgrade Kueue (10 PodSets from 0.18, 18 from 0.19).
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from kqlint.domain import kinds as K
from kqlint.domain import reading
from kqlint.domain.fields import indexed_mappings
from kqlint.domain.kueue import managed_workloads
from kqlint.domain.objects import K8sObject
from kqlint.domain.platform import Platform, platform_of
from kqlint.domain.workloads.templates import KUBEFLOW_REPLICA_KEYS
from kqlint.engine.rule import RuleContext, RuleMeta
from kqlint.model import Finding, Severity

RAY_KINDS = frozenset({K.RAYCLUSTER, K.RAYJOB, K.RAYSERVICE})
# findings cache: reads managed_workloads (the queue-name label, or the LocalQueue `default` that routes it; a
# TrainJob's runtime is looked up by the routing) and the platform model's Kueue version
META = RuleMeta(code="KQ214", slug="too-many-podsets", severity=Severity.ERROR,
                summary="a Kueue-managed workload yields more PodSets than a Workload allows",
                kinds=frozenset(RAY_KINDS | {K.JOBSET, K.APPWRAPPER, *K.KUBEFLOW_JOBS}),
                reads=reading.ROUTING)

# Workload spec.podSets MaxItems per Kueue release (kueue.md B7/B20, jobframework.MaxPodSets)
LIMIT_UP_TO_0_17, LIMIT_0_18, LIMIT_FROM_0_19 = 8, 10, 18
SUBMITTER_MODE = "K8sJobMode"   # KubeRay's default submissionMode; Kueue adds a submitter PodSet


@dataclass(frozen=True)
class PodSetCount:
    list_path: tuple[Any, ...]            # the list key that yields the PodSets
    entries: list[tuple[Any, ...]]        # the path of each entry, in PodSet order
    extra_before: int = 0                 # PodSets ahead of the entries (a Ray head)
    extra_after: int = 0                  # PodSets after them (a RayJob's submitter)

    @property
    def total(self) -> int:
        return self.extra_before + len(self.entries) + self.extra_after


def check(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    counted = pod_set_count(obj)
    if counted is None or not managed_workloads(obj, ctx.graph):
        return
    platform = platform_of(ctx.graph)
    limit = pod_set_limit(platform)
    if counted.total <= limit:
        return
    over = limit - counted.extra_before  # index of the first entry beyond the limit
    first_over = counted.entries[over] if 0 <= over < len(counted.entries) else ("spec", "submitterPodTemplate")
    related = [(obj.at(*first_over), f"PodSet {limit + 1}: the first beyond the limit")]
    rejected = (obj.group, obj.kind) in RAY_KINDS and counted.total - counted.extra_after > limit
    if rejected:
        path = ".".join(map(str, counted.list_path))
        outcome = f"Kueue's webhook rejects it (`{path}: Too many`)"
    else:
        outcome = "no Workload can be created, so it stays suspended for ever"
    yield ctx.finding(
        at=obj.at(*counted.list_path), related=related,
        message=(f"{obj.display()} yields {counted.total} PodSets; a Workload holds at most {limit} on "
                 f"{_version_text(platform)}: {outcome}"),
        remedy=(f"Merge roles that share a pod template so the workload yields at most {limit} PodSets, "
                "split it, or upgrade Kueue (10 PodSets from 0.18, 18 from 0.19)"))


def pod_set_limit(platform: Platform) -> int:
    """Workload ``spec.podSets`` MaxItems for the platform's Kueue (unknown: the largest)."""
    if platform.kueue_at_least(0, 18) is False:
        return LIMIT_UP_TO_0_17
    if platform.kueue_at_least(0, 19) is False:
        return LIMIT_0_18
    return LIMIT_FROM_0_19


def _version_text(platform: Platform) -> str:
    version = platform.kueue_version
    return "every Kueue release" if version is None else "Kueue " + ".".join(map(str, version))


def pod_set_count(obj: K8sObject) -> PodSetCount | None:
    """The PodSets Kueue builds for ``obj``, per kind (kueue.md B20); None for other kinds."""
    kind = (obj.group, obj.kind)
    if kind == K.JOBSET:
        return _listed(obj, ("spec", "replicatedJobs"))
    if kind == K.RAYCLUSTER:
        return _ray(obj, ("spec",))
    if kind == K.RAYSERVICE:
        return _ray(obj, ("spec", "rayClusterConfig"))
    if kind == K.RAYJOB:
        if obj.get("spec", "clusterSelector") or not isinstance(obj.get("spec", "rayClusterSpec"), dict):
            return None  # an existing cluster (not managed), or rejected for other reasons (KQ004)
        counted = _ray(obj, ("spec", "rayClusterSpec"))
        submitter = (obj.get("spec", "submissionMode") or SUBMITTER_MODE) == SUBMITTER_MODE
        return PodSetCount(counted.list_path, counted.entries, 1, int(submitter))
    if kind == K.APPWRAPPER:
        return _appwrapper(obj)
    key = KUBEFLOW_REPLICA_KEYS.get(obj.kind) if obj.group == K.KUBEFLOW_GROUP else None
    if key is not None:
        specs = obj.get("spec", key)
        roles = [role for role, spec in specs.items() if isinstance(spec, dict)] if isinstance(specs, dict) else []
        return PodSetCount(("spec", key), [("spec", key, role) for role in roles])
    return None


def _listed(obj: K8sObject, path: tuple[Any, ...]) -> PodSetCount:
    return PodSetCount(path, [path + (i,) for i, _ in indexed_mappings(obj.get(*path))])


def _ray(obj: K8sObject, spec: tuple[Any, ...]) -> PodSetCount:
    """The head (always a PodSet, ``ExpectedPodSetsCount``) and one per worker group."""
    workers = _listed(obj, spec + ("workerGroupSpecs",))
    return PodSetCount(workers.list_path, workers.entries, extra_before=1)


def _appwrapper(obj: K8sObject) -> PodSetCount:
    entries = []
    for index, component in indexed_mappings(obj.get("spec", "components")):
        entries += [("spec", "components", index, "podSets", i) for i, _ in indexed_mappings(component.get("podSets"))]
    return PodSetCount(("spec", "components"), entries)
