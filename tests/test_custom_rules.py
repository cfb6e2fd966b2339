"""Declarative custom rules (config `custom-rules`): matching, JMESPath `when`/`assert`,
finding locations, compile errors, and their place among the other rules."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers import chdir
from kqlint.cli import main
from kqlint.config import Config, load_config
from kqlint.engine.custom import compile_expression, custom_rule, custom_rules, field_path, truthy
from kqlint.engine.pipeline import lint
from kqlint.errors import ConfigError
from kqlint.model import Report, Severity

GPU_RULE = {
    "code": "X001", "slug": "gpu-jobs-need-team-label", "severity": "warning",
    "message": "GPU workloads must carry a team label",
    "match": {"kinds": ["Job", "PyTorchJob"]},
    "when": 'spec.template.spec.containers[?resources.limits."nvidia.com/gpu"]',
    "assert": "metadata.labels.team",
}

MANIFESTS = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: gpu-no-labels
spec:
  template:
    spec:
      containers:
        - name: c
          resources: {limits: {nvidia.com/gpu: 1}}
---
apiVersion: batch/v1
kind: Job
metadata:
  name: gpu-other-labels
  labels: {app: train}
spec:
  template:
    spec:
      containers:
        - name: c
          resources: {limits: {nvidia.com/gpu: 1}}
---
apiVersion: batch/v1
kind: Job
metadata:
  name: gpu-empty-team
  labels: {team: ""}
spec:
  template:
    spec:
      containers:
        - name: c
          resources: {limits: {nvidia.com/gpu: 1}}
---
apiVersion: batch/v1
kind: Job
metadata:
  name: gpu-with-team
  labels: {team: vision}
spec:
  template:
    spec:
      containers:
        - name: c
          resources: {limits: {nvidia.com/gpu: 1}}
---
apiVersion: batch/v1
kind: Job
metadata:
  name: cpu-only
spec:
  template:
    spec:
      containers: [{name: c, resources: {limits: {cpu: 1}}}]
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: gpu-but-not-matched-kind
spec:
  template:
    spec:
      containers:
        - name: c
          resources: {limits: {nvidia.com/gpu: 1}}
"""


def lint_text(tmp_path: Path, rules: list[dict[str, Any]], text: str = MANIFESTS) -> Report:
    (tmp_path / "m.yaml").write_text(text, encoding="utf-8")
    with chdir(tmp_path):
        return lint(["m.yaml"], Config(custom_rules=tuple(rules)))


def spots(report: Report) -> list[tuple[int, int, str]]:
    return [(f.location.line, f.location.column, f.obj.name if f.obj else "") for f in report.findings]


# ------------------------------------------------------------------ the cli.md example

def test_cli_md_example(tmp_path: Path) -> None:
    report = lint_text(tmp_path, [GPU_RULE])
    assert spots(report) == [
        (3, 1, "gpu-no-labels"),      # no labels: `metadata:`
        (16, 3, "gpu-other-labels"),  # labels without team: `labels:`
        (28, 12, "gpu-empty-team"),   # an empty string is falsy: the `team` key
    ]
    finding = report.findings[0]
    assert (finding.code, finding.slug, finding.severity) == ("X001", "gpu-jobs-need-team-label", Severity.WARNING)
    assert finding.message == "Job default/gpu-no-labels: GPU workloads must carry a team label"
    assert finding.location.path == ("metadata", "labels", "team")


def test_example_from_a_config_file_through_the_cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "m.yaml").write_text(MANIFESTS, encoding="utf-8")
    (tmp_path / ".kqlint.yaml").write_text(
        "custom-rules:\n"
        "  - code: X001\n    slug: gpu-jobs-need-team-label\n    severity: warning\n"
        "    message: \"GPU workloads must carry a team label\"\n"
        "    match: {kinds: [Job, PyTorchJob]}\n"
        "    when: \"spec.template.spec.containers[?resources.limits.\\\"nvidia.com/gpu\\\"]\"\n"
        "    assert: \"metadata.labels.team\"\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--select", "X", "m.yaml"]) == 1
    out = capsys.readouterr().out
    assert out.count("X001") == 3 and "gpu-jobs-need-team-label" in out
    assert main(["check", "--ignore", "gpu-jobs-need-team-label", "--select", "X", "m.yaml"]) == 0
    assert main(["check", "--severity-typo"]) == 2


