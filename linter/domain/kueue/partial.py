"""Kueue's partial admission: a Workload whose pod sets carry a ``minCount`` (a Job's
``kueue.x-k8s.io/job-min-parallelism``) that neither fits whole nor can preempt to fit is
assigned again with fewer pods, down to those minimums, and takes the largest counts found.

Mirrors ``pkg/scheduler/scheduler.go`` ``getInitialAssignments`` (the whole Workload first;
preemption targets for it; then the reduced counts, each accepted when it fits or has
targets) and ``pkg/scheduler/flavorassigner/podset_reducer.go`` (a binary search over one step
index shared by every pod set, ``sort.Search`` as Go runs it, requests scaled per pod as
``PodSetResources.ScaledTo`` does). The ``PartialAdmission`` gate is on by default from Kueue
0.5; with it off, Kueue drops ``minCount`` and the Workload is assigned whole.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TypeVar

from kqlint.domain.kueue.admission import FIT, PREEMPT, Assignment, Oracle, PodSetRequest, QueueView, assign

Victims = TypeVar("Victims")  # what a preemption target is to the caller
Result = TypeVar("Result")


def can_be_partially_admitted(pod_sets: list[PodSetRequest]) -> bool:
    """``CanBePartiallyAdmitted``: some pod set may run with fewer pods than it asks for."""
    return any(p.min_count is not None and p.count > p.min_count for p in pod_sets)


def scaled(pod_set: PodSetRequest, count: int) -> PodSetRequest:
    """``ScaledTo``: the pod set with ``count`` pods, each requesting what one pod did."""
    if pod_set.count in (0, count):
        return pod_set
    return replace(pod_set, count=count,
                   requests={r: amount / pod_set.count * count for r, amount in pod_set.requests.items()})


def initial_assignment(pod_sets: list[PodSetRequest], queue: QueueView, *, partial: bool,
                       oracle: Oracle | None = None,
                       targets_of: Callable[[Assignment], list[Victims]] | None = None
                       ) -> tuple[Assignment, list[Victims]]:
    """The assignment Kueue settles on for ``pod_sets`` and the targets it would preempt for it
    (``getInitialAssignments``). ``partial``: the PartialAdmission gate is on; ``targets_of``
    answers the targets of an assignment that needs preemption (None: no preemption)."""
    full = assign(pod_sets, queue, oracle)
    if full.mode == FIT:
        return full, []
    if full.mode == PREEMPT and targets_of is not None and (victims := targets_of(full)):
        return full, victims
    if partial and can_be_partially_admitted(pod_sets):

        def fits(counts: list[int]) -> tuple[Assignment, list[Victims]] | None:
            assignment = assign([scaled(p, n) for p, n in zip(pod_sets, counts, strict=True)], queue, oracle)
            if assignment.mode == FIT:
                return assignment, []
            if assignment.mode == PREEMPT and targets_of is not None and (victims := targets_of(assignment)):
                return assignment, victims
            return None

        found = search([p.count for p in pod_sets], [p.min_count for p in pod_sets], fits)
        if found is not None:
            return found
    return full, []



def search(counts: list[int], minimums: list[int | None],
           fits: Callable[[list[int]], Result | None]) -> Result | None:
    """``PodSetReducer.Search``: the largest counts ``fits`` accepts, walking every pod set
    from its count down to its minimum in ``total + 1`` shared steps (step ``i`` takes
    ``delta × i ÷ total`` pods off each, rounded down), by Go's ``sort.Search``, which assumes
    a smaller step fits whenever a larger one does not. None when no step it tried fits, or
    when the last step it settled on is not the last one that fitted."""
    deltas = [count - (count if minimum is None else minimum) for count, minimum in zip(counts, minimums, strict=True)]
    total = sum(deltas)
    if total <= 0:
        return None
    last_good, last_result = 0, None
    low, high = 0, total + 1
    while low < high:
        step = (low + high) // 2
        result = fits([count - delta * step // total for count, delta in zip(counts, deltas, strict=True)])
        if result is None:
            low = step + 1
        else:
            high, last_good, last_result = step, step, result
    return last_result if low == last_good else None


__all__ = ["can_be_partially_admitted", "initial_assignment", "scaled", "search"]
