"""Issue 14: kqlint on a hostile pull request. Each test is one attack, run as CI runs
kqlint (a subprocess, see tests/capped.py) under an address-space cap and a timeout, with
bounds on time, memory and output, not just "no crash".

Run against another build with KQLINT_UNDER_TEST=/path/to/bin/kqlint (the unchanged main
branch fails every test here)."""
from __future__ import annotations

import json
import os
import stat
import threading
from pathlib import Path

import pytest

from capped import run

ROOT = Path(__file__).resolve().parent.parent

CONFIGMAP = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n"
BROKEN = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [broken\n"
JOB_WITHOUT_QUEUE = """apiVersion: batch/v1
kind: Job
metadata:
  name: train
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: main
          image: busybox
          resources: {limits: {nvidia.com/gpu: 1}}
"""


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / ".git").mkdir()
    return root


def _findings(text: str) -> list[dict]:
    return json.loads(text)["findings"]  # type: ignore[no-any-return]


# ------------------------------------------------------------------ writing

def test_write_baseline_never_replaces_an_input(tree: Path) -> None:
    (tree / "a.yaml").write_text(BROKEN)
    result = run(["check", "a.yaml", "--write-baseline", "a.yaml"], tree)
    assert result.code == 2 and "reads that file" in result.stderr, result
    assert (tree / "a.yaml").read_text() == BROKEN


def test_output_never_replaces_the_config_or_the_baseline(tree: Path) -> None:
    (tree / "a.yaml").write_text(CONFIGMAP.format(name="a"))
    (tree / ".kqlint.yaml").write_text("fail-on: error\n")
    result = run(["check", ".", "-f", "json", "-o", ".kqlint.yaml"], tree)
    assert result.code == 2 and "reads that file" in result.stderr, result
    assert (tree / ".kqlint.yaml").read_text() == "fail-on: error\n"


