"""Kueue's classical preemption: which admitted workloads a workload would preempt to fit,
within its ClusterQueue (``withinClusterQueue``) and across its Cohort tree
(``reclaimWithinCohort``, ``borrowWithinCohort``), with Kueue's reasons.

Mirrors ``pkg/scheduler/preemption/preemption.go`` (``classicalPreemptions``,
``fillBackWorkloads``, ``workloadFits``, ``queueUnderNominalInResourcesNeedingPreemption``),
``pkg/scheduler/preemption/classical/`` (``candidate_generator.go``: the candidate order and
``candidateIsValid``; ``hierarchical_preemption.go``: ``classifyPreemptionVariant``,
``collectCandidatesForHierarchicalReclaim``), ``preemption/common`` (``CandidatesOrdering``,
``SatisfiesPreemptionPolicy``) and ``preemption_oracle.go`` (``SimulatePreemption``).
Fair Sharing is not modelled (the caller reports such queues not simulated).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from kqlint.domain.kueue.admission import NO_CANDIDATES, PREEMPT, RECLAIM
from kqlint.domain.kueue.capacity import (
    FlavorResource,
    Node,
    QuotaTree,
    add_usage,
    fits_in_subtree,
    lowest_subtree_that_fits,
    queue_available,
    remove_usage,
)

NEVER, LOWER, LOWER_OR_NEWER, ANY = "Never", "LowerPriority", "LowerOrNewerEqualPriority", "Any"
IN_CLUSTER_QUEUE, IN_COHORT_RECLAMATION = "InClusterQueue", "InCohortReclamation"
IN_COHORT_RECLAIM_WHILE_BORROWING = "InCohortReclaimWhileBorrowing"
_WITHOUT_BORROWING = "without-borrowing"  # ReclaimWithoutBorrowing: its reason is InCohortReclamation


@dataclass(frozen=True)
class Policy:
    """A ClusterQueue's ``spec.preemption``."""

    within_cluster_queue: str = NEVER
    reclaim_within_cohort: str = NEVER
    borrow_within_cohort: str = NEVER
    max_priority_threshold: int | None = None


@dataclass(eq=False)
class Holder:
    """A workload holding quota in a ClusterQueue."""

    ref: Any
    queue: str
    usage: dict[FlavorResource, Fraction]
    priority: int
    created: int                 # queue order (creation) rank
    admitted: int = 0            # admission rank: later is more recent
    evicted: bool = False        # already being evicted (a running Workload with Evicted=True)


@dataclass
class Cluster:
    """The quota tree, the workloads holding quota per ClusterQueue, and the queues' policies."""

    tree: QuotaTree
    policies: dict[str, Policy]
    holders: dict[str, list[Holder]] = field(default_factory=dict)
    admissions: int = 0

    def node(self, queue: str) -> Node:
        return self.tree.queues[queue]

    def add(self, holder: Holder) -> None:
        self.admissions += 1
        holder.admitted = self.admissions
        self.holders.setdefault(holder.queue, []).append(holder)
        self._charge(holder)

    def remove(self, holder: Holder) -> None:
        self.holders[holder.queue].remove(holder)
        self._release(holder)

    def _charge(self, holder: Holder) -> None:
        for fr, amount in holder.usage.items():
            add_usage(self.node(holder.queue), fr, amount)

    def _release(self, holder: Holder) -> None:
        for fr, amount in holder.usage.items():
            remove_usage(self.node(holder.queue), fr, amount)


@dataclass(frozen=True)
class Preemptor:
    queue: str
    priority: int
    created: int


@dataclass(frozen=True)
class _Candidate:
    holder: Holder
    lca: Node | None
    variant: str                # a reason, or _WITHOUT_BORROWING


