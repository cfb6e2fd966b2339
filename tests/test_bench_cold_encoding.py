"""bench/cold_encoding.py's variants change only where the encoding happens, never what is
reported: each gives the report of ``--no-cache`` (docs/performance.md quotes their timings)."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "bench" / "cold_encoding.py"


def _report(variant: str, project: Path, cache: Path) -> tuple[int, dict[str, object]]:
    flags = ["--no-cache"] if variant == "nocache" else ["--cache-dir", str(cache)]
    done = subprocess.run([sys.executable, str(SCRIPT), "--run", variant, "--", "check", ".", "--format", "json",
                           "--jobs", "2", *flags], cwd=project, capture_output=True, text=True, timeout=120)
    return done.returncode, json.loads(done.stdout)


@pytest.mark.parametrize("variant", ["cold", "main-free", "idle-helper", "helper", "no-reads"])
def test_a_variant_reports_what_no_cache_reports(variant: str, tmp_path: Path) -> None:
    project = tmp_path / "project"
    shutil.copytree(ROOT / "examples", project)
    (project / ".git").mkdir()
    expected = _report("nocache", project, tmp_path / "cache")
    assert expected[0] == 1 and expected[1]["findings"]
    assert _report(variant, project, tmp_path / "cache") == expected


def test_an_unknown_variant_is_refused(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), "--variants", "cold,fast"], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2 and "unknown variant 'fast'" in done.stderr


def test_phase_names_alternate_serial_steps_and_fan_outs() -> None:
    sys.path.insert(0, str(ROOT / "bench"))
    from cold_encoding import phase_names, phases_of

    assert phase_names(8) == ["start (serial)", "parse fan-out", "before rules (serial)", "rules fan-out",
                              "before fix texts (serial)", "fix texts fan-out", "end (serial)"]
    assert phase_names(4) == ["start (serial)", "parse fan-out", "end (serial)"]
    assert phases_of([[0.0, 0.25, 0.0], [1.0, 1.0, 0.5], [1.5, 1.5, 0.5]]) == [(1.0, 0.75, 0.5), (0.5, 0.5, 0.0)]


def test_phases_time_every_step_of_both_runs(tmp_path: Path) -> None:
    project = tmp_path / "project"
    shutil.copytree(ROOT / "examples", project)
    done = subprocess.run([sys.executable, str(SCRIPT), "--corpus", str(project), "--runs", "1", "--phases"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split()[:3] == ["step", "nocache", "cold"]
    steps = [line for line in lines[1:] if not line.startswith("whole run")]
    assert steps[0].startswith("start (serial)") and steps[1].startswith("parse fan-out")
    assert steps[-1].startswith("end (serial)")
    for line in steps:  # wall / main CPU / workers' CPU, for each of the two variants
        numbers = [float(value) for value in line.split()[-10:] if value != "/"]
        assert len(numbers) == 6 and all(value >= 0 for value in numbers)
    whole = [float(value) for value in lines[-1].split()[2:]]
    assert len(whole) == 2 and all(value > 0 for value in whole)