def test_report_is_never_written_through_a_symlink(tree: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("precious\n")
    os.symlink(outside, tree / "kqlint.sarif")  # committed by the pull request
    (tree / "a.yaml").write_text(CONFIGMAP.format(name="a"))
    for args in (["check", ".", "-f", "sarif", "-o", "kqlint.sarif"],
                 ["check", ".", "--write-baseline", "kqlint.sarif"],
                 ["graph", ".", "-o", "kqlint.sarif"]):
        result = run(args, tree)
        assert result.code == 2 and "symlink" in result.stderr, (args, result)
        assert outside.read_text() == "precious\n"
        assert os.path.islink(tree / "kqlint.sarif")


def test_report_is_never_written_through_a_symlinked_folder(tree: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    os.symlink(outside, tree / "reports")
    (tree / "a.yaml").write_text(CONFIGMAP.format(name="a"))
    result = run(["check", ".", "-f", "json", "-o", "reports/r.json"], tree)
    assert result.code == 2 and "symlink" in result.stderr, result
    assert list(outside.iterdir()) == []


def test_reports_are_atomic_and_keep_a_sensible_mode(tree: Path) -> None:
    for index in range(300):
        (tree / f"m{index:03d}.yaml").write_text(BROKEN)
    report = tree / "report.json"
    report.write_text("old\n")
    os.chmod(report, 0o640)
    results: list = []
    seen_broken: list[bytes] = []
    threads = [threading.Thread(target=lambda: results.append(
        run(["check", ".", "--exclude", "report.json", "-f", "json", "-o", "report.json", "-j", "1"], tree)))
        for _ in range(6)]
    for thread in threads:
        thread.start()
    while any(thread.is_alive() for thread in threads):  # a reader never sees a partial report
        content = report.read_bytes()
        if content != b"old\n":
            try:
                json.loads(content)
            except ValueError:
                seen_broken.append(content[:100])
    for thread in threads:
        thread.join()
    assert not seen_broken, seen_broken[:3]
    assert all(r.code == 1 for r in results), results
    assert json.loads(report.read_text())["summary"]["files"] == 300  # whole: one run's report
    assert stat.S_IMODE(report.stat().st_mode) == 0o640
    assert not [p for p in tree.iterdir() if p.name.startswith(".report.json")]  # no temporary left


@pytest.mark.parametrize("fmt", ["json", "sarif", "text", "junit", "github"])
def test_non_utf8_file_names_are_reported_safely(tree: Path, fmt: str) -> None:
    (tree / os.fsdecode(b"bad\xff\x1b[2J.yaml")).write_text(BROKEN)
    (tree / "r.out").write_text("previous\n")
    result = run(["check", ".", "-f", fmt, "-o", "r.out", "-f", "text"], tree)
    assert result.code == 1, result
    written = (tree / "r.out").read_bytes().decode("utf-8")  # valid UTF-8, never truncated
    if fmt in ("json", "sarif"):
        json.loads(written)
    assert "\\xff" in result.stdout and "\x1b" not in result.stdout + written


# ------------------------------------------------------------------ never run repository code

PLUGIN_CONFIG = "plugins: [kq_evil_plugin]\n"
EVIL_PLUGIN = "import pathlib\npathlib.Path('PWNED').write_text('ran')\nraise SystemExit(0)\n"


def test_repository_plugins_need_the_opt_in(tree: Path) -> None:
    (tree / ".kqlint.yaml").write_text(PLUGIN_CONFIG)
    (tree / "kq_evil_plugin.py").write_text(EVIL_PLUGIN)
    (tree / "a.yaml").write_text(BROKEN)
    env = {"PYTHONPATH": str(tree)}
    result = run(["check", "."], tree, env=env)
    assert result.code == 2 and "--allow-plugins" in result.stderr, result
    assert not (tree / "PWNED").exists()


@pytest.mark.parametrize("opt_in", [["--allow-plugins"], []])
def test_system_exit_in_an_allowed_plugin_is_an_error(tree: Path, opt_in: list[str]) -> None:
    (tree / ".kqlint.yaml").write_text(PLUGIN_CONFIG)
    (tree / "kq_evil_plugin.py").write_text(EVIL_PLUGIN)
    (tree / "a.yaml").write_text(BROKEN)
    env = {"PYTHONPATH": str(tree), **({} if opt_in else {"KQLINT_ALLOW_PLUGINS": "1"})}
    result = run(["check", ".", *opt_in], tree, env=env)
    assert result.code == 2 and "SystemExit" in result.stderr, result
    assert len(result.stderr.splitlines()) == 1


def test_hook_entry_treats_file_names_as_paths(tree: Path) -> None:
    """The command pre-commit runs: the hook's entry, then the file names (the real
    pre-commit run is tests/test_precommit.py::test_pre_commit_file_names_are_paths)."""
    import shlex

    clientlib = pytest.importorskip("pre_commit.clientlib")
    [hook] = clientlib.load_manifest(str(ROOT / ".pre-commit-hooks.yaml"))
    entry = shlex.split(hook["entry"]) + list(hook["args"])
    assert entry[0] == "kqlint"
    (tree / "--exclude=*.yaml").write_text(BROKEN)
    (tree / "--write-baseline=x.yaml").write_text(BROKEN)
    (tree / "x.yaml").write_text(CONFIGMAP.format(name="x"))
    result = run([*entry[1:], "--exclude=*.yaml", "--write-baseline=x.yaml", "x.yaml"], tree,
                 env={"GITHUB_ACTIONS": "false"})
    assert result.code == 1, result
    assert "--exclude=*.yaml" in result.stdout and "--write-baseline=x.yaml" in result.stdout
    assert (tree / "x.yaml").read_text() == CONFIGMAP.format(name="x")


# ------------------------------------------------------------------ bounded on every input

def _alias_bomb(key: bool) -> str:
    big = "x" * 8_000_000
    aliases = ", ".join(["*a"] * 2000)
    if key:
        return f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  ? [&a {big}, {aliases}]\n  : v\n"
    return f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [&a {big}, {aliases}]\n"


@pytest.mark.parametrize("key", [False, True], ids=["metadata.name", "complex-key"])
def test_alias_budget_counts_bytes(tree: Path, key: bool) -> None:
    (tree / "bomb.yaml").write_text(_alias_bomb(key))
    result = run(["check", ".", "-f", "json"], tree, timeout=60)
    assert result.code == 1, result
    [finding] = _findings(result.stdout)
    assert finding["code"] == "KQ001" and "alias bomb" in finding["message"]
    assert result.seconds < 20 and result.peak_mb < 600 and result.stdout_bytes < 10_000, result


def test_baseline_error_quotes_a_short_excerpt(tree: Path) -> None:
    laughs = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for level in "bcdefghi":
        previous = chr(ord(level) - 1)
        laughs.append(f"{level}: &{level} [" + ", ".join([f"*{previous}"] * 10) + "]")
    (tree / "baseline.yaml").write_text("version: 1\nfindings:\n  - " + "\n    ".join(laughs) + "\n")
    (tree / "a.yaml").write_text(CONFIGMAP.format(name="a"))
    result = run(["check", ".", "--baseline", "baseline.yaml"], tree, timeout=60)
    assert result.code == 2, result
    assert result.stderr_bytes < 2_500 and result.seconds < 20, result


def test_stdin_is_bounded(tree: Path) -> None:
    result = run(["check", "-f", "json", "-"], tree, stdin=b"# x\n" * (5 * 1024 * 1024), timeout=60)
    assert result.code == 1, result
    [finding] = _findings(result.stdout)
    assert "size limit" in finding["message"]


def test_pyproject_is_bounded_and_deep_toml_is_a_config_error(tree: Path) -> None:
    (tree / "a.yaml").write_text(CONFIGMAP.format(name="a"))
    (tree / "pyproject.toml").write_text("[tool.kqlint]\nx = " + "[" * 50_000 + "]" * 50_000 + "\n")
    result = run(["check", "."], tree)
    assert result.code == 2 and "pyproject.toml" in result.stderr and "nested" in result.stderr, result
    (tree / "pyproject.toml").write_text("[tool.kqlint]\n" + "# padding\n" * 2_000_000)
    result = run(["check", "."], tree)
    assert result.code == 2 and "size limit" in result.stderr, result
