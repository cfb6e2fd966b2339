"""Topology Aware Scheduling in Kueue's flavor assignment (kueue.md B24): the check that runs
first for each flavor, mirroring ``checkPodSetAndFlavorMatchForTAS``
(``pkg/scheduler/flavorassigner/tas_flavorassigner.go``), ``IsExplicitlyRequestingTAS``
(``pkg/workload/workload.go``), the annotations-to-request builder (``pkg/controller/
jobframework/tas.go``, ``Build``) and ``TASFlavorSnapshot.HasLevel`` (``pkg/cache/scheduler/
tas_flavor_snapshot.go``). kqlint.domain.kueue.flavors runs it before taints and affinity.

A pod set requests TAS explicitly through its template's annotations: required, else preferred,
else unconstrained topology (the main level; unconstrained means the lowest level, which every
Topology has), plus the slice layer (``podset-slice-required-topology`` with
``podset-slice-size``, or the multi-layer constraints, whose first level is the slice level).
Without them, a ClusterQueue whose every flavor has ``topologyName`` implies TAS (TAS-only),
and any other ClusterQueue rejects its TAS flavors for the pod set.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kqlint.domain.fields import strings, text
from kqlint.domain.kinds import KUEUE_GROUP
from kqlint.domain.kueue.flavors import TOPOLOGY, FlavorCheck, TasVerdict, group_checks
from kqlint.domain.kueue.quota import group_flavors, resource_groups
from kqlint.domain.objects import CONTEXT, INPUT

if TYPE_CHECKING:
    from kqlint.domain.graph import ObjectGraph
    from kqlint.domain.kueue.podsets import PodSet
    from kqlint.domain.objects import K8sObject
    from kqlint.domain.workloads.templates import PodTemplate

PREFIX = "kueue.x-k8s.io/podset-"
REQUIRED, PREFERRED, UNCONSTRAINED = (f"{PREFIX}{n}-topology" for n in ("required", "preferred", "unconstrained"))
SLICE_REQUIRED, SLICE_SIZE = f"{PREFIX}slice-required-topology", f"{PREFIX}slice-size"
CONSTRAINTS = f"{PREFIX}slice-required-topology-constraints"
TAS_ANNOTATIONS = (REQUIRED, PREFERRED, UNCONSTRAINED, SLICE_REQUIRED, SLICE_SIZE, CONSTRAINTS)
MULTI_LAYER_SINCE = (0, 19)  # TASMultiLayerTopology: alpha (off) in 0.17-0.18, beta (on) from 0.19
MAX_CONSTRAINTS = 3


@dataclass(frozen=True)
class TopologyRequest:
    """What an explicit-TAS pod set needs of a flavor's Topology: each level with the
    annotation that names it (empty when the main level is the lowest and no slice is asked)."""

    levels: tuple[tuple[str, str], ...]
    annotation: str               # the first TAS annotation present: where a finding points


def explicit_request(template: PodTemplate, version: tuple[int, int] | None) -> TopologyRequest | None | bool:
    """The pod set's explicit TAS request; False when it makes none; None when kqlint cannot
    tell what Kueue builds (a malformed value: the webhook's, KQ004; an unconstrained ``false``;
    the multi-layer annotation where the gate may be off)."""
    annotations = {k: v for k, v in template.annotations.items() if k in TAS_ANNOTATIONS}
    if not annotations:
        return False
    levels: list[tuple[str, str]] = []
    for key in (REQUIRED, PREFERRED):
        if key in annotations:
            level = text(annotations[key])
            if level is None:
                return None
            levels.append((level, key))
            break
    else:
        if UNCONSTRAINED in annotations and str(annotations[UNCONSTRAINED]).lower() != "true":
            return None  # "false" asks for no level Kueue can find; anything else is refused
    slice_levels = _slice_levels(annotations, version)
    if slice_levels is None:
        return None
    if not levels and UNCONSTRAINED not in annotations and not slice_levels:
        return False  # only half a slice layer: Kueue builds no request (the webhook's to refuse)
    first = next(key for key in TAS_ANNOTATIONS if key in annotations)
    return TopologyRequest(tuple(levels + slice_levels), first)


def _slice_levels(annotations: dict[str, object], version: tuple[int, int] | None) -> list[tuple[str, str]] | None:
    if CONSTRAINTS in annotations:
        if version is not None and version < MULTI_LAYER_SINCE:
            return None
        try:
            constraints = json.loads(str(annotations[CONSTRAINTS]))
        except ValueError:
            return None
        if not isinstance(constraints, list) or not 0 < len(constraints) <= MAX_CONSTRAINTS:
            return None
        levels = [c.get("topology") if isinstance(c, dict) else None for c in constraints]
        if not all(isinstance(level, str) and level for level in levels):
            return None
        return [(str(level), CONSTRAINTS) for level in levels]
    if SLICE_REQUIRED in annotations and SLICE_SIZE in annotations:
        level = text(annotations[SLICE_REQUIRED])
        return None if level is None else [(level, SLICE_REQUIRED)]
    return []


def topology_name(flavor: K8sObject) -> str | None:
    return text(flavor.get("spec", "topologyName"))


def topology_of(flavor: K8sObject, graph: ObjectGraph) -> K8sObject | None:
    """The flavor's Topology when its levels are known (a manifest, or a declared object with
    ``spec.levels``); None otherwise."""
    topology = graph.resolve("Topology", topology_name(flavor), None, KUEUE_GROUP)
    if topology is None or not (topology.source in (INPUT, CONTEXT) or topology.has("spec", "levels")):
        return None
    return topology


def topology_levels(topology: K8sObject) -> list[str]:
    levels = topology.get("spec", "levels")
    return strings([level.get("nodeLabel") for level in levels if isinstance(level, dict)]) if isinstance(
        levels, list) else []


def tas_verdict(request: TopologyRequest | bool, tas_only: bool, graph: ObjectGraph) -> TasVerdict:
    """``checkPodSetAndFlavorMatchForTAS`` for one pod set, as a verdict per flavor. The caller
    has made sure every flavor's Topology resolves (``topologies_known``)."""
    def verdict(flavor: K8sObject) -> str | None:
        has_topology = topology_name(flavor) is not None
        if isinstance(request, TopologyRequest):
            if not has_topology:
                return f'Flavor "{flavor.name}" does not support TopologyAwareScheduling'
            topology = topology_of(flavor, graph)
            known = topology_levels(topology) if topology is not None else []
            if any(level not in known for level, _ in request.levels):
                return f'Flavor "{flavor.name}" does not contain the requested level'
            return None
        if has_topology and not tas_only:
            return f'Flavor "{flavor.name}" supports only TopologyAwareScheduling'
        return None  # no TAS asked and none offered, or implied on a TAS-only ClusterQueue
    return verdict


