"""kqlint positions (1-based, characters, YAML line breaks) as LSP positions (0-based, UTF-16
code units by default, only \\r\\n, \\r and \\n break lines): kqlint.server.positions."""
from __future__ import annotations

from pathlib import Path

import pytest
from kqlint.loader import parse_bytes
from kqlint.server.positions import UTF8, UTF32, LineIndex


def test_characters_outside_the_basic_plane_count_two_utf16_units() -> None:
    index = LineIndex("a: {b: \"🎉\", c: x}\n")
    assert index.lsp(1, 13) == (0, 13)  # `c`, column 13: 12 characters before it, 13 UTF-16 units
    assert LineIndex("a: {b: \"🎉\", c: x}\n", UTF8).lsp(1, 13) == (0, 15)
    assert LineIndex("a: {b: \"🎉\", c: x}\n", UTF32).lsp(1, 13) == (0, 12)


def test_a_byte_order_mark_is_not_a_kqlint_column_but_is_an_lsp_character() -> None:
    assert LineIndex("\ufeffa: 1\n").lsp(1, 1) == (0, 1)
    assert LineIndex("\ufeffa: 1\nb: 2\n").lsp(2, 1) == (1, 0)


def test_yaml_only_line_breaks_shift_kqlint_lines_but_not_lsp_lines() -> None:
    text = "a: \"x\u2028y\"\nb: [c\n"
    source = parse_bytes("t.yaml", text.encode("utf-8"))
    [problem] = source.problems
    assert (problem.line, problem.column) == (3, 6)  # the YAML parser counts U+2028 as a line break
    assert LineIndex(text).lsp(problem.line, problem.column) == (1, 5)  # an LSP client does not
    assert LineIndex(text).lsp(3, 4) == (1, 3)  # `c`


def test_crlf_is_one_break_and_positions_stay_inside_their_line() -> None:
    index = LineIndex("a: 1\r\nb: 2\r\n")
    assert index.lsp(2, 1) == (1, 0)
    assert index.lsp(1, 99) == (0, 4)  # past the end: the end of the line, before its break
    assert index.lsp(9, 1) == (2, 0)


def test_lsp_positions_back_to_offsets() -> None:
    index = LineIndex("x: \"🎉\"\ny: 2\n")
    assert index.offset_of(0, 5) == 5  # after the emoji (2 units) the closing quote
    assert index.offset_of(1, 0) == 7
    assert index.offset_of(0, 99) == 7
    assert index.offset_of(5, 0) == len(index.text)


def test_a_related_location_in_another_file_counts_in_the_negotiated_unit(in_tmp_cwd: Path) -> None:
    """Related locations in other (saved) files are read once per lint and placed in the unit the
    client chose, as the buffer's own positions are."""
    pytest.importorskip("lsprotocol")
    from kqlint.model import Finding, Location, Severity
    from kqlint.server.protocol import diagnostic

    (in_tmp_cwd / "other.yaml").write_text("a: {b: \"🎉\", c: x}\n", encoding="utf-8")
    related = Location("other.yaml", 1, 13, message="there")
    finding = Finding("KQ203", "unknown-local-queue", Severity.ERROR, "m", Location("job.yaml", 1, 1),
                      related=(related, related))
    others: dict[str, LineIndex] = {}
    shown = diagnostic(finding, LineIndex("x: 1\n", UTF8), others, str(in_tmp_cwd))
    assert [(r.location.range.start.line, r.location.range.start.character)
            for r in shown.related_information or []] == [(0, 15), (0, 15)]
    assert list(others) == ["other.yaml"] and others["other.yaml"].encoding == UTF8
