"""Kueue ``Workload`` objects of the inputs. Those holding quota: ``Workload`` objects whose
``status.admission`` names a ClusterQueue and whose ``QuotaReserved`` condition is ``True``
(``kubectl get workloads -o yaml``). They keep their ClusterQueue, flavors and usage
(``status.admission.podSetAssignments[].flavors`` / ``resourceUsage``), as Kueue's cache does.
The others are pending workloads of their own (a Workload written by hand, or a scenario)."""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from kqlint.domain.fields import indexed_mappings, text
from kqlint.domain.kinds import KUEUE_GROUP
from kqlint.domain.kueue.capacity import ZERO, FlavorResource
from kqlint.domain.kueue.priority import object_priority, priority_boost_on
from kqlint.domain.objects import INPUT
from kqlint.domain.quantity import kueue_value, parse_quantity

if TYPE_CHECKING:
    from kqlint.domain.graph import ObjectGraph
    from kqlint.domain.objects import K8sObject
    from kqlint.domain.workloads.templates import PodTemplate


@dataclass(frozen=True)
class Running:
    obj: K8sObject
    queue: str                       # the ClusterQueue of the admission
    local_queue: str | None
    priority: int
    flavors: list[tuple[str, int, dict[str, str]]]   # (pod set, count, resource -> flavor)
    usage: dict[FlavorResource, Fraction]
    reserved_at: str = ""            # QuotaReserved's lastTransitionTime ("" when not written)
    evicted: bool = False            # Evicted=True: being evicted, still holding its quota


def running_workloads(graph: ObjectGraph) -> list[Running]:
    """Every admitted Workload object of the inputs, in read order."""
    found, boosted, reclaim = [], priority_boost_on(graph), reclaimable_pods_on(graph)
    for obj in graph.of_kind("Workload", KUEUE_GROUP, tiers=(INPUT,)):
        admission = obj.get("status", "admission")
        queue = text(admission.get("clusterQueue")) if isinstance(admission, dict) else None
        if queue is None or not _quota_reserved(obj) or obj.get("spec", "active") is False:
            continue  # a deactivated Workload is evicted: it is reported as a pending one
        flavors, usage = _assignments(admission, _counts_after_reclaim(obj, False), _counts_after_reclaim(obj, reclaim))
        found.append(Running(obj, queue, text(obj.get("spec", "queueName")), object_priority(obj, boosted),
                             flavors, usage, _reserved_at(obj), _condition_true(obj, "Evicted")))
    found.sort(key=lambda r: (r.obj.file, r.obj.doc))
    return found


def _reserved_at(obj: K8sObject) -> str:
    """When the quota was reserved: what Kueue orders preemption candidates by, the most
    recent first (``quotaReservationTime`` in ``preemption/common/ordering.go``)."""
    for _, condition in indexed_mappings(obj.get("status", "conditions")):
        if condition.get("type") == "QuotaReserved":
            return text(condition.get("lastTransitionTime")) or ""
    return ""


def creation_ranks(objects: list[K8sObject]) -> list[int]:
    """Each object's place in creation order: those with ``metadata.creationTimestamp`` first,
    by it, then the others in the order given (cli.md). Kueue's LowerOrNewerEqualPriority
    compares these (``GetQueueOrderTimestamp``), between running and pending workloads alike."""
    stamps = [text(obj.get("metadata", "creationTimestamp")) or "" for obj in objects]
    ranks = [0] * len(objects)
    for rank, index in enumerate(sorted(range(len(objects)), key=lambda i: (not stamps[i], stamps[i], i))):
        ranks[index] = rank
    return ranks


def _quota_reserved(obj: K8sObject) -> bool:
    return _condition_true(obj, "QuotaReserved")


def _condition_true(obj: K8sObject, kind: str) -> bool:
    return any(c.get("type") == kind and c.get("status") == "True"
               for _, c in indexed_mappings(obj.get("status", "conditions")))


