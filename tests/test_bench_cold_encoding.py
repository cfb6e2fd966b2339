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


@pytest.mark.parametrize("variant", ["cold", "main-free", "idle-helper", "helper"])
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
