"""The pre-commit hook (.pre-commit-hooks.yaml) and pre-commit mode: when `kqlint check`
is given individual files, the repository's other manifests are loaded as context
(references resolve) but findings are reported only for the files given."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from kqlint.config import Config
from kqlint.domain.workloads import pod_templates
from kqlint.engine.pipeline import lint
from kqlint.engine.rule import ModuleRule, RuleMeta
from kqlint.model import Severity

ROOT = Path(__file__).resolve().parent.parent

PRIORITY_CLASS = """apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: gpu-gang
value: 100000
preemptionPolicy: Never
"""
JOB = """apiVersion: batch/v1
kind: Job
metadata:
  name: train
  namespace: default
spec:
  template:
    spec:
      priorityClassName: gpu-gang
      restartPolicy: Never
      containers:
        - name: main
          image: busybox
"""
BROKEN = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [broken\n"
LOCAL_QUEUE_TO_NOWHERE = """apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  name: orphan
  namespace: default
spec:
  clusterQueue: does-not-exist
"""

GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.invalid", "GIT_CONFIG_NOSYSTEM": "1"}


def git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main", *args], cwd=cwd,
                   check=True, capture_output=True, env={**os.environ, **GIT_ENV}, timeout=120)


def make_repo(root: Path, files: dict[str, str], commit: bool = True) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    if shutil.which("git"):
        git("init", "-q", ".", cwd=root)
        if commit:
            git("add", "-A", cwd=root)
            git("commit", "-q", "-m", "manifests", cwd=root)
    else:
        (root / ".git").mkdir()  # all repository_root() looks for
    return root


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = make_repo(tmp_path / "repo", {"platform/priority.yaml": PRIORITY_CLASS, "job.yaml": JOB,
                                         "broken.yaml": BROKEN, "queues/orphan.yaml": LOCAL_QUEUE_TO_NOWHERE})
    monkeypatch.chdir(root)
    return root


def unresolved_priority_rule() -> ModuleRule:
    """A stand-in graph rule: a pod template naming a PriorityClass the graph cannot resolve."""

    def check_graph(graph: Any, ctx: Any) -> Iterator[Any]:
        for obj in graph.inputs:
            for template in pod_templates(obj, graph):
                name = template.spec.get("priorityClassName")
                if isinstance(name, str) and graph.resolve("PriorityClass", name) is None:
                    yield ctx.finding(at=template.owner.at_value(*template.spec_path, "priorityClassName"),
                                      message=f"{obj.display()}: PriorityClass {name} not found")

    meta = RuleMeta(code="KQ997", slug="test-unresolved-priority", severity=Severity.ERROR,
                    summary="test rule", scope="graph")
    return ModuleRule(meta, SimpleNamespace(check_graph=check_graph), None, "")


# ------------------------------------------------------------------ the hook manifest

def test_hook_manifest() -> None:
    clientlib = pytest.importorskip("pre_commit.clientlib")
    [hook] = clientlib.load_manifest(str(ROOT / ".pre-commit-hooks.yaml"))
    assert (hook["id"], hook["entry"], hook["language"]) == ("kqlint", "kqlint check", "python")
    assert hook["types_or"] == ["yaml", "json"]
    # the staged files are the paths (findings only for them); batches run one after another
    assert hook.get("pass_filenames", True) is True and hook["require_serial"] is True


# ------------------------------------------------------------------ pre-commit mode (individual files)

def test_context_from_the_repository_resolves_references(repo: Path, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    rule = unresolved_priority_rule()
    assert lint(["job.yaml"], Config(), rules=[rule]).findings == ()
    # the same file outside any repository: nothing to resolve against
    outside = tmp_path / "outside"
    outside.mkdir()
    shutil.copy(repo / "job.yaml", outside / "job.yaml")
    monkeypatch.chdir(outside)
    [finding] = lint(["job.yaml"], Config(), rules=[rule]).findings
    assert (finding.location.file, finding.location.line, finding.location.column) == ("job.yaml", 9, 26)


def test_real_unknown_priority_class_rule_uses_the_repository(repo: Path, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    config = Config(select=("KQ205",))
    assert lint(["job.yaml"], config).findings == ()
    outside = tmp_path / "outside"
    outside.mkdir()
    shutil.copy(repo / "job.yaml", outside / "job.yaml")
    monkeypatch.chdir(outside)
    assert [f.code for f in lint(["job.yaml"], config).findings] == ["KQ205"]


def test_findings_only_for_the_files_given(repo: Path) -> None:
    everything = lint(["."], Config())
    assert {f.location.file for f in everything.findings} >= {"broken.yaml", "queues/orphan.yaml"}
    only_job = lint(["job.yaml"], Config())
    assert only_job.findings == () and only_job.summary.files == 1
    two = lint(["job.yaml", "queues/orphan.yaml"], Config())
    assert {f.location.file for f in two.findings} == {"queues/orphan.yaml"}


def test_folders_files_and_the_root_resolve_with_the_same_project_context(repo: Path) -> None:
    (repo / "sub").mkdir()
    shutil.copy(repo / "job.yaml", repo / "sub" / "job.yaml")
    rule = unresolved_priority_rule()
    for paths in (["sub"], ["sub/job.yaml"], ["."], ["sub", "job.yaml"]):
        assert lint(paths, Config(), rules=[rule]).findings == (), paths


def test_explicit_context_replaces_the_project_context(repo: Path) -> None:
    (repo / "sub").mkdir()
    shutil.copy(repo / "job.yaml", repo / "sub" / "job.yaml")
    rule = unresolved_priority_rule()
    [finding] = lint(["sub"], Config(), context=["queues"], rules=[rule]).findings
    assert finding.location.file == "sub/job.yaml"
    [finding] = lint(["sub"], Config(context=("queues",)), rules=[rule]).findings
    assert finding.location.file == "sub/job.yaml"
    assert lint(["sub"], Config(), context=["platform"], rules=[rule]).findings == ()


# ------------------------------------------------------------------ a real pre-commit run

def _project_copy(dest: Path) -> Path:
    """The working tree (committed or not) as a fresh git repository: try-repo only sees
    tracked files, and the coordinator commits, not the tests."""
    ignore = shutil.ignore_patterns(".git", ".venv", "venv", "build", "dist", "*.egg-info", "__pycache__",
                                    ".pytest_cache", ".hypothesis", ".mypy_cache", ".ruff_cache")
    shutil.copytree(ROOT, dest, ignore=ignore)
    git("init", "-q", ".", cwd=dest)
    git("add", "-A", cwd=dest)
    git("commit", "-q", "-m", "snapshot", cwd=dest)
    return dest


def pre_commit_source(tmp_path: Path) -> Path:
    """This working tree as a repository pre-commit can install the hook from (or skip)."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed: pre-commit needs it")
    pytest.importorskip("pre_commit")
    return _project_copy(tmp_path / "kqlint-src")


