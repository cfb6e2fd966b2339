"""
## What it catches
Objects the API server or Kueue's webhook refuses at apply time for a reason a JSON Schema
cannot express (kueue.md B8, B9, B13):
- a ClusterQueue flavor whose `resources` do not follow the order of `coveredResources`;
- a resource or a flavor named in two resource groups of one ClusterQueue;
- `lendingLimit` on a ClusterQueue without a cohort;
- `lendingLimit` above `nominalQuota`;
- a pod-group member (a Pod, or a pod template) with only one of the label
  `kueue.x-k8s.io/pod-group-name` and the annotation `kueue.x-k8s.io/pod-group-total-count`,
  or a total count that is not a positive number.
- a LeaderWorkerSet the LWS webhook refuses: a name that is not a DNS-1035 label, `replicas`
  outside 0–1000000, `size` below 1, `replicas × size` above 2147483647, `maxUnavailable` or
  `maxSurge` negative, not a percentage or above 100% (or both 0 while replicas are not), a
  `subGroupSize` below 1, larger than `size`, or dividing neither `size` nor `size - 1`
  (`size - 1` with `LeaderExcluded`), the subgroup-exclusive-topology annotation without a
  subgroup policy.
- a JobSet the JobSet webhook refuses: child Job names (`<jobset>-<replicatedJob>-<index>`) or,
  for an Indexed job with `completions`, pod names that are not DNS-1035 labels of at most 63
  characters; `dependsOn` on the first replicatedJob or naming no earlier one; `replicas ×
  parallelism` above 2147483647; a `groupName` that is not a DNS-1035 label; a success policy
  naming no replicatedJob; a `network.subdomain` that is not a DNS-1035 label; a `managedBy`
  that is not a domain-prefixed path of at most 63 characters; failure-policy rules with a name
  outside `^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$` (no `-`), longer than 128 characters or
  repeated, a target naming no replicatedJob, an `onJobFailureReasons` entry Kubernetes never
  gives, or a `RestartJob` action with a replicatedJob of more than 1024 replicas; a
  `coordinator` naming no replicatedJob, a job or pod index out of range, a replicatedJob that
  is not Indexed with `completions`, or an endpoint (`<jobset>-<rjob>-<job>-<pod>.<subdomain>`)
  longer than a label value.
- a KAI PodGroup with two subgroups of one name, a subgroup `parent` naming no subgroup, parents
  forming a cycle, or `minMember` with `minSubGroup`; a KAI Queue without `spec.resources`.
- a Job, JobSet, Kubeflow job, RayJob, RayCluster, RayService or AppWrapper Kueue's job webhook
  refuses: a `kueue.x-k8s.io/queue-name` label that is not a DNS-1123 subdomain; a
  `kueue.x-k8s.io/max-exec-time-seconds` label that is not an integer above 0; a Job's
  `kueue.x-k8s.io/job-min-parallelism` (partial admission) that is not an integer from 1 to one
  less than its pods (parallelism, or completions when fewer), or that comes with
  `kueue.x-k8s.io/elastic-job: "true"` where elastic jobs are on; a Job's
  `kueue.x-k8s.io/job-completions-equal-parallelism` that is not a boolean, or true on a Job
  that is not Indexed or whose completions differ from its parallelism; on a pod
  template, more than one of the `podset-required-topology`, `podset-preferred-topology`,
  `podset-unconstrained-topology` annotations (`must not contain more than one topology
  annotation`), a required/preferred/slice-required level that is not a label name, an
  unconstrained value that is not a boolean, `podset-slice-required-topology` without
  `podset-slice-size` or the reverse, a slice size that is not a whole number from 1 to the
  pod set's count, a `podset-group-name` that is a number, lacks a required or preferred
  topology, sits beside the slice annotations, or is not shared by exactly two pod sets (one of
  count 1, both with the same topology), a `podset-slice-required-topology-constraints` that
  is not a JSON list of 1–3 layers with unique label names and sizes ≥ 1 each dividing the one
  above, or sits beside the two-level slice annotations or a group name; for a Ray kind with a
  `queue-name` label, a worker group named `head`, and a RayJob with both or neither of
  `clusterSelector` and `rayClusterSpec`, or without `shutdownAfterJobFinishes: true`. Silent
  where Kueue's webhook never sees the object: its integration is off (the platform's
  `integrations`; a disabled integration's webhook is a no-op), or it lives in `kube-system` or
  `kueue-system`, which every job webhook's `namespaceSelector` leaves out.
- what depends on the platform's Kueue release (configured, or pinned by the repository; unknown
  counts as the newest) and on the feature gates the manager's `featureGates` or
  `--feature-gates` set: `podset-slice-required-topology-constraints` on Kueue 0.17 or 0.18, or
  with `TASMultiLayerTopology` turned off (`the TASMultiLayerTopology feature gate must be
  enabled to use this annotation`; releases before 0.17 ignore the annotation); a Job with
  `kueue.x-k8s.io/elastic-job: "true"` and a required or preferred topology (`required topology
  is not supported with elastic jobs`; Kueue 0.18 or later, where `ElasticJobsViaWorkloadSlices`
  is on by default); the `elastic-job` annotation on a JobSet, Kubeflow job, AppWrapper, TrainJob
  (or a Deployment, StatefulSet, LeaderWorkerSet whose integration is on) (`elastic job is not
  supported for …`: only a Job, RayCluster, RayJob or RayService can be elastic). No TAS
  annotation is judged where `TopologyAwareScheduling` is off (before 0.14, or turned off).
- a Volcano Job with no task, an unknown plugin, an `mpi` plugin without its master task,
  two tasks of one name, a task name that is not a DNS-1123 label, or a job or pod name
  (`<job>-<task>-<position>`) longer than 63 characters; a `partitionPolicy` with
  `totalPartitions` or `partitionSize` below 1, `replicas` other than their product, or a
  `minAvailable` other than `minPartitions × partitionSize`; a `networkTopology` (job or
  partition) with both `highestTierAllowed` and `highestTierName`; a `topologyPolicy` other than
  `none` with a container that does not request whole CPUs; lifecycle policies (job or task)
  with an event the webhook refuses (`PodRunning`, `OutOfSync`, `CommandIssued`), an unknown
  action, both events and `exitCode` or neither, exit code 0, an event or exit code in two
  policies, or `*` beside other events; volumes without a `mountPath`, with a repeated one, or
  with neither `volumeClaimName` nor `volumeClaim`; task `dependsOn` names that do not form a
  DAG.
- a Volcano PodGroup whose `networkTopology` (or a `subGroupPolicy` entry's) sets both
  `highestTierAllowed` and `highestTierName`; a Volcano Queue whose `volcano.sh/hierarchy` and
  `volcano.sh/hierarchy-weights` annotations have different numbers of parts, or a weight ≤ 0.
The message quotes the rule the server applies. The rules the ClusterQueue CRD states in CEL
(as many `resources` as `coveredResources`, `borrowingLimit` without a cohort,
`reclaimWithinCohort: Never` with `borrowWithinCohort`) are KQ002's. A name, label or
annotation that holds an envsubst placeholder (`name: ${WORKLOAD_NAME}`, `max-exec-time-seconds:
"${LIMIT}"`) is not judged: the manifest is a template, rendered before it is applied.

## Why it breaks on a cluster
`kubectl apply` fails with the server's message, so the queue or pod never exists: every
workload routed to the ClusterQueue stays pending, and a pod group never forms.

## Bad
```yaml
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: team-a
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: ["cpu", "nvidia.com/gpu"]
    flavors:
    - name: a100
      resources:
      - name: nvidia.com/gpu
        nominalQuota: 8
      - name: cpu
        nominalQuota: 96
        borrowingLimit: 16
```

## Good
```yaml
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: team-a
spec:
  cohortName: research
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: ["cpu", "nvidia.com/gpu"]
    flavors:
    - name: a100
      resources:
      - name: cpu
        nominalQuota: 96
        borrowingLimit: 16
      - name: nvidia.com/gpu
        nominalQuota: 8
        lendingLimit: 4
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: a100
```

## How to fix
List each flavor's `resources` in exactly the order of `coveredResources`; name each
resource and flavor in one resource group only; set `cohortName` (v1beta1: `cohort`) before
using a lending limit; keep `lendingLimit <= nominalQuota`; give every pod-group member both
the group-name label and the total-count annotation.
For a JobSet, LeaderWorkerSet, Volcano or KAI object, change the field the message names so it
meets the webhook's rule it quotes. Before Kueue 0.19, use the two-level slice annotations
instead of the multi-layer constraints (or turn `TASMultiLayerTopology` on); give an elastic Job
`podset-unconstrained-topology: "true"` rather than a required or preferred topology, and keep
`elastic-job` off the kinds that cannot be elastic.
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kqlint.domain import reading
from kqlint.domain.kinds import JOBSET, KAI_GROUP, KUEUE_GROUP, LWS, POD, VOLCANO_JOB, VOLCANO_PODGROUP, VOLCANO_QUEUE
from kqlint.domain.kueue import POD_GROUP_NAME, POD_GROUP_TOTAL
from kqlint.domain.kueue.quota import group_flavors, resource_groups
from kqlint.domain.objects import K8sObject
from kqlint.domain.quantity import parse_quantity
from kqlint.domain.workloads import pod_templates
from kqlint.engine.rule import RuleContext, RuleMeta
from kqlint.loader.placeholders import holds_placeholder
from kqlint.model import Finding, Severity
from kqlint.rules.engine._webhook_jobset import jobset_findings
from kqlint.rules.engine._webhook_kai import kai_findings
from kqlint.rules.engine._webhook_kueue import kueue_job_findings
from kqlint.rules.engine._webhook_lws import lws_findings
from kqlint.rules.engine._webhook_volcano import volcano_job_findings
from kqlint.rules.engine._webhook_volcano_specs import (
    volcano_job_spec_findings,
    volcano_pod_group_findings,
    volcano_queue_findings,
)

# findings cache: reads the object's own fields, the pod templates it owns (a TrainJob's runtime is looked up, its
# templates skipped) and the platform model (Kueue's release, feature gates and integrations decide some of Kueue's
# webhook checks: _webhook_kueue_gates; the platform model is in every graph key)
META = RuleMeta(code="KQ004", slug="api-rejects", severity=Severity.ERROR,
                summary="the API server or Kueue's webhook would refuse the object at apply time",
                reads=reading.RUNTIMES)

GROUP_NAME_LABEL = POD_GROUP_NAME
TOTAL_COUNT_ANNOTATION = POD_GROUP_TOTAL


def check(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    if obj.kind == "ClusterQueue" and obj.group == KUEUE_GROUP:
        yield from _resource_groups(obj, ctx)
        yield from _limits(obj, ctx)
    if LWS.of(obj):
        yield from lws_findings(obj, ctx)
    if JOBSET.of(obj):
        yield from jobset_findings(obj, ctx)
    if obj.group == KAI_GROUP:
        yield from kai_findings(obj, ctx)
    if VOLCANO_JOB.of(obj):
        yield from volcano_job_findings(obj, ctx)
        yield from volcano_job_spec_findings(obj, ctx)
    if VOLCANO_PODGROUP.of(obj):
        yield from volcano_pod_group_findings(obj, ctx)
    if VOLCANO_QUEUE.of(obj):
        yield from volcano_queue_findings(obj, ctx)
    yield from _pod_groups(obj, ctx)
    yield from kueue_job_findings(obj, ctx)


# ------------------------------------------------------------------ resourceGroups

def _resource_groups(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    seen_resources: dict[str, int] = {}
    seen_flavors: dict[str, int] = {}
    for g, group in resource_groups(obj):
        covered = group.get("coveredResources")
        covered = covered if isinstance(covered, list) else []
        for i, name in enumerate(covered):
            yield from _duplicate(obj, ctx, seen_resources, name, g, ("coveredResources", i), "resource")
        for f, flavor in group_flavors(group):
            yield from _duplicate(obj, ctx, seen_flavors, flavor.get("name"), g, ("flavors", f, "name"), "flavor")
            yield from _flavor_matches_covered(obj, ctx, g, f, flavor, covered)


def _duplicate(obj: K8sObject, ctx: RuleContext, seen: dict[str, int], name: Any, group: int,
               rest: tuple[Any, ...], what: str) -> Iterator[Finding]:
    if not isinstance(name, str):
        return
    if name in seen and seen[name] != group:
        yield ctx.finding(
            at=obj.at_value("spec", "resourceGroups", group, *rest),
            message=(f"{obj.display()}: {what} `{name}` is already named in resourceGroups[{seen[name]}]; "
                     f"Kueue rejects the ClusterQueue (`Duplicate value`): a {what} may appear in one "
                     "resource group only"),
            remedy="Merge the groups or remove it from one",
            related=[(obj.at("spec", "resourceGroups", seen[name]), "the first resource group naming it")])
    seen.setdefault(name, group)


def _flavor_matches_covered(obj: K8sObject, ctx: RuleContext, g: int, f: int, flavor: dict[str, Any],
                            covered: list[Any]) -> Iterator[Finding]:
    resources = flavor.get("resources")
    if not isinstance(resources, list):
        return
    base = ("spec", "resourceGroups", g, "flavors", f)
    if len(resources) != len(covered):  # the CRD's CEL rule on the resource group: KQ002
        return
    for i, (resource, expected) in enumerate(zip(resources, covered, strict=True)):
        name = resource.get("name") if isinstance(resource, dict) else None
        if name != expected:
            yield ctx.finding(
                at=obj.at_value(*base, "resources", i, "name"),
                message=(f"{obj.display()}: flavor `{flavor.get('name')}` resources[{i}] is `{name}` but "
                         f"coveredResources[{i}] is `{expected}`; Kueue's webhook rejects it (`must match the "
                         "name in coveredResources`)"),
                remedy="List resources in the order of coveredResources",
                related=[(obj.at_value("spec", "resourceGroups", g, "coveredResources", i), "coveredResources entry")])
            return


# ------------------------------------------------------------------ limits

def _cohort(obj: K8sObject) -> Any:
    return obj.get("spec", "cohortName") or obj.get("spec", "cohort")


def _limits(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    for g, group in resource_groups(obj):
        for f, flavor in group_flavors(group):
            resources = flavor.get("resources")
            for r, resource in enumerate(resources if isinstance(resources, list) else []):
                if isinstance(resource, dict):
                    yield from _resource_limits(obj, ctx, ("spec", "resourceGroups", g, "flavors", f,
                                                           "resources", r), resource)


def _resource_limits(obj: K8sObject, ctx: RuleContext, path: tuple[Any, ...],
                     resource: dict[str, Any]) -> Iterator[Finding]:
    name = resource.get("name")
    if not _cohort(obj) and resource.get("lendingLimit") is not None:  # borrowingLimit: the CRD's CEL rule, KQ002
        yield ctx.finding(
            at=obj.at(*path, "lendingLimit"),
            message=(f"{obj.display()}: lendingLimit on `{name}` without a cohort; the API server rejects "
                     "it (`lendingLimit must be nil when cohort is empty`)"),
            remedy="Set spec.cohortName or remove lendingLimit")
    lending, nominal = parse_quantity(resource.get("lendingLimit")), parse_quantity(resource.get("nominalQuota"))
    if lending is not None and nominal is not None and lending > nominal:
        yield ctx.finding(
            at=obj.at_value(*path, "lendingLimit"),
            message=(f"{obj.display()}: lendingLimit {resource.get('lendingLimit')} of `{name}` is above its "
                     f"nominalQuota {resource.get('nominalQuota')}; Kueue rejects it (`must be less than or "
                     "equal to the nominalQuota`)"),
            remedy="Lower lendingLimit to at most nominalQuota",
            related=[(obj.at_value(*path, "nominalQuota"), "nominalQuota")])


# ------------------------------------------------------------------ pod groups

def _pod_groups(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    if POD.of(obj):
        yield from _pod_group_member(obj, ctx, ("metadata",), obj.labels, obj.annotations)
        return
    for template in pod_templates(obj, ctx.graph):
        if template.meta_path is not None and template.owner is obj and not template.generated:
            yield from _pod_group_member(obj, ctx, template.meta_path, template.labels, template.annotations)


def _pod_group_member(obj: K8sObject, ctx: RuleContext, meta: tuple[Any, ...], labels: dict[str, Any],
                      annotations: dict[str, Any]) -> Iterator[Finding]:
    has_name, has_count = GROUP_NAME_LABEL in labels, TOTAL_COUNT_ANNOTATION in annotations
    if has_name != has_count:
        present = ("labels", GROUP_NAME_LABEL) if has_name else ("annotations", TOTAL_COUNT_ANNOTATION)
        missing = "annotation " + TOTAL_COUNT_ANNOTATION if has_name else "label " + GROUP_NAME_LABEL
        yield ctx.finding(
            at=obj.at(*meta, *present),
            message=(f"{obj.display()}: pod-group member without the {missing}: Kueue's webhook rejects the "
                     "pod, which needs both the label and the annotation"),
            remedy=f"Add the {missing}")
    elif has_count and not _positive(annotations.get(TOTAL_COUNT_ANNOTATION)) \
            and not holds_placeholder(annotations.get(TOTAL_COUNT_ANNOTATION)):
        yield ctx.finding(
            at=obj.at_value(*meta, "annotations", TOTAL_COUNT_ANNOTATION),
            message=(f"{obj.display()}: {TOTAL_COUNT_ANNOTATION} must be a number greater than 0; Kueue rejects "
                     "the pod"),
            remedy="Set it to the number of pods in the group")


def _positive(value: Any) -> bool:
    try:
        return int(str(value)) > 0
    except ValueError:
        return False
