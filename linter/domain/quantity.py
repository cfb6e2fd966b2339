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

import math
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
    if isinstance(value, (int, Fraction)):
        return Fraction(value)  # a Fraction: an amount already parsed
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


_INT64_MAX = 2**63 - 1
_DECIMAL_EXPONENTS = ((18, "E"), (15, "P"), (12, "T"), (9, "G"), (6, "M"), (3, "k"), (0, ""), (-3, "m"), (-6, "u"),
                      (-9, "n"))
_BINARY_SUFFIXES = ("", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei")


def kueue_value(resource: str, amount: Fraction) -> int:
    """Kueue's int64 amount of ``resource`` (``ResourceValue``, ``pkg/resources/requests.go``):
    millicores for cpu, whole units of anything else, rounded up, saturated at int64's ends."""
    scaled = math.ceil(amount * 1000) if resource == "cpu" else math.ceil(amount)
    return max(min(scaled, _INT64_MAX), -_INT64_MAX - 1)


def kueue_quantity(resource: str, amount: Fraction) -> str:
    """``amount`` of ``resource`` as Kueue's messages print it (``ResourceFormatter`` in
    ``pkg/resources/resource_formatter.go``): cpu counted in millicores and shown as a
    DecimalSI Quantity (``500m``, ``2``, ``1k``); memory, ephemeral-storage and hugepages as a
    BinarySI one where a power of 1024 divides it (``10Mi``), else DecimalSI (``1G``);
    anything else DecimalSI (``16``, ``1k``). Kueue's amounts are int64 in those units, so
    larger ones print saturated (``9223372036854775807m``)."""
    value = kueue_value(resource, amount)
    if resource == "cpu":
        return _decimal_si(Fraction(value, 1000))
    if resource in ("memory", "ephemeral-storage") or resource.startswith("hugepages-"):
        return _binary_si(value)
    return _decimal_si(Fraction(value))


def _decimal_si(value: Fraction) -> str:
    """Kubernetes' canonical DecimalSI spelling: the largest SI exponent that leaves a whole number."""
    if value == 0:
        return "0"
    for exponent, suffix in _DECIMAL_EXPONENTS:
        mantissa = value / Fraction(10) ** exponent
        if mantissa.denominator == 1:
            return f"{mantissa.numerator}{suffix}"
    return f"{math.ceil(value * 10**9)}n"


def _binary_si(value: int) -> str:
    """Kubernetes' canonical BinarySI spelling, read back as Kueue does (a plain number that no
    power of 1024 divides becomes DecimalSI)."""
    if -1024 < value < 1024:
        return _decimal_si(Fraction(value))
    power = 0
    while power < len(_BINARY_SUFFIXES) - 1 and value % 1024 ** (power + 1) == 0:
        power += 1
    return f"{value // 1024 ** power}{_BINARY_SUFFIXES[power]}" if power else _decimal_si(Fraction(value))


__all__ = ["Requests", "add", "exact_sum", "format_amount", "format_quantity", "kueue_quantity", "maximum",
           "parse_quantity", "requirement_requests", "resource_list"]
