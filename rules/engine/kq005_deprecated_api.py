"""
## What it catches
Objects of kinds kqlint reads that use an API version or a value that is deprecated (info)
or no longer served (error):
- Kueue `kueue.x-k8s.io/v1beta1` (deprecated since Kueue 0.16; `v1beta2` is the storage
  version). The message names the `v1beta2` spelling of fields the object uses
  (`spec.cohort` → `spec.cohortName`, `spec.admissionChecks` →
  `spec.admissionChecksStrategy.admissionChecks[].name`).
- ClusterQueue `flavorFungibility` values `Borrow` / `Preempt` (deprecated aliases in
  `v1beta1`, removed in `v1beta2`: error there).
- `kueue.x-k8s.io/v1alpha1` (Cohort and Topology moved to `v1beta1` in 0.13/0.14; not served).
- Core APIs removed from Kubernetes: `batch/v1beta1` CronJob (1.25), `apps/v1beta1`,
  `apps/v1beta2` and `extensions/v1beta1` workloads (1.16), `scheduling.k8s.io/v1beta1` and
  `v1alpha1` PriorityClass (1.22).

## Why it breaks on a cluster
An API version that is no longer served is refused by `kubectl apply` ("no matches for
kind"), so the object never exists. A deprecated version still works today but is dropped
in a later release; Kueue's conversion also renames or removes fields, so a manifest kept
in `v1beta1` drifts from what the cluster stores.

## Bad
```yaml
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata:
  name: team-a
spec:
  cohort: research
  namespaceSelector: {}
  flavorFungibility:
    whenCanBorrow: Borrow
---
apiVersion: batch/v1beta1
kind: CronJob
metadata:
  name: nightly
spec:
  schedule: "0 2 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers:
          - name: main
            image: busybox:1.36
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
  flavorFungibility:
    whenCanBorrow: MayStopSearch
```

## How to fix
Move to the served version and its field names: Kueue `v1beta2` (`cohortName`,
`admissionChecksStrategy`, `MayStopSearch`), `batch/v1` CronJob, `apps/v1` workloads,
`scheduling.k8s.io/v1` PriorityClass.
"""
from __future__ import annotations

from typing import Iterator

from kqlint.model import Finding, Severity
from kqlint.objects import K8sObject
from kqlint.rule import RuleContext, RuleMeta

META = RuleMeta(code="KQ005", slug="deprecated-api", severity=Severity.INFO,
                summary="a deprecated or no longer served API version or value is used")

KUEUE = "kueue.x-k8s.io"
APPS_WORKLOADS = frozenset({"Deployment", "StatefulSet", "ReplicaSet", "DaemonSet"})

# (apiVersion, kind or None for every kind) -> (Kubernetes release that removed it, replacement)
REMOVED = {
    ("batch/v1beta1", "CronJob"): ("1.25", "batch/v1"),
    ("batch/v2alpha1", "CronJob"): ("1.21", "batch/v1"),
    ("scheduling.k8s.io/v1beta1", "PriorityClass"): ("1.22", "scheduling.k8s.io/v1"),
    ("scheduling.k8s.io/v1alpha1", "PriorityClass"): ("1.22", "scheduling.k8s.io/v1"),
    **{(version, kind): ("1.16", "apps/v1") for version in ("apps/v1beta1", "apps/v1beta2", "extensions/v1beta1")
       for kind in APPS_WORKLOADS},
}

# v1beta1 ClusterQueue fields renamed or removed in v1beta2 (kueue.md B7)
V1BETA2_SPELLING = {
    ("spec", "cohort"): "`spec.cohort` → `spec.cohortName`",
    ("spec", "admissionChecks"): "`spec.admissionChecks` → `spec.admissionChecksStrategy.admissionChecks[].name`",
}
FUNGIBILITY = {("whenCanBorrow", "Borrow"), ("whenCanPreempt", "Preempt")}


def check(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    removed = REMOVED.get((obj.api_version, obj.kind))
    if removed is not None:
        yield ctx.finding(
            at=obj.at_value("apiVersion"), severity=Severity.ERROR,
            message=(f"{obj.display()}: apiVersion {obj.api_version} is no longer served (removed in "
                     f"Kubernetes {removed[0]}): kubectl apply fails with 'no matches for kind'; "
                     f"use apiVersion: {removed[1]}"))
    if obj.group == KUEUE:
        yield from _kueue_version(obj, ctx)
        if obj.kind == "ClusterQueue":
            yield from _fungibility(obj, ctx)


def _kueue_version(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    if obj.version == "v1alpha1":
        yield ctx.finding(
            at=obj.at_value("apiVersion"), severity=Severity.ERROR,
            message=(f"{obj.display()}: {obj.api_version} is no longer served by Kueue (Cohort moved to "
                     "v1beta1 in 0.13, Topology in 0.14): the object cannot be applied; use "
                     "apiVersion: kueue.x-k8s.io/v1beta2"))
    elif obj.version == "v1beta1":
        renames = [text for path, text in V1BETA2_SPELLING.items() if obj.kind == "ClusterQueue" and obj.has(*path)]
        extra = f"; in v1beta2 spell {', '.join(renames)}" if renames else ""
        yield ctx.finding(
            at=obj.at_value("apiVersion"),
            message=(f"{obj.display()}: kueue.x-k8s.io/v1beta1 is deprecated since Kueue 0.16 (v1beta2 is "
                     f"the storage version) and will stop being served; move to apiVersion: "
                     f"kueue.x-k8s.io/v1beta2{extra}"))


def _fungibility(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    for field, value in sorted(FUNGIBILITY):
        if obj.get("spec", "flavorFungibility", field) != value:
            continue
        served = obj.version == "v1beta1"
        yield ctx.finding(
            at=obj.at_value("spec", "flavorFungibility", field),
            severity=Severity.INFO if served else Severity.ERROR,
            message=(f"{obj.display()}: flavorFungibility.{field}: {value} "
                     + ("is a deprecated v1beta1 alias" if served else f"is not accepted by {obj.api_version}")
                     + "; use MayStopSearch (same behaviour)"))
