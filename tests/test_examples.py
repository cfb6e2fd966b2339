"""The bundled example repository (examples/): `kqlint check examples/` reports exactly the
planted traps, each marked on its line with `# expect: KQnnn:col`, with every rule of the
registry enabled. A new rule that fires on examples/ means the example or the rule is
wrong: fix the example only when the object is really wrong.
"""
from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest
from helpers import EXPECT_RE, MARK_RE, RELATED_RE, chdir
from kqlint.cli import main
from kqlint.engine.registry import all_rules

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")

# The traps of the first release; each must stay planted in examples/.
PLANTED = {"KQ001", "KQ006", "KQ102", "KQ104", "KQ105", "KQ201", "KQ301", "KQ306", "KQ401"}

# Rules whose findings always involve another object or node (rules.md): they must say
# which under `related`. KQ301 does for PodGroups (the workloads that join the gang).
RELATED_REQUIRED = {"KQ003", "KQ102", "KQ103", "KQ104", "KQ105", "KQ106", "KQ107",
                    "KQ201", "KQ209", "KQ210", "KQ211"}


def _example_files() -> list[Path]:
    return sorted(p for p in EXAMPLES.rglob("*")
                  if p.is_file() and p.suffix in MANIFEST_SUFFIXES
                  and not any(part.startswith(".") for part in p.relative_to(EXAMPLES).parts))


def _markers(regex: Any) -> set[tuple[str, int, int, str]]:
    """(path from the repository root, line, column, code) of every marker in examples/."""
    found = set()
    for file in _example_files():
        shown = file.relative_to(ROOT).as_posix()
        for number, line in enumerate(file.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            match = regex.search(line)
            if not match:
                continue
            for item in match.group(1).split(","):
                token = item.strip().split()[0] if item.strip() else ""
                mark = MARK_RE.match(token)
                assert mark, f"{shown}:{number}: marker must look like `KQ102:7`, got {token!r}"
                found.add((shown, number, int(mark["col"]), mark["code"]))
    return found


@pytest.fixture(scope="module")
def run() -> tuple[int, dict[str, Any], str]:
    """Exit status, JSON report and stderr of `kqlint check examples/ --format json`."""
    out, err = io.StringIO(), io.StringIO()
    with chdir(ROOT), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(["check", "examples/", "--format", "json"])
    return status, json.loads(out.getvalue()), err.getvalue()


def _describe(finding: dict[str, Any]) -> str:
    return f"{finding['file']}:{finding['line']}:{finding['column']} {finding['code']}: {finding['message']}"


def test_examples_exist() -> None:
    assert (EXAMPLES / "README.md").is_file()
    assert len(_example_files()) >= 20


def test_runs_without_internal_errors(run: tuple[int, dict[str, Any], str]) -> None:
    status, _, stderr = run
    assert "internal error" not in stderr, stderr
    assert status != 3, stderr


def test_exit_status_is_1(run: tuple[int, dict[str, Any], str]) -> None:
    status, _, stderr = run
    assert status == 1, stderr


def test_findings_are_exactly_the_markers(run: tuple[int, dict[str, Any], str]) -> None:
    _, report, _ = run
    expected = _markers(EXPECT_RE)
    findings = {(f["file"], f["line"], f["column"], f["code"]): f for f in report["findings"]}
    unexpected = [_describe(f) for key, f in sorted(findings.items()) if key not in expected]
    missing = sorted(expected - set(findings))
    assert not unexpected and not missing, (
        "unexpected findings (a wrong example or a wrong rule):\n  " + "\n  ".join(unexpected)
        + "\nmarked but not reported:\n  " + "\n  ".join(map(str, missing)))
    assert len(report["findings"]) == len(findings), "two findings of one code at one position"


def test_every_planted_trap_is_marked() -> None:
    codes = {code for *_, code in _markers(EXPECT_RE)}
    assert PLANTED <= codes, f"traps missing from examples/: {sorted(PLANTED - codes)}"


def test_every_marker_names_a_registered_rule() -> None:
    registered = {rule.code for rule in all_rules()}
    for file, line, _, code in _markers(EXPECT_RE) | _markers(RELATED_RE):
        assert code in registered, f"{file}:{line}: {code} is not a registered rule"


def test_min_member_mismatch_has_an_error_and_a_warning(run: tuple[int, dict[str, Any], str]) -> None:
    _, report, _ = run
    severities = {f["severity"] for f in report["findings"] if f["code"] == "KQ301"}
    assert severities == {"error", "warning"}


def test_every_finding_has_a_message_and_an_object(run: tuple[int, dict[str, Any], str]) -> None:
    _, report, _ = run
    for finding in report["findings"]:
        assert finding["message"].strip(), _describe(finding)
        assert finding["slug"] and finding["severity"] in ("error", "warning", "info"), _describe(finding)
        if finding["code"] not in ("KQ001", "KQ006"):
            assert finding["object"] and finding["object"]["kind"], _describe(finding)


def test_findings_involving_other_objects_list_them(run: tuple[int, dict[str, Any], str]) -> None:
    _, report, _ = run
    for finding in report["findings"]:
        pod_group = (finding["object"] or {}).get("kind") == "PodGroup"
        if finding["code"] in RELATED_REQUIRED or (finding["code"] == "KQ301" and pod_group):
            assert finding["related"], f"no related locations: {_describe(finding)}"
        for related in finding["related"]:
            assert related["message"].strip(), f"related location without a message: {_describe(finding)}"
            assert (ROOT / related["file"]).is_file(), f"related file does not exist: {related}"
            assert related["line"] >= 1 and related["column"] >= 1, related


def test_marked_related_locations_are_reported(run: tuple[int, dict[str, Any], str]) -> None:
    _, report, _ = run
    reported = {(r["file"], r["line"], r["column"], f["code"])
                for f in report["findings"] for r in f["related"]}
    missing = _markers(RELATED_RE) - reported
    assert not missing, f"`# related:` markers not among the findings' related locations: {sorted(missing)}"
