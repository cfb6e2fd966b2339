"""`--report-unused-suppressions` (KQ000) in full runs: used suppressions stay silent,
stale and mistyped ones are reported, suppressions of rules that did not run are not
judged, and the audit composes with --select, --ignore, --no-inline-suppressions, severity
overrides, JSON and SARIF. (Single-rule cases live in tests/fixtures/rules/KQ000/.)"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from ci_helpers import cli, validate_sarif

PRIORITY = """\
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: gpu-gang
value: 100000
preemptionPolicy: Never
"""
JOBS = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: used
  namespace: research
  annotations:
    ignore.kqlint.io/KQ205: "installed by the platform chart"
spec:
  template:
    spec:
      priorityClassName: platform-batch
      restartPolicy: Never
      containers:
        - name: main
          image: busybox
---
apiVersion: batch/v1
kind: Job
metadata:
  name: stale
  namespace: research
  annotations:
    kqlint.io/ignore: "unknown-priority-class"
spec:
  template:
    spec:
      priorityClassName: gpu-gang   # kqlint: ignore[KQ205]
      restartPolicy: Never
      containers:
        - name: main
          image: busybox
"""


@pytest.fixture
def repo(in_tmp_cwd: Path) -> Path:
    (in_tmp_cwd / "priority.yaml").write_text(PRIORITY)
    (in_tmp_cwd / "jobs.yaml").write_text(JOBS)
    return in_tmp_cwd


def _codes(repo: Path, *args: str) -> tuple[int, list[tuple[str, int, int]], dict[str, object]]:
    code, out, err = cli("check", ".", "-f", "json", *args, cwd=repo)
    assert "Traceback" not in err, err
    data = json.loads(out)
    return code, [(f["code"], f["line"], f["column"]) for f in data["findings"]], data


def test_off_by_default(repo: Path) -> None:
    assert _codes(repo)[:2] == (0, [])


def test_reports_stale_suppressions_and_keeps_used_ones_silent(repo: Path) -> None:
    code, found, data = _codes(repo, "--report-unused-suppressions")
    assert found == [("KQ000", 23, 5), ("KQ000", 27, 37)]
    assert code == 0  # info findings stay below the default --fail-on warning
    messages = [f["message"] for f in data["findings"]]  # type: ignore[union-attr]
    assert messages[0].startswith('annotation `kqlint.io/ignore: "unknown-priority-class"` silenced nothing: '
                                  "Job research/stale has no unknown-priority-class finding")
    assert messages[1].startswith("`# kqlint: ignore[KQ205]` silenced nothing: there is no KQ205 finding on this line")
    objects = [f["object"]["name"] for f in data["findings"]]  # type: ignore[index, union-attr]
    assert objects == ["stale", "stale"]
    assert _codes(repo, "--report-unused-suppressions", "--fail-on", "info")[0] == 1


def test_rules_that_did_not_run_are_not_judged(repo: Path) -> None:
    assert _codes(repo, "--report-unused-suppressions", "--select", "KQ1")[:2] == (0, [])
    assert _codes(repo, "--report-unused-suppressions", "--ignore", "KQ205")[1] == []
    # --select KQ205 runs the rule: the used suppression stays silent, the stale ones are reported
    assert [c for c, _, _ in _codes(repo, "--report-unused-suppressions", "--select", "KQ205")[1]] == ["KQ000"] * 2


def test_ignore_kq000_wins_and_audits_need_inline_suppressions(repo: Path) -> None:
    assert _codes(repo, "--report-unused-suppressions", "--ignore", "KQ000")[1] == []
    code, found, _ = _codes(repo, "--report-unused-suppressions", "--no-inline-suppressions")
    assert code == 1 and [c for c, _, _ in found] == ["KQ205"]


def test_severity_override_and_explicit_silencing(repo: Path) -> None:
    (repo / ".kqlint.yaml").write_text("severity: {KQ000: warning}\n")
    code, found, data = _codes(repo, "--report-unused-suppressions")
    assert code == 1 and {f["severity"] for f in data["findings"]} == {"warning"}  # type: ignore[union-attr]
    jobs = repo / "jobs.yaml"
    jobs.write_text(JOBS.replace("      priorityClassName: gpu-gang   # kqlint: ignore[KQ205]",
                                 "      # kqlint: ignore[KQ000]\n"
                                 "      priorityClassName: gpu-gang   # kqlint: ignore[KQ205]"))
    code, found, data = _codes(repo, "--report-unused-suppressions", "--report-suppressed")
    assert [(c, line) for c, line, _ in found] == [("KQ205", 11), ("KQ000", 23), ("KQ000", 28)]
    # the count matches the list (issue 13); suppressed ones are counted apart as well
    assert data["summary"]["findings"] == len(data["findings"]) == 3  # type: ignore[index,arg-type]
    assert data["summary"]["suppressed"] == 2  # type: ignore[index]
    hidden = [(f["code"], f["line"]) for f in data["findings"] if "suppression" in f]  # type: ignore[union-attr]
    assert hidden == [("KQ205", 11), ("KQ000", 28)]


def test_unused_suppressions_in_sarif(repo: Path) -> None:
    code, out, _ = cli("check", ".", "-f", "sarif", "--report-unused-suppressions", cwd=repo)
    results = validate_sarif(out)["runs"][0]["results"]
    assert [(r["ruleId"], r["level"]) for r in results] == [("KQ000", "note"), ("KQ000", "note")]
    region = results[1]["locations"][0]["physicalLocation"]["region"]
    assert (region["startColumn"], region["endColumn"]) == (37, 60)  # the whole comment


