"""
## What it catches
A Kueue-managed pod set for which, in a resource group of its ClusterQueue that covers a
resource it requests, no flavor passes Kueue's per-flavor checks (`checkFlavorForPodSets`):
(1) every `NoSchedule`/`NoExecute` taint of the flavor's `nodeTaints` must be tolerated by the
pod's `tolerations` or the flavor's own `tolerations`; (2) `nodeSelector` keys among the
flavor's `nodeLabels` keys must have equal values; (3) required node affinity, reduced to the
flavor's label keys (a term left empty drops the whole affinity), must match the flavor's
`nodeLabels`. One finding per pod set, at the `tolerations:`, `nodeSelector:` or `affinity:`
key that rejected the last flavor; `related` the ClusterQueue's resource group and each flavor
with Kueue's reason.

Silent when a flavor cannot be resolved (KQ206) or is known by name only, when the resource
is not covered (KQ209), or when the LocalQueue or ClusterQueue cannot be resolved. Not
judged here: Topology Aware Scheduling (KQ218) and pod sets of one `podset-group-name` group.

## Why it breaks on a cluster
The Workload stays pending for ever: `NoMatchingFlavor`, with `untolerated taint ... in
flavor X` or `flavor X doesn't match node affinity` per flavor.

## Bad
```yaml
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: h100
spec:
  nodeLabels:
    gpu: h100
  nodeTaints:
  - key: nvidia.com/gpu
    value: present
    effect: NoSchedule
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: gpu
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: ["nvidia.com/gpu"]
    flavors:
    - name: h100
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
      tolerations:              # does not tolerate nvidia.com/gpu=present:NoSchedule
      - key: dedicated
        operator: Exists
      containers:
      - name: main
        image: busybox
        resources:
          limits:
            nvidia.com/gpu: 1
```

## Good
The same, with the toleration the flavor's taint needs:
```yaml
      tolerations:
      - key: nvidia.com/gpu
        operator: Exists
        effect: NoSchedule
```

## How to fix
Tolerate the flavor's taint, or make `nodeSelector`/required node affinity agree with one of
the flavor's `nodeLabels`; or send the workload to a ClusterQueue whose flavors suit it.
"""
from __future__ import annotations

from collections.abc import Iterator

from kqlint.domain import kinds as K
from kqlint.domain import reading
from kqlint.domain.kueue import (
    ManagedWorkload,
    PodSet,
    cluster_queue_candidates,
    managed_workloads,
    pod_sets,
    quota_known,
    resource_config,
)
from kqlint.domain.kueue.flavors import FlavorCheck, rejecting_group
from kqlint.domain.kueue.limitranges import LIMIT_RANGE
from kqlint.domain.objects import K8sObject
from kqlint.domain.wording import fit_message, pod_set_text
from kqlint.engine.rule import RuleContext, RuleMeta
from kqlint.model import Finding, Location, Severity

# findings cache: reads managed_workloads; LocalQueue -> ClusterQueue candidates; the ClusterQueue's resource groups
# and their ResourceFlavors (group_checks); the namespace's LimitRanges (pod_sets' requests)
META = RuleMeta(code="KQ217", slug="no-matching-flavor", severity=Severity.ERROR,
                summary="no flavor of the ClusterQueue suits a pod set's tolerations, nodeSelector or node affinity",
                shows_route=True,
                reads=reading.ROUTING | {K.CLUSTER_QUEUE, K.RESOURCE_FLAVOR, LIMIT_RANGE})


def check(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    config = resource_config(ctx.options, ctx.graph)
    for unit in managed_workloads(obj, ctx.graph):
        queues = cluster_queue_candidates(unit, ctx.graph)
        if len(queues) != 1 or not quota_known(queues[0]):
            continue  # unresolved, or duplicates (KQ003): not judged
        cq = queues[0]
        for pod_set in pod_sets(unit, ctx.graph, config):
            rejected = rejecting_group(pod_set, cq, ctx.graph)
            if rejected is not None and not pod_set.template.generated:
                yield _finding(ctx, unit, pod_set, cq, *rejected)


def _finding(ctx: RuleContext, unit: ManagedWorkload, pod_set: PodSet, cq: K8sObject,
             group: int, checks: list[FlavorCheck]) -> Finding:
    template = pod_set.template
    last = checks[-1]
    at = template.owner.at(*template.spec_path, last.blocker) if last.blocker else template.owner.at(
        *template.spec_path)
    reasons = "; ".join(c.reason or "" for c in checks)
    message = (f"{unit.display()}: no flavor of ClusterQueue {cq.name} suits {pod_set_text(template)}, so the "
               f"Workload stays pending for ever (NoMatchingFlavor): {reasons}")
    message = fit_message(message)
    related: list[tuple[Location, str]] = [(cq.at("spec", "resourceGroups", group),
                                            f"ClusterQueue {cq.name}: the resource group")]
    related += [(_flavor_spot(c), c.reason or "") for c in checks]
    return ctx.finding(at=at, message=message, related=related,
                       remedy=("Tolerate the flavor's taints or make nodeSelector/node affinity agree with a "
                               "flavor's nodeLabels, or use a ClusterQueue whose flavors suit the pods."))


def _flavor_spot(check: FlavorCheck) -> Location:
    field = "nodeTaints" if check.blocker == "tolerations" else "nodeLabels"
    return check.flavor.at("spec", field)
