"""Resource requests of one pod, as kube-scheduler and Kueue count them.

Quantities are parsed by :func:`kqlint.podspec.parse_quantity` (exact ``Fraction``s) and
containers come from :func:`kqlint.podspec.effective_resources` (which applies a TrainJob's
``resourcesPerNode``). Here they are combined into the requests of one pod:

- a resource with only a limit requests the limit (Kueue's "Requests values adjustment",
  kueue.md A5; the API server defaults it the same way for extended resources);
- app containers and sidecars (init containers with ``restartPolicy: Always``) run together;
  every other init container runs alone beside the sidecars started before it; the pod needs
  the larger of the two, plus ``overhead`` (kube-scheduler's ``PodRequests``, which Kueue uses);
- pod-level ``spec.resources`` (PodLevelResources) replaces the container sum for cpu, memory
  and hugepages.

Unparseable quantities are skipped, never raised on.
"""
from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from kqlint.podspec import Container, effective_resources, parse_quantity, resource_list
from kqlint.workloads import PodTemplate

Requests = dict[str, Fraction]
_BINARY = (("Ei", 2 ** 60), ("Pi", 2 ** 50), ("Ti", 2 ** 40), ("Gi", 2 ** 30), ("Mi", 2 ** 20), ("Ki", 2 ** 10))
_DECIMAL = (("E", 10 ** 18), ("P", 10 ** 15), ("T", 10 ** 12), ("G", 10 ** 9), ("M", 10 ** 6), ("k", 10 ** 3))


def requirement_requests(requirements: Any) -> Requests:
    """Requests of one ResourceRequirements mapping; a limit alone counts as the request."""
    found: Requests = {}
    for key in ("limits", "requests"):  # requests last: an explicit request wins
        for name, value in resource_list(requirements, key).items():
            amount = parse_quantity(value)
            if amount is not None:
                found[str(name)] = amount
    return found


def add(total: Mapping[str, Fraction], more: Mapping[str, Fraction], times: int = 1) -> Requests:
    """``total`` plus ``more`` × ``times`` (a new dict)."""
    result = dict(total)
    for name, amount in more.items():
        result[name] = result.get(name, Fraction(0)) + amount * times
    return result


def _maximum(left: Mapping[str, Fraction], right: Mapping[str, Fraction]) -> Requests:
    result = dict(left)
    for name, amount in right.items():
        result[name] = max(result.get(name, amount), amount)
    return result


def _is_init(container: Container) -> bool:
    return container.path[:1] == ("initContainers",)


def combine(spec: Mapping[str, Any], containers: list[tuple[Container, Any]]) -> Requests:
    """Requests of one pod from its PodSpec and (container, resources) pairs."""
    total: Requests = {}
    sidecars: Requests = {}
    init_peak: Requests = {}
    for container, resources in containers:
        own = requirement_requests(resources)
        if not _is_init(container):
            total = add(total, own)
        elif container.data.get("restartPolicy") == "Always":
            total, sidecars = add(total, own), add(sidecars, own)
            init_peak = _maximum(init_peak, sidecars)
        else:
            init_peak = _maximum(init_peak, add(sidecars, own))
    total = _maximum(total, init_peak)
    pod_level = requirement_requests(spec.get("resources"))
    total.update({name: amount for name, amount in pod_level.items()
                  if name in ("cpu", "memory") or name.startswith("hugepages-")})
    return add(total, requirement_requests({"requests": spec.get("overhead")}))


def pod_requests(template: PodTemplate) -> Requests:
    """Requests of one pod of ``template`` (TrainJob ``resourcesPerNode`` applied)."""
    return combine(template.spec, effective_resources(template))


def format_amount(amount: Fraction) -> str:
    """A short Quantity spelling for messages: ``500m``, ``8``, ``64Gi``, ``1.5``."""
    if amount.denominator != 1:
        milli = amount * 1000
        if milli.denominator == 1:
            return f"{milli.numerator}m"
        return f"{float(amount):g}"
    whole = amount.numerator
    if abs(whole) < 10000:
        return str(whole)
    spellings = [str(whole)] + [f"{whole // unit}{suffix}" for suffix, unit in _BINARY + _DECIMAL
                                if whole % unit == 0]
    return min(spellings, key=len)


__all__ = ["Requests", "requirement_requests", "combine", "pod_requests", "add", "format_amount"]
