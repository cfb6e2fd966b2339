"""
## What it catches
A ClusterQueue Kueue marks `Active=False` for a reason the manifests show, so it admits
nothing, whether or not a workload uses it yet (kueue.md B22). One finding per cause.

On the ClusterQueue, at the admission check entry's `name:` (v1beta1 `spec.admissionChecks[]`
item): `AdmissionCheckNotFound` (an AdmissionCheck that cannot be resolved);
`MultipleMultiKueueAdmissionChecks` (more than one check whose `controllerName` is
`kueue.x-k8s.io/multikueue`); `MultiKueueAdmissionCheckAppliedPerFlavor` (a MultiKueue check
with `onFlavors` that are not all the queue's flavors); `MultiKueueWithProvisioningRequest`
(a MultiKueue and a `kueue.x-k8s.io/provisioning-request` check on one queue).

On an AdmissionCheck used by a ClusterQueue, at `spec.parameters` (or below): the
`AdmissionCheckInactive` verdict of Kueue's own controllers. Provisioning request
(`BadParametersRef`): `parameters` missing, `name` empty, `apiGroup` not `kueue.x-k8s.io`,
`kind` not `ProvisioningRequestConfig`, or a ProvisioningRequestConfig that cannot be
resolved. MultiKueue: the same for `MultiKueueConfig` (`BadConfig`), or a MultiKueueConfig
none of whose `clusters` resolves (`NoUsableClusters`; some missing is `SomeActiveClusters`,
still active). `related`: the ClusterQueues that use it.

On a ResourceFlavor used by a ClusterQueue, at `spec.topologyName`: `TopologyNotFound`, a
Topology that cannot be resolved. Not for ClusterQueues with a MultiKueue check (Kueue skips
the TAS check there), nor where the platform's Kueue is older than 0.14 (TAS off by default).

Not reported: `FlavorNotFound` (KQ206), `Stopped` (a deliberate `stopPolicy`), cohort cycles
(KQ220), checks of other controllers (their activity is not knowable). A name that may be
defined elsewhere (another unit, an ambiguous namespace) is not reported missing, nor is any
name of a kind (AdmissionCheck, ProvisioningRequestConfig, MultiKueueConfig,
MultiKueueCluster, Topology) the run holds no object of, in the inputs, `--context`, config
`external` or the profile: those objects are then managed elsewhere.

## Why it breaks on a cluster
An inactive ClusterQueue admits no workload: every LocalQueue pointing at it holds its
workloads pending, with the ClusterQueue's `Active` condition saying `Can't admit new
workloads` and the reason above.

## Bad
```yaml
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: team-a
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: ["cpu"]
    flavors:
    - name: default
      resources:
      - name: cpu
        nominalQuota: 8
  admissionChecksStrategy:
    admissionChecks:
    - name: dws-prov          # no AdmissionCheck of that name
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata:
  name: dws-provisioning
spec:
  controllerName: example.com/approval
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: default
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
  - coveredResources: ["cpu"]
    flavors:
    - name: default
      resources:
      - name: cpu
        nominalQuota: 8
  admissionChecksStrategy:
    admissionChecks:
    - name: dws-prov
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata:
  name: dws-prov
spec:
  controllerName: kueue.x-k8s.io/provisioning-request
  parameters:
    apiGroup: kueue.x-k8s.io
    kind: ProvisioningRequestConfig
    name: dws-config
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ProvisioningRequestConfig
metadata:
  name: dws-config
spec:
  provisioningClassName: queued-provisioning.gke.io
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: default
```

## How to fix
Create the AdmissionCheck (or fix its name); keep one MultiKueue check per ClusterQueue,
applied to all its flavors and not beside a ProvisioningRequest check; point an
AdmissionCheck's `parameters` at an existing config of its controller's kind
(`ProvisioningRequestConfig`, `MultiKueueConfig` with existing MultiKueueClusters); create the
Topology a ResourceFlavor's `topologyName` names.
"""
from __future__ import annotations

from collections.abc import Iterator

from kqlint.domain import kinds as K
from kqlint.domain.kueue.activity import (
    ADMISSION_CHECK,
    INACTIVE,
    MULTIKUEUE_CLUSTER,
    MULTIKUEUE_CONFIG,
    PROVISIONING_REQUEST_CONFIG,
    TAS_ON_BY_DEFAULT,
    TOPOLOGY,
    TOPOLOGY_NOT_FOUND,
    Cause,
    has_multikueue_check,
    inactive_check,
    missing_topology,
    queue_causes,
    queues_naming,
)
from kqlint.domain.objects import K8sObject
from kqlint.domain.platform import platform_of
from kqlint.domain.wording import fit_message
from kqlint.engine.rule import RuleContext, RuleMeta
from kqlint.model import Finding, Location, Severity

