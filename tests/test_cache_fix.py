"""The cache across ``check --diff`` / ``--fix`` / ``--fix-only`` runs (issue 24): whatever an
earlier run left in the cache, and whatever one pass of a --fix run left for the next, each
step's output and the files it writes are byte-identical to the same step with ``--no-cache``."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers import cache_folder
from kqlint.cli import main
from kqlint.engine.pipeline import Pipeline

ROOT = Path(__file__).resolve().parent.parent

SEQUENCES = {
    "diff then fix": ("--diff", "--fix", ""),
    "fix twice": ("--fix", "--fix"),
    "unsafe diff then unsafe fix": ("--diff --unsafe-fixes", "--fix --unsafe-fixes", ""),
    "unsafe fix twice": ("--fix --unsafe-fixes", "--fix --unsafe-fixes"),
    "safe, then unsafe": ("--diff", "--fix", "--diff --unsafe-fixes", "--fix --unsafe-fixes", "--diff"),
    "unsafe fix-only, then diff": ("--fix-only --unsafe-fixes", "--diff --unsafe-fixes", "--fix --unsafe-fixes"),
    "check, then unsafe fix": ("", "--fix --unsafe-fixes", "--format json"),
}


def _project(folder: Path) -> Path:
    """A git-like copy of the examples (``.git`` marks its root; its cache at its root)."""
    shutil.copytree(ROOT / "examples", folder)
    (folder / ".git").mkdir()
    return folder


def _files(project: Path) -> dict[str, bytes]:
    return {str(path.relative_to(project)): path.read_bytes() for path in sorted(project.rglob("*"))
            if path.is_file() and not {".git", ".kqlint_cache"} & set(path.relative_to(project).parts)}


def _step(project: Path, step: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
          *extra: str) -> tuple[int, str, str, dict[str, bytes]]:
    monkeypatch.chdir(project)
    status = main(["check", ".", *step.split(), *extra])
    captured = capsys.readouterr()
    return status, captured.out, captured.err, _files(project)


@pytest.fixture
def projects(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """(the project checked with its cache, the same project checked with --no-cache)."""
    monkeypatch.delenv("KQLINT_CACHE_DIR", raising=False)
    return _project(tmp_path / "cached"), _project(tmp_path / "uncached")


@pytest.mark.parametrize("sequence", sorted(SEQUENCES))
def test_each_step_reports_and_writes_what_it_does_without_the_cache(
        projects: tuple[Path, Path], sequence: str, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Before the fix, a --fix after an --unsafe-fixes --diff took its second pass's report from
    the cache (the stats of the first pass, before its writes): it fixed 5 findings, not 3, and
    said a file "changed on disk since it was read"."""
    cached, uncached = projects
    for number, step in enumerate(SEQUENCES[sequence], 1):
        expected = _step(uncached, step, capsys, monkeypatch, "--no-cache")
        assert _step(cached, step, capsys, monkeypatch) == expected, f"step {number}: check . {step}"
    assert any(cache_folder(cached).glob("*/index.json")) and not (cache_folder(uncached)).exists()


def test_unsafe_diff_then_fix_counts_each_fix_once(projects: tuple[Path, Path], capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    cached, _ = projects
    _step(cached, "--diff --unsafe-fixes", capsys, monkeypatch)
    status, _, err, _ = _step(cached, "--fix --unsafe-fixes", capsys, monkeypatch)
    assert err.splitlines()[0] == "kqlint: fixed 3 finding(s) (KQ201: 1, KQ301: 2) in 3 files"
    assert "changed on disk" not in err and status == 1


def test_a_fix_run_stores_the_report_of_what_it_wrote(projects: tuple[Path, Path],
                                                     capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The fix's own writes are not a file "changed during the run": its last lint (of the
    fixed files) is stored, and the next check of them lints nothing."""
    cached, _ = projects
    _step(cached, "--fix --unsafe-fixes", capsys, monkeypatch)
    lints: list[object] = []
    real = Pipeline._lint_files
    monkeypatch.setattr(Pipeline, "_lint_files", lambda *args, **kwargs: lints.append(args) or real(*args, **kwargs))
    reused = _step(cached, "", capsys, monkeypatch)
    assert lints == []
    assert reused == _step(cached, "", capsys, monkeypatch, "--no-cache")
