"""The most a ClusterQueue can ever give a resource in each of its flavors (KQ210's capacity,
rules.md): ``nominalQuota`` + ``borrowingLimit``, or + what the rest of its cohort can lend, or
``nominalQuota`` alone; with where that quota is written."""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from kqlint.domain.graph import ObjectGraph, from_manifest
from kqlint.domain.kueue.quota import (
    cluster_queues_by_cohort,
    cohort_name,
    cohort_tree_open,
    covered_resources,
    flavors_covering,
    quota_entry,
)
from kqlint.domain.objects import K8sObject
from kqlint.domain.quantity import exact_sum, format_amount, parse_quantity
from kqlint.model import Location


@dataclass(frozen=True)
class Capacity:
    flavor: str
    amount: Fraction
    how: str                      # "nominalQuota 8 + borrowingLimit 8"
    at: Location                  # the flavor's quota for the resource


@dataclass(frozen=True)
class Capacities:
    """One resource's capacity in every flavor of a ClusterQueue, with the largest one (a
    single pod set must fit one flavor) and their sum (all pod sets together), worked out once."""

    each: tuple[Capacity, ...]
    largest: Capacity
    limit: Fraction

    @classmethod
    def of(cls, caps: list[Capacity]) -> Capacities:
        return cls(tuple(caps), max(caps, key=lambda c: c.amount), exact_sum(c.amount for c in caps))


def cohort_peers(cq: K8sObject, graph: ObjectGraph) -> list[K8sObject] | None:
    """The other ClusterQueues of ``cq``'s cohort ([] without a cohort); None when the
    cohort reaches beyond the inputs."""
    name = cohort_name(cq)
    if name is None:
        return []
    if not from_manifest(cq) or cohort_tree_open(name, graph):
        return None
    peers = [m for m in cluster_queues_by_cohort(graph).get(name, []) if m.name != cq.name]
    return None if not all(from_manifest(p) for p in peers) else peers


# ------------------------------------------------------------------ capacity

def _lendable(peer: K8sObject, flavor: str, resource: str) -> Fraction | None:
    found = quota_entry(peer, flavor, resource)
    if found is None:
        return Fraction(0)
    quota = found[1]
    return parse_quantity(quota["lendingLimit"] if quota.get("lendingLimit") is not None else quota.get("nominalQuota"))


def capacity(cq: K8sObject, peers: list[K8sObject], flavor: str, resource: str) -> Capacity | None:
    """The most ``cq`` can ever give ``resource`` in ``flavor``; None when a quota is unreadable."""
    found = quota_entry(cq, flavor, resource)
    if found is None:
        return None  # a flavor without the resource: the API server rejects the queue (KQ004)
    path, quota = found
    nominal = parse_quantity(quota.get("nominalQuota"))
    if nominal is None:
        return None
    at, how = cq.at(*path, "nominalQuota"), f"nominalQuota {format_amount(nominal)}"
    if quota.get("borrowingLimit") is not None:
        borrowing = parse_quantity(quota["borrowingLimit"])
        if borrowing is None:
            return None
        return Capacity(flavor, nominal + borrowing, f"{how} + borrowingLimit {format_amount(borrowing)}", at)
    if peers:
        lend = [_lendable(p, flavor, resource) for p in peers]
        if any(amount is None for amount in lend):
            return None
        total = sum((a for a in lend if a is not None), Fraction(0))
        return Capacity(flavor, nominal + total,
                        f"{how} + {format_amount(total)} the rest of cohort {cohort_name(cq)} can lend", at)
    return Capacity(flavor, nominal, how, at)


def capacity_table(cq: K8sObject, peers: list[K8sObject], graph: ObjectGraph) -> dict[str, Capacities]:
    """Covered resource -> its capacity per flavor, for every resource whose quotas can be
    read; built once per ClusterQueue and graph."""
    cache: dict[int, dict[str, Capacities]] = graph.memo(capacity_table, dict)
    table = cache.get(id(cq))
    if table is None:
        table = cache[id(cq)] = {}
        for resource in covered_resources(cq):
            caps = [capacity(cq, peers, flavor, resource) for flavor in flavors_covering(cq, resource)]
            if caps and all(c is not None for c in caps):
                table[resource] = Capacities.of([c for c in caps if c is not None])
    return table
