"""CI-grade report formats on the example repository: SARIF 2.1.0, JUnit XML, GitHub
workflow commands, JSON and text, pinned by golden files under tests/fixtures/golden/examples/
(`pytest --update-golden` rewrites them), plus the properties CI relies on: schema validity,
real regions, stable fingerprints, suppressions with justifications, determinism, repeated
--format/--output pairs and lazy imports."""
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
from ci_helpers import EXAMPLES, check_golden, cli, parse_junit, validate_sarif
from kqlint.engine.registry import load_rules
from kqlint.model import Finding, Location, ObjectRef, Report, Severity, Summary
from kqlint.reporters import render
from kqlint.reporters.explain import explain_text
from kqlint.reporters.sarif import sarif_log
from kqlint.reporters.source import token_end

GOLDEN_SUFFIX = {"text": "txt", "json": "json", "sarif": "sarif.json", "github": "txt", "junit": "xml"}
JOB = ObjectRef("batch/v1", "Job", "research", "train")


def _example_report(fmt: str, *extra: str) -> tuple[int, str, str]:
    return cli("check", ".", "--format", fmt, *extra, cwd=EXAMPLES)


def _golden_sarif(text: str) -> str:
    """The SARIF golden keeps the rule help out (it is the `kqlint explain` text of every
    rule, tested against explain below): rule docs can change without touching this file."""
    data = json.loads(text)
    for rule in data["runs"][0]["tool"]["driver"]["rules"]:
        rule["help"] = {"text": f"<kqlint explain {rule['id']}>", "markdown": f"<kqlint explain {rule['id']}>"}
        rule["fullDescription"] = {"text": f"<{rule['id']}: What it catches>"}
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


@pytest.mark.parametrize("fmt", sorted(GOLDEN_SUFFIX))
def test_examples_golden(fmt: str, update_golden: bool) -> None:
    code, out, err = _example_report(fmt)
    assert code == 1 and err == ""
    if fmt == "sarif":
        validate_sarif(out)
        out = _golden_sarif(out)
    if fmt == "junit":
        parse_junit(out)
    check_golden(f"examples/check.{fmt}.{GOLDEN_SUFFIX[fmt]}".replace(".sarif.sarif", ".sarif"), out, update_golden)


@pytest.mark.parametrize("fmt", ["sarif", "junit"])
def test_new_formats_are_byte_identical_across_runs(fmt: str) -> None:
    assert _example_report(fmt) == _example_report(fmt)


# ------------------------------------------------------------------ SARIF

def test_examples_sarif_validates_against_the_official_schema() -> None:
    data = validate_sarif(_example_report("sarif")[1])
    assert data["version"] == "2.1.0" and data["$schema"].endswith("sarif-schema-2.1.0.json")


def test_the_vendored_sarif_schema_rejects_a_result_without_a_message() -> None:
    data = json.loads(_example_report("sarif")[1])
    del data["runs"][0]["results"][0]["message"]
    with pytest.raises(AssertionError, match="'message' is a required property"):
        validate_sarif(json.dumps(data))


def test_sarif_rules_carry_every_rule_with_the_explain_text() -> None:
    data = json.loads(_example_report("sarif")[1])
    rules = {rule["id"]: rule for rule in data["runs"][0]["tool"]["driver"]["rules"]}
    registry = load_rules()
    assert sorted(rules) == [rule.code for rule in registry]
    for rule in registry:
        descriptor = rules[rule.code]
        assert descriptor["name"] == rule.slug
        assert descriptor["shortDescription"]["text"] == rule.meta.summary
        assert descriptor["help"]["text"] == explain_text(rule.code)
        assert descriptor["fullDescription"]["text"] and "##" not in descriptor["fullDescription"]["text"]
        level = {"error": "error", "warning": "warning", "info": "note"}[rule.meta.severity.label]
        assert descriptor["defaultConfiguration"]["level"] == level
    assert rules["KQ000"]["defaultConfiguration"]["enabled"] is True  # comments one line off their finding
    assert rules["KQ501"]["defaultConfiguration"]["enabled"] is False  # profile rules are opt-in


