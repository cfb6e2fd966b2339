"""The Cohort hierarchy: Cohort objects linked by ``spec.parentName``, and the loops Kueue refuses
(kueue.md B26), for KQ220 and ``kqlint simulate``.

Mirrors Kueue's ``hierarchy.HasCycle`` (``pkg/cache/hierarchy/cycle.go``): walking up from a cohort
that has a parent, reaching a name already seen means a cycle, so a cohort *below* a loop has one
too. The scheduler's snapshot skips such cohorts and every ClusterQueue whose cohort has one
(``skipInactiveCQReason``, reason ``HasCycle``). A parent named by no Cohort object is an implicit
cohort without a parent (Kueue's cache creates it), so it ends the walk.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from kqlint.domain.chains import parent_loops, reaching
from kqlint.domain.fields import text
from kqlint.domain.graph import graph_fact
from kqlint.domain.kinds import KUEUE_GROUP
from kqlint.domain.kueue.quota import cohort_name

if TYPE_CHECKING:
    from kqlint.domain.graph import ObjectGraph
    from kqlint.domain.objects import K8sObject

PARENT_FIELD = ("spec", "parentName")


@dataclass(frozen=True)
class CohortCycle:
    """One loop of the hierarchy: its Cohorts in parent order, starting at the first by name."""

    members: tuple[K8sObject, ...]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(cohort.name for cohort in self.members)


@graph_fact
def cohort_objects(graph: ObjectGraph) -> dict[str, K8sObject]:
    """Cohort name -> its Cohort object (one per name, the best tier), built once per graph."""
    chosen: dict[str, K8sObject] = {}
    for cohort in graph.of_kind("Cohort", KUEUE_GROUP):
        chosen.setdefault(cohort.name, cohort)
    return chosen


def parent_name(cohort: K8sObject) -> str | None:
    return text(cohort.get(*PARENT_FIELD))


def ancestors(name: str, graph: ObjectGraph) -> list[str]:
    """The names above ``name`` (parent first), stopping before a name repeats or at a root."""
    cohorts = cohort_objects(graph)
    chain, seen = [], {name}
    current = cohorts.get(name)
    while current is not None:
        parent = parent_name(current)
        if parent is None or parent in seen:
            break
        chain.append(parent)
        seen.add(parent)
        current = cohorts.get(parent)
    return chain


def has_cycle(name: str, graph: ObjectGraph) -> bool:
    """Kueue's ``HasCycle``: the parent chain from cohort ``name`` reaches a name twice."""
    return name in _on_or_below_loops(graph)


@graph_fact
def cohort_cycles(graph: ObjectGraph) -> list[CohortCycle]:
    """Every loop among the Cohort objects, once each, ordered by its first name."""
    cohorts = cohort_objects(graph)
    found = {_rotated(loop): CohortCycle(tuple(cohorts[n] for n in _rotated(loop))) for loop in _loops(graph)}
    return [found[key] for key in sorted(found)]


def _rotated(loop: list[str]) -> tuple[str, ...]:
    start = loop.index(min(loop))
    return tuple(loop[start:] + loop[:start])


@graph_fact
def _cohort_parents(graph: ObjectGraph) -> dict[str, str | None]:
    """Cohort name -> the name of its parent, in name order."""
    cohorts = cohort_objects(graph)
    return {name: parent_name(cohorts[name]) for name in sorted(cohorts)}


@graph_fact
def _loops(graph: ObjectGraph) -> list[list[str]]:
    """Each loop of parent links once (its names in parent order)."""
    return parent_loops(_cohort_parents(graph))


@graph_fact
def _on_or_below_loops(graph: ObjectGraph) -> frozenset[str]:
    """The cohorts whose parent chain reaches a loop (on it, or below it)."""
    return reaching((name for loop in _loops(graph) for name in loop), _cohort_parents(graph))


def cluster_queues_in_cycle(cycle: CohortCycle, graph: ObjectGraph) -> list[K8sObject]:
    """The ClusterQueues whose cohort is on the loop or below it (they never admit), by name."""
    below = reaching(cycle.names, _cohort_parents(graph))
    chosen: dict[str, K8sObject] = {}
    for cq in graph.of_kind("ClusterQueue", KUEUE_GROUP):
        chosen.setdefault(cq.name, cq)
    affected = []
    for name in sorted(chosen):
        cohort = cohort_name(chosen[name])
        if cohort is not None and (cohort in below or cohort in cycle.names):
            affected.append(chosen[name])
    return affected
