"""Reporters: text, json, github. Output is pinned by golden files under
tests/fixtures/golden/ (rewrite them with `pytest --update-golden`)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from helpers import chdir, validate_json_report
from kqlint.config import Config
from kqlint.engine.pipeline import lint
from kqlint.model import Finding, Location, ObjectRef, Report, Severity, Summary
from kqlint.reporters import FORMATS, render
from kqlint.reporters.github import escape_data, escape_property

GOLDEN = Path(__file__).parent / "fixtures" / "golden"
ANSI = re.compile(r"\x1b\[[0-9;]*m")

JOB = ObjectRef("kubeflow.org/v1", "PyTorchJob", "training", "prod")
PC = ObjectRef("scheduling.k8s.io/v1", "PriorityClass", None, "high")


def sample_report() -> Report:
    """A hand-built report covering every field the reporters print: several files,
    related locations, cluster-scoped objects, file-level findings, awkward characters."""
    findings = (
        Finding("KQ001", "invalid-yaml", Severity.ERROR, "invalid YAML: mapping values are not allowed here",
                Location("manifests/broken.yaml", 3, 7)),
        Finding("KQ101", "pod-preemption-enabled", Severity.ERROR,
                "PyTorchJob training/prod: Worker template uses PriorityClass high (preemptionPolicy "
                "PreemptLowerPriority)",
                Location("manifests/train, v2.yaml", 12, 9, ("spec",), JOB), JOB,
                (Location("platform/priority.yaml", 4, 3, (), PC, "the PriorityClass, value 1000"),
                 Location("manifests/train, v2.yaml", 30, 9, (), JOB)), remedy="Set preemptionPolicy: Never"),
        Finding("KQ106", "non-uniform-pod-priority", Severity.INFO,
                "100% of the [gang] uses 2 values:\nline two\r\nand a: colon, comma",
                Location("manifests/train, v2.yaml", 12, 9, (), JOB), JOB),
        Finding("KQ401", "missing-rdma-nic", Severity.WARNING, "Worker requests nvidia.com/gpu but not "
                "nvidia.com/mlnxnics", Location("manifests/train, v2.yaml", 40, 13, (), JOB), JOB),
    )
    return Report(findings, Summary(files=3, documents=5, objects=4, skipped_documents=1))


def check_golden(name: str, text: str, update: bool) -> None:
    path = GOLDEN / name
    if update:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="\n")
    assert path.is_file(), f"{path} missing: run `pytest tests/test_reporters.py --update-golden`"
    assert text == path.read_text(encoding="utf-8"), \
        f"{name} differs from the golden file; if intended: pytest tests/test_reporters.py --update-golden"


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_sample_report_golden(fmt: str, update_golden: bool) -> None:
    text = render(fmt, sample_report())
    check_golden(f"reporters/sample.{fmt}.txt", text, update_golden)
    if fmt == "json":
        validate_json_report(text)


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_project_golden(fmt: str, update_golden: bool) -> None:
    """A real run over tests/fixtures/golden/project (engine findings only: stable while rules grow)."""
    with chdir(GOLDEN / "project"):
        report = lint(["."], Config(select=("KQ001", "KQ006")))
    text = render(fmt, report)
    check_golden(f"project.{fmt}.txt", text, update_golden)
    if fmt == "json":
        data = validate_json_report(text)
        assert data["summary"]["files"] == 7  # .hidden/ and chart templates are not read


# ------------------------------------------------------------------ json

def test_json_shape() -> None:
    data = validate_json_report(render("json", sample_report()))
    assert list(data) == ["version", "summary", "findings"]
    first, second = data["findings"][0], data["findings"][1]
    assert first["object"] is None and first["related"] == []
    assert second["object"] == {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob",
                                "namespace": "training", "name": "prod"}
    assert second["related"][0] == {"file": "platform/priority.yaml", "line": 4, "column": 3,
                                    "message": "the PriorityClass, value 1000"}
    assert data["summary"] == {"files": 3, "documents": 5, "objects": 4, "findings": 4,
                               "by_severity": {"error": 2, "warning": 1, "info": 1},
                               "suppressed": 0, "baselined": 0, "skipped": 1}


def test_json_suppressed_findings_carry_justification() -> None:
    from kqlint.reporters.json import report_to_json

    base = sample_report()
    hidden = Finding("KQ401", "missing-rdma-nic", Severity.WARNING, "x",
                     Location("a.yaml", 1, 1), JOB, (), "no RDMA on this cluster")
    report = Report(base.findings, base.summary, (), (hidden,))
    data = report_to_json(report, report_suppressed=True)
    validate_json_report(data)
    assert [f.get("suppression") for f in data["findings"] if f["file"] == "a.yaml"] == \
        [{"justification": "no RDMA on this cluster"}]


def test_schema_rejects_wrong_shapes() -> None:
    import jsonschema

    good = json.loads(render("json", sample_report()))
    for breaker in (lambda d: d["findings"][0].pop("line"),
                    lambda d: d["findings"][0].update(severity="fatal"),
                    lambda d: d["findings"][0].update(column=0),
                    lambda d: d["summary"].update(extra=1),
                    lambda d: d["findings"][1]["object"].pop("kind")):
        data = json.loads(json.dumps(good))
        breaker(data)
        with pytest.raises(jsonschema.ValidationError):
            validate_json_report(data)


# ------------------------------------------------------------------ github

def _unescape(text: str) -> str:
    return text.replace("%0D", "\r").replace("%0A", "\n").replace("%3A", ":").replace("%2C", ",").replace("%25", "%")


def test_github_escaping_rules() -> None:
    assert escape_data("100%\r\nx") == "100%25%0D%0Ax"
    assert escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"
    assert escape_data("a:b,c") == "a:b,c"  # only properties escape : and ,


def test_github_commands_round_trip() -> None:
    report = sample_report()
    lines = render("github", report).splitlines()
    assert len(lines) == len(report.findings)
    pattern = re.compile(r"^::(error|warning|notice) file=([^,:]*),line=(\d+),col=(\d+),title=([^,:]*)::(.*)$")
    for line, finding in zip(lines, report.findings, strict=True):
        match = pattern.match(line)
        assert match, line
        level, file, row, col, title, data = match.groups()
        assert level == {"error": "error", "warning": "warning", "info": "notice"}[finding.severity.label]
        assert (_unescape(file), int(row), int(col)) == (finding.location.file, finding.location.line,
                                                         finding.location.column)
        assert _unescape(title) == finding.code
        assert _unescape(data).startswith(finding.message)
        assert "\n" not in data and "\r" not in data
        for related in finding.related:
            assert f"related: {related.file}:{related.line}:{related.column}" in _unescape(data)


def test_github_empty_report_prints_nothing() -> None:
    assert render("github", Report(())) == ""


# ------------------------------------------------------------------ text

def test_text_groups_by_file_with_related_and_summary() -> None:
    text = render("text", sample_report())
    lines = text.splitlines()
    assert lines.count("manifests/train, v2.yaml") == 1  # one header per file
    assert "  12:9  error  KQ101 pod-preemption-enabled  PyTorchJob training/prod" in text
    assert "      related: platform/priority.yaml:4:3  the PriorityClass, value 1000" in lines
    assert "100% of the [gang]" in text  # rich markup characters survive
    assert lines[-1] == ("4 findings (2 errors, 1 warning, 1 info) in 3 files, 4 objects, "
                         "1 non-Kubernetes document skipped")
    assert not ANSI.search(text)


def test_text_color_only_when_asked() -> None:
    assert ANSI.search(render("text", sample_report(), color=True))
    assert not ANSI.search(render("text", sample_report(), color=False))


def test_text_quiet_and_statistics() -> None:
    empty = Report((), Summary(files=2, documents=2, objects=2))
    assert render("text", empty, quiet=True) == ""
    assert render("text", empty) == "0 findings (0 errors, 0 warnings, 0 info) in 2 files, 2 objects\n"
    text = render("text", sample_report(), statistics=True, quiet=True)
    assert "     1  KQ101 pod-preemption-enabled" in text.splitlines()
    assert text.splitlines()[-1].startswith("4 findings")


RENDER_EXAMPLES = """
import json
from kqlint.reporters import FORMATS, render
from kqlint.engine.pipeline import lint

