"""Kueue's scheduler over a set of pending workloads, cycle after cycle, until a cycle changes
nothing: each ClusterQueue offers its head, heads get flavors against the same usage, then are
processed in Kueue's order; admitted workloads hold quota, preemptors evict their targets.

Mirrors ``pkg/scheduler/scheduler.go``: ``schedule``/``nominate`` (one head per queue),
``makeClassicalIterator`` (no borrowing first, then priority, then queue order),
``getInitialAssignments`` (partial admission: ``kueue.partial``), ``processEntry`` (NoFit,
Preempt without candidates, overlapping targets, "no longer fits", ``quotaResourcesToReserve``
while preempting, ``. Pending the preemption of N workload(s)``),
and the queue manager's ordering (priority, then creation) with ``StrictFIFO`` and
``BestEffortFIFO`` (``pkg/cache/queue``). Nothing finishes: usage is released only by
preemption, and set-aside workloads are retried when an eviction frees quota in their cohort.
"""
from __future__ import annotations

from bisect import insort
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction

from kqlint.domain.kueue.admission import (
    FIT,
    NO_FIT,
    PREEMPT,
    WAITING_FOR_QUOTA,
    Assignment,
    Oracle,
    PodSetRequest,
    QueueView,
)
from kqlint.domain.kueue.capacity import ZERO, FlavorResource, Node, add_usage, queue_available, remove_usage
from kqlint.domain.kueue.partial import initial_assignment
from kqlint.domain.kueue.preemption import ANY, Cluster, Holder, Preemptor, simulate, targets

STRICT_FIFO, BEST_EFFORT_FIFO = "StrictFIFO", "BestEffortFIFO"
BLOCKED = "Blocked"


@dataclass(eq=False)
class Entry:
    """One workload of the queue and, once run, what Kueue did with it."""

    name: str                     # NS/NAME, for messages
    queue: str
    priority: int
    created: int
    pod_sets: list[PodSetRequest]
    status: str = "pending"       # admitted | pending | preempted
    assignment: Assignment | None = None
    reason: str | None = None
    message: str | None = None
    preempted: list[tuple[Entry, str]] = field(default_factory=list)
    preempted_by: tuple[Entry, str] | None = None
    preemption_message: str | None = None
    holder: Holder | None = None

    def key(self) -> tuple[int, int]:
        return (-self.priority, self.created)

    def __lt__(self, other: Entry) -> bool:
        return self.key() < other.key()


@dataclass
class _Queue:
    strategy: str
    active: list[Entry] = field(default_factory=list)
    aside: list[Entry] = field(default_factory=list)
    stuck: Entry | None = None     # StrictFIFO: a head that cannot be admitted


def run(entries: list[Entry], cluster: Cluster, views: dict[str, QueueView], strategies: dict[str, str],
        partial: bool = True) -> bool:
    """Admit ``entries`` as Kueue's scheduler would; results are written on the entries.
    ``partial``: the PartialAdmission gate is on (``kueue.partial``). False when the cycles
    were cut short (a bound against pathological inputs)."""
    queues = {entry.queue: _Queue(strategies.get(entry.queue, BEST_EFFORT_FIFO)) for entry in entries}
    for entry in sorted(entries):
        queues[entry.queue].active.append(entry)
    names = sorted(queues)
    finished = False
    for _ in range(8 * len(entries) + 8):  # every cycle admits, preempts or sets one aside
        heads = [(name, queues[name].active.pop(0)) for name in names
                 if queues[name].active and queues[name].stuck is None]
        if not heads:
            finished = True
            break
        _cycle(heads, cluster, views, queues, partial)
    for queue_name, queue in queues.items():
        if queue.stuck is not None:
            for entry in queue.active[1:]:  # the stuck head keeps its own reason
                entry.reason = BLOCKED
                entry.message = f"waits behind {queue.stuck.name} at the head of ClusterQueue {queue_name} (StrictFIFO)"
    return finished


def _cycle(heads: list[tuple[str, Entry]], cluster: Cluster, views: dict[str, QueueView],
           queues: dict[str, _Queue], partial: bool) -> None:
    nominated = []
    for name, entry in heads:
        preemptor = Preemptor(name, entry.priority, entry.created)
        assignment, victims = initial_assignment(entry.pod_sets, views[name], partial=partial,
                                                 oracle=_oracle(cluster, preemptor),
                                                 targets_of=_targets_of(cluster, preemptor))
        entry.assignment = assignment
        nominated.append((entry, victims))
    nominated.sort(key=lambda item: (item[0].assignment.borrowing if item[0].assignment else 0,
                                     -item[0].priority, item[0].created))
    reserved: list[tuple[Node, FlavorResource, Fraction]] = []
    for entry, victims in nominated:
        _process(entry, victims, cluster, views[entry.queue], queues, reserved)
    for node, fr, amount in reserved:  # a preemptor's reservation lasts one cycle (snapshot only)
        remove_usage(node, fr, amount)


