"""Kueue's flavor assignment of one Workload in one ClusterQueue against the usage of a
quota tree (``capacity``): which flavor each resource of each pod set gets, in which mode, how
far it borrows, and when nothing fits, Kueue's reason token and message.

Mirrors ``pkg/scheduler/flavorassigner/flavorassigner.go``: ``assignFlavors`` (pod sets in
order, pod sets of one ``podset-group-name`` together, one flavor per resource group),
``findFlavorForPodSets`` (flavors in order, ``shouldTryNextFlavor``, ``isPreferred``),
``checkFlavorForPodSets`` (taints, node affinity: ``flavors.check_flavor``), ``fitsResourceQuota``
(``maximum capacity``, ``unused quota``, the preemption oracle) and ``resolveNoFitReason``.
TAS placement is not modelled (the caller says so).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from kqlint.domain.kueue.capacity import (
    ZERO,
    FlavorResource,
    Node,
    lowest_subtree_that_fits,
    potential_available,
    queue_available,
)
from kqlint.domain.kueue.flavors import check_flavor
from kqlint.domain.quantity import kueue_quantity

if TYPE_CHECKING:
    from kqlint.domain.objects import K8sObject

# preemption modes, worst first (Kueue's preemptionMode)
NO_FIT, NO_CANDIDATES, PREEMPT, RECLAIM, FIT = range(5)
NO_MATCHING_FLAVOR, EXCEEDS_MAX_QUOTA, WAITING_FOR_QUOTA = "NoMatchingFlavor", "ExceedsMaxQuota", "WaitingForQuota"
_SEVERITY = {"": 0, WAITING_FOR_QUOTA: 2, EXCEEDS_MAX_QUOTA: 3, NO_MATCHING_FLAVOR: 4}
TRY_NEXT, MAY_STOP = "TryNextFlavor", "MayStopSearch"
PREEMPTION_OVER_BORROWING = "PreemptionOverBorrowing"

# (flavor, resource, amount with earlier pod sets) -> (preemption mode, borrowing level)
Oracle = Callable[[FlavorResource, Fraction], tuple[int, int]]


@dataclass(frozen=True)
class PodSetRequest:
    """One pod set of a Workload: its pods and what they request together."""

    name: str
    count: int
    requests: dict[str, Fraction]
    spec: dict[str, Any]          # the pod spec: tolerations, nodeSelector, affinity
    group: str | None = None      # kueue.x-k8s.io/podset-group-name
    min_count: int | None = None  # partial admission: the fewest pods it may run with (kueue.partial)


@dataclass(frozen=True)
class Fungibility:
    when_can_borrow: str = MAY_STOP
    when_can_preempt: str = TRY_NEXT
    preference: str | None = None


@dataclass(frozen=True)
class QueueView:
    """What the flavor assigner reads of a ClusterQueue."""

    name: str
    node: Node
    groups: list[tuple[list[str], list[str]]]       # (covered resources, flavor names)
    flavors: dict[str, K8sObject | None]            # name -> ResourceFlavor (None: unresolved)
    fungibility: Fungibility = Fungibility()
    borrow_within_cohort: bool = False              # borrowWithinCohort.policy != Never
    ignore_undeclared: bool = False                 # quotaCheckStrategy IgnoreUndeclared (its gate on)

    def group_of(self, resource: str) -> int | None:
        for index, (covered, _) in enumerate(self.groups):
            if resource in covered:
                return index
        return None


@dataclass
class PodSetAssignment:
    name: str
    count: int
    requests: dict[str, Fraction]
    flavors: dict[str, str] = field(default_factory=dict)
    modes: dict[str, int] = field(default_factory=dict)        # resource -> preemption mode
    borrow: dict[str, int] = field(default_factory=dict)
    reasons: list[str] = field(default_factory=list)
    failed: bool = False
    attempts: list[tuple[str, int, str]] = field(default_factory=list)  # (flavor, mode, no-fit reason)

    @property
    def mode(self) -> int:
        if self.failed:
            return NO_FIT
        if not self.reasons:
            return FIT
        return min((_assignment_mode(m) for m in self.modes.values()), default=FIT)

    @property
    def borrowing(self) -> bool:
        return any(level > 0 for level in self.borrow.values())


def _assignment_mode(mode: int) -> int:
    """Kueue's FlavorAssignmentMode: every preemption mode short of fit counts as Preempt."""
    return FIT if mode == FIT else NO_FIT if mode == NO_FIT else PREEMPT


