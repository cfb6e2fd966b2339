"""Kueue's quota tree: ClusterQueues and Cohorts as resource nodes, what each may use now
(``available``) and at most (``potential_available``), usage flowing up the tree as it is
added and removed. Mirrors ``pkg/cache/scheduler/resource_node.go`` (``available``,
``potentialAvailable``, ``addUsage``, ``removeUsage``, ``accumulateFromChild``) and
``FindHeightOfLowestSubtreeThatFits`` in ``pkg/scheduler/preemption/classical/
hierarchical_preemption.go``.

A node's *local quota* is what it keeps from its parent: its subtree quota minus its
``lendingLimit`` (none kept without a lending limit); everything else is lent to the parent,
whose subtree quota is its own quota plus what its children lend. Amounts are exact fractions.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from kqlint.domain.fields import text
from kqlint.domain.kinds import KUEUE_GROUP
from kqlint.domain.kueue.quota import cohort_name, flavor_quotas
from kqlint.domain.quantity import parse_quantity

if TYPE_CHECKING:
    from kqlint.domain.graph import ObjectGraph
    from kqlint.domain.objects import K8sObject

FlavorResource = tuple[str, str]   # (flavor, resource)
ZERO = Fraction(0)


@dataclass(frozen=True)
class Quota:
    """One ``resources[]`` entry of a ClusterQueue or Cohort flavor."""

    nominal: Fraction
    borrowing_limit: Fraction | None = None
    lending_limit: Fraction | None = None


@dataclass(eq=False)
class Node:
    """A ClusterQueue (``queue`` set) or a Cohort of the tree."""

    name: str
    queue: K8sObject | None = None
    quotas: dict[FlavorResource, Quota] = field(default_factory=dict)
    parent: Node | None = None
    children: list[Node] = field(default_factory=list)
    subtree: dict[FlavorResource, Fraction] = field(default_factory=dict)
    usage: dict[FlavorResource, Fraction] = field(default_factory=dict)

    @property
    def is_queue(self) -> bool:
        return self.queue is not None

    def path_to_root(self) -> Iterator[Node]:
        """The ancestors, parent first."""
        node = self.parent
        while node is not None:
            yield node
            node = node.parent

    def root(self) -> Node:
        node = self
        while node.parent is not None:
            node = node.parent
        return node

    def local_quota(self, fr: FlavorResource) -> Fraction:
        quota = self.quotas.get(fr)
        if quota is None or quota.lending_limit is None:
            return ZERO
        return max(ZERO, self.subtree.get(fr, ZERO) - quota.lending_limit)

    def local_available(self, fr: FlavorResource) -> Fraction:
        return max(ZERO, self.local_quota(fr) - self.usage.get(fr, ZERO))

    def nominal(self, fr: FlavorResource) -> Fraction:
        quota = self.quotas.get(fr)
        return quota.nominal if quota is not None else ZERO

    def borrowing_with(self, fr: FlavorResource, amount: Fraction) -> bool:
        """Whether using ``amount`` more goes beyond the node's own quota (ClusterQueue: its
        nominal quota; Cohort: its subtree's)."""
        own = self.nominal(fr) if self.is_queue else self.subtree.get(fr, ZERO)
        return own < self.usage.get(fr, ZERO) + amount

    def within_nominal(self, frs: Iterable[FlavorResource]) -> bool:
        return all(self.subtree.get(fr, ZERO) >= self.usage.get(fr, ZERO) for fr in frs)

    def height(self) -> int:
        """Kueue's ``getNodeHeight`` of a Cohort: 1 above ClusterQueues, one more per level of Cohorts."""
        height = min(len(self.children), 1)
        for child in self.children:
            if not child.is_queue:
                height = max(height, child.height() + 1)
        return height


def available(node: Node, fr: FlavorResource) -> Fraction:
    """What ``node`` may use now: its unused local quota plus what its parent can still lend
    it, capped by its ``borrowingLimit`` (Kueue's ``available``; can be negative in debt)."""
    if node.parent is None:
        return node.subtree.get(fr, ZERO) - node.usage.get(fr, ZERO)
    from_parent = available(node.parent, fr)
    quota = node.quotas.get(fr)
    if quota is not None and quota.borrowing_limit is not None:
        local = node.local_quota(fr)
        stored_in_parent = node.subtree.get(fr, ZERO) - local
        used_in_parent = max(ZERO, node.usage.get(fr, ZERO) - local)
        from_parent = min(stored_in_parent - used_in_parent + quota.borrowing_limit, from_parent)
    return node.local_available(fr) + from_parent


