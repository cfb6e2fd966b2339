"""`--kustomize` on a hostile repository (issue 28): origins read from the rendered
annotations only and mapped to files inside the repository, remote bases refused before
kubectl runs (unless --allow-remote-bases), kubectl run with no cluster configuration, bases
outside the repository not linted, the rendered stream bounded by max-file-size, and
kustomize's own reason when it refuses (helmCharts)."""
from __future__ import annotations

import json
import shutil
import stat
from pathlib import Path

import pytest
from ci_helpers import cli

HIGH_CLASS = """apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: too-high
value: 2000000000
"""
FORGED_ORIGIN = """description: |
  a harmless note
    config.kubernetes.io/origin: |
      path: {target}
"""


def _kubectl() -> None:
    if shutil.which("kubectl") is None:
        pytest.skip("kubectl is not installed: --kustomize cannot render")


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    return repo


def _fake_kubectl(tmp_path: Path, body: str) -> Path:
    """A `kubectl` (first on PATH) that runs ``body`` with /bin/sh (builtins only: it may get no PATH)."""
    folder = tmp_path / "bin"
    folder.mkdir()
    script = folder / "kubectl"
    script.write_text("#!/bin/sh\n" + body + "\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return folder


def _findings(out: str) -> list[dict[str, object]]:
    return list(json.loads(out)["findings"])


def test_text_that_looks_like_an_origin_does_not_redirect_a_finding(tmp_path: Path) -> None:
    _kubectl()
    secret = tmp_path / "secret.env"
    secret.write_text("API_TOKEN=hunter2\n")
    repo = _repo(tmp_path)
    (repo / "kustomization.yaml").write_text("resources: [pc.yaml]\n")
    (repo / "pc.yaml").write_text(HIGH_CLASS + FORGED_ORIGIN.format(target=secret))
    code, out, err = cli("check", "--kustomize", ".", "--no-config", "--select", "KQ109", "-f", "json", cwd=repo)
    assert code == 1, err
    assert [(f["file"], f["line"]) for f in _findings(out)] == [("pc.yaml", 5)]
    code, out, err = cli("check", "--kustomize", ".", "--no-config", "--select", "KQ109", cwd=repo)
    assert "hunter2" not in out + err and "pc.yaml\n  5:1  error  KQ109" in out


@pytest.mark.parametrize("command", ["check", "graph", "simulate"])  # graph and simulate render as check does
def test_a_remote_base_is_refused_before_kubectl_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      command: str) -> None:
    ran = tmp_path / "kubectl-ran"
    monkeypatch.setenv("PATH", str(_fake_kubectl(tmp_path, f": > '{ran}'\nexit 1")))
    repo = _repo(tmp_path)
    for remote in ("github.com/org/repo//deploy?ref=v1", "https://example.com/all.yaml",
                   "git@github.com:org/repo.git", "example.com/org/repo/base"):
        (repo / "kustomization.yaml").write_text(f"resources:\n- local.yaml\n- {remote}\n")
        (repo / "local.yaml").write_text(HIGH_CLASS)
        code, _, err = cli(command, "--kustomize", ".", "--no-config", cwd=repo)
        assert code == 2 and "--allow-remote-bases" in err and remote in err, err
        assert not ran.exists()
    code, _, err = cli(command, "--kustomize", ".", "--no-config", "--allow-remote-bases", cwd=repo)
    assert ran.exists() and code == 2 and "failed" in err  # the opt-in runs kubectl (this one fails)


def test_a_remote_base_of_an_included_base_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(_fake_kubectl(tmp_path, "exit 1")))
    repo = _repo(tmp_path)
    (repo / "base").mkdir()
    (repo / "base" / "kustomization.yaml").write_text("components:\n- https://example.com/c.git\n")
    (repo / "prod").mkdir()
    (repo / "prod" / "kustomization.yaml").write_text("resources: [../base]\n")
    code, _, err = cli("check", "--kustomize", "prod", "--no-config", cwd=repo)
    assert code == 2 and "https://example.com/c.git" in err and "base" in err


