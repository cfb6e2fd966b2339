"""The GitHub Action's `args` input splits as a shell would, and a cached install is reused.
Fast and offline: the action's bash steps run with a stub `kqlint` in a fake virtualenv that
records its arguments (tests/test_action.py installs for real, marked slow)."""
from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest
from ci_helpers import ROOT
from test_action import Runner, load_action, step_index

STUB = """#!/bin/sh
if [ "$1" = "--version" ]; then echo "kqlint 0.0.0-stub"; exit 0; fi
exec "{python}" -c 'import json, sys; print(json.dumps(sys.argv[1:]))' "$@"
"""


@pytest.fixture
def runner(tmp_path: Path) -> Runner:
    if shutil.which("bash") is None:
        pytest.skip("bash is not installed")
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    runner = Runner(tmp_path, ROOT, workspace)
    bin_dir = runner.temp / "kqlint-venv" / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "kqlint").write_text(STUB.format(python=sys.executable))
    (bin_dir / "kqlint").chmod(0o755)
    os.symlink(sys.executable, bin_dir / "python")
    return runner


def _argv(runner: Runner, args: str) -> list[str]:
    results = runner.run({"paths": ".", "args": args, "sarif-file": ""}, first=step_index("check"))
    assert results[-1].returncode == 0, results[-1].stderr
    return json.loads(results[-1].stdout.splitlines()[-1])  # type: ignore[no-any-return]


def test_args_split_like_a_shell(runner: Runner) -> None:
    argv = _argv(runner, "--profile kakaocloud --exclude 'charts/**' --exclude \"a b/*\" --select=KQ1")
    extra = argv[argv.index("github") + 1:argv.index("--")]
    assert extra == ["--profile", "kakaocloud", "--exclude", "charts/**", "--exclude", "a b/*", "--select=KQ1"]


def test_args_never_run_shell_code(runner: Runner, tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    argv = _argv(runner, f"--exclude '$(touch {marker})' `touch {marker}`")
    assert not marker.exists()
    assert f"$(touch {marker})" in argv and "`touch" in argv  # passed on literally, word by word


def test_unbalanced_quotes_fail_clearly(runner: Runner) -> None:
    results = runner.run({"paths": ".", "args": "--exclude 'charts/**", "sarif-file": ""}, first=step_index("check"))
    assert results[-1].returncode == 2 and results[-1].stderr.count("cannot split the args input") == 1
    assert "No closing quotation" in results[-1].stderr and results[-1].stdout == ""  # kqlint never ran


def test_a_cached_install_is_reused(runner: Runner) -> None:
    results = runner.run({"paths": ".", "sarif-file": "", "python": sys.executable}, first=step_index("install"))
    install = results[0]
    assert install.returncode == 0 and "using the cached install" in install.stderr
    assert install.stdout.strip() == "kqlint 0.0.0-stub"


def test_cache_key_follows_the_action_files_and_interpreter(runner: Runner) -> None:
    steps = load_action()["runs"]["steps"]
    cache = next(step for step in steps if str(step.get("uses", "")).startswith("actions/cache@"))
    assert cache["with"]["key"] == "${{ steps.venv.outputs.key }}"
    assert cache["with"]["path"] == "${{ runner.temp }}/kqlint-venv"
    first = runner.run({"python": sys.executable}, first=step_index("venv"))[0]
    assert first.returncode == 0, first.stderr
    key = dict(line.split("=", 1) for line in runner.files["GITHUB_OUTPUT"].read_text().splitlines())["key"]
    assert key.startswith("kqlint-venv-") and len(key) > len("kqlint-venv-") + 30


def _venv_key(runner: Runner) -> str:
    result = runner.run({"python": sys.executable}, first=step_index("venv"))[0]
    assert result.returncode == 0, result.stderr
    return dict(line.split("=", 1) for line in runner.files["GITHUB_OUTPUT"].read_text().splitlines())["key"]


def test_cache_key_covers_package_data_such_as_a_profile(tmp_path: Path) -> None:
    """A changed rules/**/profile.yaml (package data, not code) is a new install, not a stale venv."""
    action = tmp_path / "action"
    action.mkdir()
    for name in ("pyproject.toml", "linter", "rules", "schemas"):
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, action / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(source, action / name)
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    runner = Runner(tmp_path, action, workspace)
    before = _venv_key(runner)
    [profile] = sorted((action / "rules").rglob("profile.yaml"))[:1]
    profile.write_text(profile.read_text(encoding="utf-8") + "# changed\n", encoding="utf-8")
    assert _venv_key(runner) != before
    (action / "linter" / "__pycache__").mkdir(exist_ok=True)
    (action / "linter" / "__pycache__" / "x.pyc").write_bytes(b"compiled")  # not part of the install
    assert _venv_key(runner) == _venv_key(runner)


def test_the_readme_lists_every_input_and_every_log_format() -> None:
    from kqlint.reporters import FORMATS

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("### GitHub Actions, with SARIF upload", 1)[1].split("\n### ", 1)[0]
    for name in load_action()["inputs"]:
        assert f"`{name}`" in section, f"the README's action section does not list the input {name}"
    for name in FORMATS:
        assert f"`{name}`" in section, f"the README's action section does not list the format {name}"
    description = load_action()["inputs"]["format"]["description"]
    assert all(name in description for name in FORMATS)
