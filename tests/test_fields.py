"""The typed field readers and the shared wording: each coercion rule stated once."""
from __future__ import annotations

import pytest
from kqlint.domain.fields import (
    above_one,
    count,
    go_int,
    indexed_mappings,
    integer,
    integer_or_digits,
    mappings,
    text,
    text_or,
)
from kqlint.spelling import dotted


@pytest.mark.parametrize(("value", "expected"), [("a", "a"), ("", None), (3, None), (None, None)])
def test_text_is_a_non_empty_string(value: object, expected: str | None) -> None:
    assert text(value) == expected
    assert text_or(value, "d") == (expected or "d")


@pytest.mark.parametrize(("value", "strict", "lenient"), [
    (4, 4, 4), (True, None, None), ("4", None, 4), (" 4 ", None, 4), ("4x", None, None), (4.0, None, None),
])
def test_integer_refuses_bools_and_only_the_lenient_reader_takes_digits(
        value: object, strict: int | None, lenient: int | None) -> None:
    assert integer(value) == strict
    assert integer_or_digits(value) == lenient


def test_count_clamps_negatives_and_defaults_non_ints() -> None:
    assert (count(-2, 1), count(3, 1), count("3", 1), count(False, 7)) == (0, 3, 1, 7)
    assert (above_one(2), above_one(1), above_one(True), above_one("5")) == (True, False, False, False)


def test_list_walkers_keep_mappings_and_their_indexes() -> None:
    value = [{"a": 1}, "x", {"b": 2}]
    assert mappings(value) == [{"a": 1}, {"b": 2}]
    assert list(indexed_mappings(value)) == [(0, {"a": 1}), (2, {"b": 2})]
    assert mappings({"a": 1}) == [] and list(indexed_mappings(None)) == []


def test_dotted_writes_list_indexes_in_brackets() -> None:
    assert dotted(("spec", "resourceGroups", 0, "flavors")) == "spec.resourceGroups[0].flavors"
    assert dotted((True, "x")) == "True.x"


@pytest.mark.parametrize(("value", "bits", "signed", "expected"), [
    ("5", 32, True, 5), ("+5", 32, True, 5), ("-30", 32, True, -30), ("007", 32, True, 7),
    ("2147483647", 32, True, 2147483647), ("2147483648", 32, True, None), ("-2147483648", 32, True, -2147483648),
    ("", 32, True, None), (" 5", 32, True, None), ("1_000", 64, True, None), ("0x10", 64, True, None),
    ("\u0663", 64, True, None), ("invalid", 32, True, None), (5, 32, True, None),
    ("+5", 64, False, None), ("18446744073709551615", 64, False, 18446744073709551615),
])
def test_go_int_reads_as_strconv_parse_int_does(value: object, bits: int, signed: bool, expected: int | None) -> None:
    """ASCII digits after an optional sign (none for ParseUint), no spaces or underscores, no
    base prefix, within the bit size; a non-string (an annotation written as a YAML int) is not read."""
    assert go_int(value, bits, signed) == expected