@dataclass
class Assignment:
    pod_sets: list[PodSetAssignment]
    usage: dict[FlavorResource, Fraction]
    borrowing: int = 0
    no_fit_reason: str = ""

    @property
    def mode(self) -> int:
        """FIT, PREEMPT or NO_FIT: the worst pod set (``RepresentativeMode``)."""
        if not self.pod_sets:
            return NO_FIT
        return min(p.mode for p in self.pod_sets)

    def message(self) -> str:
        parts = []
        for pod_set in self.pod_sets:
            if pod_set.mode == FIT and not pod_set.reasons:
                continue
            parts.append(f"couldn't assign flavors to pod set {pod_set.name}: {', '.join(sorted(pod_set.reasons))}")
        return "; ".join(parts)

    def needs_preemption(self) -> set[FlavorResource]:
        return {(pod_set.flavors[r], r) for pod_set in self.pod_sets for r, m in pod_set.modes.items()
                if _assignment_mode(m) == PREEMPT}


def most_severe(a: str, b: str) -> str:
    return a if _SEVERITY.get(a, 0) >= _SEVERITY.get(b, 0) else b


def assign(pod_sets: list[PodSetRequest], queue: QueueView, oracle: Oracle | None = None) -> Assignment:
    """Kueue's ``assignFlavors`` for ``pod_sets`` in ``queue`` at the tree's current usage;
    ``oracle`` answers whether preemption could make room (None: no candidates)."""
    assignment = Assignment([], {})
    covers_pods = queue.group_of("pods") is not None
    grouped: dict[str, list[tuple[PodSetRequest, PodSetAssignment]]] = {}
    for index, pod_set in enumerate(pod_sets):
        requests = dict(pod_set.requests)
        if covers_pods:
            requests["pods"] = Fraction(pod_set.count)
        result = PodSetAssignment(pod_set.name, pod_set.count, requests)
        grouped.setdefault(pod_set.group or f"#{index}", []).append((pod_set, result))
    for members in grouped.values():
        if not _assign_group(members, queue, oracle, assignment):
            break
    assignment.no_fit_reason = _no_fit_reason(assignment, queue) if assignment.mode == NO_FIT else ""
    return assignment


def _assign_group(members: list[tuple[PodSetRequest, PodSetAssignment]], queue: QueueView,
                  oracle: Oracle | None, assignment: Assignment) -> bool:
    """Assign one group of pod sets; False when it failed (the rest are not tried)."""
    requests: dict[str, Fraction] = {}
    for _, result in members:
        for resource, amount in result.requests.items():
            requests[resource] = requests.get(resource, ZERO) + amount
    flavors: dict[str, tuple[str, int, int]] = {}
    reasons: list[str] = []
    attempts: list[tuple[str, int, str]] = []
    failed = False
    for resource in sorted(requests):  # Kueue walks a map: sorted here, for one answer
        group = queue.group_of(resource)
        if group is None and (requests[resource] == 0 or queue.ignore_undeclared):
            continue  # flavorassigner: a zero request, or IgnoreUndeclaredResources
        if resource in flavors:
            continue
        if group is None:  # the spec's NoMatchingFlavor, whatever flavors other groups tried
            reasons, failed = [f"resource {resource} unavailable in ClusterQueue"], True
            attempts.append(("", NO_FIT, NO_MATCHING_FLAVOR))
            break
        chosen, found_reasons, tried = _find_flavor(members, requests, group, queue, oracle, assignment.usage)
        attempts += tried
        if not chosen:
            reasons, failed = found_reasons, True
            break
        flavors.update(chosen)
        reasons += found_reasons
    for _, result in members:
        result.failed, result.reasons, result.attempts = failed, list(reasons), attempts
        if not failed:
            for resource in result.requests:
                if resource in flavors:
                    name, mode, borrow = flavors[resource]
                    result.flavors[resource], result.modes[resource], result.borrow[resource] = name, mode, borrow
                    fr = (name, resource)
                    assignment.usage[fr] = assignment.usage.get(fr, ZERO) + result.requests[resource]
                    assignment.borrowing = max(assignment.borrowing, borrow)
        assignment.pod_sets.append(result)
    return not failed


def _find_flavor(members: list[tuple[PodSetRequest, PodSetAssignment]], requests: dict[str, Fraction],
                 group: int, queue: QueueView, oracle: Oracle | None, assumed: dict[FlavorResource, Fraction]
                 ) -> tuple[dict[str, tuple[str, int, int]], list[str], list[tuple[str, int, str]]]:
    """``findFlavorForPodSets``: (resource -> (flavor, mode, borrow)), reasons, attempts."""
    covered, names = queue.groups[group]
    wanted = {r: a for r, a in requests.items() if r in covered}
    reasons: list[str] = []
    attempts: list[tuple[str, int, str]] = []
    best: dict[str, tuple[str, int, int]] = {}
    best_mode = (NO_FIT, 1 << 30)
    for name in names:
        rejection = _flavor_rejection(name, members, queue)
        if rejection is not None:
            reasons.append(rejection)
            attempts.append((name, NO_FIT, NO_MATCHING_FLAVOR))
            continue
        chosen: dict[str, tuple[str, int, int]] = {}
        mode = (FIT, 0)
        no_fit = ""
        for resource in sorted(wanted):
            fr = (name, resource)
            found, borrow, why, reason = _fits_quota(queue, fr, assumed.get(fr, ZERO), wanted[resource], oracle)
            reasons += why
            no_fit = most_severe(no_fit, reason)
            granular = (found, borrow)
            if _preferred(mode, granular, queue.fungibility):
                mode = granular
            if mode[0] != NO_FIT:  # every resource is judged (its reasons count), as Kueue's ForEach does
                chosen[resource] = (name, found, borrow)
        attempts.append((name, mode[0], no_fit if mode[0] == NO_FIT else ""))
        if not _try_next(mode, queue.fungibility):
            best, best_mode = chosen, mode
            break
        if _preferred(mode, best_mode, queue.fungibility):
            best, best_mode = chosen, mode
    if best_mode[0] == FIT:
        return best, [], attempts
    return (best if best_mode[0] != NO_FIT else {}), reasons, attempts