def test_listed_and_explained(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                              capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "kq.yaml").write_text(
        "custom-rules:\n  - code: X001\n    slug: team-label\n    severity: info\n"
        "    message: needs a team label\n    description: Cost reports group spend by team.\n"
        "    assert: metadata.labels.team\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["rules", "--format", "json", "--config", "kq.yaml"]) == 0
    rows = [r for r in __import__("json").loads(capsys.readouterr().out) if r["code"] == "X001"]
    assert rows == [{"code": "X001", "slug": "team-label", "severity": "info", "enabled": True,
                     "profile": None, "fix": None, "summary": "needs a team label",
                     "effective": {"severity": "info", "enabled": True}}]  # a config is in effect
    assert main(["explain", "team-label", "--config", "kq.yaml"]) == 0
    text = capsys.readouterr().out
    assert "Cost reports group spend by team." in text and "`metadata.labels.team`" in text


# ------------------------------------------------------------------ when / assert / match

def test_when_absent_applies_to_every_matched_object(tmp_path: Path) -> None:
    rule = {**GPU_RULE, "match": {"kinds": ["Deployment"]}}
    del rule["when"]
    assert [name for _, _, name in spots(lint_text(tmp_path, [rule]))] == ["gpu-but-not-matched-kind"]


def test_no_match_applies_to_every_kind(tmp_path: Path) -> None:
    rule = {k: v for k, v in GPU_RULE.items() if k != "match"}
    names = [name for _, _, name in spots(lint_text(tmp_path, [rule]))]
    assert names == ["gpu-no-labels", "gpu-other-labels", "gpu-empty-team", "gpu-but-not-matched-kind"]


@pytest.mark.parametrize("versions,expected", [
    (["batch/v1"], 3),
    (["apps/*"], 1),
    (["batch/v2", "kubeflow.org/*"], 0),
])
def test_api_version_globs(tmp_path: Path, versions: list[str], expected: int) -> None:
    rule = {**GPU_RULE, "match": {"apiVersions": versions}}
    assert len(lint_text(tmp_path, [rule]).findings) == expected


def test_negated_assert_points_at_the_offending_field(tmp_path: Path) -> None:
    rule = {"code": "X010", "slug": "no-host-network", "severity": "error",
            "message": "hostNetwork bypasses the NIC plugin",
            "assert": "!(spec.template.spec.hostNetwork)"}
    text = ("apiVersion: batch/v1\nkind: Job\nmetadata: {name: a}\nspec:\n  template:\n"
            "    spec:\n      hostNetwork: true\n      containers: [{name: c}]\n---\n"
            "apiVersion: batch/v1\nkind: Job\nmetadata: {name: b}\nspec:\n  template:\n"
            "    spec:\n      hostNetwork: false\n      containers: [{name: c}]\n")
    assert spots(lint_text(tmp_path, [rule], text)) == [(7, 7, "a")]


def test_complex_assert_points_at_metadata(tmp_path: Path) -> None:
    rule = {**GPU_RULE, "assert": "length(metadata.labels || `{}`) > `1`"}
    assert spots(lint_text(tmp_path, [rule])) == [(3, 1, "gpu-no-labels"), (14, 1, "gpu-other-labels"),
                                                  (26, 1, "gpu-empty-team"), (38, 1, "gpu-with-team")]


def test_functions_work_on_loaded_documents(tmp_path: Path) -> None:
    """JMESPath functions check exact Python types; the loader's Map/Seq must not trip them."""
    rule = {**GPU_RULE, "assert": "length(spec.template.spec.containers) == `2`"}
    assert len(lint_text(tmp_path, [rule]).findings) == 4


def test_evaluation_errors_count_as_null(tmp_path: Path) -> None:
    rule = {**GPU_RULE, "assert": "length(metadata.labels.team) > `3`"}  # length(null) is a type error
    report = lint_text(tmp_path, [rule])
    assert not report.internal_errors
    assert [name for _, _, name in spots(report)] == ["gpu-no-labels", "gpu-other-labels", "gpu-empty-team"]
    assert "could not be evaluated" in report.findings[0].message
    assert "could not be evaluated" not in report.findings[2].message  # length("") = 0: just false
    when_error = {**GPU_RULE, "when": "length(metadata.labels.team)"}  # length("") = 0 is truthy
    assert [name for _, _, name in spots(lint_text(tmp_path, [when_error]))] == ["gpu-empty-team"]


def test_numbers_are_truthy_like_jmespath(tmp_path: Path) -> None:
    rule = {"code": "X002", "slug": "parallelism-set", "severity": "info", "message": "set parallelism",
            "match": {"kinds": ["Job"]}, "assert": "spec.parallelism"}
    text = ("apiVersion: batch/v1\nkind: Job\nmetadata: {name: zero}\nspec: {parallelism: 0}\n---\n"
            "apiVersion: batch/v1\nkind: Job\nmetadata: {name: unset}\nspec: {}\n")
    assert spots(lint_text(tmp_path, [rule], text)) == [(9, 1, "unset")]


def test_list_items_are_checked(tmp_path: Path) -> None:
    text = ("apiVersion: v1\nkind: List\nitems:\n  - apiVersion: batch/v1\n    kind: Job\n"
            "    metadata: {name: in-list}\n    spec:\n      template:\n        spec:\n"
            "          containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]\n")
    assert spots(lint_text(tmp_path, [GPU_RULE], text)) == [(6, 5, "in-list")]


def test_weird_documents_never_crash(tmp_path: Path) -> None:
    rule = {k: v for k, v in GPU_RULE.items() if k not in ("match", "when")}
    text = ("apiVersion: v1\nkind: ConfigMap\nmetadata: [1, 2]\n---\napiVersion: v1\nkind: X\n"
            "---\napiVersion: v1\nkind: Z\nmetadata: {labels: null, 5: 6}\n")
    report = lint_text(tmp_path, [rule], text)
    assert not report.internal_errors
    assert len(report.findings) == 3


# ------------------------------------------------------------------ building rules

def test_custom_rules_build_rule_objects() -> None:
    (rule,) = custom_rules([GPU_RULE])
    assert (rule.code, rule.slug, rule.meta.severity) == ("X001", "gpu-jobs-need-team-label", Severity.WARNING)
    assert rule.meta.kinds == frozenset({"Job", "PyTorchJob"}) and rule.meta.scope == "object"
    assert rule.meta.summary == GPU_RULE["message"]
    assert rule.origin == "kqlint.engine.custom" and rule.options_type is None
    assert "## What it catches" in rule.doc


@pytest.mark.parametrize("change,message", [
    ({"code": "KQ900"}, "custom-rules[0].code: custom rule codes must not start with KQ"),
    ({"code": "kq900"}, "must not start with KQ"),
    ({"assert": "a[["}, "custom-rules[0].assert: invalid JMESPath expression"),
    ({"when": "foo(("}, "custom-rules[0].when: invalid JMESPath expression"),
    ({"assert": ""}, "custom-rules[0].assert: must be a non-empty string"),
    ({"severity": "fatal"}, "custom-rules[0].severity: must be error, warning or info"),
    ({"message": None}, "custom-rules[0].message: must be a non-empty string"),
])
def test_bad_entries_are_config_errors(change: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace("[", r"\[").replace("]", r"\]")):
        custom_rules([{**GPU_RULE, **change}])


def test_clash_with_a_builtin_slug_is_an_error(tmp_path: Path) -> None:
    from kqlint.errors import RegistryError

    (tmp_path / "m.yaml").write_text("a: 1\n", encoding="utf-8")
    with chdir(tmp_path), pytest.raises(RegistryError, match="clashes with KQ001"):
        lint(["m.yaml"], Config(custom_rules=({**GPU_RULE, "slug": "invalid-yaml"},)))


def test_expressions_compile_once(monkeypatch: pytest.MonkeyPatch) -> None:
    import jmespath
    from kqlint.engine import custom

    custom._compiled.cache_clear()
    calls: list[str] = []
    original = jmespath.compile
    monkeypatch.setattr(jmespath, "compile", lambda text: calls.append(text) or original(text))
    rule = custom_rule(GPU_RULE)
    assert len(calls) == 2 and custom_rule(GPU_RULE) is rule
    from kqlint.domain.graph import ObjectGraph
    from kqlint.domain.objects import objects_from_file
    from kqlint.engine.rule import RuleContext
    from kqlint.loader import parse_bytes

    objects, _, _ = objects_from_file(parse_bytes("m.yaml", MANIFESTS.encode()), "default")
    ctx = RuleContext(rule, ObjectGraph(objects), None)
    findings = [finding for obj in objects for finding in rule.check(obj, ctx)]
    assert len(calls) == 2 and len(findings) == 3


def test_a_config_file_compiles_its_custom_rules_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Config validation compiles the expressions; the run reuses those rules."""
    import jmespath
    from kqlint.engine import custom

    custom._compiled.cache_clear()
    calls: list[str] = []
    original = jmespath.compile
    monkeypatch.setattr(jmespath, "compile", lambda text: calls.append(text) or original(text))
    (tmp_path / "m.yaml").write_text(MANIFESTS, encoding="utf-8")
    (tmp_path / ".kqlint.yaml").write_text(
        "custom-rules:\n  - code: X001\n    slug: team-label\n    severity: info\n"
        "    message: m\n    assert: metadata.labels.team\n", encoding="utf-8")
    with chdir(tmp_path):
        report = lint(["m.yaml"], load_config(".kqlint.yaml"))
    assert calls == ["metadata.labels.team"] and {f.code for f in report.findings} >= {"X001"}


@pytest.mark.parametrize("expression,path", [
    ("metadata.labels.team", ("metadata", "labels", "team")),
    ('spec.template.spec.containers[0].resources.limits."nvidia.com/gpu"',
     ("spec", "template", "spec", "containers", 0, "resources", "limits", "nvidia.com/gpu")),
    ("!(spec.hostNetwork)", ("spec", "hostNetwork")),
    ("!spec.hostNetwork", None),  # (!spec).hostNetwork
    ("metadata", ("metadata",)),
    ("spec.containers[*].image", None),
    ("length(metadata.labels)", None),
    ("metadata.labels.team == 'a'", None),
])
def test_field_path(expression: str, path: tuple[Any, ...] | None) -> None:
    assert field_path(compile_expression(expression)) == path


@pytest.mark.parametrize("value,expected", [
    (None, False), (False, False), ("", False), ([], False), ({}, False),
    (0, True), (0.0, True), (True, True), ("x", True), ([0], True), ({"a": None}, True),
])
def test_truthy(value: Any, expected: bool) -> None:
    assert truthy(value) is expected


def test_custom_rules_from_a_config_file_are_suppressible(tmp_path: Path) -> None:
    (tmp_path / ".kqlint.yaml").write_text(
        "custom-rules:\n  - code: X001\n    slug: team-label\n    severity: info\n"
        "    message: needs a team label\n    assert: metadata.labels.team\n", encoding="utf-8")
    (tmp_path / "m.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:  # kqlint: ignore[team-label]\n  name: a\n",
        encoding="utf-8")
    with chdir(tmp_path):
        report = lint(["m.yaml"], load_config(".kqlint.yaml"))
    assert report.findings == () and [f.code for f in report.suppressed] == ["X001"]
