"""Kubernetes quantities (``500m``, ``2Gi``, ``1e3``) as exact ``Fraction``s, resource lists,
and the request arithmetic of :func:`kqlint.domain.podspec.pod_requests`, which combines the
containers of one pod (TrainJob ``resourcesPerNode`` applied) as kube-scheduler and Kueue do:

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

import re
from collections.abc import Iterable, Mapping
from fractions import Fraction
from functools import lru_cache
from typing import Any

Requests = dict[str, Fraction]
_BINARY = (("Ei", 2 ** 60), ("Pi", 2 ** 50), ("Ti", 2 ** 40), ("Gi", 2 ** 30), ("Mi", 2 ** 20), ("Ki", 2 ** 10))
_DECIMAL = (("E", 10 ** 18), ("P", 10 ** 15), ("T", 10 ** 12), ("G", 10 ** 9), ("M", 10 ** 6), ("k", 10 ** 3))


_QUANTITY_RE = re.compile(r"^([+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+))(.*)$")
_SUFFIXES: dict[str, Fraction] = {
    "": Fraction(1), "n": Fraction(1, 10**9), "u": Fraction(1, 10**6), "m": Fraction(1, 1000),
    "k": Fraction(10**3), "M": Fraction(10**6), "G": Fraction(10**9), "T": Fraction(10**12),
    "P": Fraction(10**15), "E": Fraction(10**18),
    "Ki": Fraction(2**10), "Mi": Fraction(2**20), "Gi": Fraction(2**30), "Ti": Fraction(2**40),
    "Pi": Fraction(2**50), "Ei": Fraction(2**60),
}
_EXPONENT_RE = re.compile(r"^[eE]([+-]?[0-9]+)$")


def parse_quantity(value: Any) -> Fraction | None:
    """A Kubernetes quantity (``1``, ``"1"``, ``"1000m"``, ``"2Gi"``, ``"1e3"``) as an exact
    number, or None when it is not one (booleans, templates, garbage)."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, float):
        return Fraction(str(value)) if value == value and abs(value) != float("inf") else None
    if not isinstance(value, str):
        return None
    return _parse_text(value)


@lru_cache(maxsize=4096)  # the same few spellings ("4", "16Gi", "500m") recur in every manifest
def _parse_text(value: str) -> Fraction | None:
    match = _QUANTITY_RE.match(value.strip())
    if not match:
        return None
    number, suffix = Fraction(match.group(1)), match.group(2)
    if suffix in _SUFFIXES:
        return number * _SUFFIXES[suffix]
    exponent = _EXPONENT_RE.match(suffix)
    if exponent and abs(int(exponent.group(1))) <= 64:
        return number * Fraction(10) ** int(exponent.group(1))
    return None


def format_quantity(value: Any) -> str:
    """A quantity as written, for messages (``"1"`` and ``1`` both show as ``1``)."""
    return str(value).strip() if not isinstance(value, bool) else str(value).lower()


def resource_list(requirements: Any, key: str) -> dict[str, Any]:
    """``requests`` or ``limits`` of a ResourceRequirements mapping ({} when absent or bad)."""
    value = requirements.get(key) if isinstance(requirements, dict) else None
    return value if isinstance(value, dict) else {}


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
        scaled = amount if times == 1 else amount * times
        current = result.get(name)
        result[name] = scaled if current is None else current + scaled
    return result


def exact_sum(amounts: Iterable[Fraction]) -> Fraction:
    """``sum(amounts, Fraction(0))``, adding whole numbers as ints (most quantities are)."""
    whole, parts = 0, Fraction(0)
    for amount in amounts:
        if amount.denominator == 1:
            whole += amount.numerator
        else:
            parts += amount
    return parts + whole


def maximum(left: Mapping[str, Fraction], right: Mapping[str, Fraction]) -> Requests:
    result = dict(left)
    for name, amount in right.items():
        result[name] = max(result.get(name, amount), amount)
    return result


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


__all__ = ["Requests", "add", "exact_sum", "format_amount", "format_quantity", "maximum", "parse_quantity",
           "requirement_requests", "resource_list"]
