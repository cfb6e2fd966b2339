"""One parametrized test over every rule fixture folder: tests/fixtures/rules/<CODE>/.

`bad*` cases (files or folders) must produce exactly the findings marked with
`# expect: KQnnn:col` (file, line, column, code); `good*` cases produce none.
`# related: KQnnn:col` marks lines that must appear among the findings' related locations.
A case folder may carry a `.kqlint.yaml` (rule options, external objects, profile).
"""
from __future__ import annotations

from pathlib import Path

import pytest
from helpers import RELATED_RE, found, found_related, lint_case, markers, rule_profile
from kqlint.config import Config

RULE_FIXTURES = Path(__file__).parent / "fixtures" / "rules"


def _cases() -> list[tuple[str, Path]]:
    cases = []
    for rule_dir in sorted(p for p in RULE_FIXTURES.iterdir() if p.is_dir()):
        for case in sorted(rule_dir.iterdir()):
            if case.name.startswith(("bad", "good")):
                cases.append((rule_dir.name, case))
    return cases


CASES = _cases()


@pytest.mark.parametrize("code,case", CASES, ids=[f"{c}/{p.name}" for c, p in CASES])
def test_fixture(code: str, case: Path) -> None:
    report = lint_case(case, code)
    assert not report.internal_errors, report.internal_errors
    expected = markers(case)
    if case.name.startswith("good"):
        assert found(report) == set(), f"good case must stay silent: {found(report)}"
        assert not expected, "good cases carry no expect markers"
        return
    assert expected, "a bad case needs at least one `# expect:` marker"
    assert found(report) == expected
    related = markers(case, RELATED_RE)
    assert related <= found_related(report), f"missing related locations: {related - found_related(report)}"
    for finding in report.findings:
        assert finding.message and finding.obj is not None or finding.code in ("KQ000", "KQ001", "KQ006")


def test_every_rule_folder_has_bad_and_good_cases() -> None:
    for rule_dir in sorted(p for p in RULE_FIXTURES.iterdir() if p.is_dir()):
        names = [p.name for p in rule_dir.iterdir()]
        assert any(n.startswith("bad") for n in names), f"{rule_dir.name}: no bad case"
        assert any(n.startswith("good") for n in names), f"{rule_dir.name}: no good case"


# rules.md "A more specific rule wins": (specific, general) pairs where the general rule must
# report nothing the specific one owns. KQ503 stays off a TrainJob's own queue label like KQ502.
SPECIFIC_WINS = [("KQ501", "KQ502"), ("KQ501", "KQ503"), ("KQ305", "KQ304"), ("KQ308", "KQ304")]
OWNED = [(specific, general, case) for specific, general in SPECIFIC_WINS
         for case in sorted((RULE_FIXTURES / specific).iterdir()) if case.name.startswith("bad")]


@pytest.mark.parametrize("specific,general,case", OWNED, ids=[f"{s}-{g}/{c.name}" for s, g, c in OWNED])
def test_a_more_specific_rule_wins(specific: str, general: str, case: Path) -> None:
    config = Config(select=(specific, general), profile=rule_profile(specific))
    assert found(lint_case(case, None, config)) == markers(case)  # the specific rule's, and nothing else
