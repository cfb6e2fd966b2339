"""bench/cache_layers.py turns a cache layer off in the measured process: the run still reports
what ``--no-cache`` reports, cold and warm after an edit (docs/performance.md quotes the timings)."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "bench" / "cache_layers.py"
sys.path.insert(0, str(ROOT / "bench"))
from cache_layers import LAYERS  # noqa: E402


def _report(layer: str | None, project: Path, cache: Path) -> tuple[int, dict[str, object]]:
    check = ["check", ".", "--format", "json", "--jobs", "2"]
    command = [sys.executable, "-m", "kqlint", *check, "--no-cache"] if layer is None else \
        [sys.executable, str(SCRIPT), "--run", layer, "--", *check, "--cache-dir", str(cache)]
    done = subprocess.run(command, cwd=project, capture_output=True, text=True, timeout=120)
    return done.returncode, json.loads(done.stdout)


@pytest.mark.parametrize("layer", LAYERS)
def test_a_run_without_a_layer_reports_what_no_cache_reports(layer: str, tmp_path: Path) -> None:
    project = tmp_path / "project"
    shutil.copytree(ROOT / "examples", project)
    (project / ".git").mkdir()
    expected = _report(None, project, tmp_path / "cache")
    assert expected[0] == 1 and expected[1]["findings"]
    assert _report(layer, project, tmp_path / "cache") == expected  # cold
    edited = sorted(project.rglob("*.yaml"))[0]
    edited.write_text(edited.read_text() + "# edited\n")
    assert _report(layer, project, tmp_path / "cache") == _report(None, project, tmp_path / "cache")  # warm


def test_an_unknown_layer_is_refused() -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), "--layers", "reads,speed"], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2 and "unknown layer 'speed'" in done.stderr
