"""Fixes resolved to text ranges for reports: over several processes with the same result as
one, and kept in the cache (kqlint.cache.fixes) so that a warm run resolves only the files
whose content or findings changed, with the same output as --no-cache."""
from __future__ import annotations

import json
import pickle
import zlib
from pathlib import Path

import pytest
from helpers import cache_folder
from kqlint import fix as fix_apply
from kqlint.cache.fixes import _MAGIC
from kqlint.cli import main
from kqlint.engine import parallel
from kqlint.engine.pipeline import lint
from kqlint.fix import plan
from kqlint.fix.passes import readable_input

FIXED_FILES = {"platform/kueue/cluster-queues.yaml", "tenants/research/training/allreduce-bench.yaml",
               "tenants/research/training/ddp-ablation.yaml"}  # the examples' files with a fix


@pytest.fixture
def repo(examples_project: Path) -> Path:
    return examples_project


def _json(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    main(["check", ".", "--format", "json", *args])
    return capsys.readouterr().out


def _resolved_files(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The files resolve() parses from now on (not those it takes from the cache)."""
    seen: list[str] = []
    real = plan._resolve_file

    def counting(item: tuple[str, list[object]], read: object, namespace: str) -> object:
        seen.append(item[0])
        return real(item, read, namespace)  # type: ignore[arg-type]
    monkeypatch.setattr(plan, "_resolve_file", counting)
    return seen


def _fixes(output: str) -> list[object]:
    return [(f["file"], f["line"], f.get("fix")) for f in json.loads(output)["findings"]]


def test_a_warm_run_resolves_only_the_files_that_changed(repo: Path, capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    uncached = _json(capsys, "--no-cache")
    assert sum(1 for *_, fix in _fixes(uncached) if fix) == 3
    assert _json(capsys) == uncached  # cold: resolves and stores
    for report in cache_folder(repo).glob("*/report-*"):
        report.unlink()  # the rules run again: only the fixes table can spare the resolution
    resolved = _resolved_files(monkeypatch)
    assert _json(capsys) == uncached
    assert resolved == []
    bench = repo / "tenants/research/training/allreduce-bench.yaml"
    bench.write_text("# a comment moves every line down\n" + bench.read_text())
    edited = _json(capsys)
    assert resolved == ["tenants/research/training/allreduce-bench.yaml"]
    assert edited == _json(capsys, "--no-cache")
    assert _fixes(edited) != _fixes(uncached)  # the moved file's fix moved with it


@pytest.mark.parametrize("damage", ["garbage", "truncated", "planted", "wrong-shape"])
def test_a_damaged_or_planted_fixes_table_is_ignored(repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch, damage: str) -> None:
    uncached = _json(capsys, "--no-cache")
    _json(capsys)
    [table] = cache_folder(repo).glob("*/fixes-*")
    marker = tmp_path / "planted-ran"
    blob = {"garbage": b"\x00garbage", "truncated": table.read_bytes()[:30],
            "planted": _MAGIC + zlib.compress(pickle.dumps(_Planted(str(marker)))),
            "wrong-shape": _MAGIC + zlib.compress(pickle.dumps({"k": ["not a fix"]}))}[damage]
    table.write_bytes(blob)
    for report in cache_folder(repo).glob("*/report-*"):
        report.unlink()
    resolved = _resolved_files(monkeypatch)
    assert _json(capsys) == uncached
    assert sorted(resolved) == sorted(FIXED_FILES)  # nothing trusted: every file resolved again
    assert not marker.exists()


class _Planted:
    def __init__(self, path: str) -> None:
        self.path = path

    def __reduce__(self) -> tuple[object, ...]:
        return (Path.touch, (Path(self.path),))


def test_resolving_over_several_processes_gives_the_same_fixes(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    report = lint(["."])
    read = readable_input(report.files)
    one = fix_apply.resolve(report.findings, read, "default", jobs=1)
    monkeypatch.setattr(plan, "FILES_PER_JOB", 1)
    monkeypatch.setattr(parallel, "can_fork", lambda: True)
    assert fix_apply.resolve(report.findings, read, "default", jobs=2) == one
    assert sum(1 for f in one if f.fix is not None and f.fix.text) == 3
