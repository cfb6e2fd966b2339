"""Why Kueue would mark a ClusterQueue ``Active=False`` for a reason the manifests show
(kueue.md B22; ``pkg/cache/scheduler/clusterqueue.go`` ``updateWithAdmissionChecks``,
``updateQueueStatus``, ``inactiveReason``): its admission checks (missing, inactive, MultiKueue
constraints) and the Topologies of its TAS flavors. An AdmissionCheck is judged only for
Kueue's own controllers (``provisioning/admissioncheck_reconciler.go`` and
``multikueue/admissioncheck.go``, ``Reconcile``; ``refValidForGK`` in
``pkg/util/admissioncheck``); another controller's verdict is not knowable. A name that does not
resolve but may exist elsewhere (``ObjectGraph.may_exist``) is unknown, never missing; so is
every name of a kind the run holds no object of (inputs, context, config ``external``, the
profile): such objects are managed elsewhere, as gang-scheduler queues are (rules.md).

Not judged here: ``FlavorNotFound`` (KQ206), ``Stopped`` (a deliberate stopPolicy)."""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kqlint.domain.fields import indexed_mappings, text
from kqlint.domain.graph import MANIFEST_TIERS
from kqlint.domain.kinds import KUEUE_GROUP, GroupKind
from kqlint.domain.kueue.quota import flavor_quotas

if TYPE_CHECKING:
    from kqlint.domain.graph import ObjectGraph
    from kqlint.domain.objects import K8sObject

ADMISSION_CHECK = GroupKind(KUEUE_GROUP, "AdmissionCheck")
RESOURCE_FLAVOR = GroupKind(KUEUE_GROUP, "ResourceFlavor")
TOPOLOGY = GroupKind(KUEUE_GROUP, "Topology")
PROVISIONING_REQUEST_CONFIG = GroupKind(KUEUE_GROUP, "ProvisioningRequestConfig")
MULTIKUEUE_CONFIG = GroupKind(KUEUE_GROUP, "MultiKueueConfig")
MULTIKUEUE_CLUSTER = GroupKind(KUEUE_GROUP, "MultiKueueCluster")
MULTIKUEUE = "kueue.x-k8s.io/multikueue"                       # AdmissionCheck spec.controllerName
PROVISIONING = "kueue.x-k8s.io/provisioning-request"
# Kueue's reasons (apis/kueue/v1beta2/clusterqueue_types.go ClusterQueueActiveReason*)
NOT_FOUND = "AdmissionCheckNotFound"
INACTIVE = "AdmissionCheckInactive"
MULTIPLE_MULTIKUEUE = "MultipleMultiKueueAdmissionChecks"
MULTIKUEUE_PER_FLAVOR = "MultiKueueAdmissionCheckAppliedPerFlavor"
MULTIKUEUE_WITH_PROVISIONING = "MultiKueueWithProvisioningRequest"
TOPOLOGY_NOT_FOUND = "TopologyNotFound"
TAS_ON_BY_DEFAULT = (0, 14)   # TopologyAwareScheduling beta, on by default


@dataclass(frozen=True)
class CheckEntry:
    """One admission check a ClusterQueue names."""

    name: str
    path: tuple[Any, ...]            # the entry's `name` (v1beta1 `admissionChecks[i]`: the item)
    on_flavors: frozenset[str] | None  # None: every flavor of the queue
    target: K8sObject | None         # the AdmissionCheck, when it resolves
    unknown: bool                    # unresolved but it may exist elsewhere

    @property
    def controller(self) -> str | None:
        return text(self.target.get("spec", "controllerName")) if self.target is not None else None


@dataclass(frozen=True)
class Cause:
    """One reason the ClusterQueue is inactive, at one of its check entries."""

    reason: str
    entry: CheckEntry
    detail: str                      # what Kueue's condition message says
    others: tuple[CheckEntry, ...] = ()


def check_entries(cq: K8sObject, graph: ObjectGraph) -> list[CheckEntry]:
    """The admission checks of ``cq``: ``spec.admissionChecksStrategy.admissionChecks[]`` (v1beta1
    also ``spec.admissionChecks[]``, names only)."""
    found = []
    for index, item in indexed_mappings(cq.get("spec", "admissionChecksStrategy", "admissionChecks")):
        name = text(item.get("name"))
        if name is not None:
            flavors = item.get("onFlavors")
            on = frozenset(f for f in flavors if isinstance(f, str)) if isinstance(flavors, list) and flavors else None
            found.append(_entry(name, ("spec", "admissionChecksStrategy", "admissionChecks", index, "name"), on, graph))
    names = cq.get("spec", "admissionChecks")
    for index, name in enumerate(names if isinstance(names, list) else []):
        if text(name) is not None:
            found.append(_entry(name, ("spec", "admissionChecks", index), None, graph))
    return found


def _entry(name: str, path: tuple[Any, ...], on: frozenset[str] | None, graph: ObjectGraph) -> CheckEntry:
    target = graph.resolve(ADMISSION_CHECK.kind, name, group=KUEUE_GROUP)
    return CheckEntry(name, path, on, target, target is None and not known_missing(ADMISSION_CHECK, name, graph))


def known_missing(kind: GroupKind, name: str, graph: ObjectGraph) -> bool:
    """Whether ``name`` names no object of ``kind`` for sure: it does not resolve, cannot be
    defined elsewhere, and the run holds objects of that kind (so it manages them)."""
    return (graph.resolve(kind.kind, name, group=kind.group) is None
            and not graph.may_exist(kind.kind, name, None, kind.group) and bool(graph.of_kind(kind.kind, kind.group)))


def queue_flavors(cq: K8sObject) -> frozenset[str]:
    """Every flavor the ClusterQueue names (``resourcegroups.AllFlavors``)."""
    return frozenset(n for entry in flavor_quotas(cq) if isinstance(n := entry.name, str))


