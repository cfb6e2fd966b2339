"""The gang schedulers' Queues in view (inputs, context, `external`, profile), by name."""
from __future__ import annotations

from kqlint.domain.chains import ancestry
from kqlint.domain.graph import ObjectGraph
from kqlint.domain.kinds import GroupKind
from kqlint.domain.objects import K8sObject
from kqlint.model import Location


def queues_by_name(graph: ObjectGraph, kind: GroupKind) -> dict[str, K8sObject]:
    """Queues of ``kind`` by name, the first (inputs before context) for a repeated name; built once per graph."""
    def build() -> dict[str, K8sObject]:
        found: dict[str, K8sObject] = {}
        for queue in graph.of_kind(kind.kind, kind.group):
            if isinstance(queue.name, str):
                found.setdefault(queue.name, queue)
        return found
    return graph.memo(("queues by name", kind), build)


def queue_chain(queue: K8sObject | None, queues: dict[str, K8sObject], parent_field: str) -> list[K8sObject]:
    """The queue and its ancestors in view (``spec.<parent_field>`` names the parent), nearest
    first, stopping at a loop, an unknown parent or ``chains.MAX_ANCESTRY`` levels (every gang
    and queue walks its own: bounded on a hostile queue tree)."""
    def parent(of: K8sObject) -> K8sObject | None:
        name = of.get("spec", parent_field)
        return queues.get(name) if isinstance(name, str) else None
    return ancestry(queue, parent)


def children_of(graph: ObjectGraph, kind: GroupKind, name: str, parent_field: str) -> list[K8sObject]:
    """The Queues of ``kind`` whose ``spec.<parent_field>`` names ``name``, in name order of
    ``queues_by_name``; from an index built once per graph (a queue tree thousands wide or deep
    is asked about every queue)."""
    def build() -> dict[str, list[K8sObject]]:
        index: dict[str, list[K8sObject]] = {}
        for queue in queues_by_name(graph, kind).values():
            parent = queue.get("spec", parent_field)
            if isinstance(parent, str):
                index.setdefault(parent, []).append(queue)
        return index
    return graph.memo(("queue children", kind, parent_field), build).get(name, [])


def child_queue_notes(children: list[K8sObject], parent_field: str) -> tuple[list[tuple[Location, str]], str]:
    """``related`` entries (the first five children's parent fields) and up to three child names
    in backquotes, for a finding about a queue that has children."""
    related = [(child.at_value("spec", parent_field), f"Queue {child.name} names it as parent")
               for child in children[:5]]
    return related, ", ".join(f"`{child.name}`" for child in children[:3])
