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
    seen = [name]
    current = cohorts.get(name)
    while current is not None:
        parent = parent_name(current)
        if parent is None or parent in seen:
            break
        seen.append(parent)
        current = cohorts.get(parent)
    return seen[1:]


def has_cycle(name: str, graph: ObjectGraph) -> bool:
    """Kueue's ``HasCycle``: the parent chain from cohort ``name`` reaches a name twice."""
    cohorts = cohort_objects(graph)
    chain = [name, *ancestors(name, graph)]
    last = cohorts.get(chain[-1])
    return last is not None and parent_name(last) in chain


@graph_fact
def cohort_cycles(graph: ObjectGraph) -> list[CohortCycle]:
    """Every loop among the Cohort objects, once each, ordered by its first name."""
    cohorts = cohort_objects(graph)
    found: dict[tuple[str, ...], CohortCycle] = {}
    for name in sorted(cohorts):
        if not has_cycle(name, graph):
            continue
        chain = [name, *ancestors(name, graph)]
        entry = parent_name(cohorts[chain[-1]])
        loop = chain[chain.index(entry):] if entry in chain else chain
        start = loop.index(min(loop))
        ordered = tuple(loop[start:] + loop[:start])
        found.setdefault(ordered, CohortCycle(tuple(cohorts[n] for n in ordered)))
    return [found[key] for key in sorted(found)]


def cluster_queues_in_cycle(cycle: CohortCycle, graph: ObjectGraph) -> list[K8sObject]:
    """The ClusterQueues whose cohort is on the loop or below it (they never admit), by name."""
    on_loop = set(cycle.names)
    chosen: dict[str, K8sObject] = {}
    for cq in graph.of_kind("ClusterQueue", KUEUE_GROUP):
        chosen.setdefault(cq.name, cq)
    affected = []
    for name in sorted(chosen):
        cohort = cohort_name(chosen[name])
        if cohort is not None and (cohort in on_loop or on_loop.intersection(ancestors(cohort, graph))):
            affected.append(chosen[name])
    return affected
