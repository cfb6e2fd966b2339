"""
## What it catches
Objects of kinds kqlint reads that use an API version or a value that is deprecated (info)
or no longer served (error):
- Kueue `kueue.x-k8s.io/v1beta1` (deprecated since Kueue 0.16; `v1beta2` is the storage
  version, served from Kueue 0.15). A Kueue version older than 0.15 in the platform model
  (`platform: {kueue: {version: "0.14"}}`, or a version the repository pins: the Kueue manager's
  image tag, a release manifest URL or Kueue's Helm chart version in a kustomization, chart,
  values file, HelmRelease or Argo CD Application) silences this advice, and a `v1beta2` object
  is then an error (not served). Pins that disagree (0.12 here, 0.16 there) leave the version
  unknown and silence both. The message names the
  `v1beta2` spelling of fields the object uses (`spec.cohort` → `spec.cohortName`,
  `spec.admissionChecks` →
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
`scheduling.k8s.io/v1` PriorityClass. `kqlint check --fix --select KQ005` does it (safe) the
way Kueue's conversion does, for the whole object at once (also Workload `priorityClassRef`,
AdmissionCheck `retryDelayMinutes` dropped, MultiKueueCluster `clusterSource`, Cohort
`parentName`); an object with a field that has no mechanical equivalent, an `apps/v1beta1` or
`extensions/v1beta1` workload, or a platform Kueue older than 0.15 gets no fix. Where the
configuration names a newer Kueue than one the repository pins, the fix is offered as unsafe:
the pinned Kueue does not serve what it writes.
"""
from __future__ import annotations

from collections.abc import Iterator

from kqlint.domain.kinds import KUEUE_GROUP
from kqlint.domain.objects import K8sObject
from kqlint.domain.platform import Platform, platform_of
from kqlint.engine.rule import RuleContext, RuleMeta
from kqlint.fix.model import Edit, Fix
from kqlint.model import Finding, Severity
from kqlint.rules.engine._api_migration import (
    fungibility_alias,
    kueue_v1alpha1,
    kueue_v1beta2,
    removed_core_api,
)

META = RuleMeta(code="KQ005", slug="deprecated-api", severity=Severity.INFO,
                summary="a deprecated or no longer served API version or value is used", fix="safe")

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

APPS_BY_HAND = (" and set by hand what apps/v1 no longer defaults (a required spec.selector) or defaults "
                "differently (update strategy, revisionHistoryLimit, rolling-update surge)")

# v1beta1 ClusterQueue fields renamed or removed in v1beta2 (kueue.md B7)
V1BETA2_SPELLING = {
    ("spec", "cohort"): "`spec.cohort` → `spec.cohortName`",
    ("spec", "admissionChecks"): "`spec.admissionChecks` → `spec.admissionChecksStrategy.admissionChecks[].name`",
}
FUNGIBILITY = {("whenCanBorrow", "Borrow"), ("whenCanPreempt", "Preempt")}
V1BETA2_SINCE = (0, 15)                                      # kueue.md B7
V1ALPHA1_LAST = {"Cohort": (0, 12), "Topology": (0, 13)}     # last Kueue serving v1alpha1
V1BETA1_SINCE = {kind: (major, minor + 1) for kind, (major, minor) in V1ALPHA1_LAST.items()}


