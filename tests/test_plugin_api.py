"""The plugin author's API (kqlint.plugin) and the contract it documents: a plugin written
only against it loads through the real mechanism and its yielded findings are reported."""
from __future__ import annotations

import ast
import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from kqlint.cli import main

EXAMPLE = Path(__file__).parent / "plugin_example"

MANIFESTS = """\
apiVersion: batch/v1
kind: Job
metadata: {name: unlabelled}
---
apiVersion: batch/v1
kind: Job
metadata:
  name: labelled
  namespace: ml
  labels: {acme.io/cost-center: ml}
---
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: volcano-job}
"""

YIELDED_ONLY = '''
from kqlint.plugin import Finding, RuleMeta, Severity

META = RuleMeta(code="ACME010", slug="yields-a-finding", severity=Severity.WARNING, summary="yields")


def check(obj, ctx):
    yield Finding(META.code, META.slug, META.severity, "yielded, not built by ctx", obj.at("metadata"))
'''

BUILT_NOT_YIELDED = '''
from kqlint.plugin import RuleMeta, Severity

META = RuleMeta(code="ACME011", slug="builds-without-yielding", severity=Severity.WARNING, summary="builds")


def check(obj, ctx):
    ctx.finding(obj.at("metadata"), "built but never yielded")
    return []
'''


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    (tmp_path / "m.yaml").write_text(MANIFESTS, encoding="utf-8")
    site = tmp_path / "site"
    site.mkdir()
    (site / "acme_yielded.py").write_text(YIELDED_ONLY, encoding="utf-8")
    (site / "acme_built.py").write_text(BUILT_NOT_YIELDED, encoding="utf-8")
    monkeypatch.syspath_prepend(str(EXAMPLE))
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.chdir(tmp_path)
    yield tmp_path
    for name in [n for n in sys.modules if n.startswith("acme_")]:
        del sys.modules[name]


def _check(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[dict[str, object]], str]:
    code = main(["check", "--format", "json", *args, "m.yaml"])
    out, err = capsys.readouterr()
    return code, (json.loads(out)["findings"] if out else []), err


def test_the_example_plugin_imports_only_the_plugin_api() -> None:
    tree = ast.parse((EXAMPLE / "acme_kqlint_rules.py").read_text(encoding="utf-8"))
    modules = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    modules |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    assert {m for m in modules if m and m.startswith("kqlint")} == {"kqlint.plugin"}


def test_the_example_plugin_loads_from_config_with_allow_plugins(project: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    (project / ".kqlint.yaml").write_text("plugins: [acme_kqlint_rules]\nselect: [ACME]\n", encoding="utf-8")
    code, findings, err = _check(capsys, "--allow-plugins")
    assert code == 1, err
    assert [(f["code"], f["line"], f["message"]) for f in findings] == [
        ("ACME001", 3, "Job default/unlabelled (the run's default namespace): add the acme.io/cost-center label")]
    # the Volcano Job (batch.volcano.sh) is another kind: the (group, kind) scope skips it


def test_the_example_plugin_needs_the_opt_in(project: Path, capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KQLINT_ALLOW_PLUGINS", raising=False)
    (project / ".kqlint.yaml").write_text("plugins: [acme_kqlint_rules]\n", encoding="utf-8")
    code, findings, err = _check(capsys)
    assert code == 2 and not findings and "--allow-plugins" in err


def test_the_example_plugin_options_come_from_config(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / ".kqlint.yaml").write_text("plugins: [acme_kqlint_rules]\nselect: [acme-cost-center]\n"
                                          "rules: {ACME001: {label: team}}\n", encoding="utf-8")
    code, findings, _ = _check(capsys, "--allow-plugins")
    assert code == 1 and [f["line"] for f in findings] == [3, 10]
    assert all("add the team label" in str(f["message"]) for f in findings)


def test_yielded_findings_are_reported_and_built_ones_are_not(project: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """The contract (kqlint.engine.rule): findings are what a rule yields. A Finding made without
    ctx.finding is reported; one ctx.finding built and the rule did not yield is not."""
    (project / ".kqlint.yaml").write_text("plugins: [acme_yielded, acme_built]\nselect: [ACME01]\n",
                                          encoding="utf-8")
    code, findings, err = _check(capsys, "--allow-plugins")
    assert code == 1, err
    assert {(f["code"], f["message"]) for f in findings} == {("ACME010", "yielded, not built by ctx")}
    assert len(findings) == 3  # one per object: every yielded finding is kept


def test_the_plugin_api_is_the_engine_s_own_types() -> None:
    import kqlint.plugin as api
    from kqlint import model
    from kqlint.domain import kinds, objects
    from kqlint.engine import rule
    from kqlint.fix import model as fixes

    assert (api.RuleMeta, api.RuleContext, api.Run) == (rule.RuleMeta, rule.RuleContext, rule.Run)
    assert (api.Finding, api.Location, api.Severity) == (model.Finding, model.Location, model.Severity)
    assert (api.K8sObject, api.GroupKind) == (objects.K8sObject, kinds.GroupKind)
    assert (api.Fix, api.Edit, api.Applicability) == (fixes.Fix, fixes.Edit, fixes.Applicability)
    assert sorted(api.__all__) == sorted(name for name in vars(api) if not name.startswith("_")
                                         and name not in ("annotations",))


FAILING_SETUP = '''
from kqlint.plugin import RuleMeta, Severity

META = RuleMeta(code="ACME012", slug="setup-fails", severity=Severity.WARNING, summary="setup fails")


def prepare(run):
    raise RuntimeError("no licence server")


def check(obj, ctx):
    yield ctx.finding(obj.at("metadata"), "never runs")
'''


def test_a_failing_setup_is_one_internal_error_and_the_rule_does_not_run(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "site" / "acme_setup.py").write_text(FAILING_SETUP, encoding="utf-8")
    (project / ".kqlint.yaml").write_text("plugins: [acme_setup, acme_yielded]\nselect: [ACME01]\n",
                                          encoding="utf-8")
    code, findings, err = _check(capsys, "--allow-plugins")
    assert code == 3
    assert {f["code"] for f in findings} == {"ACME010"}  # the other rules still report
    assert ("internal error in rule ACME012 (setup-fails, plugin module acme_setup) while checking the run's "
            "setup: RuntimeError: no licence server") in err