def pre_commit(work: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("GITHUB_ACTIONS", "VIRTUAL_ENV")}
    env.update(GIT_ENV, PRE_COMMIT_HOME=str(home), NO_COLOR="1", PRE_COMMIT_COLOR="never")
    return subprocess.run([sys.executable, "-m", "pre_commit", *args], cwd=work, env=env, capture_output=True,
                          text=True, timeout=1200, stdin=subprocess.DEVNULL, check=False)


def _try_repo(source: Path, work: Path, home: Path, *files: str) -> subprocess.CompletedProcess[str]:
    return pre_commit(work, home, "try-repo", str(source), "kqlint", "--files", *files)


@pytest.mark.slow
def test_pre_commit_try_repo(tmp_path: Path) -> None:
    source = pre_commit_source(tmp_path)
    work = make_repo(tmp_path / "work", {"platform/priority.yaml": PRIORITY_CLASS, "job.yaml": JOB,
                                         "broken.yaml": BROKEN, "queues/orphan.yaml": LOCAL_QUEUE_TO_NOWHERE})
    home = tmp_path / "pre-commit-home"

    clean = _try_repo(source, work, home, "job.yaml")
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "Passed" in clean.stdout

    failing = _try_repo(source, work, home, "job.yaml", "broken.yaml")
    assert failing.returncode == 1, failing.stdout + failing.stderr
    assert "Failed" in failing.stdout
    assert "broken.yaml" in failing.stdout and "KQ001 invalid-yaml" in failing.stdout
    assert "orphan" not in failing.stdout  # not given: context only