def _flavor_rejection(name: str, members: list[tuple[PodSetRequest, PodSetAssignment]],
                      queue: QueueView) -> str | None:
    """``checkFlavorForPodSets``: Kueue's reason the flavor cannot take these pod sets."""
    flavor = queue.flavors.get(name)
    if flavor is None:
        return f"flavor {name} not found"
    for pod_set, _ in members:
        check = check_flavor(pod_set.spec, flavor)
        if check.fits:
            continue
        return check.reason  # untolerated taint (as Kueue prints it), node affinity, TAS
    return None


def _fits_quota(queue: QueueView, fr: FlavorResource, assumed: Fraction, request: Fraction,
                oracle: Oracle | None) -> tuple[int, int, list[str], str]:
    """``fitsResourceQuota``: (mode, borrowing level, reasons, no-fit reason)."""
    node = queue.node
    value = assumed + request
    most = potential_available(node, fr)
    flavor, resource = fr
    if value > most:
        return NO_FIT, 0, [
            f"insufficient quota for {resource} in flavor {flavor}, previously considered podsets requests "
            f"({kueue_quantity(resource, assumed)}) + current podset request ({kueue_quantity(resource, request)}) "
            f"> maximum capacity ({kueue_quantity(resource, most)})"], EXCEEDS_MAX_QUOTA
    borrow, may_reclaim = lowest_subtree_that_fits(node, fr, value)
    free = queue_available(node, fr)
    if value <= free:
        return FIT, borrow, [], ""
    more = kueue_quantity(resource, value - free)
    reasons = [f"insufficient unused quota for {resource} in flavor {flavor}, {more} more needed"]
    if node.nominal(fr) >= value or may_reclaim or queue.borrow_within_cohort:
        mode, borrow = oracle(fr, value) if oracle is not None else (NO_CANDIDATES, borrow)
        return mode, borrow, reasons, "" if mode != NO_FIT else WAITING_FOR_QUOTA
    return NO_FIT, borrow, reasons, WAITING_FOR_QUOTA


def _preferred(a: tuple[int, int], b: tuple[int, int], fungibility: Fungibility) -> bool:
    """``isPreferred``: whether granular mode ``a`` (preemption mode, borrowing) beats ``b``."""
    if a[0] == NO_FIT:
        return False
    if b[0] == NO_FIT:
        return True
    if (a[0] == NO_CANDIDATES) != (b[0] == NO_CANDIDATES):
        return a[0] != NO_CANDIDATES
    if fungibility.preference == PREEMPTION_OVER_BORROWING:
        return a[1] < b[1] if a[1] != b[1] else a[0] > b[0]
    return a[0] > b[0] if a[0] != b[0] else a[1] < b[1]


def _try_next(mode: tuple[int, int], fungibility: Fungibility) -> bool:
    """``shouldTryNextFlavor``."""
    if mode[0] in (NO_FIT, NO_CANDIDATES):
        return True
    if mode[0] in (PREEMPT, RECLAIM) and fungibility.when_can_preempt == TRY_NEXT:
        return True
    return mode[1] > 0 and fungibility.when_can_borrow == TRY_NEXT


def _no_fit_reason(assignment: Assignment, queue: QueueView) -> str:
    """``resolveNoFitReason``: per pod set, the least severe reason of each resource group's
    failed flavors, the most severe across groups; the most severe across pod sets."""
    overall = ""
    for pod_set in assignment.pod_sets:
        if pod_set.mode != NO_FIT:
            continue
        if not pod_set.attempts:
            overall = most_severe(overall, NO_MATCHING_FLAVOR)
            continue
        least: dict[int, str] = {}
        for index, (flavor, mode, reason) in enumerate(pod_set.attempts):
            if mode != NO_FIT:
                continue
            groups = [g for g, (_, names) in enumerate(queue.groups) if flavor in names] or [-1 - index]
            for g in groups:
                if g not in least or _SEVERITY.get(reason, 0) < _SEVERITY.get(least[g], 0):
                    least[g] = reason
        for reason in least.values():
            overall = most_severe(overall, reason)
    return overall