def _targets_of(cluster: Cluster, preemptor: Preemptor) -> Callable[[Assignment], list[tuple[Holder, str]]]:
    """The preemption targets Kueue finds for an assignment of ``preemptor`` (``GetTargets``)."""
    return lambda assignment: targets(cluster, preemptor, assignment.needs_preemption(), assignment.usage)


def _oracle(cluster: Cluster, preemptor: Preemptor) -> Oracle:
    return lambda fr, amount: simulate(cluster, preemptor, fr, amount)


def _process(entry: Entry, victims: list[tuple[Holder, str]], cluster: Cluster, view: QueueView,
             queues: dict[str, _Queue], reserved: list[tuple[Node, FlavorResource, Fraction]]) -> None:
    assignment = entry.assignment
    assert assignment is not None
    queue = queues[entry.queue]
    entry.message = assignment.message() or None
    if assignment.mode == NO_FIT or (assignment.mode == PREEMPT and not victims):
        entry.reason = assignment.no_fit_reason or WAITING_FOR_QUOTA
        if assignment.mode == PREEMPT and cluster.policies[entry.queue].reclaim_within_cohort != ANY:
            _reserve(view.node, _to_reserve(assignment, view.node), reserved)  # reserveCapacityForUnreclaimablePreempt
        _set_aside(entry, queue)
        return
    if any(holder.ref.status == "preempted" for holder, _ in victims) or not _fits(cluster, view, entry, victims):
        entry.reason = WAITING_FOR_QUOTA  # "no longer fits after processing another workload": next cycle
        insort(queue.active, entry)
        return
    if assignment.mode == FIT:
        entry.status, entry.reason, entry.message = "admitted", None, None
        entry.holder = Holder(entry, entry.queue, dict(assignment.usage), entry.priority, entry.created)
        cluster.add(entry.holder)
        return
    for holder, reason in victims:
        _evict(holder, entry, reason, cluster, queues)
    entry.preemption_message = f"{assignment.message()}. Pending the preemption of {len(victims)} workload(s)"
    _reserve(view.node, _to_reserve(assignment, view.node), reserved)
    insort(queue.active, entry)


def _reserve(node: Node, usage: dict[FlavorResource, Fraction],
             reserved: list[tuple[Node, FlavorResource, Fraction]]) -> None:
    """Usage held in this cycle's snapshot only (released when the cycle ends)."""
    for fr, amount in usage.items():
        add_usage(node, fr, amount)
        reserved.append((node, fr, amount))


def _set_aside(entry: Entry, queue: _Queue) -> None:
    if queue.strategy == STRICT_FIFO:
        queue.active.insert(0, entry)
        queue.stuck = entry
    else:
        queue.aside.append(entry)


def _evict(holder: Holder, preemptor: Entry, reason: str, cluster: Cluster, queues: dict[str, _Queue]) -> None:
    victim: Entry = holder.ref
    cluster.remove(holder)
    victim.status, victim.reason, victim.holder = "preempted", reason, None
    victim.preempted_by = (preemptor, reason)
    preemptor.preempted.append((victim, reason))
    root = cluster.node(holder.queue).root()
    for name, queue in queues.items():
        if name == holder.queue or cluster.node(name).root() is root:
            for entry in queue.aside:
                insort(queue.active, entry)
            queue.aside = []
            queue.stuck = None


def _fits(cluster: Cluster, view: QueueView, entry: Entry, victims: list[tuple[Holder, str]]) -> bool:
    """``fits``: the reservation fits what is available once the targets are gone."""
    assert entry.assignment is not None
    usage = _to_reserve(entry.assignment, view.node) if entry.assignment.mode == PREEMPT else entry.assignment.usage
    for holder, _ in victims:
        cluster._release(holder)
    fits = all(amount <= queue_available(view.node, fr) for fr, amount in usage.items())
    for holder, _ in victims:
        cluster._charge(holder)
    return fits


def _to_reserve(assignment: Assignment, node: Node) -> dict[FlavorResource, Fraction]:
    """``quotaResourcesToReserve``: what a preemptor holds while its targets go."""
    reserved = {}
    for fr, amount in assignment.usage.items():
        quota = node.quotas.get(fr)
        nominal = quota.nominal if quota is not None else ZERO
        used = node.usage.get(fr, ZERO)
        if assignment.borrowing > 0:
            limit = quota.borrowing_limit if quota is not None else None
            reserved[fr] = amount if limit is None else min(amount, nominal + limit - used)
        else:
            reserved[fr] = max(ZERO, min(amount, nominal - used))
    return reserved


__all__ = ["BEST_EFFORT_FIFO", "BLOCKED", "STRICT_FIFO", "Entry", "run"]