# ------------------------------------------------------------------ hook args (issue 24)

WARNING_ONLY = (ROOT / "tests" / "fixtures" / "precommit" / "queue-name-missing.yaml").read_text()  # KQ207


def _hook_argv(args: list[str], files: list[str]) -> list[str]:
    """What pre-commit runs: the hook's ``entry``, then its ``args``, then the staged files."""
    yaml = pytest.importorskip("yaml")
    [hook] = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    return [*hook["entry"].split(), *args, *files]


@pytest.fixture
def staged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(make_repo(tmp_path / "staged", {"warn.yaml": WARNING_ONLY, "--exclude=x.yaml": BROKEN,
                                                      "job.yaml": JOB, "platform/priority.yaml": PRIORITY_CLASS}))
    return tmp_path / "staged"


def test_hook_args_are_options(staged: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Before: the entry ended with `--`, so `args: [--fail-on, error]` failed with
    "path does not exist: --fail-on"."""
    from kqlint.cli import main

    argv = _hook_argv(["--fail-on", "error", "-f", "concise"], ["warn.yaml"])
    assert argv[:2] == ["kqlint", "check"]
    assert main(argv[1:]) == 0
    out = capsys.readouterr().out
    assert out.startswith("warn.yaml:7:5: warning KQ207 [queue-name-missing] ")
    assert main(_hook_argv(["-f", "concise"], ["warn.yaml"])[1:]) == 1  # the default --fail-on warning


@pytest.mark.parametrize("args", [[], ["--fail-on", "error"]])
def test_a_staged_file_named_like_an_option_is_a_path(staged: Path, args: list[str],
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    from kqlint.cli import main

    assert main(_hook_argv([*args, "-f", "concise"], ["job.yaml", "--exclude=x.yaml"])[1:]) == 1
    out = capsys.readouterr().out
    assert out.startswith("--exclude=x.yaml:4:16: error KQ001 [invalid-yaml] ")
    assert "warn.yaml" not in out  # not an --exclude option: nothing else linted


def test_an_option_value_named_like_a_file_stays_the_value(staged: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from kqlint.cli.argv import with_files_as_paths

    assert with_files_as_paths(["check", "-o", "--exclude=x.yaml", "job.yaml"]) == \
        ["check", "-o", "--exclude=x.yaml", "job.yaml"]
    assert with_files_as_paths(["check", "--exclude=x.yaml", "-f", "json", "--", "job.yaml"]) == \
        ["check", "-f", "json", "--", "--exclude=x.yaml", "job.yaml"]
    assert with_files_as_paths(["check", "--exclude=absent.yaml", "job.yaml"]) == \
        ["check", "--exclude=absent.yaml", "job.yaml"]  # no such file: an option


@pytest.mark.slow
def test_pre_commit_run_with_hook_args(tmp_path: Path) -> None:
    source = pre_commit_source(tmp_path)
    revision = subprocess.run(["git", "rev-parse", "HEAD"], cwd=source, capture_output=True, text=True,
                              check=True).stdout.strip()
    config = (f"repos:\n  - repo: {source}\n    rev: {revision}\n    hooks:\n"
              "      - id: kqlint\n        args: [--fail-on, error]\n")
    work = make_repo(tmp_path / "work", {".pre-commit-config.yaml": config, "warn.yaml": WARNING_ONLY,
                                         "--exclude=x.yaml": BROKEN})
    home = tmp_path / "pre-commit-home"
    warned = pre_commit(work, home, "run", "kqlint", "--files", "warn.yaml")
    assert warned.returncode == 0, warned.stdout + warned.stderr  # a warning, below --fail-on error
    assert "Passed" in warned.stdout
    failing = pre_commit(work, home, "run", "kqlint", "--all-files")  # pre-commit reads `--exclude=x.yaml` itself
    assert failing.returncode == 1, failing.stdout + failing.stderr
    assert "--exclude=x.yaml\n  4:16  error  KQ001 invalid-yaml" in failing.stdout
