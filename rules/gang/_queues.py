"""The gang schedulers' Queues in view (inputs, context, `external`, profile), by name."""
from __future__ import annotations

from kqlint.domain.graph import ObjectGraph
from kqlint.domain.kinds import GroupKind
from kqlint.domain.objects import K8sObject


def queues_by_name(graph: ObjectGraph, kind: GroupKind) -> dict[str, K8sObject]:
    """Queues of ``kind`` by name, the first (inputs before context) for a repeated name; built once per graph."""
    def build() -> dict[str, K8sObject]:
        found: dict[str, K8sObject] = {}
        for queue in graph.of_kind(kind.kind, kind.group):
            if isinstance(queue.name, str):
                found.setdefault(queue.name, queue)
        return found
    return graph.memo(("queues by name", kind), build)
