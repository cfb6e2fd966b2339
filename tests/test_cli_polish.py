"""Small things a new user trips over (issue 30 item 11): config `output-format` takes what
ruff's does, an empty `--namespace` is a usage error, the usage line says `[PATH]...`, a YAML
error at the end of a file points at its last line, `kqlint rules | cat` is not padded,
`--format concise --color always` is coloured, a custom rule's explain text points at no
missing section, and `graph --with-findings` shows a shared object's findings once."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from kqlint.cli import main

JOB = """apiVersion: batch/v1
kind: Job
metadata: {name: train, namespace: ml}
spec:
  template:
    spec:
      priorityClassName: missing-class
      restartPolicy: Never
      containers: [{name: c, image: x}]
"""
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("style,check", [
    ("json", lambda out: json.loads(out)["findings"][0]["code"] == "KQ205"),
    ("concise", lambda out: out.startswith("job.yaml:7:26: error KQ205 [unknown-priority-class] ")),
    ("full", lambda out: out.startswith("job.yaml\n  7:26  error  KQ205 unknown-priority-class")),
])
def test_config_output_format_takes_a_style_or_any_format_as_ruff_does(
        in_tmp_cwd: Path, capsys: pytest.CaptureFixture[str], style: str, check: object) -> None:
    (in_tmp_cwd / "job.yaml").write_text(JOB)
    (in_tmp_cwd / ".kqlint.yaml").write_text(f"output-format: {style}\n")
    code, out, err = _run(["check", "--select", "KQ205", "job.yaml"], capsys)
    assert code == 1 and callable(check) and check(out), (out, err)


def test_a_wrong_output_format_lists_the_valid_names_without_none(
        in_tmp_cwd: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (in_tmp_cwd / "job.yaml").write_text(JOB)
    (in_tmp_cwd / ".kqlint.yaml").write_text("output-format: jsn\n")
    code, _, err = _run(["check", "job.yaml"], capsys)
    assert code == 2
    assert "is not one of full, concise, text, json, sarif, github, junit, gitlab (did you mean `json`?)" in err
    assert "None" not in err


@pytest.mark.parametrize("value", ["", "Team-A", "-ml", "a" * 64])
def test_a_namespace_that_is_no_namespace_name_is_a_usage_error(
        in_tmp_cwd: Path, capsys: pytest.CaptureFixture[str], value: str) -> None:
    (in_tmp_cwd / "job.yaml").write_text(JOB)
    code, out, err = _run(["check", "--namespace", value, "job.yaml"], capsys)
    assert code == 2 and out == "" and "is not a Kubernetes namespace name" in err


def test_a_namespace_name_is_accepted(in_tmp_cwd: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (in_tmp_cwd / "job.yaml").write_text(JOB)
    assert _run(["check", "--namespace", "team-a", "--select", "KQ205", "job.yaml"], capsys)[0] == 1


@pytest.mark.parametrize("command,usage", [("check", "[PATH]..."), ("graph", "[PATH]..."),
                                           ("query", "[EXPR] [PATH]...")])
def test_the_usage_line_says_paths_repeat(capsys: pytest.CaptureFixture[str], command: str, usage: str) -> None:
    assert _run([command, "--help"], capsys)[1].startswith(f"Usage: kqlint {command} [OPTIONS] {usage}\n")


@pytest.mark.parametrize("tail,kubectl_line", [("data: [a, b\n", 5), ("data: \"abc\n", 6), ("data: [a, b\n\n\n", 7)])
def test_a_yaml_error_at_the_end_of_a_file_points_at_its_last_line(
        in_tmp_cwd: Path, capsys: pytest.CaptureFixture[str], tail: str, kubectl_line: int) -> None:
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n" + tail
    (in_tmp_cwd / "eof.yaml").write_text(text)
    code, out, _ = _run(["check", "--format", "json", "eof.yaml"], capsys)
    [finding] = json.loads(out)["findings"]
    last = text.split("\n")[:-1]  # the file's lines (it ends with a line break)
    assert code == 1 and finding["code"] == "KQ001"
    assert (finding["line"], finding["column"]) == (len(last), len(last[-1]) + 1)  # the end of the last line
    if shutil.which("kubectl"):  # kubectl names that line too (or, for a scanner error, the one after)
        refused = subprocess.run(["kubectl", "apply", "--dry-run=client", "--validate=false", "-f", "eof.yaml"],
                                 capture_output=True, text=True, timeout=60, check=False)
        assert f"line {kubectl_line}:" in refused.stderr and kubectl_line in (len(last), len(last) + 1)


def test_rules_piped_are_not_padded_to_the_table_width(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["rules"], capsys)
    assert code == 0 and "KQ101" in out
    assert [line for line in out.splitlines() if line != line.rstrip()] == []


def test_concise_is_coloured_with_color_always_only(in_tmp_cwd: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (in_tmp_cwd / "job.yaml").write_text(JOB)
    _, coloured, _ = _run(["check", "-f", "concise", "--color", "always", "--select", "KQ205", "job.yaml"], capsys)
    _, plain, _ = _run(["check", "-f", "concise", "--select", "KQ205", "job.yaml"], capsys)
    assert "\x1b[1;31merror\x1b[0m" in coloured and "\x1b[1mKQ205\x1b[0m" in coloured
    assert ANSI.search(plain) is None and ANSI.sub("", coloured) == plain


def test_explain_of_a_custom_rule_points_at_no_missing_section(
        in_tmp_cwd: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (in_tmp_cwd / ".kqlint.yaml").write_text(
        "custom-rules:\n  - code: X001\n    slug: team-label\n    severity: warning\n"
        "    message: \"workloads carry a team label\"\n    match: {kinds: [Job]}\n"
        "    assert: \"metadata.labels.team\"\n")
    code, out, _ = _run(["explain", "X001"], capsys)
    assert code == 0 and "Fix: none: fix by hand." in out
    assert "How to fix" not in out and "## Definition" in out
    assert "see How to fix" in _run(["explain", "KQ104"], capsys)[1]  # a built-in rule has the section


def test_graph_with_findings_shows_a_shared_class_finding_once(
        in_tmp_cwd: Path, capsys: pytest.CaptureFixture[str]) -> None:
    jobs = "".join(JOB.replace("name: train", f"name: {name}").replace("missing-class", "too-high") + "---\n"
                   for name in ("a", "b"))
    (in_tmp_cwd / "m.yaml").write_text("apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\n"
                                       "metadata: {name: too-high}\nvalue: 1000000001\n---\n" + jobs)
    code, out, _ = _run(["graph", "--with-findings", "m.yaml"], capsys)
    assert code == 0, out
    assert out.count("→ PriorityClass too-high") == 2  # under each Job
    assert out.count("KQ109 error") == 1 and out.count("1 finding shown above") == 1
