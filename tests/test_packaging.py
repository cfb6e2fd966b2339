"""The release artifacts (cli.md "Install and first run"), built as a release is: `python -m
build` makes the sdist and, from it, the wheel; `twine check` accepts both (the metadata and
README PyPI would render). The wheel holds everything under the `kqlint` namespace (no
generic top-level `linter`, `rules`, `schemas`), schemas shipped as package data, one console
script; installed into a fresh virtualenv it runs, and lints the README's quick-start folder
`examples/`. The version comes from one place, `kqlint.__version__`."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from helpers import validate_json_report
from kqlint import __version__

ROOT = Path(__file__).resolve().parent.parent
IGNORED = shutil.ignore_patterns(".git", ".venv", "venv", "build", "dist", "*.egg-info", "__pycache__",
                                 ".pytest_cache", ".hypothesis", ".mypy_cache", ".ruff_cache")
TINY_JOB = """apiVersion: batch/v1
kind: Job
metadata:
  name: tiny
  namespace: default
spec:
  template:
    spec:
      priorityClassName: missing-class
      restartPolicy: Never
      containers:
        - name: main
          image: busybox
"""

pytestmark = pytest.mark.slow


def _run(*args: str | Path, cwd: Path, timeout: int = 900) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "GITHUB_ACTIONS")}
    env.update(NO_COLOR="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    result = subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True,
                            timeout=timeout, stdin=subprocess.DEVNULL, check=False)
    return result


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``python -m build`` on a copy of the tree (building in place would leave build/ behind):
    the sdist, then the wheel built from the unpacked sdist, so a file the sdist misses fails here."""
    base = tmp_path_factory.mktemp("packaging")
    source = base / "src"
    shutil.copytree(ROOT, source, ignore=IGNORED)
    result = _run(sys.executable, "-m", "build", "--outdir", base / "dist", cwd=source, timeout=1500)
    assert result.returncode == 0, result.stdout + result.stderr
    return base / "dist"


@pytest.fixture(scope="module")
def wheel(dist: Path) -> Path:
    [built] = sorted(dist.glob("kqlint-*.whl"))
    return built


def test_build_makes_an_sdist_and_a_wheel_that_twine_accepts(dist: Path) -> None:
    artifacts = sorted(p.name for p in dist.iterdir())
    assert artifacts == [f"kqlint-{__version__}-py3-none-any.whl", f"kqlint-{__version__}.tar.gz"], artifacts
    result = _run(sys.executable, "-m", "twine", "check", "--strict", *sorted(dist.iterdir()), cwd=dist)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count("PASSED") == 2, result.stdout


def test_wheel_layout(wheel: Path) -> None:
    assert wheel.name.startswith(f"kqlint-{__version__}-py3-none-any")
    names = zipfile.ZipFile(wheel).namelist()
    top_level = {name.split("/", 1)[0] for name in names}
    assert top_level == {"kqlint", f"kqlint-{__version__}.dist-info"}, top_level
    for generic in ("linter/", "rules/", "schemas/", "tests/", "examples/"):
        assert not any(name.startswith(generic) for name in names), generic
    assert "kqlint/schemas/report.schema.json" in names
    assert "kqlint/schemas/config.schema.json" in names
    assert any(n.startswith("kqlint/schemas/kinds/") and n.endswith(".json") for n in names)
    assert "kqlint/rules/queues/kq205_unknown_priority_class.py" in names
    assert "kqlint/cli/check.py" in names and "kqlint/reporters/json.py" in names
    # every rule family and every rule module of the registry is in the wheel
    from kqlint.rules import BUILTIN

    for module in BUILTIN:
        assert module.replace(".", "/") + ".py" in names, module
    archive = zipfile.ZipFile(wheel)
    entry_points = archive.read(f"kqlint-{__version__}.dist-info/entry_points.txt").decode()
    assert entry_points.split() == ["[console_scripts]", "kqlint", "=", "kqlint.cli:entry"]  # exits without freeing
    metadata = archive.read(f"kqlint-{__version__}.dist-info/METADATA").decode()
    assert "Requires-Python: >=3.10" in metadata


def test_wheel_installs_and_runs_in_a_fresh_venv(wheel: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    result = _run(sys.executable, "-m", "venv", venv, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    bindir = venv / ("Scripts" if os.name == "nt" else "bin")
    python, kqlint = bindir / "python", bindir / "kqlint"
    result = _run(python, "-m", "pip", "install", "-q", wheel, cwd=tmp_path, timeout=1500)
    assert result.returncode == 0, result.stdout + result.stderr

    assert _run(kqlint, "--version", cwd=tmp_path).stdout == f"kqlint {__version__}\n"
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "job.yaml").write_text(TINY_JOB)
    (tree / "broken.yaml").write_text("a: [\n")
    report = _run(kqlint, "check", ".", "--format", "json", cwd=tree)
    assert report.returncode == 1, report.stderr
    codes = [(f["file"], f["code"]) for f in validate_json_report(report.stdout)["findings"]]
    assert ("broken.yaml", "KQ001") in codes and ("job.yaml", "KQ205") in codes
    assert report.stderr == ""

    probe = ("import json, importlib.resources as r, kqlint, kqlint.loader as l\n"
             "schema = json.loads(r.files('kqlint.schemas').joinpath('report.schema.json').read_text())\n"
             "print(l.FAST_PATH, kqlint.__file__, schema['title'])\n")
    fast, location, title = _run(python, "-c", probe, cwd=tmp_path).stdout.split(" ", 2)
    assert fast == "True", "the ruamel.yaml C parser (ruamel.yaml.clib) is not active in the wheel install"
    assert str(venv) in location and str(ROOT) not in location
    assert title.startswith("kqlint JSON report")

    examples = _run(kqlint, "check", ROOT / "examples", "--no-cache", "--format", "json", cwd=tmp_path)
    assert examples.returncode == 1, examples.stderr  # the quick start's planted mistakes
    assert validate_json_report(examples.stdout)["findings"] and examples.stderr == ""

    rules = json.loads(_run(kqlint, "rules", "--format", "json", cwd=tmp_path).stdout)
    from kqlint.engine.registry import builtin_rules

    assert [r["code"] for r in rules] == [r.code for r in builtin_rules()]
    assert _run(kqlint, "explain", "KQ205", cwd=tmp_path).stdout.startswith("KQ205 unknown-priority-class")