def has_multikueue_check(cq: K8sObject, graph: ObjectGraph) -> bool:
    return any(entry.controller == MULTIKUEUE for entry in check_entries(cq, graph))


def queue_causes(cq: K8sObject, graph: ObjectGraph) -> list[Cause]:
    """The ClusterQueue's own causes, in Kueue's order: missing checks, more than one MultiKueue
    check, a MultiKueue check per flavor, MultiKueue with ProvisioningRequest."""
    entries = check_entries(cq, graph)
    causes = [Cause(NOT_FOUND, e, f"references missing AdmissionCheck(s): {e.name}")
              for e in entries if e.target is None and not e.unknown]
    multikueue = [e for e in entries if e.controller == MULTIKUEUE]
    provisioning = [e for e in entries if e.controller == PROVISIONING]
    names = ",".join(sorted(e.name for e in multikueue))
    if len(multikueue) > 1:
        causes.append(Cause(MULTIPLE_MULTIKUEUE, multikueue[1], "Cannot use multiple MultiKueue AdmissionChecks "
                            f"on the same ClusterQueue, found: {names}", tuple(multikueue[:1] + multikueue[2:])))
    flavors = queue_flavors(cq)
    causes += [Cause(MULTIKUEUE_PER_FLAVOR, e, f"Cannot specify MultiKueue AdmissionCheck per flavor, found: {e.name}")
               for e in multikueue if e.on_flavors is not None and e.on_flavors != flavors]
    if multikueue and provisioning:
        later = max(multikueue[0], provisioning[0], key=entries.index)
        other = provisioning[0] if later is multikueue[0] else multikueue[0]
        causes.append(Cause(MULTIKUEUE_WITH_PROVISIONING, later, "Cannot use both MultiKueue and ProvisioningRequest "
                            f"AdmissionChecks together, found: {names}, "
                            f"{','.join(sorted(e.name for e in provisioning))}", (other,)))
    return causes


@dataclass(frozen=True)
class CheckProblem:
    """Why Kueue's own controller marks an AdmissionCheck ``Active=False``."""

    reason: str                      # the AdmissionCheck's condition reason
    detail: str
    path: tuple[Any, ...]            # the field at fault (``spec.parameters`` or below)


def inactive_check(ac: K8sObject, graph: ObjectGraph) -> CheckProblem | None:
    """The problem Kueue's provisioning-request or MultiKueue controller finds in ``ac``; None
    when it is active, or its controller is another one (not knowable)."""
    controller = text(ac.get("spec", "controllerName"))
    if controller == PROVISIONING:
        problem = _parameters_problem(ac, PROVISIONING_REQUEST_CONFIG, graph)
        return CheckProblem("BadParametersRef", *problem) if problem is not None else None
    if controller != MULTIKUEUE:
        return None
    problem = _parameters_problem(ac, MULTIKUEUE_CONFIG, graph)
    if problem is not None:
        return CheckProblem("BadConfig", f"Cannot load the AdmissionChecks parameters: {problem[0]}", problem[1])
    config = graph.resolve(MULTIKUEUE_CONFIG.kind, ac.get("spec", "parameters", "name"), group=KUEUE_GROUP)
    if config is None:
        return None  # may exist elsewhere (_parameters_problem found no proof it is missing)
    clusters = config.get("spec", "clusters")
    names = [c for c in clusters if isinstance(c, str)] if isinstance(clusters, list) else []
    if not names or len(names) != len(clusters or ()):
        return None  # nothing listed (or unreadable): not judged
    missing = [c for c in names if known_missing(MULTIKUEUE_CLUSTER, c, graph)]
    if len(missing) < len(names):
        return None  # some clusters usable (SomeActiveClusters is still active), or unknown
    return CheckProblem("NoUsableClusters", f"Missing clusters: {missing} (MultiKueueConfig {config.name})",
                        ("spec", "parameters", "name"))


def _parameters_problem(ac: K8sObject, kind: GroupKind, graph: ObjectGraph) -> tuple[str, tuple[Any, ...]] | None:
    """``refValidForGK`` and the lookup of the config it names: (error text, path) or None."""
    parameters = ac.get("spec", "parameters")
    base = ("spec", "parameters")
    if not isinstance(parameters, dict):
        return "missing parameters reference", base
    name = parameters.get("name")
    if not isinstance(name, str) or not name:
        return "empty name", base + ("name",)
    if parameters.get("apiGroup") != kind.group:
        return f"wrong group {parameters.get('apiGroup')!r}, expecting {kind.group!r}", base + ("apiGroup",)
    if parameters.get("kind") != kind.kind:
        return f"wrong kind {parameters.get('kind')!r}, expecting {kind.kind!r}", base + ("kind",)
    if known_missing(kind, name, graph):
        return f"{kind.kind} {name!r} not found", base + ("name",)
    return None


def missing_topology(flavor: K8sObject, graph: ObjectGraph) -> str | None:
    """The ``topologyName`` of a ResourceFlavor that names no Topology (``TopologyNotFound``)."""
    name = text(flavor.get("spec", "topologyName"))
    return name if name is not None and known_missing(TOPOLOGY, name, graph) else None


def queues_naming(kind: str, name: str, graph: ObjectGraph) -> Iterator[K8sObject]:
    """The ClusterQueues of the graph that name AdmissionCheck or ResourceFlavor ``name``."""
    for cq in graph.of_kind("ClusterQueue", KUEUE_GROUP, tiers=MANIFEST_TIERS):
        if kind == ADMISSION_CHECK.kind and any(e.name == name for e in check_entries(cq, graph)):
            yield cq
        elif kind != ADMISSION_CHECK.kind and name in queue_flavors(cq):
            yield cq