def test_sarif_results_have_real_regions_and_relative_uris() -> None:
    code, out, _ = _example_report("sarif")  # run in examples/: URIs relative to the project root
    run = json.loads(out)["runs"][0]
    _, json_out, _ = _example_report("json")
    expected = {("examples/" + f["file"], f["line"], f["column"], f["code"])
                for f in json.loads(json_out)["findings"]}
    found = set()
    for result in run["results"]:
        physical = result["locations"][0]["physicalLocation"]
        artifact, region = physical["artifactLocation"], physical["region"]
        assert artifact["uriBaseId"] == "SRCROOT" and not artifact["uri"].startswith("/")
        assert run["artifacts"][artifact["index"]]["location"]["uri"] == artifact["uri"]
        found.add((artifact["uri"], region["startLine"], region["startColumn"], result["ruleId"]))
        line = (EXAMPLES.parent / artifact["uri"]).read_text(encoding="utf-8").splitlines()[region["startLine"] - 1]
        if "endColumn" in region:  # the end is where the token at the start ends
            token = line[region["startColumn"] - 1:region["endColumn"] - 1]
            assert token.strip() == token and token, (line, region)
    assert found == expected
    kq102 = next(r for r in run["results"] if r["ruleId"] == "KQ102")
    related = kq102["relatedLocations"][0]
    assert related["id"] == 1 and related["message"]["text"]
    assert related["physicalLocation"]["artifactLocation"]["uri"] == "examples/platform/priority/priority-classes.yaml"
    assert kq102["locations"][0]["logicalLocations"][0]["fullyQualifiedName"] == "Job/vision/embed-precompute"


@pytest.mark.parametrize("line,column,end", [
    ("  priorityClassName: gpu-gang   # pin", 3, 20),
    ("  priorityClassName: gpu-gang   # pin", 22, 30),
    ('    name: "quoted \\" value"  # c', 11, 28),
    ("    - name: worker", 5, 6),
    ("    value: 'it''s'", 12, 19),
    ("  flow: [a, b]", 10, 11),
    ("# kqlint: ignore[KQ101]   ", 1, 24),
    ("  key:", 3, 6),
    ("   ", 2, None),
    ("x", 5, None),
])
def test_token_end(line: str, column: int, end: int | None) -> None:
    assert token_end(line, column) == end


def _moved(tmp_path: Path, prefix: str) -> dict[str, Any]:
    tree = tmp_path / prefix
    shutil.copytree(EXAMPLES, tree)
    path = tree / "tenants" / "vision" / "training" / "embed-precompute.yaml"
    path.write_text("# a comment\n# and another, moving every finding down\n" + path.read_text())
    return json.loads(cli("check", ".", "-f", "sarif", cwd=tree)[1])


def test_sarif_fingerprints_survive_edits_that_move_lines(tmp_path: Path) -> None:
    before = json.loads(_example_report("sarif")[1])["runs"][0]["results"]
    after = _moved(tmp_path, "moved")["runs"][0]["results"]
    prints = lambda results: {(r["ruleId"], r["partialFingerprints"]["kqlint/v1"]) for r in results}  # noqa: E731
    assert prints(before) == prints(after)
    lines = lambda results: {r["locations"][0]["physicalLocation"]["region"]["startLine"]  # noqa: E731
                             for r in results if r["ruleId"] == "KQ102"}
    assert lines(after) == {line + 2 for line in lines(before)}
    assert len({r["partialFingerprints"]["kqlint/v1"] for r in before}) == len(before)


def test_sarif_fingerprint_ignores_line_but_not_object_or_path() -> None:
    def fingerprint(finding: Finding) -> str:
        report = Report((finding,), files=(finding.location.file,))
        return sarif_log(report, rules=[])["runs"][0]["results"][0]["partialFingerprints"]["kqlint/v1"]

    base = Finding("KQ101", "pod-preemption-enabled", Severity.ERROR, "m",
                   Location("a.yaml", 10, 9, ("spec", "template"), JOB), JOB)
    moved = Finding("KQ101", "pod-preemption-enabled", Severity.ERROR, "other words",
                    Location("b.yaml", 99, 1, ("spec", "template"), JOB), JOB)
    other_path = Finding("KQ101", "pod-preemption-enabled", Severity.ERROR, "m",
                         Location("a.yaml", 10, 9, ("spec", "x"), JOB), JOB)
    other_obj = Finding("KQ101", "pod-preemption-enabled", Severity.ERROR, "m",
                        Location("a.yaml", 10, 9, ("spec", "template"), JOB),
                        ObjectRef("batch/v1", "Job", "x", "train"))
    assert fingerprint(base) == fingerprint(moved)
    assert fingerprint(base) != fingerprint(other_path) != fingerprint(other_obj)


def _suppression_tree(root: Path) -> Path:
    (root / "jobs.yaml").write_text(
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: train\n  namespace: research\n"
        "  annotations:\n    ignore.kqlint.io/KQ205: \"installed by the platform chart\"\n"
        "spec:\n  template:\n    spec:\n      priorityClassName: platform-batch\n"
        "      restartPolicy: Never\n      containers:\n        - name: main\n          image: busybox\n")
    return root


