"""Suppression (cli.md "Suppression"): annotations, reasons, line and file comments,
--no-inline-suppressions, and unused-suppression tracking.

The fixtures in tests/fixtures/config/suppress/ lint with two declarative rules from the
folder's .kqlint.yaml (X001: ConfigMaps need a team label; X002: Job pods need a
priorityClassName), so these tests do not depend on any built-in rule. Every finding is
marked on its line: `# expect: X001:1` (reported) or `# suppressed: X001:1` (silenced).
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers import chdir, found, markers
from kqlint.cli import main
from kqlint.config import load_config
from kqlint.domain.objects import INPUT
from kqlint.engine.inputs import load_paths
from kqlint.engine.pipeline import lint
from kqlint.engine.suppress import SuppressionIndex, apply, comment_start, directives, parse_names
from kqlint.model import Report

SUPPRESS = Path(__file__).parent / "fixtures" / "config" / "suppress"
SUPPRESSED_RE = re.compile(r"#\s*suppressed:\s*(.+)$")


def run(*, inline: bool = True) -> Report:
    with chdir(SUPPRESS):
        return lint(["."], load_config(".kqlint.yaml"), inline_suppressions=inline)


def suppressed(report: Report) -> set[tuple[str, int, int, str]]:
    return {(f.location.file, f.location.line, f.location.column, f.code) for f in report.suppressed}


# ------------------------------------------------------------------ end to end

def test_reported_and_suppressed_findings_match_the_markers() -> None:
    report = run()
    assert not report.internal_errors
    assert found(report) == markers(SUPPRESS)
    assert suppressed(report) == markers(SUPPRESS, SUPPRESSED_RE)


def test_no_inline_suppressions_reports_everything() -> None:
    report = run(inline=False)
    assert found(report) == markers(SUPPRESS) | markers(SUPPRESS, SUPPRESSED_RE)
    assert report.suppressed == ()


def test_cli_flag_no_inline_suppressions(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(SUPPRESS)
    assert main(["check", "--select", "X001", "--format", "json", "objects.yaml"]) == 1
    with_suppressions = capsys.readouterr().out
    assert main(["check", "--select", "X001", "--format", "json", "--no-inline-suppressions", "objects.yaml"]) == 1
    without = capsys.readouterr().out
    assert without.count('"code": "X001"') > with_suppressions.count('"code": "X001"') > 0


def test_whole_file_suppressed_exits_0(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(SUPPRESS)
    assert main(["check", "--select", "X001", "whole-file.yaml"]) == 0
    assert main(["check", "--select", "X001", "--no-inline-suppressions", "whole-file.yaml"]) == 1


def test_reasons_are_carried_on_suppressed_findings() -> None:
    reasons = {f.obj.name: f.suppression for f in run().suppressed if f.obj is not None}
    assert reasons["with-reason"] == "platform-owned; labelled by the operator"
    assert reasons["with-reason-by-slug"] == "vendored"
    assert reasons["by-code"] == "suppressed by annotation at objects.yaml:7"
    assert reasons["comment-line-above"] == "suppressed by `# kqlint: ignore` at objects.yaml:61"
    assert reasons["one"] == "suppressed by `# kqlint: ignore-file` at whole-file.yaml:19"


def test_parse_errors_can_be_suppressed_per_file() -> None:
    report = run()
    assert [f.code for f in report.suppressed if f.location.file == "broken.yaml"] == ["KQ001"]


def test_config_ignore_still_applies_without_inline_suppressions() -> None:
    with chdir(SUPPRESS):
        config = load_config(".kqlint.yaml").with_overrides(ignore=("team-label",))
        report = lint(["."], config, inline_suppressions=False)
    assert {f.code for f in report.findings} == {"X002", "KQ001"}


# ------------------------------------------------------------------ unused suppressions

def test_unused_suppressions_are_tracked() -> None:
    with chdir(SUPPRESS):
        report = lint(["."], load_config(".kqlint.yaml"), inline_suppressions=False)
        loaded, _ = load_paths(["."], load_config(".kqlint.yaml"), INPUT)
    index = SuppressionIndex()
    for source in loaded.sources:
        index.add_comments(source.path, source.comment_lines)
    for obj in loaded.objects:
        index.add_object(obj)
    reported, silenced = apply(report.findings, index)
    assert len(silenced) == len(markers(SUPPRESS, SUPPRESSED_RE))
    unused = {(s.file, s.line, s.kind) for s in index.unused()}
    assert unused == {
        ("objects.yaml", 28, "annotation"),   # kqlint.io/ignore: KQ101
        ("objects.yaml", 68, "comment"),      # two lines above: covers nothing
        ("objects.yaml", 76, "comment"),      # ignore[KQ101]
        ("objects.yaml", 140, "annotation"),  # ignore.kqlint.io/KQ101
    }
    assert all(s.used for s in index.all() if (s.file, s.line, s.kind) not in unused)


def test_each_suppression_is_listed_once() -> None:
    index = SuppressionIndex()
    index.add_comments("a.yaml", {3: "x: 1  # kqlint: ignore[X001]", 9: "# kqlint: ignore-file"})
    assert [(s.line, s.kind) for s in index.all()] == [(3, "comment"), (9, "file-comment")]


# ------------------------------------------------------------------ comment parsing

@pytest.mark.parametrize("line,start", [
    ("# kqlint: ignore", 0),
    ("key: value  # kqlint: ignore[X001]", 12),
    ("key: value# not a comment", None),
    ('key: "a # b"', None),
    ('key: "a \\" # b"  # real', 17),
    ("key: 'it''s # b'  # real", 18),
    ("key: it's  # real", 11),
    ("- 'a # b' # real", 10),
    ("url: http://x/#anchor", None),
    ("{a: 'x', b: \"# y\"}  # c", 20),
])
def test_comment_start(line: str, start: int | None) -> None:
    assert comment_start(line) == start


@pytest.mark.parametrize("line,expected", [
    ("a: 1  # kqlint: ignore[X001]", [("ignore", "X001", 7)]),
    ("a: 1  # kqlint: ignore-file[X001, KQ101]", [("ignore-file", "X001, KQ101", 7)]),
    ("# kqlint: ignore", [("ignore", None, 1)]),
    ("a: 1  # yamllint disable-line # kqlint: ignore[X1]", [("ignore", "X1", 31)]),
    ('a: "# kqlint: ignore[X001]"', []),
    ("a: 1  # kqlint: ignored[X001]", []),
    ("a: 1  # kqlint ignore[X001]", []),
])
def test_directives(line: str, expected: list[tuple[str, str | None, int]]) -> None:
    assert directives(line) == expected


def test_parse_names() -> None:
    assert parse_names("KQ101, pod-preemption-enabled") >= {"KQ101", "pod-preemption-enabled"}
    assert parse_names("kq101") >= {"KQ101"}
    assert parse_names("ALL") == frozenset({"all"})
    assert parse_names("") == frozenset({"all"})
    assert parse_names("", empty_means_all=False) == frozenset()