def check(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    removed = REMOVED.get((obj.api_version, obj.kind))
    if removed is not None:
        yield ctx.finding(
            at=obj.at_value("apiVersion"), severity=Severity.ERROR,
            message=(f"{obj.display()}: apiVersion {obj.api_version} is no longer served (removed in "
                     f"Kubernetes {removed[0]}): kubectl apply fails with 'no matches for kind'"),
            remedy=f"Use apiVersion: {removed[1]}{'' if removed_core_api(obj) else APPS_BY_HAND}",
            fix=removed_api_fix(obj))
    if obj.group == KUEUE_GROUP:
        yield from _kueue_version(obj, ctx)
        if obj.kind == "ClusterQueue":
            yield from _fungibility(obj, ctx)


def _kueue_version(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    """Advice for the user's Kueue: the platform model's version (``platform.kueue.version``, or
    the version the repository pins) silences what that version does not support; unknown means
    a current Kueue, unless the repository pins an older one too (its pins disagree)."""
    platform = platform_of(ctx.graph)
    served_v1beta2 = platform.kueue_at_least(*V1BETA2_SINCE)
    if obj.version == "v1alpha1":
        yield from _v1alpha1(obj, ctx)
    elif obj.version == "v1beta1" and _advise_v1beta2(platform):
        yield ctx.finding(at=obj.at_value("apiVersion"), fix=v1beta2_fix(obj, platform),
                          message=(f"{obj.display()}: kueue.x-k8s.io/v1beta1 is deprecated since Kueue 0.16 "
                                   "(v1beta2 is the storage version) and will stop being served"),
                          remedy=_v1beta1_remedy(obj))
    elif obj.version == "v1beta2" and served_v1beta2 is False:
        yield ctx.finding(
            at=obj.at_value("apiVersion"), severity=Severity.ERROR,
            message=(f"{obj.display()}: kueue.x-k8s.io/v1beta2 is served only from Kueue 0.15, and the "
                     f"platform's Kueue is {_version(ctx)}: the object cannot be applied"),
            remedy="Use apiVersion: kueue.x-k8s.io/v1beta1 or upgrade Kueue")


def _advise_v1beta2(platform: Platform) -> bool:
    """The platform's Kueue serves v1beta2 (or is a current release): not where it is older than
    0.15, nor where the version is unknown because the repository's pins disagree and one of
    them is older (the advice would be wrong there: ``v1beta1`` is its served version)."""
    served = platform.kueue_at_least(*V1BETA2_SINCE)
    return served is True or (served is None and platform.pinned_before(*V1BETA2_SINCE) is None)


def _v1beta1_remedy(obj: K8sObject) -> str:
    renames = [text for path, text in V1BETA2_SPELLING.items() if obj.kind == "ClusterQueue" and obj.has(*path)]
    extra = f"; in v1beta2 spell {', '.join(renames)}" if renames else ""
    move = "move to apiVersion: kueue.x-k8s.io/v1beta2, which Kueue serves from 0.15"
    migration = kueue_v1beta2(obj)
    if migration is not None and not migration.mechanical:  # no fix: the remedy starts with the manual steps
        move, extra = f"{', and '.join(migration.manual)} by hand, then {move}", ""
    remedy = move + extra
    return remedy[:1].upper() + remedy[1:]


def _v1alpha1(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    platform = platform_of(ctx.graph)
    moved = V1BETA1_SINCE.get(obj.kind)
    if moved is not None and (platform.kueue_at_least(*moved) is False
                              or platform.kueue_version is None and platform.pinned_before(*moved) is not None):
        return  # the platform's Kueue (or one the repository pins) still serves it
    target = "kueue.x-k8s.io/v1beta2" if _advise_v1beta2(platform) else "kueue.x-k8s.io/v1beta1"
    renamed = obj.kind == "Cohort" and obj.has("spec", "parent")
    parent = " and spell `spec.parent` as `spec.parentName`" if renamed else ""
    yield ctx.finding(
        at=obj.at_value("apiVersion"), severity=Severity.ERROR,
        message=(f"{obj.display()}: {obj.api_version} is no longer served by Kueue (Cohort moved to "
                 f"v1beta1 in 0.13, Topology in 0.14): the object cannot be applied"),
        remedy=f"Use apiVersion: {target}{parent}",
        fix=v1alpha1_fix(obj, target, platform_of(ctx.graph)))


def _version(ctx: RuleContext) -> str:
    version = platform_of(ctx.graph).kueue_version
    return ".".join(map(str, version)) if version else "unknown"


def _fungibility(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    for field, value in sorted(FUNGIBILITY):
        if obj.get("spec", "flavorFungibility", field) != value:
            continue
        served = obj.version == "v1beta1"
        if served and not _advise_v1beta2(platform_of(ctx.graph)):
            continue  # before 0.15 Borrow/Preempt are the current values (MayStopSearch came with 0.15)
        yield ctx.finding(
            at=obj.at_value("spec", "flavorFungibility", field),
            severity=Severity.INFO if served else Severity.ERROR,
            message=(f"{obj.display()}: flavorFungibility.{field}: {value} "
                     + ("is a deprecated v1beta1 alias" if served else f"is not accepted by {obj.api_version}")),
            remedy="Use MayStopSearch (same behaviour)",
            fix=fungibility_fix(obj, field, platform_of(ctx.graph)))


# ------------------------------------------------------------------ fixes (all safe: Kueue's own conversion)

def v1beta2_fix(obj: K8sObject, platform: Platform) -> Fix | None:
    """The whole ``v1beta1`` -> ``v1beta2`` move of ``obj``, when every field has a mechanical
    equivalent (offered only where the finding is: the platform serves ``v1beta2``); unsafe
    where the repository pins a Kueue that does not serve it (rules.md "Versions the
    repository pins": the configuration said otherwise)."""
    migration = kueue_v1beta2(obj)
    if migration is None or not migration.mechanical:
        return None
    return _served_fix("Move to kueue.x-k8s.io/v1beta2", migration.edits, platform, V1BETA2_SINCE)


def v1alpha1_fix(obj: K8sObject, target: str, platform: Platform) -> Fix | None:
    migration = kueue_v1alpha1(obj, target)
    if migration is None or not migration.mechanical:
        return None
    since = V1BETA2_SINCE if target.endswith("/v1beta2") else V1BETA1_SINCE[obj.kind]
    return _served_fix(f"Move to {target}", migration.edits, platform, since)


def removed_api_fix(obj: K8sObject) -> Fix | None:
    edit = removed_core_api(obj)
    return Fix.safe(f"Use apiVersion {edit.value}", edit) if edit is not None else None


def fungibility_fix(obj: K8sObject, field: str, platform: Platform) -> Fix | None:
    """``MayStopSearch`` exists from Kueue 0.15: no fix for an older platform."""
    edit = fungibility_alias(obj, field) if platform.kueue_at_least(*V1BETA2_SINCE) is not False else None
    if edit is None:
        return None
    return _served_fix(f"Replace {edit.path[-1]}: {obj.get(*edit.path)} with MayStopSearch", (edit,), platform,
                       V1BETA2_SINCE, what="MayStopSearch")


def _served_fix(title: str, edits: tuple[Edit, ...], platform: Platform, since: tuple[int, int],
                what: str = "") -> Fix:
    """Safe, unless a Kueue the repository pins is older than ``since`` (what the fix writes is
    not served there): then unsafe, the title saying why."""
    pin = platform.pinned_before(*since)
    if pin is None:
        return Fix.safe(title, *edits)
    written = what or "that API version"
    version = ".".join(map(str, pin.version))
    return Fix.unsafe(f"{title} (unsafe: the repository pins Kueue {version} ({pin.source}), which does not "
                      f"serve {written})", *edits)