def test_suppressed_findings_with_report_suppressed(in_tmp_cwd: Path) -> None:
    tree = _suppression_tree(in_tmp_cwd)
    code, out, _ = cli("check", ".", "-f", "sarif", "--select", "KQ205", cwd=tree)
    assert code == 0 and json.loads(out)["runs"][0]["results"] == []
    code, out, _ = cli("check", ".", "-f", "sarif", "--select", "KQ205", "--report-suppressed", cwd=tree)
    [result] = validate_sarif(out)["runs"][0]["results"]
    assert code == 0 and result["ruleId"] == "KQ205"
    assert result["suppressions"] == [{"kind": "inSource", "justification": "installed by the platform chart"}]
    code, out, _ = cli("check", ".", "-f", "json", "--select", "KQ205", "--report-suppressed", cwd=tree)
    [finding] = json.loads(out)["findings"]
    assert finding["suppression"] == {"justification": "installed by the platform chart"}
    code, out, _ = cli("check", ".", "-f", "json", "--select", "KQ205", "--no-inline-suppressions", cwd=tree)
    assert code == 1 and [f["code"] for f in json.loads(out)["findings"]] == ["KQ205"]


def test_sarif_edge_cases_validate() -> None:
    outside = Location("/elsewhere/x y.yaml", 2, 3, (), JOB, "related, outside the cwd")
    findings = (
        Finding("KQ001", "invalid-yaml", Severity.ERROR, "bad", Location("<stdin>", 1, 1)),
        Finding("X001", "custom-thing", Severity.INFO, "a plugin rule nobody passed in",
                Location("dir/ä file.yaml", 4, 2, ("metadata",), JOB), JOB, (outside,)),
    )
    report = Report(findings, Summary(files=2), ("internal error in rule KQ999",), files=("<stdin>",))
    data = validate_sarif(render("sarif", report))
    run = data["runs"][0]
    assert run["invocations"][0]["executionSuccessful"] is False
    uris = [a["location"]["uri"] for a in run["artifacts"]]
    assert "file:///elsewhere/x%20y.yaml" in uris and "dir/%C3%A4%20file.yaml" in uris
    # issue 13: <stdin> is no file: not an artifact, no physical location, the message says where it came from
    assert not any("%3C" in uri for uri in uris)
    stdin_result = next(r for r in run["results"] if r["ruleId"] == "KQ001")
    assert "physicalLocation" not in stdin_result["locations"][0] and "stdin" in stdin_result["message"]["text"]
    assert any(r["id"] == "X001" and r["name"] == "custom-thing" for r in run["tool"]["driver"]["rules"])


def test_sarif_names_profile_objects_instead_of_listing_them_as_files() -> None:
    declared = Location("<profile kakaocloud>", 1, 1, (), JOB, "ClusterQueue default")
    finding = Finding("KQ101", "pod-preemption-enabled", Severity.ERROR, "m",
                      Location("a.yaml", 3, 1, (), JOB), JOB, (declared,))
    data = validate_sarif(render("sarif", Report((finding,), Summary(files=1), files=("a.yaml",))))
    run = data["runs"][0]
    assert [a["location"]["uri"] for a in run["artifacts"]] == ["a.yaml"]
    related = run["results"][0]["relatedLocations"][0]
    assert "physicalLocation" not in related
    assert related["message"]["text"] == "ClusterQueue default (declared by the kakaocloud profile)"


# ------------------------------------------------------------------ JUnit

def test_junit_one_case_per_file_failures_carry_code_position_message() -> None:
    code, out, _ = _example_report("junit")
    root = parse_junit(out)
    cases = {case.get("name"): case for case in root.iter("testcase")}
    _, json_out, _ = _example_report("json")
    report = json.loads(json_out)
    assert len(cases) == report["summary"]["files"]
    failure = cases["tenants/vision/training/embed-precompute.yaml"].find("failure")
    assert failure is not None and failure.get("type") == "KQ102"
    assert failure.get("message", "").startswith("tenants/vision/training/embed-precompute.yaml:15:5 KQ102 ")
    assert "15:5: error KQ102 global-default-leak:" in (failure.text or "")
    assert "related: platform/priority/priority-classes.yaml:12:1" in (failure.text or "")
    assert cases["serving/glm-chat.yaml"].find("failure") is None  # a clean file passes
    chart = cases["platform/charts/dcgm-exporter/Chart.yaml"]  # info: below --fail-on
    assert chart.find("failure") is None and "KQ006" in (chart.findtext("system-out") or "")


