"""
## What it catches
A pod template of a Kueue-managed workload that requests nothing, while its ClusterQueue's
flavors carry `nodeLabels`, `nodeTaints` or `tolerations`. "Requests nothing": no container
or init container has a `resources.requests` or `resources.limits` entry, no LimitRange
default of the namespace (in the inputs or context) adds one, the pod sets no pod-level
`resources` or `overhead`, and it names no RuntimeClass with an overhead. One finding per pod
template, at its first container's `name:`, with `related` the ClusterQueue and the flavors.

Silent when the ClusterQueue covers the resource `pods` (every pod set then requests `pods`
and gets a flavor), when no flavor carries those fields, when the template names a
RuntimeClass that cannot be resolved (it may add an overhead), and when the template is not
Kueue-managed or its LocalQueue or ClusterQueue cannot be resolved.

## Why it breaks on a cluster
Kueue assigns a flavor per requested resource, so a pod set with no requests gets no flavor
(kueue#891). The workload is admitted without using quota, and the flavor's `nodeLabels`
(as a nodeSelector) and `tolerations` are never injected into its pods: they may land on
nodes the flavor was meant to keep them off, or on nodes outside every flavor.

## Bad
```yaml
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: spot
spec:
  nodeLabels:
    instance-type: spot
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: batch
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: ["cpu"]
    flavors:
    - name: spot
      resources:
      - name: cpu
        nominalQuota: 64
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  name: batch
  namespace: team-a
spec:
  clusterQueue: batch
---
apiVersion: batch/v1
kind: Job
metadata:
  name: sweep
  namespace: team-a
  labels:
    kueue.x-k8s.io/queue-name: batch
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main            # no requests: no flavor, no nodeSelector instance-type=spot
        image: busybox
```

## Good
```yaml
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: spot
spec:
  nodeLabels:
    instance-type: spot
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: batch
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: ["cpu"]
    flavors:
    - name: spot
      resources:
      - name: cpu
        nominalQuota: 64
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  name: batch
  namespace: team-a
spec:
  clusterQueue: batch
---
apiVersion: batch/v1
kind: Job
metadata:
  name: sweep
  namespace: team-a
  labels:
    kueue.x-k8s.io/queue-name: batch
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox
        resources:
          requests:
            cpu: 100m
```

## How to fix
Give a container a request of a resource the ClusterQueue covers (e.g. `cpu: 100m`), or
cover `pods` in the ClusterQueue (every pod set then requests `pods` and gets a flavor).
"""
from __future__ import annotations

from collections.abc import Iterator

from kqlint.domain import kinds as K
from kqlint.domain import reading
from kqlint.domain.fields import text
from kqlint.domain.kueue import cluster_queue_candidates, covered_resources, managed_templates, quota_known
from kqlint.domain.kueue.activity import queue_flavors
from kqlint.domain.kueue.limitranges import LIMIT_RANGE, defaulted_requests
from kqlint.domain.objects import K8sObject
from kqlint.domain.podspec import containers
from kqlint.domain.quantity import resource_list
from kqlint.domain.wording import fit_message, template_text
from kqlint.domain.workloads import PodTemplate
from kqlint.engine.rule import RuleContext, RuleMeta
from kqlint.model import Finding, Location, Severity

RUNTIME_CLASS = K.GroupKind("node.k8s.io", "RuntimeClass")
# findings cache: reads managed_templates; LocalQueue -> ClusterQueue; its ResourceFlavors; the namespace's
# LimitRanges; the RuntimeClass a template names
META = RuleMeta(code="KQ215", slug="workload-without-requests", severity=Severity.WARNING,
                summary="a Kueue-managed pod template requests nothing, so it gets no flavor and no node placement",
                shows_route=True,
                reads=reading.ROUTING | {K.CLUSTER_QUEUE, K.RESOURCE_FLAVOR, LIMIT_RANGE, RUNTIME_CLASS})

PODS = "pods"
PLACEMENT_FIELDS = ("nodeLabels", "nodeTaints", "tolerations")


def check(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    for template, unit in managed_templates(obj, ctx.graph):
        if not _requests_nothing(template, ctx):
            continue
        queues = cluster_queue_candidates(unit, ctx.graph)
        if len(queues) != 1 or not quota_known(queues[0]) or PODS in covered_resources(queues[0]):
            continue
        cq = queues[0]
        placing = _placing_flavors(cq, ctx)
        if not placing:
            continue
        first = template.owner.at(*template.spec_path, "containers", 0, "name")
        related: list[tuple[Location, str]] = [(cq.at("metadata", "name"), f"ClusterQueue {cq.name}")]
        related += [(flavor.at("spec", field), f"flavor {flavor.name} sets {field}") for flavor, field in placing]
        names = ", ".join(flavor.name for flavor, _ in placing)
        yield ctx.finding(
            at=first, related=related,
            message=fit_message(f"{unit.display()}: the {template_text(template)} requests nothing, so Kueue "
                                f"assigns it no flavor of ClusterQueue {cq.name}: it is admitted without quota and "
                                f"the nodeLabels/tolerations of {names} are never injected"),
            remedy="Request a resource the ClusterQueue covers (e.g. `cpu: 100m`), or cover `pods` in the "
                   "ClusterQueue")


def _placing_flavors(cq: K8sObject, ctx: RuleContext) -> list[tuple[K8sObject, str]]:
    """(ResourceFlavor, first placement field it sets) for each resolved flavor of ``cq`` that
    sets nodeLabels, nodeTaints or tolerations."""
    def build() -> list[tuple[K8sObject, str]]:
        found = []
        for name in sorted(queue_flavors(cq)):
            flavor = ctx.graph.resolve(K.RESOURCE_FLAVOR.kind, name, group=K.KUEUE_GROUP)
            field = next((f for f in PLACEMENT_FIELDS if flavor is not None and flavor.get("spec", f)), None)
            if flavor is not None and field is not None:
                found.append((flavor, field))
        return found
    return ctx.graph.memo((_placing_flavors, id(cq), cq), build)


def _requests_nothing(template: PodTemplate, ctx: RuleContext) -> bool:
    spec = template.spec
    if spec.get("resources") or spec.get("overhead") or not containers(spec):
        return False
    if any(resource_list(c.resources, key) for c in containers(spec) for key in ("requests", "limits")):
        return False
    runtime = text(spec.get("runtimeClassName"))
    if runtime is not None:
        runtime_class = ctx.graph.resolve(RUNTIME_CLASS.kind, runtime, group=RUNTIME_CLASS.group)
        if runtime_class is None or runtime_class.get("overhead", "podFixed"):
            return False  # an overhead (or perhaps one): the pod set requests it
    return not defaulted_requests(template, ctx.graph)  # LimitRange defaults (and a TrainJob's resourcesPerNode)
