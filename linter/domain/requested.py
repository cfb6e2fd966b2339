"""The extended resources pods request: platform evidence (the GPU nodes offer what some pod
requests; an RDMA NIC resource among them), computed once per object and kept in cache entries."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kqlint.domain.podspec import containers, resource_list

if TYPE_CHECKING:
    from kqlint.domain.graph import ObjectGraph
    from kqlint.domain.objects import K8sObject

# Resource-name markers of an RDMA/fabric device (evidence for nic_resources).
NIC_MARKERS = ("mlnx", "rdma", "hca", "infiniband", "roce")


def requested_resources(graph: ObjectGraph, memo: dict[int, frozenset[str]]) -> set[str]:
    """Extended resources some pod of the inputs/context requests (the nodes offer them).
    A context object served from the cache brings its own (computed when the file was
    cached), so its body is not decoded for this; others are computed once per run."""
    found: set[str] = set()
    for obj in graph.objects:
        if obj.source in ("input", "context"):
            known = getattr(obj, "known_requests", None)
            if known is None:
                known = memo.get(id(obj))
                if known is None:
                    known = memo[id(obj)] = object_requested_resources(obj, graph)
            found |= known
    return found


def object_requested_resources(obj: K8sObject, graph: ObjectGraph | None = None,
                               templates: list[Any] | None = None) -> frozenset[str]:
    """The extended resources (names with a ``/``) one object's own pod templates request or
    limit, and a TrainJob's ``resourcesPerNode``: a fact of the object alone (a TrainJob's
    runtime templates are the runtime's own, so ``graph`` only shares the template cache).
    ``templates``: the object's own templates, when already known."""
    from kqlint.domain.workloads import RESOURCES_PER_NODE_PATH, has_pod_templates, own_templates

    if not has_pod_templates(obj):
        return frozenset()
    templates = own_templates(obj, graph) if templates is None else templates
    sections = [c.resources for t in templates for c in containers(t.spec)]
    sections.append(obj.get(*RESOURCES_PER_NODE_PATH))
    found: set[str] = set()
    for resources in sections:
        for key in ("requests", "limits"):
            found |= {name for name in resource_list(resources, key) if isinstance(name, str) and "/" in name}
    return frozenset(found)


def is_nic_resource(name: str) -> bool:
    lowered = name.lower()
    return "/" in lowered and any(marker in lowered for marker in NIC_MARKERS)
