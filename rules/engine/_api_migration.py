"""Mechanical API-version migrations KQ005 offers as fixes: not a rule module.

Kueue ``v1beta1`` -> ``v1beta2`` follows Kueue's own conversion
(``apis/kueue/v1beta1/*_conversion.go``, kueue.md B7); Cohort/Topology ``v1alpha1`` moved to
``v1beta1`` with ``spec.parent`` renamed ``spec.parentName`` (B7); removed core APIs move to
the served version only where the schema and defaults are the same. A field with no
mechanical equivalent makes the whole migration manual: a half-migrated object would be
rejected or mean something else.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from kqlint.domain.objects import K8sObject
from kqlint.fix.model import Edit

V1BETA2 = "kueue.x-k8s.io/v1beta2"
MAY_STOP_SEARCH = "MayStopSearch"
# flavorFungibility field -> the v1beta1 alias v1beta2 no longer accepts (B7, B8)
FUNGIBILITY_ALIASES = {"whenCanBorrow": "Borrow", "whenCanPreempt": "Preempt"}
WORKLOAD_CLASS_SOURCES = {
    "kueue.x-k8s.io/workloadpriorityclass": ("kueue.x-k8s.io", "WorkloadPriorityClass"),
    "scheduling.k8s.io/priorityclass": ("scheduling.k8s.io", "PriorityClass"),
}
# Removed core APIs whose served successor has the same schema and defaults. Not apps/v1beta1
# or extensions/v1beta1: apps/v1 requires spec.selector and changes defaults (update strategy,
# revisionHistoryLimit, rolling-update surge), so moving them is a decision, not a rename.
SAME_SCHEMA_SUCCESSOR = {
    "batch/v1beta1": "batch/v1", "batch/v2alpha1": "batch/v1",
    "scheduling.k8s.io/v1beta1": "scheduling.k8s.io/v1", "scheduling.k8s.io/v1alpha1": "scheduling.k8s.io/v1",
    "apps/v1beta2": "apps/v1",
}

Step = Edit | str  # an edit, or what to do by hand


@dataclass(frozen=True)
class Migration:
    edits: tuple[Edit, ...]
    manual: tuple[str, ...]  # non-empty: no mechanical migration; these are the steps by hand

    @property
    def mechanical(self) -> bool:
        return not self.manual


def kueue_v1beta2(obj: K8sObject) -> Migration | None:
    """``obj`` (a Kueue ``v1beta1`` object) as ``v1beta2``; None for a kind Kueue does not serve."""
    spec_changes = V1BETA2_SPEC_CHANGES.get(obj.kind)
    if spec_changes is None:
        return None
    return _migration([Edit.replace(("apiVersion",), V1BETA2), *spec_changes(obj)])


def kueue_v1alpha1(obj: K8sObject, target: str) -> Migration | None:
    """A Cohort or Topology ``v1alpha1`` object as ``target`` (``v1beta1`` or ``v1beta2``)."""
    if obj.kind == "Topology":
        return _migration([Edit.replace(("apiVersion",), target)])
    if obj.kind == "Cohort":
        return _migration([Edit.replace(("apiVersion",), target), *_renamed(obj, "parent", "parentName")])
    return None


def removed_core_api(obj: K8sObject) -> Edit | None:
    successor = SAME_SCHEMA_SUCCESSOR.get(obj.api_version)
    return Edit.replace(("apiVersion",), successor) if successor is not None else None


def fungibility_alias(obj: K8sObject, field: str) -> Edit | None:
    """``MayStopSearch`` for a ``Borrow``/``Preempt`` alias (Kueue converts them so)."""
    path = ("spec", "flavorFungibility", field)
    if FUNGIBILITY_ALIASES.get(field) is None or obj.get(*path) != FUNGIBILITY_ALIASES[field]:
        return None
    return Edit.replace(path, MAY_STOP_SEARCH)


def _migration(steps: list[Step]) -> Migration:
    return Migration(tuple(s for s in steps if isinstance(s, Edit)), tuple(s for s in steps if isinstance(s, str)))


# ------------------------------------------------------------------ per kind (v1beta1 -> v1beta2)

def _renamed(obj: K8sObject, old: str, new: str) -> Iterator[Step]:
    if not obj.has("spec", old):
        return
    if obj.has("spec", new):
        yield f"keep one of `spec.{old}` and `spec.{new}`, under the name `spec.{new}`"
    else:
        yield Edit.rename(("spec", old), new)


def _cluster_queue(obj: K8sObject) -> Iterator[Step]:
    yield from _renamed(obj, "cohort", "cohortName")
    yield from _admission_checks(obj)
    for field in sorted(FUNGIBILITY_ALIASES):
        edit = fungibility_alias(obj, field)
        if edit is not None:
            yield edit


def _admission_checks(obj: K8sObject) -> Iterator[Step]:
    checks = obj.get("spec", "admissionChecks")
    if not obj.has("spec", "admissionChecks"):
        return
    by_hand = ("move the names of `spec.admissionChecks` into "
               "`spec.admissionChecksStrategy.admissionChecks[].name`")
    if obj.has("spec", "admissionChecksStrategy"):
        yield by_hand
    elif checks is None or checks == []:
        yield Edit.remove(("spec", "admissionChecks"))  # Kueue converts only a non-empty list
    elif isinstance(checks, list) and all(isinstance(name, str) and name for name in checks):
        yield Edit.remove(("spec", "admissionChecks"))
        yield Edit.insert(("spec",), "admissionChecksStrategy",
                          {"admissionChecks": [{"name": name} for name in checks]})
    else:
        yield by_hand


def _workload(obj: K8sObject) -> Iterator[Step]:
    name, source = obj.get("spec", "priorityClassName"), obj.get("spec", "priorityClassSource")
    if not (obj.has("spec", "priorityClassName") or obj.has("spec", "priorityClassSource")):
        return
    target = WORKLOAD_CLASS_SOURCES.get(source) if isinstance(source, str) else None
    if obj.has("spec", "priorityClassRef") or target is None or not (isinstance(name, str) and name):
        yield ("replace `spec.priorityClassName`/`spec.priorityClassSource` with "
               "`spec.priorityClassRef: {group, kind, name}` (Kueue's conversion drops a name without a source)")
        return
    yield Edit.remove(("spec", "priorityClassName"))
    yield Edit.remove(("spec", "priorityClassSource"))
    yield Edit.insert(("spec",), "priorityClassRef", {"group": target[0], "kind": target[1], "name": name})


def _admission_check(obj: K8sObject) -> Iterator[Step]:
    if obj.has("spec", "retryDelayMinutes"):  # deprecated since 0.8 and without effect; gone in v1beta2
        yield Edit.remove(("spec", "retryDelayMinutes"))


def _multikueue_cluster(obj: K8sObject) -> Iterator[Step]:
    moved = {key: obj.get("spec", key) for key in ("kubeConfig", "clusterProfileRef") if obj.has("spec", key)}
    if not moved:
        return
    if obj.has("spec", "clusterSource") or not all(_flat_mapping(value) for value in moved.values()):
        yield "move `spec.kubeConfig` and `spec.clusterProfileRef` under `spec.clusterSource`"
        return
    for key in moved:
        yield Edit.remove(("spec", key))
    yield Edit.insert(("spec",), "clusterSource", moved)


def _flat_mapping(value: Any) -> bool:
    return isinstance(value, dict) and all(not isinstance(v, (dict, list)) for v in value.values())


def _unchanged(obj: K8sObject) -> Iterator[Step]:
    return iter(())


V1BETA2_SPEC_CHANGES: dict[str, Callable[[K8sObject], Iterator[Step]]] = {
    "ClusterQueue": _cluster_queue, "Workload": _workload, "AdmissionCheck": _admission_check,
    "MultiKueueCluster": _multikueue_cluster,
    **{kind: _unchanged for kind in ("LocalQueue", "ResourceFlavor", "WorkloadPriorityClass", "Cohort",
                                     "Topology", "MultiKueueConfig", "ProvisioningRequestConfig")},
}
