"""What the simulator reads of a ClusterQueue: whether Kueue would keep it inactive
(``inactiveReason`` in ``pkg/cache/scheduler/clusterqueue.go``, ``HasCycle``), whether its
``namespaceSelector`` admits a namespace, its admission checks, flavor fungibility and
preemption policy, and whether the Kueue Configuration turns Fair Sharing on."""
from __future__ import annotations

from typing import TYPE_CHECKING

from kqlint.domain.fields import strings, text, text_or
from kqlint.domain.kinds import KUEUE_GROUP
from kqlint.domain.kueue.admission import Fungibility, QueueView
from kqlint.domain.kueue.capacity import QuotaTree, resource_group_list
from kqlint.domain.kueue.preemption import Policy
from kqlint.domain.objects import INPUT
from kqlint.domain.selectors import NAME_LABEL, namespace_labels, selector_matches

if TYPE_CHECKING:
    from kqlint.domain.graph import ObjectGraph
    from kqlint.domain.objects import K8sObject


def fair_sharing(graph: ObjectGraph) -> bool:
    """Whether Fair Sharing is known to be on (B26): the platform model's fact, from the
    configuration or the Kueue Configuration of the inputs (kqlint.domain.kueue_config)."""
    from kqlint.domain.platform import platform_of

    return platform_of(graph).fair_sharing is True


def inactive_reason(cq: K8sObject, tree: QuotaTree, graph: ObjectGraph) -> str | None:
    """Kueue's ``Active=False`` reason for the ClusterQueue (B22, B26), as far as manifests show."""
    if stop_policy(cq) is not None:
        return "Stopped"
    from kqlint.domain.kueue.activity import ADMISSION_CHECK, RESOURCE_FLAVOR, known_missing

    names = [n for _, flavors in resource_group_list(cq) for n in flavors]
    if any(known_missing(RESOURCE_FLAVOR, n, graph) for n in names):  # one that may exist elsewhere: assumed
        return "FlavorNotFound"
    if any(known_missing(ADMISSION_CHECK, n, graph) for n in admission_checks(cq)):
        return "AdmissionCheckNotFound"
    known = _known_inactive(cq, graph)  # what KQ216 reports, from the same functions
    if known is not None:
        return known
    if tree.in_cycle(tree.queues[cq.name]):
        return "HasCycle"
    return None


def _known_inactive(cq: K8sObject, graph: ObjectGraph) -> str | None:
    """KQ216's reasons (kqlint.domain.kueue.activity): the MultiKueue constraints, an inactive
    AdmissionCheck, a TAS flavor whose Topology is missing."""
    from kqlint.domain.kueue.activity import (
        INACTIVE,
        TOPOLOGY_NOT_FOUND,
        check_entries,
        inactive_check,
        missing_topology,
        queue_causes,
    )

    causes = queue_causes(cq, graph)
    if causes:
        return causes[0].reason
    if any(e.target is not None and inactive_check(e.target, graph) is not None for e in check_entries(cq, graph)):
        return INACTIVE
    flavors = [graph.resolve("ResourceFlavor", n, None, KUEUE_GROUP) for _, names in resource_group_list(cq)
               for n in names]
    if any(f is not None and missing_topology(f, graph) is not None for f in flavors):
        return TOPOLOGY_NOT_FOUND
    return None


def stop_policy(queue: K8sObject | None) -> str | None:
    """A ClusterQueue's or LocalQueue's ``stopPolicy`` when it stops the queue (``Hold``: nothing
    new is admitted; ``HoldAndDrain``: admitted workloads are evicted too); None when it runs
    (unset, ``None``)."""
    stop = text_or(queue.get("spec", "stopPolicy"), "None") if queue is not None else "None"
    return None if stop == "None" else stop


def admission_checks(cq: K8sObject) -> list[str]:
    """Every admission check the ClusterQueue names (v1beta2 strategy, v1beta1 list)."""
    names = strings(cq.get("spec", "admissionChecks"))
    checks = cq.get("spec", "admissionChecksStrategy", "admissionChecks")
    for check in checks if isinstance(checks, list) else []:
        name = text(check.get("name")) if isinstance(check, dict) else None
        if name is not None:
            names.append(name)
    return sorted(set(names))


