"""The GitHub Action (action.yml, composite): its bash steps run here in a simulated Actions
environment — inputs, `github.action_path` and `env` substituted, GITHUB_OUTPUT,
GITHUB_STEP_SUMMARY and RUNNER_TEMP files — on a copy of examples/. The install step
really installs kqlint from the action's own checkout into a fresh virtualenv (PyPI for
the dependencies), as on a runner."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from ci_helpers import EXAMPLES, ROOT, validate_sarif

pytestmark = pytest.mark.slow
EXPRESSION = re.compile(r"\$\{\{\s*([^}]*?)\s*\}\}")
IGNORED = shutil.ignore_patterns(".git", ".venv", "venv", "build", "dist", "*.egg-info", "__pycache__",
                                 ".pytest_cache", ".hypothesis", ".mypy_cache", "tests", "bench")


def load_action() -> dict[str, Any]:
    from ruamel.yaml import YAML

    return YAML(typ="safe", pure=True).load((ROOT / "action.yml").read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def substitute(text: str, context: dict[str, str]) -> str:
    def value(match: re.Match[str]) -> str:
        key = match.group(1)
        assert key in context, f"action.yml uses an expression the simulation does not know: {key}"
        return context[key]
    return EXPRESSION.sub(value, text)


class Runner:
    """Runs the action's steps like the Actions runner does for `shell: bash`."""

    def __init__(self, tmp: Path, action_path: Path, workspace: Path) -> None:
        self.tmp, self.action_path, self.workspace = tmp, action_path, workspace
        self.temp = tmp / "runner-temp"
        self.temp.mkdir(exist_ok=True)
        self.files = {name: tmp / name.lower() for name in ("GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_ENV",
                                                              "GITHUB_PATH")}

    def run(self, inputs: dict[str, str], first: int = 0) -> list[subprocess.CompletedProcess[str]]:
        """Run the steps from ``first`` on (``step_index("check")``: kqlint is installed already)."""
        action = load_action()
        for path in self.files.values():
            path.write_text("")
        context = {f"inputs.{name}": str(spec.get("default", "")) for name, spec in action["inputs"].items()}
        context.update({f"inputs.{k}": v for k, v in inputs.items()})
        context["github.action_path"] = str(self.action_path)
        context["steps.venv.outputs.key"] = "simulated"
        context["runner.temp"] = str(self.temp)
        context["github.workspace"] = str(self.workspace)
        results = []
        for step in action["runs"]["steps"][first:]:
            if "uses" in step:  # actions/cache: simulated as a cache miss (nothing restored)
                assert str(step["uses"]).startswith("actions/cache@"), "only actions/cache may be used"
                continue
            assert step["shell"] == "bash"
            env = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "PYTHON", "PIP_"))}
            env.update({name: str(path) for name, path in self.files.items()},
                       RUNNER_TEMP=str(self.temp), GITHUB_ACTIONS="true", CI="true",
                       GITHUB_WORKSPACE=str(self.workspace), PIP_DISABLE_PIP_VERSION_CHECK="1")
            env.update({k: substitute(str(v), context) for k, v in step.get("env", {}).items()})
            script = self.tmp / "step.sh"
            script.write_text(substitute(step["run"], context))
            result = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
                                    cwd=self.workspace, env=env, capture_output=True, text=True, timeout=1500,
                                    stdin=subprocess.DEVNULL, check=False)
            results.append(result)
            if result.returncode != 0:
                break
        return results

    def outputs(self) -> dict[str, str]:
        """The check step's outputs (the runner keeps one output file per step; here they share
        one, so the cache-key step's `key` is left out)."""
        lines = self.files["GITHUB_OUTPUT"].read_text().splitlines()
        return {k: v for k, v in (line.split("=", 1) for line in lines if line) if k != "key"}


def step_index(step_id: str) -> int:
    return next(i for i, step in enumerate(load_action()["runs"]["steps"]) if step.get("id") == step_id)


def test_action_metadata() -> None:
    action = load_action()
    assert action["runs"]["using"] == "composite"
    assert set(action["inputs"]) >= {"paths", "config", "fail-on", "format", "sarif-file"}
    install = next(step for step in action["runs"]["steps"] if step.get("name") == "Install kqlint")
    assert "${{ github.action_path }}" in install["env"].values() and "pip install" in install["run"]
    for step in action["runs"]["steps"]:  # inputs reach the scripts through env only (no injection)
        assert "inputs." not in step.get("run", "") and "inputs." not in str(step.get("with", ""))


@pytest.fixture(scope="module")
def runner(tmp_path_factory: pytest.TempPathFactory) -> Runner:
    if shutil.which("bash") is None:
        pytest.skip("bash is not installed")
    tmp = tmp_path_factory.mktemp("action")
    action_path = tmp / "action-checkout"
    shutil.copytree(ROOT, action_path, ignore=IGNORED)
    workspace = tmp / "workspace"
    shutil.copytree(EXAMPLES, workspace / "manifests")
    (workspace / ".kqlint.yaml").write_text("ignore: [KQ006]\n")
    return Runner(tmp, action_path, workspace)


@pytest.fixture(scope="module")
def first_run(runner: Runner) -> tuple[list[subprocess.CompletedProcess[str]], dict[str, str], str]:
    results = runner.run({"paths": "manifests/tenants\nmanifests/platform", "python": sys.executable,
                          "config": ".kqlint.yaml"})
    return results, runner.outputs(), runner.files["GITHUB_STEP_SUMMARY"].read_text()


def test_installs_from_the_checkout_and_fails_on_findings(first_run: Any, runner: Runner) -> None:
    results, outputs, summary = first_run
    _key, install, check = results
    assert install.returncode == 0, install.stderr
    assert re.fullmatch(r"kqlint \d+\.\d+\.\d+\S*\n", install.stdout)
    assert check.returncode == 1, check.stderr
    assert outputs == {"exit-code": "1", "sarif-file": "kqlint.sarif"}
    annotations = check.stdout.splitlines()
    assert annotations and all(line.startswith(("::error ", "::warning ", "::notice ")) for line in annotations)
    assert any("file=manifests/tenants/vision/training/embed-precompute.yaml,line=15,col=5,title=KQ102" in line
               for line in annotations)
    assert not any("KQ006" in line for line in annotations)  # the config input was used
    sarif = validate_sarif((runner.workspace / "kqlint.sarif").read_text())
    assert {r["ruleId"] for r in sarif["runs"][0]["results"]} >= {"KQ001", "KQ102", "KQ301"}
    assert summary.startswith("### kqlint: ") and "| KQ102 `global-default-leak` | error | 1 |" in summary


def test_inputs_change_the_run(first_run: Any, runner: Runner) -> None:
    results = runner.run({"paths": "manifests", "python": sys.executable, "fail-on": "never", "format": "json",
                          "sarif-file": "", "args": "--select KQ102,KQ104"}, first=step_index("check"))
    check = results[-1]
    assert check.returncode == 0, check.stderr
    assert {f["code"] for f in json.loads(check.stdout)["findings"]} == {"KQ102", "KQ104"}
    assert runner.outputs() == {"exit-code": "0"}
    results = runner.run({"paths": "no-such-folder", "python": sys.executable}, first=step_index("check"))
    assert results[-1].returncode == 2 and "does not exist" in results[-1].stderr