def _assignments(admission: dict[str, Any], totals: dict[str, int], after_reclaim: dict[str, int]
                 ) -> tuple[list[tuple[str, int, dict[str, str]]], dict[FlavorResource, Fraction]]:
    """Each pod set's flavors and the quota it holds: its ``resourceUsage``, scaled down to the
    pods not yet reclaimable (``totalRequestsFromAdmission``: Kueue divides each int64 amount by
    the admitted count and multiplies it by the count after reclaim)."""
    flavors: list[tuple[str, int, dict[str, str]]] = []
    usage: dict[FlavorResource, Fraction] = {}
    for _, assignment in indexed_mappings(admission.get("podSetAssignments")):
        given = assignment.get("flavors")
        given = {str(r): str(f) for r, f in given.items() if isinstance(f, str)} if isinstance(given, dict) else {}
        used = assignment.get("resourceUsage")
        used = used if isinstance(used, dict) else {}
        name = str(assignment.get("name") or "main")
        count = assignment.get("count")
        count = count if isinstance(count, int) and not isinstance(count, bool) else totals.get(name, 0)
        left = after_reclaim.get(name, count)
        flavors.append((name, min(count, left), given))
        for resource, flavor in given.items():
            amount = parse_quantity(used.get(resource))
            if amount is not None:
                amount = _scaled(resource, amount, count, left) if 0 <= left < count else amount
                usage[(flavor, resource)] = usage.get((flavor, resource), ZERO) + amount
    return flavors, usage


def reclaimable_pods_on(graph: ObjectGraph) -> bool:
    """Kueue's ReclaimablePods gate is or may be on (on by default from 0.15): a Workload's
    ``status.reclaimablePods`` (pods that finished) then hold no quota."""
    from kqlint.domain.kueue_config import kueue_gate
    from kqlint.domain.platform import platform_of

    return kueue_gate(platform_of(graph), "ReclaimablePods", 15) is not False


def _counts_after_reclaim(obj: K8sObject, reclaim: bool) -> dict[str, int]:
    """``podSetsCountsAfterReclaim``: each pod set's count less its reclaimable pods (never
    below 0); the counts as written when the gate is off."""
    counts: dict[str, int] = {}
    for _, pod_set in indexed_mappings(obj.get("spec", "podSets")):
        count = pod_set.get("count", 1)
        if isinstance(count, int) and not isinstance(count, bool):
            counts[str(pod_set.get("name") or "main")] = count
    if reclaim:
        for _, item in indexed_mappings(obj.get("status", "reclaimablePods")):
            name, gone = str(item.get("name") or ""), item.get("count")
            if name in counts and isinstance(gone, int) and not isinstance(gone, bool) and gone > 0:
                counts[name] -= min(gone, counts[name])
    return counts


def _scaled(resource: str, amount: Fraction, count: int, left: int) -> Fraction:
    """``amount`` for ``left`` of ``count`` pods, in Kueue's int64 units (``quantity.kueue_value``),
    divided before it is multiplied, as Kueue's Requests do."""
    if count <= 0:
        return amount
    return Fraction(kueue_value(resource, amount) // count * left, 1000 if resource == "cpu" else 1)


@dataclass(frozen=True)
class Pending:
    """A Kueue ``Workload`` object of the inputs without quota: queued as Kueue would queue it
    (``spec.queueName``, ``spec.priority``, ``spec.podSets[].count``, ``minCount`` and ``template``)."""

    obj: K8sObject
    local_queue: str
    priority: int
    pod_sets: list[tuple[str, int, int | None, PodTemplate]]   # (name, count, minCount, template)


def pending_workloads(graph: ObjectGraph) -> list[Pending]:
    """Every Workload object of the inputs that holds no quota (or is deactivated, ``spec.active:
    false``: Kueue evicts it), in read order; one without a queue name or pod sets Kueue can read
    is left out."""
    from kqlint.domain.workloads.templates import full_template

    found, boosted, reclaim = [], priority_boost_on(graph), reclaimable_pods_on(graph)
    for obj in graph.of_kind("Workload", KUEUE_GROUP, tiers=(INPUT,)):
        queue = text(obj.get("spec", "queueName"))
        admitted = text(obj.get("status", "admission", "clusterQueue")) and _quota_reserved(obj)
        if queue is None or (admitted and obj.get("spec", "active") is not False):
            continue
        sets, after_reclaim = [], _counts_after_reclaim(obj, reclaim)
        for index, pod_set in indexed_mappings(obj.get("spec", "podSets")):
            count = pod_set.get("count", 1)
            if not isinstance(count, int) or isinstance(count, bool) or count < 0:
                break
            count = after_reclaim.get(str(pod_set.get("name") or "main"), count)
            path = ("spec", "podSets", index, "template")
            sets.append((str(pod_set.get("name") or "main"), count, _min_count(pod_set.get("minCount"), count),
                         full_template(obj, "template", path, count)))
        else:
            if sets:
                found.append(Pending(obj, queue, object_priority(obj, boosted), sets))
    found.sort(key=lambda p: (p.obj.file, p.obj.doc))
    return found


def _min_count(value: Any, count: int) -> int | None:
    """A pod set's ``minCount`` where Kueue reads it: an integer from 1 to ``count`` (the CRD
    refuses others); None when unset."""
    if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= count:
        return value
    return None
