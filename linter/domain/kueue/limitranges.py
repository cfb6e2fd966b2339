"""The requests Kueue counts for a pod (kueue.md B31; ``AdjustResources``,
``pkg/workload/resources.go``): the namespace's LimitRange defaults merged into each container
and init container (``handlePodLimitRange``: ``Summarize`` keeps the first ``default`` and
``defaultRequest`` per resource over the LimitRanges in list order, i.e. by name; the
container's own values stay first), ``type: Pod`` defaults only into pod-level ``resources``
that are set, then limits filling missing requests. The LimitRanges are those of the inputs
and context; a namespace with none found has none here (callers that must not guess ask
``limit_ranges_found``)."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kqlint.domain.fields import indexed_mappings
from kqlint.domain.graph import MANIFEST_TIERS
from kqlint.domain.kinds import CORE_GROUP, GroupKind
from kqlint.domain.podspec import combine, effective_resources
from kqlint.domain.quantity import Requests, maximum, requirement_requests, resource_list

if TYPE_CHECKING:
    from kqlint.domain.graph import ObjectGraph
    from kqlint.domain.objects import K8sObject
    from kqlint.domain.workloads import PodTemplate

LIMIT_RANGE = GroupKind(CORE_GROUP, "LimitRange")
DEFAULT_REQUEST, DEFAULT = "defaultRequest", "default"


@dataclass(frozen=True)
class LimitDefault:
    """One resource's default, and the LimitRange entry that sets it."""

    value: Any
    owner: K8sObject
    path: tuple[Any, ...]            # ("spec", "limits", i, "default" | "defaultRequest", resource)


@dataclass(frozen=True)
class LimitDefaults:
    """The summarized defaults of one limit type (``Container`` or ``Pod``) of a namespace."""

    requests: dict[str, LimitDefault] = field(default_factory=dict)   # defaultRequest
    limits: dict[str, LimitDefault] = field(default_factory=dict)     # default

    def __bool__(self) -> bool:
        return bool(self.requests or self.limits)

    def merged(self, resources: Any) -> dict[str, Any]:
        """``resources`` (a ResourceRequirements mapping) with these defaults where it sets none."""
        requests = {**{r: d.value for r, d in self.requests.items()}, **resource_list(resources, "requests")}
        limits = {**{r: d.value for r, d in self.limits.items()}, **resource_list(resources, "limits")}
        return {"requests": requests, "limits": limits}

    def source(self, resource: str) -> LimitDefault | None:
        """The entry that supplies ``resource``: its defaultRequest, else its default."""
        return self.requests.get(resource) or self.limits.get(resource)


def namespace_limit_ranges(namespace: str | None, graph: ObjectGraph) -> list[K8sObject]:
    """The LimitRanges of the inputs and context in ``namespace``, by name (the API's list order)."""
    if namespace is None:
        return []
    found = [lr for lr in graph.of_kind(LIMIT_RANGE.kind, LIMIT_RANGE.group, tiers=MANIFEST_TIERS)
             if lr.namespace is not None and str(lr.namespace) == str(namespace)]
    return sorted(found, key=lambda lr: lr.name)


def limit_ranges_found(namespace: str | None, graph: ObjectGraph) -> bool:
    return bool(namespace_limit_ranges(namespace, graph))


def limit_defaults(namespace: str | None, graph: ObjectGraph, limit_type: str = "Container") -> LimitDefaults:
    """``Summarize``: per resource, the first ``default``/``defaultRequest`` of ``limit_type``."""
    def build() -> LimitDefaults:
        summary = LimitDefaults()
        for lr in namespace_limit_ranges(namespace, graph):
            for index, item in indexed_mappings(lr.get("spec", "limits")):
                if item.get("type") != limit_type:
                    continue
                for key, target in ((DEFAULT_REQUEST, summary.requests), (DEFAULT, summary.limits)):
                    for resource, value in resource_list(item, key).items():
                        target.setdefault(str(resource), LimitDefault(value, lr, ("spec", "limits", index, key,
                                                                                  resource)))
        return summary
    return graph.memo((limit_defaults, str(namespace) if namespace is not None else None, limit_type), build)


def defaulted_requests(template: PodTemplate, graph: ObjectGraph) -> Requests:
    """Requests of one pod of ``template`` as Kueue counts them, LimitRange defaults included."""
    namespace = template.workload.namespace
    container = limit_defaults(namespace, graph)
    pod = limit_defaults(namespace, graph, "Pod")
    spec: Mapping[str, Any] = template.spec
    pairs = effective_resources(template)
    if not container and not pod:
        return combine(spec, pairs)
    if pod and isinstance(spec.get("resources"), dict):
        spec = {**spec, "resources": pod.merged(spec["resources"])}
    return combine(spec, [(c, container.merged(resources)) for c, resources in pairs])


def limit_range_additions(template: PodTemplate, requested: Requests, graph: ObjectGraph) -> dict[str, LimitDefault]:
    """The resources of ``defaulted_requests`` that only a LimitRange default adds (not in
    ``requested``, the template's own), each with the entry that adds it."""
    namespace = template.workload.namespace
    container = limit_defaults(namespace, graph)
    pod = limit_defaults(namespace, graph, "Pod")
    found: dict[str, LimitDefault] = {}
    for resource in defaulted_requests(template, graph):
        if resource not in requested:
            source = container.source(resource) or pod.source(resource)
            if source is not None:
                found[resource] = source
    return found


def limit_bounds(namespace: str | None, graph: ObjectGraph) -> dict[str, tuple[Requests, Requests]]:
    """``Summarize``'s bounds per limit type (``Container``, ``Pod``, ...): the lowest ``max`` and
    the highest ``min`` of each resource over the namespace's LimitRanges."""
    def build() -> dict[str, tuple[Requests, Requests]]:
        summary: dict[str, tuple[Requests, Requests]] = {}
        for limit_range in namespace_limit_ranges(namespace, graph):
            for _, item in indexed_mappings(limit_range.get("spec", "limits")):
                limit_type = item.get("type")
                if isinstance(limit_type, str):
                    top, bottom = summary.get(limit_type, ({}, {}))
                    summary[limit_type] = (_lowest(top, _amounts(item, "max")), maximum(bottom, _amounts(item, "min")))
        return summary
    return graph.memo((limit_bounds, str(namespace) if namespace is not None else None), build)


def _amounts(item: Mapping[str, Any], key: str) -> Requests:
    return requirement_requests({"requests": resource_list(item, key)})


def _lowest(left: Requests, right: Requests) -> Requests:
    return {**right, **{name: min(amount, right.get(name, amount)) for name, amount in left.items()}}
