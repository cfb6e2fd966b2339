"""Kueue's resource checks before flavor assignment (``ValidateAdmissibility``,
``pkg/workload/resources.go``; ``Summary.ValidatePodSpec``, ``pkg/util/limitrange/limitrange.go``):
a pod set whose requests exceed its limits, or that a LimitRange of its namespace bounds
(``max``, ``min``), leaves the Workload ``Misconfigured`` and never admitted. Both run on the
Workload as the scheduler holds it: LimitRange defaults merged and limits filling missing
requests (``AdjustResources``, kueue.md B31). Requests compare as Kueue's int64 resource values
(milli-CPU, whole units of everything else, rounded up)."""
from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from kqlint.domain.kueue.limitranges import limit_bounds, limit_defaults
from kqlint.domain.podspec import CONTAINER_LISTS, Container, combine, effective_resources
from kqlint.domain.quantity import Requests, kueue_value, requirement_requests, resource_list

if TYPE_CHECKING:
    from kqlint.domain.graph import ObjectGraph
    from kqlint.domain.workloads import PodTemplate

RESOURCES_INVALID = "resources validation failed"  # workload.ErrInvalidWLResources
LIMIT_RANGE_UNSATISFIED = "resources didn't satisfy LimitRange constraints"
EXCEEDS_LIMITS = "requests must not exceed its limits"
ABOVE_MAX = "requests must not be above the limitRange max"
BELOW_MIN = "requests must not be below the limitRange min"
Values = dict[str, int]  # resource name -> Kueue's int64 value


def admissibility_error(templates: Iterable[PodTemplate], graph: ObjectGraph) -> str | None:
    """Kueue's message when the pod sets (``templates``, in pod set order) fail the resource or
    LimitRange checks, else None. LimitRanges are those of the inputs and context."""
    pod_sets = [(index, t, _adjusted(t, graph)) for index, t in enumerate(templates)]
    exceeding = [error for index, _, pod in pod_sets for error in _requests_above_limits(index, pod)]
    if exceeding:
        return f"{RESOURCES_INVALID}: {_aggregate(exceeding)}"
    bounded = [error for index, t, pod in pod_sets for error in _limit_range_errors(index, t, pod, graph)]
    if bounded:
        return f"{LIMIT_RANGE_UNSATISFIED}: {_aggregate(bounded)}"
    return None


class _Pod:
    """One pod set's containers and pod-level resources after ``AdjustResources``."""

    def __init__(self, spec: Mapping[str, Any], containers: list[tuple[Container, Requests, Requests]],
                 pod_level: tuple[Requests, Requests] | None) -> None:
        self.spec = spec
        self.containers = containers     # (container, requests, limits)
        self.pod_level = pod_level       # (requests, limits) where the PodSpec sets `resources`

    def fields(self) -> list[tuple[str, Requests, Requests]]:
        """Each container's field path below the PodSpec, with its requests and limits."""
        return [(f"{c.path[0]}[{c.path[1]}]", requests, limits) for c, requests, limits in self.containers]

    def requests(self) -> dict[str, Fraction]:
        """The pod's requests as ``resourcehelpers.PodRequests`` sums them (init containers,
        sidecars, pod-level requests, overhead)."""
        spec = self.spec
        if self.pod_level is not None:
            spec = {**spec, "resources": {"requests": self.pod_level[0], "limits": self.pod_level[1]}}
        return combine(spec, [(c, {"requests": requests}) for c, requests, _ in self.containers])


def _adjusted(template: PodTemplate, graph: ObjectGraph) -> _Pod:
    namespace = template.workload.namespace
    container_defaults = limit_defaults(namespace, graph)
    pod_defaults = limit_defaults(namespace, graph, "Pod")
    found = [(container, *_limits_fill_requests(container_defaults.merged(resources)))
             for container, resources in effective_resources(template)
             if container.path[0] in CONTAINER_LISTS]  # mainContainer: not a field of the Workload's PodSpec
    spec: Mapping[str, Any] = template.spec
    pod_level = spec.get("resources")
    adjusted = _limits_fill_requests(pod_defaults.merged(pod_level)) if isinstance(pod_level, dict) else None
    return _Pod(spec, found, adjusted)


def _limits_fill_requests(resources: Mapping[str, Any]) -> tuple[Requests, Requests]:
    """(requests with limits filling the missing ones, limits), parsed."""
    return requirement_requests(resources), requirement_requests({"requests": resource_list(resources, "limits")})


def _requests_above_limits(index: int, pod: _Pod) -> list[str]:
    path = _pod_spec_path(index)
    errors = [_invalid(f"{path}.{field}", _greater(_values(requests), _values(limits)), EXCEEDS_LIMITS)
              for field, requests, limits in pod.fields()]
    if pod.pod_level is not None:
        requests, limits = pod.pod_level
        errors.append(_invalid(f"{path}.resources", _greater(_values(requests), _values(limits)), EXCEEDS_LIMITS))
    return [e for e in errors if e]


def _limit_range_errors(index: int, template: PodTemplate, pod: _Pod, graph: ObjectGraph) -> list[str]:
    summary = {kind: (_values(top), _values(bottom))
               for kind, (top, bottom) in limit_bounds(template.workload.namespace, graph).items()}
    path = _pod_spec_path(index)
    errors: list[str] = []
    if "Container" in summary:
        top, bottom = summary["Container"]
        for field, requests, limits in pod.fields():
            low = _merge(_values(requests), _values(limits), min)
            high = _merge(_values(requests), _values(limits), max)
            errors.append(_invalid(f"{path}.{field}", _greater(high, top), ABOVE_MAX))
            errors.append(_invalid(f"{path}.{field}", _greater(bottom, low), BELOW_MIN))
    if "Pod" in summary:
        top, bottom = summary["Pod"]
        total = _values(pod.requests())
        errors.append(_invalid(path, _greater(total, top), ABOVE_MAX))
        errors.append(_invalid(path, _greater(bottom, total), BELOW_MIN))
    return [e for e in errors if e]


def _values(amounts: Requests) -> Values:
    """Kueue's int64 value of each amount (``quantity.kueue_value``)."""
    return {name: kueue_value(name, amount) for name, amount in amounts.items()}


def _merge(left: Values, right: Values, pick: Callable[[int, int], int]) -> Values:
    merged = dict(left)
    for name, value in right.items():
        merged[name] = pick(merged[name], value) if name in merged else value
    return merged


def _greater(values: Values, other: Values) -> list[str]:
    """``GreaterKeys``: the resources in both where ``values`` is above ``other``, sorted."""
    return sorted(name for name, value in values.items() if name in other and value > other[name])


def _invalid(path: str, names: list[str], detail: str) -> str:
    """``field.Invalid(path, names, detail).Error()``; empty when no resource is named."""
    return f"{path}: Invalid value: {json.dumps(names, separators=(',', ':'))}: {detail}" if names else ""


def _aggregate(errors: list[str]) -> str:
    """``ErrorList.ToAggregate().Error()``: one message alone, several in brackets (duplicates
    once)."""
    unique = list(dict.fromkeys(errors))
    return unique[0] if len(unique) == 1 else "[" + ", ".join(unique) + "]"


def _pod_spec_path(index: int) -> str:
    return f"spec.podSets[{index}].template.spec"