# findings cache: reads the ClusterQueue's AdmissionChecks; an AdmissionCheck's or ResourceFlavor's ClusterQueues
# (and their checks), the configs a check names (ProvisioningRequestConfig, MultiKueueConfig, MultiKueueCluster),
# the Topology a flavor names
META = RuleMeta(code="KQ216", slug="cluster-queue-inactive", severity=Severity.ERROR,
                summary="a ClusterQueue is inactive (Active=False) for a reason the manifests show",
                kinds=frozenset({K.CLUSTER_QUEUE, ADMISSION_CHECK, K.RESOURCE_FLAVOR}),
                reads=frozenset({K.CLUSTER_QUEUE, ADMISSION_CHECK, K.RESOURCE_FLAVOR, TOPOLOGY,
                                 PROVISIONING_REQUEST_CONFIG, MULTIKUEUE_CONFIG, MULTIKUEUE_CLUSTER}))

INACTIVE_QUEUE = "Kueue marks the ClusterQueue inactive and it admits nothing"


def check(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    if K.CLUSTER_QUEUE.of(obj):
        for cause in queue_causes(obj, ctx.graph):
            yield _queue_finding(obj, cause, ctx)
    elif ADMISSION_CHECK.of(obj):
        yield from _check_findings(obj, ctx)
    elif K.RESOURCE_FLAVOR.of(obj):
        yield from _flavor_findings(obj, ctx)


def _queue_finding(cq: K8sObject, cause: Cause, ctx: RuleContext) -> Finding:
    entry = cause.entry
    at = cq.at_value(*entry.path) if isinstance(entry.path[-1], int) else cq.at(*entry.path)
    related: list[tuple[Location, str]] = [(cq.at(*other.path), f"AdmissionCheck `{other.name}`")
                                           for other in cause.others]
    related += [(e.target.at("spec", "controllerName"), f"AdmissionCheck {e.name}: controller {e.controller}")
                for e in (entry, *cause.others) if e.target is not None and e.target.root is not None]
    return ctx.finding(
        at=at, related=related,
        message=fit_message(f"ClusterQueue {cq.name}: {INACTIVE_QUEUE} ({cause.reason}: {cause.detail})"),
        remedy=_QUEUE_REMEDY[cause.reason])


_QUEUE_REMEDY = {
    "AdmissionCheckNotFound": "Create the AdmissionCheck or fix the name (declare checks managed elsewhere under "
                              "`external:` in .kqlint.yaml)",
    "MultipleMultiKueueAdmissionChecks": "Keep one MultiKueue AdmissionCheck on the ClusterQueue",
    "MultiKueueAdmissionCheckAppliedPerFlavor": "Drop `onFlavors` from the MultiKueue check (it applies to every "
                                                "flavor)",
    "MultiKueueWithProvisioningRequest": "Use the ProvisioningRequest check on the worker clusters, not beside "
                                         "MultiKueue on the manager",
}


def _check_findings(ac: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    queues = list(queues_naming(ADMISSION_CHECK.kind, ac.name, ctx.graph))
    problem = inactive_check(ac, ctx.graph) if queues else None
    if problem is None:
        return
    names = ", ".join(cq.name for cq in queues)
    yield ctx.finding(
        at=ac.at(*problem.path),
        related=[(cq.at("metadata", "name"), f"ClusterQueue {cq.name} uses it") for cq in queues],
        message=fit_message(f"{ac.display()} is inactive ({problem.reason}: {problem.detail}), so Kueue marks "
                       f"ClusterQueue {names} inactive ({INACTIVE}) and it admits nothing"),
        remedy=("Point spec.parameters at an existing config of the controller's kind (apiGroup kueue.x-k8s.io, "
                "kind ProvisioningRequestConfig or MultiKueueConfig) whose MultiKueueClusters exist"))


def _flavor_findings(flavor: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    topology = missing_topology(flavor, ctx.graph)
    if topology is None or platform_of(ctx.graph).kueue_at_least(*TAS_ON_BY_DEFAULT) is False:
        return
    queues = [cq for cq in queues_naming(K.RESOURCE_FLAVOR.kind, flavor.name, ctx.graph)
              if not has_multikueue_check(cq, ctx.graph)]  # MultiKueue: topology is judged on the workers
    if not queues:
        return
    names = ", ".join(cq.name for cq in queues)
    yield ctx.finding(
        at=flavor.at("spec", "topologyName"),
        related=[(cq.at("metadata", "name"), f"ClusterQueue {cq.name} uses flavor {flavor.name}") for cq in queues],
        message=fit_message(f"{flavor.display()}: there is no Topology \"{topology}\" for TAS flavor "
                            f"\"{flavor.name}\", so Kueue marks ClusterQueue {names} inactive "
                            f"({TOPOLOGY_NOT_FOUND}) and it admits nothing"),
        remedy=f"Create Topology `{topology}` or fix spec.topologyName")
