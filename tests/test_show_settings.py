"""`kqlint check --show-settings` and `--show-files` (issue 30, item 1; ruff's spelling): what a
run would use and read, printed through the run's own Pipeline instead of linting (exit 0)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from kqlint.cli import main
from kqlint.config import load_config
from kqlint.engine.pipeline import lint

CONFIG = """\
severity: {KQ106: warning}
exclude: ["charts/**"]
external:
  ClusterQueue: [{name: team-a}]
rules:
  KQ401: {resource: nvidia.com/mlnxnics}
"""
PLATFORM = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: default, namespace: team-a}
spec: {clusterQueue: team-a}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: kueue-manager-config, namespace: kueue-system}
data:
  controller_manager_config.yaml: |
    integrations:
      frameworks: [batch/job, deployment]
"""
WEB = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: team-a}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      priorityClassName: no-such-class
      containers: [{name: c, image: nginx}]
"""


@pytest.fixture
def repo(in_tmp_cwd: Path) -> Path:
    (in_tmp_cwd / ".git").mkdir()
    (in_tmp_cwd / ".kqlint.yaml").write_text(CONFIG)
    files = {"platform/queues.yaml": PLATFORM, "apps/web.yaml": WEB, "charts/x/values.yaml": "a: 1\n"}
    for name, text in files.items():
        (in_tmp_cwd / name).parent.mkdir(parents=True, exist_ok=True)
        (in_tmp_cwd / name).write_text(text)
    return in_tmp_cwd


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["check", *args])
    out, err = capsys.readouterr()
    return code, out, err


# ------------------------------------------------------------------ --show-settings

def test_settings_say_where_the_configuration_and_each_platform_fact_came_from(
        repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--show-settings", "apps")
    assert code == 0  # apps/web.yaml has a KQ205 finding: nothing is linted
    assert "KQ205" not in out.split("Rules (")[0] and "no-such-class" not in out
    assert "  file: .kqlint.yaml (discovered: the first .kqlint.yaml" in out
    assert "  severity: KQ106=warning\n" in out and "  KQ106 non-uniform-pod-priority: warning [info]\n" in out
    assert f"  exclude: {repo / 'charts'}/**\n" in out  # anchored at the config's folder, as the run uses it
    assert "  external: ClusterQueue=team-a\n" in out
    assert "  KQ401 missing-rdma-nic: warning  resource=nvidia.com/mlnxnics\n" in out
    assert "  the project root's manifests (automatic): .\n" in out
    assert ("    kueue integrations: batch/job, deployment (from ConfigMap kueue-system/kueue-manager-config "
            "(platform/queues.yaml))\n") in out
    assert "    kueue version: unknown\n" in out


def test_settings_say_why_a_deployment_counts_as_kueue_managed(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = run(capsys, "--show-settings", "apps")[1]
    assert "    routed without a label: batch/job (batch/Job), deployment (apps/Deployment)\n" in out
    assert "    LocalQueues named `default`: team-a (platform/queues.yaml)\n" in out
    (repo / "platform" / "queues.yaml").write_text(PLATFORM.split("---\n")[0])  # no Kueue Configuration
    out = run(capsys, "--show-settings", "apps")[1]
    assert "    kueue integrations: unknown\n" in out
    assert ("    not routed without a label, opt-in integrations not known to be enabled (config `platform: "
            "{kueue: {integrations: [...]}}`): deployment, leaderworkerset.x-k8s.io/leaderworkerset, pod, "
            "statefulset\n") in out


def test_settings_as_json_have_the_documented_shape(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--show-settings", "--format", "json", "--fail-on", "never", "--no-cache", "apps")
    data = json.loads(out)
    assert code == 0 and list(data) == ["version", "configuration", "cache", "rules", "context", "units"]
    assert data["configuration"]["file"] == ".kqlint.yaml" and data["configuration"]["found"] == "discovered"
    assert data["configuration"]["fail-on"] == "never" and data["cache"] == {"dir": None, "from": "--no-cache"}
    assert {"code": "KQ106", "slug": "non-uniform-pod-priority", "severity": "warning", "default": "info",
            "options": {}} in data["rules"]
    assert data["context"] == {"how": "project-root", "paths": ["."], "projectRoot": str(repo)}
    [unit] = data["units"]
    assert unit["unit"] is None and unit["inputObjects"] == 1
    assert unit["platform"]["kueue"] == {"version": None, "integrations": ["batch/job", "deployment"],
                                         "integrationsComplete": True, "fairSharing": None}
    assert {"name": "deployment", "kinds": ["apps/Deployment"], "enabled": True, "optIn": True,
            "routesUnlabelled": True} in unit["kueueManaged"]["frameworks"]
    assert unit["kueueManaged"]["defaultLocalQueues"] == ["team-a (platform/queues.yaml)"]


def test_settings_print_every_line_the_platform_model_gives(repo: Path, capsys: pytest.CaptureFixture[str],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """A fact added to the model (issue 33's scheduler names) shows without touching the report."""
    from kqlint.domain.platform import Platform

    lines = Platform.lines
    monkeypatch.setattr(Platform, "lines", lambda self: [*lines(self), "scheduler names: volcano (from a test)"])
    assert "    scheduler names: volcano (from a test)\n" in run(capsys, "--show-settings", "apps")[1]


def test_settings_show_one_platform_model_per_unit(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    overlay = repo / "overlays" / "prod"
    overlay.mkdir(parents=True)
    (overlay / "kustomization.yaml").write_text("resources: [web.yaml]\n")
    (overlay / "web.yaml").write_text(WEB)
    out = run(capsys, "--show-settings", ".")[1]
    assert "\nUnit: shared files (in no unit; every unit sees them), 3 input object(s)\n" in out
    assert "\nUnit: kustomize overlays/prod, 1 input object(s)\n" in out
    assert out.count("    LocalQueues named `default`: team-a (platform/queues.yaml)\n") == 2


def test_settings_say_how_the_configuration_was_chosen(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = run(capsys, "--show-settings", "--no-config", "apps")[1]
    assert "  file: none (none: --no-config (built-in defaults))\n" in out and "  exclude: none\n" in out
    (repo / "other.yaml").write_text("namespace: ml\n")
    out = run(capsys, "--show-settings", "--config", "other.yaml", "--namespace", "prod", "apps")[1]
    assert "  file: other.yaml (named by --config)\n" in out and "  namespace: prod\n" in out
    (repo / ".kqlint.yaml").unlink()
    assert "  file: none (none found from the current folder up to the repository root" in \
        run(capsys, "--show-settings", "apps")[1]


def test_settings_of_stdin_use_the_stream_as_evidence(repo: Path, capsys: pytest.CaptureFixture[str],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(PLATFORM.encode())))
    code, out, _ = run(capsys, "--show-settings", "-")
    assert code == 0 and "  cache: off (stdin is never cached)\n" in out
    assert "kueue integrations: batch/job, deployment (from ConfigMap kueue-system/kueue-manager-config" in out


# ------------------------------------------------------------------ --show-files

def test_files_are_the_inputs_and_context_a_lint_reads(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "--show-files", "apps")
    assert (code, out, err) == (0, "input   apps/web.yaml\ncontext platform/queues.yaml\n", "")
    shown = [line.split()[1] for line in run(capsys, "--show-files", ".")[1].splitlines()]
    assert shown == list(lint(["."], load_config(".kqlint.yaml")).files)  # what a run reads, no more
    code, out, _ = run(capsys, "--show-files", "--format", "json", "--context", "platform", "apps")
    assert json.loads(out) == {"version": json.loads(out)["version"], "inputs": ["apps/web.yaml"],
                               "context": ["platform/queues.yaml"], "contextHow": "explicit"}
    assert run(capsys, "--show-files", ".")[1] == "input   apps/web.yaml\ninput   platform/queues.yaml\n"


def test_files_skip_excluded_and_dot_folders(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / ".github").mkdir()
    (repo / ".github" / "ci.yaml").write_text("a: 1\n")
    out = run(capsys, "--show-files", "--exclude", "platform/**", ".")[1]
    assert out == "input   apps/web.yaml\n"


def test_hostile_file_names_reach_the_terminal_escaped(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "apps" / "x\x1b[2J.yaml").write_text(WEB)
    out = run(capsys, "--show-files", "apps")[1]
    assert "\x1b" not in out and "x\\x1b[2J.yaml" in out


@pytest.mark.parametrize("args,message", [
    (["--show-settings", "--show-files"], "--show-settings and --show-files exclude each other"),
    (["--show-files", "--format", "sarif"], "print text or json, not 'sarif'"),
    (["--show-settings", "--kustomize", "apps"], "do not combine with --kustomize"),
    (["--show-files", "missing"], "path does not exist: missing"),
])
def test_show_usage_errors_exit_2(repo: Path, capsys: pytest.CaptureFixture[str], args: list[str],
                                  message: str) -> None:
    code, out, err = run(capsys, *args)
    assert (code, out) == (2, "") and message in err


def test_the_options_complete_in_the_shell() -> None:
    from kqlint.cli import app
    from typer.testing import CliRunner

    env = {"_KQLINT_COMPLETE": "complete_bash", "COMP_WORDS": "kqlint check --show-", "COMP_CWORD": "2"}
    result = CliRunner().invoke(app, [], env=env, prog_name="kqlint")
    assert result.output.split() == ["--show-settings", "--show-files"]
