"""Issue 13 (adoption), through the CLI: concise and full text output, colour, report
format from the file name, GitLab Code Quality, stdin (empty, --stdin-filename, Helm
`# Source:`), --kustomize, messages when nothing happens, --no-config, JSON summary counts,
`kqlint query`, per-path rule settings, `rules`/`explain` on a terminal."""
from __future__ import annotations

import contextlib
import io
import json
import re
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from ci_helpers import cli
from helpers import chdir
from kqlint.cli import main

DATA = Path(__file__).parent / "data"
PRIORITY = """apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: high
value: 1000
"""
JOB = """apiVersion: batch/v1
kind: Job
metadata:
  name: train
  namespace: team-a
  labels:
    kueue.x-k8s.io/queue-name: q
spec:
  parallelism: 2
  template:
    spec:
      priorityClassName: high
      restartPolicy: Never
      containers:
      - name: c
        image: x
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()  # the project root
    (tmp_path / "pc.yaml").write_text(PRIORITY)
    (tmp_path / "job.yaml").write_text(JOB)
    return tmp_path


def run_stdin(data: bytes, *args: str, cwd: Path) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    stdin = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")
    old = sys.stdin
    sys.stdin = stdin
    try:
        with chdir(cwd), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(list(args))
    finally:
        sys.stdin = old
    return code, out.getvalue(), err.getvalue()


# ------------------------------------------------------------------ concise and full text

CONCISE = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+):(?P<col>\d+): (error|warning|info) (KQ\d{3}) \[[a-z0-9-]+\] \S")


def test_concise_format_one_finding_per_line(repo: Path) -> None:
    code, out, _ = cli("check", ".", "--format", "concise", cwd=repo)
    lines = out.splitlines()
    assert code == 1 and lines[-1].startswith("Found ")
    assert lines[:-1] and all(CONCISE.match(line) for line in lines[:-1])
    assert any(line.startswith("job.yaml:12:7: error KQ101 [pod-preemption-enabled] ") for line in lines)
    assert cli("check", ".", "--output-format", "concise", cwd=repo)[1] == out
    (repo / ".kqlint.yaml").write_text("output-format: concise\n")
    assert cli("check", ".", cwd=repo)[1] == out
    assert "help:" in cli("check", ".", "--output-format", "full", cwd=repo)[1]


def test_full_text_has_code_frame_and_help_line(repo: Path) -> None:
    _, out, _ = cli("check", ".", "--select", "KQ101", cwd=repo)
    lines = out.splitlines()
    head = next(i for i, line in enumerate(lines) if "KQ101" in line)
    assert lines[head + 1] == "      12 |       priorityClassName: high"
    assert lines[head + 2] == "         |       ^^^^^^^^^^^^^^^^^"
    assert lines[head + 3].startswith("      help: ") and "preemptionPolicy: Never" in lines[head + 3]
    assert "preemptionPolicy: Never" not in lines[head]  # the remedy moved to its own line


def test_full_text_wraps_to_the_terminal_width() -> None:
    from kqlint.model import Finding, Location, Report, Severity, Summary
    from kqlint.reporters import render

    related = Location("elsewhere.yaml", 7, 3, message="note " * 30)
    finding = Finding("KQ301", "min-member-mismatch", Severity.ERROR, "word " * 40, Location("nowhere.yaml", 3, 1),
                      related=(related,), remedy="Set minMember: 4")
    lines = render("text", Report((finding,), Summary(files=1)), wrap=60).splitlines()
    assert max(len(line) for line in lines) <= 60
    assert "      help: Set minMember: 4" in lines
    first = next(n for n, line in enumerate(lines) if line.startswith("      related: elsewhere.yaml:7:3  note"))
    assert lines[first + 1].startswith("        note")  # a related note wraps too, under "related:"
    piped = render("text", Report((finding,), Summary(files=1))).splitlines()
    assert len(piped[1]) > 200 and any(len(line) > 150 and "related:" in line for line in piped)  # unwrapped


def test_terminal_width_only_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    from kqlint.cli.output import terminal_width

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setenv("COLUMNS", "77")
    assert terminal_width(io.StringIO()) is None and terminal_width(Tty()) == 77


def test_user_strings_are_sanitised_in_text_and_concise(tmp_path: Path) -> None:
    (tmp_path / "bad.yaml").write_text("a: [\x1b[31m\n")
    for fmt in ("text", "concise"):
        _, out, _ = cli("check", ".", "-f", fmt, "--no-config", cwd=tmp_path)
        assert "\x1b" not in out and "KQ001" in out


# ------------------------------------------------------------------ colour, config, output files

def test_color_flags_and_environment(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    assert "\x1b[" not in cli("check", ".", cwd=repo)[1]  # not a terminal
    assert "\x1b[" in cli("check", ".", "--color", "always", cwd=repo)[1]
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert "\x1b[" in cli("check", ".", cwd=repo)[1]
    assert "\x1b[" not in cli("check", ".", "--color", "never", cwd=repo)[1]
    assert "\x1b[" not in cli("check", ".", "--no-color", cwd=repo)[1]
    monkeypatch.setenv("NO_COLOR", "1")
    assert "\x1b[" not in cli("check", ".", cwd=repo)[1]
    code, _, err = cli("check", ".", "--color", "sometimes", cwd=repo)
    assert code == 2 and "--color must be one of auto, always, never" in err


def test_no_config(repo: Path) -> None:
    (repo / ".kqlint.yaml").write_text("ignore: [KQ1, KQ2]\n")
    assert cli("check", ".", cwd=repo)[0] == 0
    assert cli("check", ".", "--no-config", cwd=repo)[0] == 1
    code, _, err = cli("check", ".", "--no-config", "--config", ".kqlint.yaml", cwd=repo)
    assert code == 2 and "exclude each other" in err


@pytest.mark.parametrize(("name", "check"), [
    ("report.json", lambda t: json.loads(t)["summary"]),
    ("report.sarif", lambda t: json.loads(t)["version"] == "2.1.0"),
    ("report.sarif.json", lambda t: json.loads(t)["runs"]),
    ("report.xml", lambda t: t.startswith("<?xml")),
    ("gl-code-quality-report.json", lambda t: isinstance(json.loads(t), list)),
    ("report.txt", lambda t: "finding" in t),
])
def test_output_file_name_picks_the_format(repo: Path, name: str, check: Any) -> None:
    code, out, _ = cli("check", ".", "-o", name, cwd=repo)
    assert code == 1 and out == ""
    assert check((repo / name).read_text())


def test_output_file_name_without_a_known_format_is_an_error(repo: Path) -> None:
    code, _, err = cli("check", ".", "-o", "report.out", cwd=repo)
    assert code == 2 and "cannot tell the report format" in err and not (repo / "report.out").exists()


# ------------------------------------------------------------------ GitLab Code Quality

def _gitlab(repo: Path) -> list[dict[str, Any]]:
    code, out, _ = cli("check", ".", "-f", "gitlab", cwd=repo)
    assert code == 1
    data = json.loads(out)
    import jsonschema

    schema = json.loads((DATA / "gitlab-codequality.schema.json").read_text())
    jsonschema.Draft7Validator.check_schema(schema)
    jsonschema.Draft7Validator(schema).validate(data)
    return data  # type: ignore[no-any-return]


def test_gitlab_report_is_valid_and_fingerprints_survive_line_moves(repo: Path) -> None:
    before = _gitlab(repo)
    kq101 = next(i for i in before if i["check_name"] == "KQ101 pod-preemption-enabled")
    assert kq101["severity"] == "major" and kq101["location"] == {
        "path": "job.yaml", "lines": {"begin": 12}, "positions": {"begin": {"line": 12, "column": 7}}}
    assert len({i["fingerprint"] for i in before}) == len(before)
    (repo / "job.yaml").write_text("# a comment that moves every line\n\n" + JOB)
    after = _gitlab(repo)
    assert {i["fingerprint"]: i["check_name"] for i in after} == {i["fingerprint"]: i["check_name"] for i in before}
    assert next(i for i in after if i["fingerprint"] == kq101["fingerprint"])["location"]["lines"]["begin"] == 14


def test_gitlab_severities() -> None:
    from kqlint.model import Severity
    from kqlint.reporters.gitlab import SEVERITIES

    assert SEVERITIES == {Severity.ERROR: "major", Severity.WARNING: "minor", Severity.INFO: "info"}


# ------------------------------------------------------------------ stdin

def test_empty_stdin_is_an_error(tmp_path: Path) -> None:
    for data in (b"", b"  \n\n"):
        code, out, err = run_stdin(data, "check", "-", "--no-config", cwd=tmp_path)
        assert code == 2 and out == "" and "stdin (-) is empty" in err


def test_helm_source_comments_name_the_templates(tmp_path: Path) -> None:
    stream = ("---\n# Source: training/templates/priority.yaml\n" + PRIORITY +
              "---\n# Source: training/templates/job.yaml\n" + JOB).encode()
    code, out, _ = run_stdin(stream, "check", "-", "-f", "concise", "--no-config", cwd=tmp_path)
    assert code == 1
    assert any(line.startswith("training/templates/job.yaml:12:7: error KQ101 ") for line in out.splitlines())
    assert "<stdin>" not in out


def test_stdin_filename_names_the_stream(tmp_path: Path) -> None:
    stream = ("# Source: training/templates/job.yaml\n" + PRIORITY + "---\n" + JOB).encode()
    code, out, _ = run_stdin(stream, "check", "-", "-f", "concise", "--no-config",
                             "--stdin-filename", "deploy/rendered.yaml", cwd=tmp_path)
    assert code == 1 and "deploy/rendered.yaml:19:7: error KQ101 " in out and "training/" not in out


def test_sarif_from_stdin_lists_no_pseudo_artifact(tmp_path: Path) -> None:
    code, out, _ = run_stdin((PRIORITY + "---\n" + JOB).encode(), "check", "-", "-f", "sarif", "--no-config",
                             cwd=tmp_path)
    run = json.loads(out)["runs"][0]
    assert code == 1 and run["artifacts"] == [] and "%3Cstdin%3E" not in out
    assert all("stdin" in r["message"]["text"] for r in run["results"])


# ------------------------------------------------------------------ kustomize

@pytest.fixture
def overlay(tmp_path: Path) -> Path:
    if shutil.which("kubectl") is None and shutil.which("kustomize") is None:
        pytest.skip("--kustomize needs kubectl (or kustomize), which is not installed here")
    (tmp_path / ".git").mkdir()
    base, prod = tmp_path / "base", tmp_path / "overlays" / "prod"
    base.mkdir()
    prod.mkdir(parents=True)
    (base / "kustomization.yaml").write_text("resources: [job.yaml]\n")
    (base / "job.yaml").write_text(JOB.replace("  namespace: team-a\n", ""))
    (prod / "kustomization.yaml").write_text("namespace: team-a\nnamePrefix: prod-\nresources: [../../base, pc.yaml]\n")
    (prod / "pc.yaml").write_text(PRIORITY)
    return tmp_path


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_kustomize_maps_findings_back_to_source_files(overlay: Path) -> None:
    before = _tree(overlay)
    code, out, err = cli("check", "--kustomize", "overlays/prod", "-f", "concise", "--no-config", cwd=overlay)
    assert code == 1, err
    lines = out.splitlines()
    # the rendered Job (prod-train in team-a, class prod-high) reported on base/job.yaml, line of the source
    assert any(line.startswith("base/job.yaml:11:7: error KQ101 ") and "prod-high" in line for line in lines)
    assert any(line.startswith("base/job.yaml:6:32: error KQ203 ") for line in lines)
    assert _tree(overlay) == before  # nothing written into the user's tree


def test_kustomize_errors_are_clear(overlay: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    code, _, err = cli("check", "--kustomize", "base/job.yaml", cwd=overlay)
    assert code == 2 and "not a folder" in err
    (overlay / "overlays" / "prod" / "kustomization.yaml").write_text("resources: [missing.yaml]\n")
    code, _, err = cli("check", "--kustomize", "overlays/prod", cwd=overlay)
    assert code == 2 and "failed" in err and "Traceback" not in err
    monkeypatch.setenv("PATH", str(overlay / "no-bin"))
    code, _, err = cli("check", "--kustomize", "base", cwd=overlay)
    assert code == 2 and "neither kubectl nor kustomize is installed" in err


# ------------------------------------------------------------------ say something when nothing happens

def test_nothing_to_lint_is_a_warning(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    code, _, err = cli("check", "empty", "--no-config", cwd=tmp_path)
    assert code == 0 and "nothing to lint" in err
    (tmp_path / "a.yaml").write_text(PRIORITY)
    code, _, err = cli("check", ".", "--exclude", "*.yaml", "--no-config", cwd=tmp_path)
    assert code == 0 and "nothing to lint" in err


def test_explicit_path_removed_by_exclude_is_a_warning(repo: Path) -> None:
    code, _, err = cli("check", "job.yaml", "--exclude", "job.yaml", cwd=repo)
    assert "job.yaml is named on the command line but matches an exclude glob" in err


def test_missing_context_and_invalid_namespace_are_errors(repo: Path) -> None:
    code, _, err = cli("check", ".", "--context", "no/such/dir", cwd=repo)
    assert code == 2 and "--context path does not exist: no/such/dir" in err
    code, _, err = cli("check", ".", "--namespace", "Team_A", cwd=repo)
    assert code == 2 and "is not a Kubernetes namespace name" in err


def test_select_of_a_profile_rule_without_its_profile_warns(repo: Path) -> None:
    _, _, err = cli("check", ".", "--select", "KQ501", cwd=repo)
    assert "selects a rule of the kakaocloud profile, which runs only with --profile kakaocloud" in err
    _, _, err = cli("check", ".", "--select", "KQ501", "--profile", "kakaocloud", cwd=repo)
    assert "profile" not in err


def test_misspelt_suppression_directive_warns(repo: Path) -> None:
    misspelt = JOB.replace("priorityClassName: high", "priorityClassName: high  # kqlint: ignroe[KQ101]")
    (repo / "job.yaml").write_text(misspelt)
    code, out, err = cli("check", ".", "-f", "concise", cwd=repo)
    assert code == 1 and "KQ101" in out
    assert "job.yaml:12:32: unknown kqlint directive `# kqlint: ignroe[KQ101]` suppresses nothing; did you mean" in err


def test_json_summary_counts(repo: Path) -> None:
    (repo / "values.yaml").write_text("replicas: 3\n")
    suppressed = JOB.replace("priorityClassName: high", "priorityClassName: high  # kqlint: ignore[KQ101]")
    (repo / "job.yaml").write_text(suppressed)
    cli("check", ".", "--write-baseline", "base.yaml", "--select", "KQ203", cwd=repo)
    code, out, _ = cli("check", ".", "-f", "json", "--baseline", "base.yaml", cwd=repo)
    data = json.loads(out)
    summary = data["summary"]
    assert summary["findings"] == len(data["findings"])
    # skipped: values.yaml and the baseline file itself (no apiVersion/kind)
    assert (summary["suppressed"], summary["baselined"], summary["skipped"]) == (1, 1, 2)
    _, out, _ = cli("check", ".", "-f", "json", "--report-suppressed", cwd=repo)
    data = json.loads(out)
    assert data["summary"]["findings"] == len(data["findings"])


# ------------------------------------------------------------------ query, per-path settings

def test_query_shows_what_an_expression_returns(repo: Path) -> None:
    code, out, _ = cli("query", 'metadata.labels."kueue.x-k8s.io/queue-name"', ".", cwd=repo)
    assert code == 0
    assert 'job.yaml:1:1: Job team-a/train\n    "q"  (true)' in out
    assert "pc.yaml:1:1: PriorityClass high\n    null  (false)" in out
    code, out, _ = cli("query", "spec.parallelism", "job.yaml", "-f", "json", cwd=repo)
    assert json.loads(out)[0]["value"] == 2
    code, _, err = cli("query", "a[", ".", cwd=repo)
    assert code == 2 and "invalid JMESPath expression" in err


def test_query_rule_explains_why_a_custom_rule_fires_or_not(repo: Path) -> None:
    (repo / ".kqlint.yaml").write_text(
        "custom-rules:\n  - code: X001\n    slug: jobs-need-team\n    severity: warning\n    message: m\n"
        "    match: {kinds: [Job]}\n    when: \"spec.parallelism > `1`\"\n    assert: metadata.labels.team\n")
    code, out, _ = cli("query", "--rule", "X001", ".", cwd=repo)
    assert code == 0
    assert "job.yaml:1:1: Job team-a/train\n    when:   true  (true)\n    assert: null  (false)\n    -> FIRES" in out
    assert "pc.yaml:1:1: PriorityClass high\n    skipped: kind/apiVersion not matched" in out
    code, _, err = cli("query", "--rule", "X009", ".", cwd=repo)
    assert code == 2 and "no custom rule 'X009'" in err


def test_per_file_ignores_and_severity(repo: Path) -> None:
    (repo / "dev").mkdir()
    (repo / "dev" / "job.yaml").write_text(JOB.replace("name: train", "name: dev-train"))
    (repo / ".kqlint.yaml").write_text('per-file-ignores:\n  "dev/**": [KQ203]\n'
                                       'per-file-severity:\n  "dev/*": {pod-preemption-enabled: info}\n')
    _, out, _ = cli("check", ".", "-f", "concise", cwd=repo)
    assert "job.yaml:7:32: error KQ203 " in out and "dev/job.yaml:7:32" not in out
    assert "dev/job.yaml:12:7: info KQ101 " in out and "\njob.yaml:12:7: error KQ101 " in "\n" + out
    (repo / ".kqlint.yaml").write_text('per-file-ignores:\n  "dev/**": [KQ9]\n')
    code, _, err = cli("check", ".", cwd=repo)
    assert code == 2 and "per-file-ignores.dev/**: 'KQ9' matches no rule" in err


# ------------------------------------------------------------------ rules, explain, completion

def test_rules_show_the_effective_configuration(repo: Path) -> None:
    (repo / ".kqlint.yaml").write_text("severity: {KQ201: info}\nignore: [KQ401]\n")
    code, out, _ = cli("rules", "-f", "json", cwd=repo)
    rows = {row["code"]: row for row in json.loads(out)}
    assert rows["KQ201"]["effective"] == {"severity": "info", "enabled": True}
    assert rows["KQ401"]["effective"] == {"severity": "warning", "enabled": False}
    _, out, _ = cli("rules", cwd=repo)
    assert re.search(r"KQ201 +missing-within-cluster-queue +info \(default warning\) +yes", out)
    assert "effective" not in cli("rules", "-f", "json", "--no-config", cwd=repo)[1]


def test_rules_fit_a_narrow_terminal() -> None:
    from kqlint.reporters.explain import rules_table

    text = rules_table(width=80)
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "KQ101" in text and "PriorityClass" in text


def test_explain_plain_when_piped_rendered_on_a_terminal_and_did_you_mean(tmp_path: Path) -> None:
    _, plain, _ = cli("explain", "KQ101", "--no-config", cwd=tmp_path)
    assert plain.startswith("KQ101 pod-preemption-enabled (default severity") and "\n## " in plain
    _, rendered, _ = cli("explain", "KQ101", "--no-config", "--color", "always", cwd=tmp_path)
    assert "\x1b[" in rendered and "\n## " not in rendered
    code, _, err = cli("explain", "pod-preemtion-enabled", "--no-config", cwd=tmp_path)
    assert code == 2 and "did you mean KQ101 pod-preemption-enabled?" in err


def test_shell_completion_can_be_shown(tmp_path: Path) -> None:
    code, out, _ = cli("--show-completion", "bash", cwd=tmp_path)
    assert code == 0 and "_kqlint_completion" in out