def topologies_known(flavors: list[K8sObject], graph: ObjectGraph) -> bool:
    """Every flavor with ``topologyName`` names a Topology whose levels kqlint knows."""
    return all(topology_name(f) is None or topology_of(f, graph) is not None for f in flavors)


def missing_level(request: TopologyRequest, flavor: K8sObject, graph: ObjectGraph) -> tuple[str, str] | None:
    """The first (level, annotation) of ``request`` the flavor's Topology lacks."""
    topology = topology_of(flavor, graph)
    known = topology_levels(topology) if topology is not None else []
    return next(((level, key) for level, key in request.levels if level not in known), None)


@dataclass(frozen=True)
class TasRejection:
    """A resource group none of whose flavors passes the TAS check for a pod set."""

    group: int
    checks: list[FlavorCheck]
    request: TopologyRequest | bool   # False: the pod set asks no TAS


def tas_rejecting_group(pod_set: PodSet, cq: K8sObject, graph: ObjectGraph,
                        version: tuple[int, int] | None) -> TasRejection | None:
    """The first resource group covering a resource the pod set requests in which TAS rejects
    every flavor; None when there is none or it cannot be judged (a flavor or Topology that
    cannot be resolved, a request kqlint cannot read)."""
    request = explicit_request(pod_set.template, version)
    if request is None:
        return None
    names = {g: [f["name"] for _, f in group_flavors(group) if isinstance(f.get("name"), str)]
             for g, group in resource_groups(cq)}
    flavors = [graph.resolve("ResourceFlavor", name, None, KUEUE_GROUP) for group in names.values() for name in group]
    known = [f for f in flavors if f is not None and (f.source in (INPUT, CONTEXT) or f.has("spec"))]
    if len(known) != len(flavors) or not known or not topologies_known(known, graph):
        return None
    verdict = tas_verdict(request, all(topology_name(f) is not None for f in known), graph)
    requested = {r for r in pod_set.per_pod if pod_set.total(r) > 0}
    for g, group in resource_groups(cq):
        if not requested.intersection(strings(group.get("coveredResources"))):  # a hostile item may be a mapping
            continue
        checks = group_checks(pod_set.template, names[g], graph, verdict)
        if checks and all(c.blocker == TOPOLOGY for c in checks):
            return TasRejection(g, checks, request)
    return None