def queue_available(node: Node, fr: FlavorResource) -> Fraction:
    """``ClusterQueueSnapshot.Available``: never below zero."""
    return max(ZERO, available(node, fr))


def potential_available(node: Node, fr: FlavorResource) -> Fraction:
    """The most ``node`` could use with the rest of the tree idle (``potentialAvailable``)."""
    if node.parent is None:
        return node.subtree.get(fr, ZERO)
    most = node.local_quota(fr) + potential_available(node.parent, fr)
    quota = node.quotas.get(fr)
    if quota is not None and quota.borrowing_limit is not None:
        most = min(node.subtree.get(fr, ZERO) + quota.borrowing_limit, most)
    return most


def add_usage(node: Node, fr: FlavorResource, amount: Fraction) -> None:
    local = node.local_available(fr)
    node.usage[fr] = node.usage.get(fr, ZERO) + amount
    if node.parent is not None and amount > local:
        add_usage(node.parent, fr, amount - local)


def remove_usage(node: Node, fr: FlavorResource, amount: Fraction) -> None:
    stored_in_parent = node.usage.get(fr, ZERO) - node.local_quota(fr)
    node.usage[fr] = node.usage.get(fr, ZERO) - amount
    if stored_in_parent <= 0 or node.parent is None:
        return
    remove_usage(node.parent, fr, min(amount, stored_in_parent))


def lowest_subtree_that_fits(queue: Node, fr: FlavorResource, amount: Fraction) -> tuple[int, bool]:
    """(borrowing level, whether a higher Cohort could still be reclaimed from): 0 when the
    ClusterQueue's own quota holds ``amount``, else the height of the lowest Cohort whose
    subtree does (``FindHeightOfLowestSubtreeThatFits``)."""
    if not queue.borrowing_with(fr, amount) or queue.parent is None:
        return 0, queue.parent is not None
    remaining = amount - queue.local_available(fr)
    for node in queue.path_to_root():
        if not node.borrowing_with(fr, remaining):
            return node.height(), node.parent is not None
        remaining -= node.local_available(fr)
    return queue.root().height(), False


def fits_in_subtree(node: Node, requests: dict[FlavorResource, Fraction]
                    ) -> tuple[bool, dict[FlavorResource, Fraction]]:
    """``QuantitiesFitInQuota``: whether ``requests`` fit the node's subtree quota, and what is
    left for its parent once its local quota is used."""
    fits = True
    remaining = {}
    for fr, amount in requests.items():
        if node.subtree.get(fr, ZERO) < node.usage.get(fr, ZERO) + amount:
            fits = False
        remaining[fr] = max(ZERO, amount - node.local_available(fr))
    return fits, remaining


# ------------------------------------------------------------------ building the tree

@dataclass
class QuotaTree:
    """Every ClusterQueue (by name) and Cohort of the graph, linked; ``cyclic``: Cohorts whose
    parent chain loops (Kueue skips them and their ClusterQueues, reason ``HasCycle``)."""

    queues: dict[str, Node]
    cohorts: dict[str, Node]
    cyclic: frozenset[str] = frozenset()
    deep: frozenset[str] = frozenset()     # Cohorts below more than MAX_DEPTH ancestors

    def in_cycle(self, queue: Node) -> bool:
        return queue.parent is not None and queue.parent.name in self.cyclic

    def too_deep(self, queue: Node) -> bool:
        return queue.parent is not None and queue.parent.name in self.deep


def quotas_of(obj: K8sObject) -> dict[FlavorResource, Quota]:
    """The quotas of a ClusterQueue or Cohort's ``spec.resourceGroups`` (unparsable: absent)."""
    found: dict[FlavorResource, Quota] = {}
    for entry in flavor_quotas(obj):
        if not isinstance(entry.name, str):
            continue
        for _, quota in entry.quotas():
            resource, nominal = quota.get("name"), parse_quantity(quota.get("nominalQuota"))
            if isinstance(resource, str) and nominal is not None:
                found[(entry.name, resource)] = Quota(nominal, _limit(quota.get("borrowingLimit")),
                                                      _limit(quota.get("lendingLimit")))
    return found