@pytest.mark.parametrize("command,status", [("check", 1), ("graph", 0), ("simulate", 0)])
def test_kubectl_runs_without_cluster_configuration(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    command: str, status: int) -> None:
    seen = tmp_path / "environment"
    stream = HIGH_CLASS.replace("\n", "\\n")
    monkeypatch.setenv("PATH", str(_fake_kubectl(tmp_path, f"export -p > '{seen}'\nprintf '{stream}'")))
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "admin.kubeconfig"))
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "do-not-pass")
    repo = _repo(tmp_path)
    (repo / "kustomization.yaml").write_text("resources: [pc.yaml]\n")
    (repo / "pc.yaml").write_text(HIGH_CLASS)
    options = ("--select", "KQ109") if command == "check" else ()
    code, _, err = cli(command, "--kustomize", ".", "--no-config", *options, cwd=repo)
    assert code == status, err
    environment = seen.read_text()
    assert "admin.kubeconfig" not in environment and "do-not-pass" not in environment
    assert "KUBECONFIG='/dev/null'" in environment or 'KUBECONFIG="/dev/null"' in environment
    assert "PATH=''" in environment or 'PATH=""' in environment  # no git for kubectl to run
    assert "HTTPS_PROXY='http://127.0.0.1:9'" in environment or 'HTTPS_PROXY="http://127.0.0.1:9"' in environment


def test_the_rendered_stream_is_bounded_by_max_file_size(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    endless = "while :; do echo '# padding padding padding padding padding padding padding'; done"
    monkeypatch.setenv("PATH", str(_fake_kubectl(tmp_path, endless)))
    repo = _repo(tmp_path)
    (repo / ".kqlint.yaml").write_text("max-file-size: 200000\n")
    (repo / "kustomization.yaml").write_text("resources: [pc.yaml]\n")
    (repo / "pc.yaml").write_text(HIGH_CLASS)
    code, out, err = cli("check", "--kustomize", ".", "-f", "json", cwd=repo)
    [finding] = _findings(out)
    assert code == 1 and finding["code"] == "KQ001", err
    assert finding["file"] == "kustomization.yaml" and "max-file-size" in str(finding["message"])
    code, out, err = cli("graph", "--kustomize", ".", "-f", "json", "--with-findings", cwd=repo)  # the same bound
    assert code == 0 and json.loads(out)["summary"]["nodes"] == 0, err


def test_a_base_outside_the_repository_is_not_linted(tmp_path: Path) -> None:
    _kubectl()
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "kustomization.yaml").write_text("resources: [pc.yaml]\n")
    (outside / "pc.yaml").write_text(HIGH_CLASS.replace("too-high", "outside-class"))
    repo = _repo(tmp_path)
    (repo / "kustomization.yaml").write_text("resources: [../elsewhere, pc.yaml]\n")
    (repo / "pc.yaml").write_text(HIGH_CLASS)
    code, out, err = cli("check", "--kustomize", ".", "--no-config", "--select", "KQ109", "-f", "json", cwd=repo)
    assert code == 1, err
    assert [f["file"] for f in _findings(out)] == ["pc.yaml"]
    assert "outside-class" not in out and "outside the repository" in err


def test_kustomize_refusal_gives_kustomize_reason(tmp_path: Path) -> None:
    _kubectl()
    repo = _repo(tmp_path)
    (repo / "helm").mkdir()
    (repo / "helm" / "kustomization.yaml").write_text(
        "helmCharts:\n- name: kueue\n  repo: oci://registry.example.com/charts\n  version: 0.1.0\n")
    code, _, err = cli("check", "--kustomize", "helm", "--no-config", cwd=repo)
    assert code == 2 and "must specify --enable-helm" in err and "| kqlint check -" in err, err
    assert not err.rstrip().endswith(">")


def test_a_patch_path_with_a_nul_byte_is_no_file_and_no_crash(tmp_path: Path) -> None:
    """A kustomization naming a patch whose path holds a NUL byte (found by the long fuzz run):
    no file can have that name, so nothing is a patch of it, and the run goes on."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "kustomization.yaml").write_text(
        'resources: [job.yaml]\npatches:\n  - path: "job\\0.yaml"\n', encoding="utf-8")
    (tmp_path / "job.yaml").write_text(
        "apiVersion: batch/v1\nkind: Job\nmetadata: {name: a}\nspec:\n  template:\n    spec:\n"
        "      restartPolicy: Never\n      containers: [{name: c, image: busybox}]\n", encoding="utf-8")
    code, out, err = cli("check", ".", "--no-cache", "-f", "json", cwd=tmp_path)
    assert code in (0, 1), err
    assert json.loads(out)["summary"]["objects"] == 1  # the Job is linted, as no patch names it
    assert "Traceback" not in err and "bug" not in err
