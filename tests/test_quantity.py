"""Quantity parsing (``podspec.parse_quantity``) and spelling (``quantity.format_amount``).

The expected values are what Kubernetes makes of each string (k8s.io/apimachinery
``resource.ParseQuantity``), measured with kubectl 1.32, which parses and re-prints a quantity:
``kubectl set resources --local -f pod.yaml --requests=cpu=<q> -o jsonpath=...``. A YAML or JSON
manifest goes through the same parser after ``strings.TrimSpace`` (``Quantity.UnmarshalJSON``).
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from kqlint.domain.podspec import asks_for, asks_for_some
from kqlint.domain.quantity import add, exact_sum, format_amount, kueue_quantity, parse_quantity, requirement_requests

KI, MI, GI, TI, PI, EI = (2 ** (10 * n) for n in range(1, 7))


@pytest.mark.parametrize("written,amount", [
    # plain numbers, signs and decimals (kubectl prints 1.5 as 1500m, .5 as 500m)
    ("1", Fraction(1)), ("+1", Fraction(1)), ("-1", Fraction(-1)), ("-0", Fraction(0)),
    ("1.5", Fraction(3, 2)), ("1.", Fraction(1)), (".5", Fraction(1, 2)), ("+.5", Fraction(1, 2)),
    ("0.0001m", Fraction(1, 10 ** 7)),  # kubectl: 100n
    # decimal SI suffixes, including n and u, which the grammar comment omits but the parser takes
    ("100n", Fraction(1, 10 ** 7)), ("100u", Fraction(1, 10 ** 4)), ("1m", Fraction(1, 1000)),
    ("1k", Fraction(10 ** 3)), ("1M", Fraction(10 ** 6)), ("1G", Fraction(10 ** 9)),
    ("1T", Fraction(10 ** 12)), ("1P", Fraction(10 ** 15)), ("1E", Fraction(10 ** 18)),
    # binary SI suffixes (kubectl prints 1.5Gi as 1536Mi, 0.5Ki as 512)
    ("1Ki", Fraction(KI)), ("1Mi", Fraction(MI)), ("2Gi", Fraction(2 * GI)), ("1Ti", Fraction(TI)),
    ("1Pi", Fraction(PI)), ("1Ei", Fraction(EI)), ("1.5Gi", Fraction(1536 * MI)), ("0.5Ki", Fraction(512)),
    # decimal exponents: e or E, signed; `1E` alone is the exa suffix above
    ("1e3", Fraction(1000)), ("1E3", Fraction(1000)), ("1e+3", Fraction(1000)), ("1.5e3", Fraction(1500)),
    ("1.e3", Fraction(1000)), ("1e-3", Fraction(1, 1000)), ("1e19", Fraction(10 ** 19)),
    ("1e64", Fraction(10 ** 64)),
    # huge plain integers stay exact (kubectl prints them unchanged)
    ("18446744073709551616", Fraction(2 ** 64)), ("9223372036854775808", Fraction(2 ** 63)),
    # surrounding white space is trimmed on the JSON/YAML path
    (" 1", Fraction(1)), ("2Gi\n", Fraction(2 * GI)),
])
def test_quantities_kubernetes_accepts(written: str, amount: Fraction) -> None:
    assert parse_quantity(written) == amount


@pytest.mark.parametrize("written", [
    "", " ", "1ki", "1K", "1e", "1ee3", "1e3e3", "1e3.5", "1e3Ki", "1Mi5", "1..5", "--1", "1 m", "1e3m",
    "0x10", "1_000", "abc", "{{ .Values.cpu }}", "1Gb",
    "١٢",  # Arabic-Indic digits: Python's \d matches them, Go's parser does not
])
def test_strings_kubernetes_refuses_are_not_quantities(written: str) -> None:
    # kubectl: "quantities must match the regular expression ..." or "unable to parse quantity's suffix"
    assert parse_quantity(written) is None


@pytest.mark.parametrize("value,amount", [
    (1, Fraction(1)), (0, Fraction(0)), (-2, Fraction(-2)), (1.5, Fraction(3, 2)), (0.1, Fraction(1, 10)),
    (10 ** 30, Fraction(10 ** 30)), (1e30, Fraction(10 ** 30)),
])
def test_yaml_numbers_are_quantities(value: Any, amount: Fraction) -> None:
    # `cpu: 1.5` reaches the API server as the JSON number 1.5, parsed like the string "1.5"
    assert parse_quantity(value) == amount


@pytest.mark.parametrize("value", [True, False, None, float("nan"), float("inf"), float("-inf"), [1], {"a": 1}])
def test_other_values_are_not_quantities(value: Any) -> None:
    assert parse_quantity(value) is None


@pytest.mark.parametrize("written,kubernetes,kqlint", [
    # The API server reads each of these; kqlint treats them as unknown (None) or exact.
    (".", "0", None), ("+", "0", None), ("-", "0", None),
    ("1e-100", "1n (every non-zero amount rounds up to 1n)", None),
    ("1e65", "100e63", None),  # kqlint bounds exponents to +-64 to keep Fractions small
    ("0.1n", "1n", Fraction(1, 10 ** 10)), ("1.5n", "2n", Fraction(3, 2 * 10 ** 9)),
    ("9Ei", "9223372036854775807 (binary SI is capped at 2^63-1)", Fraction(9 * EI)),
])
def test_where_kqlint_departs_from_kubernetes(written: str, kubernetes: str, kqlint: Fraction | None) -> None:
    # None of these is written for a real request; pinned so that a change here is deliberate.
    assert parse_quantity(written) == kqlint, f"Kubernetes reads {written!r} as {kubernetes}"


@pytest.mark.parametrize("amount,spelling", [
    (Fraction(1, 2), "500m"), (Fraction(3, 2), "1500m"), (Fraction(8), "8"), (Fraction(0), "0"),
    (Fraction(9999), "9999"), (Fraction(10000), "10k"), (Fraction(12345), "12345"),
    (Fraction(64 * GI), "64Gi"), (Fraction(GI), "1Gi"), (Fraction(10 ** 9), "1G"), (Fraction(1536 * MI), "1536Mi"),
    (Fraction(2 * EI), "2Ei"), (Fraction(1, 3), "0.333333"), (Fraction(1, 10 ** 7), "1e-07"),
])
def test_format_amount(amount: Fraction, spelling: str) -> None:
    assert format_amount(amount) == spelling


def test_format_amount_round_trips_through_parse_quantity() -> None:
    for amount in (Fraction(1, 2), Fraction(10000), Fraction(64 * GI), Fraction(10 ** 9), Fraction(1536 * MI)):
        assert parse_quantity(format_amount(amount)) == amount


def test_requirement_requests_count_a_limit_alone_and_prefer_the_request() -> None:
    requirements = {"limits": {"cpu": "2", "memory": "1Gi", "nvidia.com/gpu": 4},
                    "requests": {"cpu": "500m"}}
    assert requirement_requests(requirements) == {"cpu": Fraction(1, 2), "memory": Fraction(GI),
                                                  "nvidia.com/gpu": Fraction(4)}


def test_requirement_requests_skip_what_is_not_a_quantity() -> None:
    assert requirement_requests({"requests": {"cpu": "{{ .Values.cpu }}", "memory": "1Gi"}}) == {"memory": GI}
    assert requirement_requests({"requests": ["cpu"]}) == {}
    assert requirement_requests(None) == {}


def test_add_sums_per_resource_times_a_count() -> None:
    total = {"cpu": Fraction(1)}
    assert add(total, {"cpu": Fraction(1, 2), "memory": Fraction(GI)}, times=4) == {"cpu": 3, "memory": 4 * GI}
    assert total == {"cpu": 1}  # a new dict


@pytest.mark.parametrize("requirements,asks,asks_some", [
    ({"limits": {"nvidia.com/gpu": 1}}, True, True),
    ({"requests": {"nvidia.com/gpu": "0"}}, False, False),
    ({"requests": {"nvidia.com/gpu": "{{ gpus }}"}}, True, False),  # unknown: it may ask
    ({"requests": {"cpu": 1}}, False, False),
])
def test_asks_for_a_resource(requirements: dict[str, Any], asks: bool, asks_some: bool) -> None:
    assert asks_for(requirements, "nvidia.com/gpu") is asks
    assert asks_for_some(requirements, "nvidia.com/gpu") is asks_some


@pytest.mark.parametrize("amounts", [[], [Fraction(3)], [Fraction(1, 2), Fraction(5), Fraction(-7, 3)],
                                     [Fraction(2**70), Fraction(1, 10**9)]])
def test_exact_sum_is_the_fraction_sum(amounts: list[Fraction]) -> None:
    total = exact_sum(iter(amounts))
    assert total == sum(amounts, Fraction(0)) and isinstance(total, Fraction)


# Kueue's ResourceFormatter (pkg/resources/resource_formatter.go): cpu from millicores as a
# DecimalSI Quantity, memory BinarySI where a power of 1024 divides it, else DecimalSI; the
# last two rows are Kueue's TestSchedule "prevent integer overflow ..." cases (int64 saturation).
@pytest.mark.parametrize("resource, amount, shown", [
    ("cpu", Fraction(1, 2), "500m"), ("cpu", Fraction(2), "2"), ("cpu", Fraction(1500), "1500"),
    ("cpu", Fraction(1000), "1k"), ("cpu", Fraction(10000), "10k"), ("cpu", Fraction(0), "0"),
    ("memory", Fraction(10 * 2**20), "10Mi"), ("memory", Fraction(3 * 2**30), "3Gi"),
    ("memory", Fraction(10**9), "1G"), ("memory", Fraction(1536), "1536"), ("memory", Fraction(512), "512"),
    ("hugepages-2Mi", Fraction(2**21), "2Mi"), ("pods", Fraction(1000), "1k"), ("nvidia.com/gpu", Fraction(16), "16"),
    ("cpu", Fraction(9223372036854775), "9223372036854775"),
    ("cpu", Fraction(9223372036854776), "9223372036854775807m"),
])
def test_kueue_quantity_prints_as_kueue_does(resource: str, amount: Fraction, shown: str) -> None:
    assert kueue_quantity(resource, amount) == shown
