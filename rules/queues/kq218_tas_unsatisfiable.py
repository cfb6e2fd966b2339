"""
## What it catches
A Kueue-managed pod set that can get no flavor because of Topology Aware Scheduling
(`checkPodSetAndFlavorMatchForTAS`), judged per resource group of its ClusterQueue that covers a
resource it requests:
(a) the pod template asks for TAS explicitly (`kueue.x-k8s.io/podset-required-topology`,
`podset-preferred-topology`, `podset-unconstrained-topology`, `podset-slice-required-topology`
with `podset-slice-size`, or `podset-slice-required-topology-constraints`) and every flavor of
the group either has no `topologyName` ("does not support TopologyAwareScheduling") or a
Topology whose `spec.levels[].nodeLabel` lacks a requested level: the required or preferred
level (a missing *preferred* level rejects the flavor too), the slice level, or a level of the
constraints ("does not contain the requested level"). Points at the topology annotation.
(b) the pod template asks for no TAS, the ClusterQueue is not TAS-only (some flavor has no
`topologyName`), and every flavor of the group has one ("supports only
TopologyAwareScheduling"). Points at the pod template's `metadata:` (or `spec:`).
`related`: the ClusterQueue's resource group, each flavor with Kueue's reason, and the
Topologies.

Silent on a TAS-only ClusterQueue for a pod set without explicit TAS (TAS is implied), when a
flavor or Topology cannot be resolved (KQ206, KQ216), when the platform's Kueue is older than
0.14 (TAS off by default), when the ClusterQueue has a MultiKueue admission check or one that
cannot be resolved (topology is then judged on the worker clusters), and where kqlint cannot
read the request (a malformed annotation, KQ004; the multi-layer annotation before Kueue 0.19).

## Why it breaks on a cluster
Kueue skips every flavor of the group for the pod set, so the Workload never fits and stays
pending for ever, with `Flavor "X" does not support TopologyAwareScheduling`, `Flavor "X" does
not contain the requested level` or `Flavor "X" supports only TopologyAwareScheduling`.

## Bad
```yaml
apiVersion: kueue.x-k8s.io/v1beta2
kind: Topology
metadata:
  name: default
spec:
  levels:
  - nodeLabel: cloud.provider.com/topology-block
  - nodeLabel: kubernetes.io/hostname
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: tas-flavor
spec:
  nodeLabels:
    cloud.provider.com/node-group: tas
  topologyName: default
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: tas
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: ["cpu"]
    flavors:
    - name: tas-flavor
      resources:
      - name: cpu
        nominalQuota: 100
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  name: tas
  namespace: ml
spec:
  clusterQueue: tas
---
apiVersion: batch/v1
kind: Job
metadata:
  name: train
  namespace: ml
  labels:
    kueue.x-k8s.io/queue-name: tas
spec:
  template:
    metadata:
      annotations:
        kueue.x-k8s.io/podset-required-topology: cloud.provider.com/topology-rack  # not a level
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox
        resources:
          requests:
            cpu: "1"
```

## Good
The same, asking for a level the Topology has:
```yaml
        kueue.x-k8s.io/podset-required-topology: cloud.provider.com/topology-block
```

## How to fix
Ask for a level the flavor's Topology defines (or add the level to the Topology), send the
workload to a ClusterQueue whose flavors have a `topologyName`, or, for (b), add the TAS
annotation (or make every flavor of the ClusterQueue a TAS flavor, which implies TAS).
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from kqlint.domain import kinds as K
from kqlint.domain import reading
from kqlint.domain.kinds import KUEUE_GROUP, GroupKind
from kqlint.domain.kueue import (
    ManagedWorkload,
    PodSet,
    cluster_queue_candidates,
    managed_workloads,
    pod_sets,
    quota_known,
    resource_config,
)
from kqlint.domain.kueue.flavors import FlavorCheck
from kqlint.domain.kueue.tas import (
    TasRejection,
    TopologyRequest,
    missing_level,
    tas_rejecting_group,
    topology_name,
    topology_of,
)
from kqlint.domain.objects import K8sObject
from kqlint.domain.platform import platform_of
from kqlint.domain.wording import pod_set_text
from kqlint.engine.rule import RuleContext, RuleMeta
from kqlint.model import Finding, Location, Severity

if TYPE_CHECKING:
    from kqlint.domain.workloads.templates import PodTemplate

TAS_SINCE = (0, 14)   # TopologyAwareScheduling on by default (beta)
MULTIKUEUE = "kueue.x-k8s.io/multikueue"
TOPOLOGY = GroupKind(KUEUE_GROUP, "Topology")
ADMISSION_CHECK = GroupKind(KUEUE_GROUP, "AdmissionCheck")
MESSAGE_LIMIT = 240

# findings cache: reads managed_workloads; LocalQueue -> ClusterQueue candidates; the ClusterQueue's flavors,
# their Topologies and its AdmissionChecks (MultiKueue); the platform's Kueue version (in every graph key)
META = RuleMeta(code="KQ218", slug="tas-unsatisfiable", severity=Severity.ERROR,
                summary="Topology Aware Scheduling rejects every flavor of the ClusterQueue for a pod set",
                shows_route=True,
                reads=reading.ROUTING | {K.CLUSTER_QUEUE, K.RESOURCE_FLAVOR, TOPOLOGY, ADMISSION_CHECK})


def check(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    version = platform_of(ctx.graph).kueue_version
    if version is not None and version < TAS_SINCE:
        return
    config = resource_config(ctx.options, ctx.graph)
    for unit in managed_workloads(obj, ctx.graph):
        queues = cluster_queue_candidates(unit, ctx.graph)
        if len(queues) != 1 or not quota_known(queues[0]) or not _checks_judged_here(queues[0], ctx):
            continue
        for pod_set in pod_sets(unit, ctx.graph, config):
            rejection = tas_rejecting_group(pod_set, queues[0], ctx.graph, version)
            if rejection is not None and not pod_set.template.generated:
                yield _finding(ctx, unit, pod_set, queues[0], rejection)


def _checks_judged_here(cq: K8sObject, ctx: RuleContext) -> bool:
    """No MultiKueue admission check (topology is judged on the workers), and no check that
    cannot be resolved (it might be one)."""
    strategy = cq.get("spec", "admissionChecksStrategy", "admissionChecks")
    names = [c.get("name") for c in strategy if isinstance(c, dict)] if isinstance(strategy, list) else []
    listed = cq.get("spec", "admissionChecks")
    names += listed if isinstance(listed, list) else []
    for name in names:
        check = ctx.graph.resolve("AdmissionCheck", name, None, KUEUE_GROUP)
        if check is None or check.get("spec", "controllerName") in (MULTIKUEUE, None):
            return False
    return True


def _finding(ctx: RuleContext, unit: ManagedWorkload, pod_set: PodSet, cq: K8sObject,
             rejection: TasRejection) -> Finding:
    template = pod_set.template
    reasons = "; ".join(c.reason or "" for c in rejection.checks)
    message = (f"{unit.display()}: Topology Aware Scheduling rejects every flavor of ClusterQueue {cq.name} for "
               f"{pod_set_text(template)}, so the Workload stays pending for ever: {reasons}")
    if len(message) > MESSAGE_LIMIT:
        message = message[:MESSAGE_LIMIT - 3] + "..."
    related: list[tuple[Location, str]] = [(cq.at("spec", "resourceGroups", rejection.group),
                                            f"ClusterQueue {cq.name}: the resource group")]
    related += [(_flavor_spot(c), c.reason or "") for c in rejection.checks]
    related += _topologies(rejection.checks, ctx)
    request = rejection.request
    if isinstance(request, TopologyRequest):
        return ctx.finding(at=_annotation_spot(template, request, rejection.checks, ctx), message=message,
                           related=related,
                           remedy=("Ask for a level the flavors' Topology defines (or add it to the Topology), or use "
                                   "a ClusterQueue whose flavors have a topologyName"))
    at = template.owner.at(*template.meta_path) if template.meta_path and template.owner.has(
        *template.meta_path) else template.owner.at(*template.path)
    return ctx.finding(at=at, message=message, related=related,
                       remedy=("Add a kueue.x-k8s.io/podset-*-topology annotation to the pod template, or give "
                               "every flavor of the ClusterQueue a topologyName (TAS is then implied)"))


def _annotation_spot(template: PodTemplate, request: TopologyRequest, checks: list[FlavorCheck],
                     ctx: RuleContext) -> Location:
    """The annotation naming the level the last flavor with a Topology lacks, else the first
    TAS annotation."""
    key = request.annotation
    for check in reversed(checks):
        missing = missing_level(request, check.flavor, ctx.graph) if topology_name(check.flavor) else None
        if missing is not None:
            key = missing[1]
            break
    return template.owner.at(*(template.meta_path or ()), "annotations", key)


def _flavor_spot(check: FlavorCheck) -> Location:
    flavor = check.flavor
    return flavor.at("spec", "topologyName") if topology_name(flavor) else flavor.at("spec")


def _topologies(checks: list[FlavorCheck], ctx: RuleContext) -> list[tuple[Location, str]]:
    found: dict[str, tuple[Location, str]] = {}
    for check in checks:
        topology = topology_of(check.flavor, ctx.graph) if topology_name(check.flavor) else None
        if topology is not None and topology.name not in found:
            found[topology.name] = (topology.at("spec", "levels"), f"Topology {topology.name}: its levels")
    return list(found.values())