def targets(cluster: Cluster, preemptor: Preemptor, frs: set[FlavorResource],
            requests: dict[FlavorResource, Fraction]) -> list[tuple[Holder, str]]:
    """The smallest set Kueue would preempt so ``requests`` fit, with each target's reason;
    [] when no set does."""
    policy = cluster.policies[preemptor.queue]
    queue = cluster.node(preemptor.queue)
    same = _same_queue(cluster, preemptor, frs) if policy.within_cluster_queue != NEVER else []
    hierarchy, by_priority = _across_cohort(cluster, preemptor, frs, requests)
    ordered = [sorted(group, key=lambda c: _order(c, preemptor.queue)) for group in (hierarchy, by_priority, same)]
    # NewCandidateIterator: the workloads already being evicted of every group, then the others
    candidates = [c for group in ordered for c in group if c.holder.evicted] + \
        [c for group in ordered for c in group if not c.holder.evicted]
    forbidden = policy.borrow_within_cohort == NEVER
    if not hierarchy and not by_priority or (forbidden and not _under_nominal(queue, frs)):
        attempts = [True]
    elif forbidden and not hierarchy:
        attempts = [False, True]
    else:
        attempts = [True, False]
    for borrowing in attempts:
        chosen: list[tuple[Holder, str]] = []
        for candidate in candidates:
            if not _valid(cluster, candidate, preemptor.queue, frs, borrowing):
                continue
            cluster._release(candidate.holder)
            chosen.append((candidate.holder, _reason(candidate.variant)))
            if _fits(queue, requests, borrowing):
                chosen = _fill_back(cluster, queue, requests, chosen, borrowing)
                _restore(cluster, chosen)
                return chosen
        _restore(cluster, chosen)
    return []


def simulate(cluster: Cluster, preemptor: Preemptor, fr: FlavorResource, amount: Fraction) -> tuple[int, int]:
    """``SimulatePreemption``: (NO_CANDIDATES, PREEMPT or RECLAIM, borrowing level after it)."""
    found = targets(cluster, preemptor, {fr}, {fr: amount})
    queue = cluster.node(preemptor.queue)
    if not found:
        return NO_CANDIDATES, lowest_subtree_that_fits(queue, fr, amount)[0]
    for holder, _ in found:
        cluster._release(holder)
    borrow = lowest_subtree_that_fits(queue, fr, amount)[0]
    _restore(cluster, found)
    in_queue = any(holder.queue == preemptor.queue for holder, _ in found)
    return (PREEMPT if in_queue else RECLAIM), borrow


def _reason(variant: str) -> str:
    return IN_COHORT_RECLAMATION if variant == _WITHOUT_BORROWING else variant


def _restore(cluster: Cluster, chosen: list[tuple[Holder, str]]) -> None:
    for holder, _ in chosen:
        cluster._charge(holder)


def _fits(queue: Node, requests: dict[FlavorResource, Fraction], borrowing: bool) -> bool:
    """``workloadFits``."""
    for fr, amount in requests.items():
        if not borrowing and queue.borrowing_with(fr, amount):
            return False
        if amount > queue_available(queue, fr):
            return False
    return True


def _fill_back(cluster: Cluster, queue: Node, requests: dict[FlavorResource, Fraction],
               chosen: list[tuple[Holder, str]], borrowing: bool) -> list[tuple[Holder, str]]:
    """``fillBackWorkloads``: give back every target, but the last, the workload fits without."""
    for i in range(len(chosen) - 2, -1, -1):
        cluster._charge(chosen[i][0])
        if _fits(queue, requests, borrowing):
            chosen[i] = chosen[-1]
            chosen.pop()
        else:
            cluster._release(chosen[i][0])
    return chosen


def _under_nominal(queue: Node, frs: set[FlavorResource]) -> bool:
    return all(queue.nominal(fr) > queue.usage.get(fr, Fraction(0)) for fr in frs)


def _order(candidate: _Candidate, queue: str) -> tuple[bool, bool, int, int, int]:
    """``CandidatesOrdering``: workloads already being evicted first, then other ClusterQueues',
    lower priority, most recently admitted."""
    holder = candidate.holder
    return (not holder.evicted, holder.queue == queue, holder.priority, -holder.admitted, holder.created)


