"""The fixes of KQ403, KQ506 and KQ301 on their fixtures: each applies, the fixed findings
are gone on a new check, nothing new appears, a second --fix changes nothing, and kubectl
still decodes every changed file."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from helpers import chdir, rule_profile
from kqlint.config import Config
from kqlint.fix_run import fix_run
from kqlint.model import Finding, Report
from kqlint.runner import lint

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "rules"
FIXED_BY = {"KQ403": "safe", "KQ506": "safe", "KQ301": "unsafe"}
CASES = [(code, case.name) for code in FIXED_BY for case in sorted((FIXTURES / code).iterdir())
         if case.name.startswith("bad")]


def _key(finding: Finding) -> tuple[Any, ...]:
    return (finding.code, finding.location.file, finding.obj, finding.location.path, finding.message)


def _lint_all(code: str) -> Report:
    config = Config(profile=rule_profile(code))
    return lint(["."], config, auto_context=False)


def _kubectl_decodes(path: Path) -> None:
    result = subprocess.run(["kubectl", "label", "--local", "-f", str(path), "x=y", "-o", "json"],
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize(("code", "case"), CASES)
def test_fix_applies_and_the_recheck_is_clean(code: str, case: str, tmp_path: Path) -> None:
    source = FIXTURES / code / case
    work = tmp_path / "case"
    if source.is_dir():
        shutil.copytree(source, work)
    else:
        work.mkdir()
        shutil.copy(source, work / case)
    before_bytes = {p: p.read_bytes() for p in work.rglob("*") if p.is_file()}
    with chdir(work):
        before = _lint_all(code)
        config = Config(profile=rule_profile(code), select=(code,))
        outcome = fix_run(lambda: lint(["."], config, auto_context=False), unsafe=True, write=True)
        after = _lint_all(code)
        again = fix_run(lambda: lint(["."], config, auto_context=False), unsafe=True, write=True)
    fixed = [f for f in before.findings if f.code == code and f.fix is not None]
    assert all(f.fix.applicability.value == FIXED_BY[code] for f in fixed if f.fix)
    if not outcome.fixed:
        assert not outcome.files  # a case without a fixable finding (e.g. a wrapped gang)
        pytest.skip(f"no fix applies to {code}/{case}")
    assert outcome.fixed[code] >= 1 and not outcome.notes
    assert not {_key(f) for f in after.findings} - {_key(f) for f in before.findings}, "new findings"
    left = [f for f in after.findings if f.code == code]
    assert len(left) == len([f for f in before.findings if f.code == code]) - outcome.fixed[code]
    assert not again.fixed and not again.files  # idempotent
    changed = [p for p, raw in before_bytes.items() if p.read_bytes() != raw]
    assert changed
    if shutil.which("kubectl") is None:
        pytest.skip("kubectl is not installed: decoding not checked")
    for path in changed:
        _kubectl_decodes(path)


def test_each_fixing_rule_fixes_at_least_one_fixture(tmp_path: Path) -> None:
    for code in FIXED_BY:
        work = tmp_path / code
        shutil.copytree(FIXTURES / code, work)
        with chdir(work):
            config = Config(profile=rule_profile(code), select=(code,))
            outcome = fix_run(lambda config=config: lint(["."], config, auto_context=False),
                              unsafe=True, write=True)
        assert outcome.fixed[code] >= 1, code