def test_junit_follows_fail_on() -> None:
    root = parse_junit(_example_report("junit", "--fail-on", "error")[1])
    failed = {c.get("name") for c in root.iter("testcase") if c.find("failure") is not None}
    assert "tenants/vision/training/detr-pretrain.yaml" not in failed  # KQ401 is a warning
    assert "tenants/vision/training/embed-precompute.yaml" in failed
    root = parse_junit(_example_report("junit", "--fail-on", "never")[1])
    assert root.get("failures") == "0"


def test_junit_escapes_and_strips_what_xml_cannot_carry() -> None:
    message = 'a <b> & "c"\x01\x1b[31m\nline two\ud800'
    finding = Finding("KQ101", "pod-preemption-enabled", Severity.ERROR, message,
                      Location("x&y <z>.yaml", 1, 1), JOB)
    report = Report((finding,), files=("ok.yaml",), internal_errors=("rule crashed <here>",))
    root = parse_junit(render("junit", report))
    failure = next(root.iter("failure"))
    assert 'a <b> & "c"' in (failure.text or "") and "line two" in (failure.text or "")
    assert "\x01" not in (failure.text or "")
    assert [c.get("name") for c in root.iter("testcase")] == ["ok.yaml", "x&y <z>.yaml", "kqlint internal errors"]
    assert root.get("errors") == "1"


# ------------------------------------------------------------------ GitHub, repeated formats

def test_github_format_is_picked_under_github_actions(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    code, out, _ = cli("check", ".", cwd=EXAMPLES)
    assert code == 1 and out == _example_report("github")[1]
    assert all(re.match(r"^::(error|warning|notice) file=[^,]+,line=\d+,col=\d+,title=KQ\d{3}::", line)
               for line in out.splitlines())
    code, out, _ = cli("check", ".", "-f", "json", cwd=EXAMPLES)  # an explicit --format wins
    assert json.loads(out)["findings"]


def test_github_escaping_of_properties_and_data(in_tmp_cwd: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = in_tmp_cwd / "a,b:c%d"
    folder.mkdir()
    (folder / "bad.yaml").write_text("a: [\n")
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    code, out, _ = cli("check", ".", "--select", "KQ001", cwd=in_tmp_cwd)
    assert code == 1
    [line] = out.splitlines()
    assert line.startswith("::error file=a%2Cb%3Ac%25d/bad.yaml,line=1,col=5,title=KQ001::")  # the end of the last line


def test_repeated_format_output_pairs_in_one_run(in_tmp_cwd: Path) -> None:
    sarif, junit, data = in_tmp_cwd / "kqlint.sarif", in_tmp_cwd / "junit.xml", in_tmp_cwd / "r.json"
    code, out, err = cli("check", ".", "-f", "sarif", "-o", str(sarif), "-f", "junit", "-o", str(junit),
                         "-f", "json", "-o", str(data), "-f", "text", cwd=EXAMPLES)
    assert code == 1 and err == ""
    assert out == _example_report("text")[1]
    assert sarif.read_text() == _example_report("sarif")[1]
    assert junit.read_text() == _example_report("junit")[1]
    assert data.read_text() == _example_report("json")[1]
    code, _, err = cli("check", ".", "-f", "sarif", "-f", "junit", cwd=EXAMPLES)
    assert code == 2 and "only one report can go to stdout" in err
    code, _, err = cli("check", ".", "-f", "xml", cwd=EXAMPLES)
    assert code == 2 and "sarif" in err and "junit" in err


def test_machine_formats_import_their_machinery_lazily(in_tmp_cwd: Path) -> None:
    (in_tmp_cwd / "bad.yaml").write_text("a: [\n")
    probe = ("import sys\nfrom kqlint.cli import main\ncode = main(sys.argv[1:])\n"
             "heavy = sorted(m for m in ('jsonschema', 'xml.etree.ElementTree', 'kqlint.reporters.sarif',"
             " 'kqlint.reporters.graph', 'kqlint.engine.baseline', 'rich.progress') if m in sys.modules)\n"
             "print(code, heavy, file=sys.stderr)\n")
    def heavy(*args: str) -> str:
        result = subprocess.run([sys.executable, "-c", probe, *args], cwd=in_tmp_cwd, capture_output=True,
                                text=True, timeout=120, stdin=subprocess.DEVNULL, check=False,
                                env={**os.environ, "NO_COLOR": "1"})
        return result.stderr.strip().splitlines()[-1]
    assert heavy("check", ".", "-f", "json") == "1 []"
    assert heavy("check", ".", "-f", "junit") == "1 ['xml.etree.ElementTree']"
    assert heavy("check", ".", "-f", "sarif") == "1 ['kqlint.engine.baseline', 'kqlint.reporters.sarif']"