# ------------------------------------------------------------------ a comment one line off its finding

KQ000_CASES = Path(__file__).parent / "fixtures" / "rules" / "KQ000"


@pytest.fixture
def alone(in_tmp_cwd: Path) -> Path:
    """A project without the module's stale suppressions."""
    return in_tmp_cwd


def _case(folder: Path, name: str) -> None:
    (folder / "job.yaml").write_text((KQ000_CASES / name / "job.yaml").read_text())


def test_a_comment_one_line_off_its_finding_is_a_warning_by_default(alone: Path) -> None:
    _case(alone, "bad-near-miss")
    code, found, data = _codes(alone)
    assert code == 1 and found == [("KQ000", 17, 13), ("KQ403", 21, 15)]
    near = data["findings"][0]  # type: ignore[index]
    assert near["severity"] == "warning"
    assert near["message"] == ("`# kqlint: ignore[KQ403]` silenced nothing: a comment covers its own line and the "
                               "next, and the KQ403 finding in the same block is on line 21, so it is still reported")
    assert [(r["file"], r["line"], r["column"], r["message"]) for r in near["related"]] == [
        ("job.yaml", 21, 15, "the KQ403 finding it probably meant")]
    assert "`kqlint check --add-noqa`" in near["remedy"]
    assert _codes(alone, "--ignore", "KQ000")[1] == [("KQ403", 21, 15)]
    assert _codes(alone, "--select", "KQ4")[1] == [("KQ403", 21, 15)]  # KQ000 runs only when selected
    (alone / ".kqlint.yaml").write_text("severity: {KQ000: info}\n")
    assert _codes(alone)[2]["findings"][0]["severity"] == "info"  # type: ignore[index]


def test_add_noqa_puts_the_comment_where_the_finding_is(alone: Path) -> None:
    _case(alone, "bad-near-miss")
    code, _, err = cli("check", ".", "--add-noqa", cwd=alone)
    assert code == 0 and "job.yaml:17: no comment added: the suppression here silenced nothing (KQ000)" in err
    assert "nvidia.com/gpu: 2  # expect: KQ403:15  # related: KQ000:15  # kqlint: ignore[KQ403]" in \
        (alone / "job.yaml").read_text()
    assert _codes(alone, "--report-unused-suppressions")[1] == [("KQ000", 17, 13)]  # now plainly unused: remove it


def test_an_unused_comment_outside_the_block_stays_a_plain_opt_in_kq000(alone: Path) -> None:
    _case(alone, "bad-unused-outside-the-block")
    assert _codes(alone)[1] == [("KQ403", 23, 15)]
    for args in (("--report-unused-suppressions",), ("--select", "KQ403,unused-suppression")):
        code, found, data = _codes(alone, *args)
        assert found == [("KQ000", 15, 11), ("KQ403", 23, 15)]
        plain = data["findings"][0]  # type: ignore[index]
        assert plain["severity"] == "info" and plain["related"] == []
        assert "there is no KQ403 finding on this line or the line below it" in plain["message"]
    (alone / ".kqlint.yaml").write_text("rules: {KQ000: {report-all: true}}\n")
    assert _codes(alone)[1] == [("KQ000", 15, 11), ("KQ403", 23, 15)]


def test_a_comment_where_its_finding_is_stays_silent(alone: Path) -> None:
    _case(alone, "good-placed-where-the-finding-is")
    assert _codes(alone, "--report-unused-suppressions")[:2] == (0, [])


def test_a_blanket_comment_says_nothing_of_what_it_meant(alone: Path) -> None:
    _case(alone, "bad-near-miss")
    job = alone / "job.yaml"
    job.write_text(job.read_text().replace("# kqlint: ignore[KQ403]", "# kqlint: ignore"))
    assert _codes(alone)[1] == [("KQ403", 21, 15)]


def test_the_near_miss_audit_is_linear_in_the_objects_of_a_file(alone: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each object's start is worked out once per run, not once per comment (3000 misplaced
    comments in one List took 86 s of CPU when every comment scanned every object)."""
    import kqlint.rules.engine.kq000_unused_suppression as kq000
    from kqlint import lint
    from kqlint.config import Config
    from kqlint.domain.objects import K8sObject

    job = (KQ000_CASES / "bad-near-miss" / "job.yaml").read_text().split("apiVersion:", 1)[1]
    item = "- apiVersion:" + job.replace("\n", "\n  ").rstrip(" ")
    (alone / "list.yaml").write_text("apiVersion: v1\nkind: List\nitems:\n" + item * 300)
    counting, calls = [False], [0]
    locate, hook = K8sObject.location, kq000.check_suppressions

    def location(self: K8sObject) -> object:
        calls[0] += counting[0]
        return locate(self)

    def audited(*args: object) -> object:
        counting[0] = True
        try:
            yield from hook(*args)  # type: ignore[arg-type]
        finally:
            counting[0] = False

    monkeypatch.setattr(K8sObject, "location", location)
    monkeypatch.setattr(kq000, "check_suppressions", audited)
    report = lint(["list.yaml"], Config())
    assert [f.code for f in report.findings].count("KQ000") == 300
    assert calls[0] <= 300