def _limit(value: Any) -> Fraction | None:
    return parse_quantity(value) if value is not None else None


def build_tree(graph: ObjectGraph) -> QuotaTree:
    """The tree of the graph's ClusterQueues (one per name, the best tier) and Cohorts (a
    Cohort a ClusterQueue names without a Cohort object is an empty node)."""
    queues: dict[str, Node] = {}
    for cq in graph.of_kind("ClusterQueue", KUEUE_GROUP):
        queues.setdefault(cq.name, Node(cq.name, cq, quotas_of(cq)))
    cohorts: dict[str, Node] = {}
    parents: dict[str, str] = {}
    for obj in graph.of_kind("Cohort", KUEUE_GROUP):
        if obj.name not in cohorts:
            cohorts[obj.name] = Node(obj.name, None, quotas_of(obj))
            parent = text(obj.get("spec", "parentName")) or text(obj.get("spec", "parent"))
            if parent is not None:
                parents[obj.name] = parent
    for name in list(parents.values()) + [cohort_name(node.queue) or "" for node in queues.values() if node.queue]:
        if name and name not in cohorts:
            cohorts[name] = Node(name)
    for child, parent in parents.items():
        _link(cohorts[child], cohorts[parent])
    for node in queues.values():
        member_of = cohort_name(node.queue) if node.queue is not None else None
        if member_of is not None:
            _link(node, cohorts[member_of])
    cyclic, deep = _cyclic(cohorts)
    for cohort in cohorts.values():
        if cohort.parent is None:
            _accumulate(cohort)
    for node in queues.values():
        if node.parent is None:
            _accumulate(node)
    return QuotaTree(queues, cohorts, frozenset(cyclic), frozenset(deep))


def _link(child: Node, parent: Node) -> None:
    child.parent = parent
    parent.children.append(child)


MAX_DEPTH = 64  # a deeper Cohort chain is not simulated (bounded recursion on hostile input)


def _cyclic(cohorts: dict[str, Node]) -> tuple[set[str], set[str]]:
    """(Cohorts on or under a loop of ``parentName``: Kueue's ``hierarchy.HasCycle``; Cohorts
    more than MAX_DEPTH levels deep)."""
    cyclic: set[str] = set()
    deep: set[str] = set()
    for cohort in cohorts.values():
        seen: set[str] = set()
        node: Node | None = cohort
        while node is not None and node.name not in seen and len(seen) <= MAX_DEPTH:
            seen.add(node.name)
            node = node.parent
        if node is not None:
            (cyclic if node.name in seen else deep).add(cohort.name)
    return cyclic, deep


def _accumulate(node: Node, depth: int = 0) -> None:
    """Subtree quotas bottom up (``updateCohortResourceNode``/``accumulateFromChild``)."""
    node.subtree = {fr: quota.nominal for fr, quota in node.quotas.items()}
    if depth > MAX_DEPTH + 1:
        return
    for child in node.children:
        _accumulate(child, depth + 1)
        for fr, quota in child.subtree.items():
            node.subtree[fr] = node.subtree.get(fr, ZERO) + quota - child.local_quota(fr)


def resource_group_list(cq: K8sObject) -> list[tuple[list[str], list[str]]]:
    """(covered resources, flavor names) of each resource group, in order."""
    from kqlint.domain.fields import strings
    from kqlint.domain.kueue.quota import group_flavors, resource_groups

    groups = []
    for _, group in resource_groups(cq):
        names = [f["name"] for _, f in group_flavors(group) if isinstance(f.get("name"), str)]
        groups.append((strings(group.get("coveredResources")), names))
    return groups


__all__ = ["FlavorResource", "Node", "Quota", "QuotaTree", "add_usage", "available", "build_tree",
           "fits_in_subtree", "lowest_subtree_that_fits", "potential_available",
           "queue_available", "remove_usage", "resource_group_list"]