report = lint(["examples"])
print(json.dumps({fmt: render(fmt, report) for fmt in sorted(FORMATS)}))
"""


def test_reporters_are_deterministic_across_processes() -> None:
    """Two processes with different hash seeds (set and dict orders that depend on string
    hashing) lint examples/ and render every format byte for byte the same."""
    import os
    import subprocess
    import sys

    root = Path(__file__).resolve().parent.parent
    outputs = []
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run([sys.executable, "-c", RENDER_EXAMPLES], cwd=root, env=env,
                              capture_output=True, text=True, timeout=300, check=True)
        outputs.append(json.loads(done.stdout))
    assert sorted(outputs[0]) == sorted(FORMATS)
    assert all(outputs[0][fmt] for fmt in FORMATS)
    for fmt in FORMATS:
        assert outputs[0][fmt] == outputs[1][fmt], f"{fmt} output depends on the hash seed"


def test_findings_equal_but_for_related_sort_the_same_whatever_the_hash_seed() -> None:
    """analysis sorts ``set(reported)``: two findings that differ only in ``related`` (KQ219 on a
    flavor with the same taint twice) came out in either order with the hash seed."""
    import itertools

    from kqlint.model import Finding, Location, Severity

    at = Location("a.yaml", 3, 5)
    findings = [Finding("KQ219", "x", Severity.ERROR, "same", at, related=(Location("b.yaml", line, 1, message="m"),))
                for line in (9, 4, 7)]
    orders = {tuple(sorted(order, key=Finding.sort_key)) for order in itertools.permutations(findings)}
    assert len(orders) == 1
    assert [f.related[0].line for f in next(iter(orders))] == [4, 7, 9]