def _valid(cluster: Cluster, candidate: _Candidate, queue: str, frs: set[FlavorResource], borrowing: bool) -> bool:
    """``candidateIsValid``: another ClusterQueue's workload only while that queue (and its
    Cohorts below the common ancestor) is still over its quota."""
    holder = candidate.holder
    if holder.queue == queue:
        return True
    if borrowing and candidate.variant == _WITHOUT_BORROWING:
        return False
    node = cluster.node(holder.queue)
    if node.within_nominal(frs):
        return False
    for ancestor in node.path_to_root():
        if ancestor is candidate.lca:
            break
        if ancestor.within_nominal(frs):
            return False
    return True


def _satisfies(policy: str, preemptor: Preemptor, holder: Holder) -> bool:
    """``SatisfiesPreemptionPolicy`` (queue order timestamp: creation order)."""
    lower = preemptor.priority > holder.priority
    if policy == LOWER:
        return lower
    if policy == LOWER_OR_NEWER:
        return lower or (preemptor.priority == holder.priority and preemptor.created < holder.created)
    return policy == ANY


def _uses(holder: Holder, frs: set[FlavorResource]) -> bool:
    return any(fr in frs for fr in holder.usage)


def _variant(cluster: Cluster, preemptor: Preemptor, holder: Holder, frs: set[FlavorResource],
             advantage: bool) -> str | None:
    """``classifyPreemptionVariant``: the candidate's reason, None when it may not be preempted."""
    policy = cluster.policies[preemptor.queue]
    same = holder.queue == preemptor.queue
    rule = policy.within_cluster_queue if same else policy.reclaim_within_cohort
    if not _uses(holder, frs) or not _satisfies(rule, preemptor, holder):
        return None
    if same:
        return IN_CLUSTER_QUEUE
    if advantage:
        return IN_COHORT_RECLAMATION
    if policy.borrow_within_cohort == NEVER:
        return _WITHOUT_BORROWING
    threshold = policy.max_priority_threshold
    if holder.priority >= preemptor.priority or (threshold is not None and holder.priority > threshold):
        return _WITHOUT_BORROWING
    return IN_COHORT_RECLAIM_WHILE_BORROWING


def _candidates_of(cluster: Cluster, queue: str, preemptor: Preemptor, frs: set[FlavorResource],
                   lca: Node | None, advantage: bool) -> list[_Candidate]:
    found = []
    for holder in cluster.holders.get(queue, ()):
        variant = _variant(cluster, preemptor, holder, frs, advantage)
        if variant is not None:
            found.append(_Candidate(holder, lca, variant))
    return found


def _same_queue(cluster: Cluster, preemptor: Preemptor, frs: set[FlavorResource]) -> list[_Candidate]:
    return _candidates_of(cluster, preemptor.queue, preemptor, frs, None, False)


def _across_cohort(cluster: Cluster, preemptor: Preemptor, frs: set[FlavorResource],
                   requests: dict[FlavorResource, Fraction]) -> tuple[list[_Candidate], list[_Candidate]]:
    """``collectCandidatesForHierarchicalReclaim``: (candidates with a hierarchical advantage,
    the others), walking up from the ClusterQueue's parent."""
    queue = cluster.node(preemptor.queue)
    hierarchy: list[_Candidate] = []
    by_priority: list[_Candidate] = []
    if queue.parent is None or cluster.policies[preemptor.queue].reclaim_within_cohort == NEVER:
        return hierarchy, by_priority
    advantage, remaining = fits_in_subtree(queue, requests)
    previous: Node | None = None
    for root in queue.path_to_root():
        target = hierarchy if advantage else by_priority
        _collect(cluster, preemptor, frs, root, root, previous, advantage, target)
        fits, remaining = fits_in_subtree(root, remaining)
        advantage = advantage or fits
        previous = root
    return hierarchy, by_priority


def _collect(cluster: Cluster, preemptor: Preemptor, frs: set[FlavorResource], cohort: Node, subtree: Node,
             skip: Node | None, advantage: bool, found: list[_Candidate]) -> None:
    for child in cohort.children:
        if child is skip:
            continue
        if not child.is_queue:
            if not child.within_nominal(frs):
                _collect(cluster, preemptor, frs, child, subtree, skip, advantage, found)
        elif child.name != preemptor.queue and not child.within_nominal(frs):
            found.extend(_candidates_of(cluster, child.name, preemptor, frs, subtree, advantage))