def namespace_admitted(cq: K8sObject, namespace: str | None, graph: ObjectGraph, unknown: set[str]) -> bool:
    """``spec.namespaceSelector``: null admits none; a Namespace object is judged by its labels;
    a namespace without one (labels unknown) or an unreadable selector is taken to admit."""
    selector = cq.get("spec", "namespaceSelector")
    if selector is None:
        return False
    obj = graph.resolve("Namespace", namespace, None, "") if namespace else None
    if obj is not None:
        return selector_matches(selector, namespace_labels(obj)) is not False
    if selector_matches(selector, {NAME_LABEL: namespace or ""}) is not False:
        return True
    unknown.add(namespace or "")  # its labels are unknown: admitted, and the report says so
    return True


def queue_view(cq: K8sObject, tree: QuotaTree, flavors: dict[str, K8sObject],
               ignore_undeclared: bool = False) -> QueueView:
    spec = cq.get("spec")
    spec = spec if isinstance(spec, dict) else {}
    fungibility = spec.get("flavorFungibility")
    fungibility = fungibility if isinstance(fungibility, dict) else {}
    borrow = text_or(fungibility.get("whenCanBorrow"), "MayStopSearch")
    preempt = text_or(fungibility.get("whenCanPreempt"), "TryNextFlavor")
    groups = resource_group_list(cq)
    return QueueView(cq.name, tree.queues[cq.name], groups, {n: flavors.get(n) for _, names in groups for n in names},
                     Fungibility("MayStopSearch" if borrow == "Borrow" else borrow,
                                 "MayStopSearch" if preempt == "Preempt" else preempt,
                                 text(fungibility.get("preference"))),
                     policy(cq).borrow_within_cohort != "Never", ignore_undeclared)


def policy(cq: K8sObject) -> Policy:
    threshold = cq.get("spec", "preemption", "borrowWithinCohort", "maxPriorityThreshold")
    return Policy(text_or(cq.get("spec", "preemption", "withinClusterQueue"), "Never"),
                  text_or(cq.get("spec", "preemption", "reclaimWithinCohort"), "Never"),
                  text_or(cq.get("spec", "preemption", "borrowWithinCohort", "policy"), "Never"),
                  threshold if isinstance(threshold, int) and not isinstance(threshold, bool) else None)


def assumed_to_exist(queues: list[K8sObject], graph: ObjectGraph) -> tuple[dict[str, K8sObject], list[str]]:
    """The ResourceFlavors and AdmissionCheck the ClusterQueues name that the run does not hold
    but may exist on the cluster (KQ216's and KQ206's judgement: ``known_missing`` is false):
    stand-in flavors by name (no node labels, taints or topology), and what the simulation
    assumes of them, said in its report."""
    from kqlint.domain.graph import declared_object
    from kqlint.domain.kueue.activity import ADMISSION_CHECK, RESOURCE_FLAVOR, known_missing

    flavors = sorted({n for cq in queues for _, names in resource_group_list(cq) for n in names
                      if graph.resolve("ResourceFlavor", n, None, KUEUE_GROUP) is None
                      and not known_missing(RESOURCE_FLAVOR, n, graph)})
    checks = sorted({n for cq in queues for n in admission_checks(cq)
                     if graph.resolve("AdmissionCheck", n, None, KUEUE_GROUP) is None
                     and not known_missing(ADMISSION_CHECK, n, graph)})
    said = []
    if flavors:
        said.append(f"ResourceFlavor {', '.join(flavors)} not in the inputs or context: assumed to exist, "
                    "with no node labels, taints or topology")
    if checks:
        said.append(f"AdmissionCheck {', '.join(checks)} not in the inputs or context: assumed to exist and be "
                    "active (its controller's verdict is not modelled)")
    stand_ins = {name: declared_object("ResourceFlavor", {"name": name}, "declared", "", "default",
                                       f"{KUEUE_GROUP}/v1beta2") for name in flavors}
    return stand_ins, said


def resource_flavors(graph: ObjectGraph, assumptions: list[str]) -> dict[str, K8sObject]:
    """The ResourceFlavors in view by name; one known by name only (no spec, not an input, no
    file: config `external` or the profile) is said in ``assumptions``."""
    found: dict[str, K8sObject] = {}
    for flavor in graph.of_kind("ResourceFlavor", KUEUE_GROUP):
        found.setdefault(flavor.name, flavor)
    bare = sorted(name for name, f in found.items() if not f.has("spec") and f.source != INPUT and not f.file)
    if bare:
        assumptions.append(f"ResourceFlavor {', '.join(bare)} known by name only: no node labels or taints assumed")
    return found
