"""Baselines (cli.md `--baseline` / `--write-baseline`): keyed on code + object + field path,
never line numbers; stable, sorted, reviewable YAML or JSON; round trip on the examples."""
from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest
from ci_helpers import EXAMPLES, check_golden, cli
from kqlint.engine import baseline
from kqlint.model import Finding, Location, ObjectRef, Report, Severity

JOB = ObjectRef("batch/v1", "Job", "research", "train")
PC = ObjectRef("scheduling.k8s.io/v1", "PriorityClass", None, "high")
NEW_TRAP = """\
---
apiVersion: batch/v1
kind: Job
metadata:
  name: late-addition
  namespace: vision
  labels:
    kueue.x-k8s.io/queue-name: training
    kueue.x-k8s.io/priority-class: low
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: main
          image: busybox
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    shutil.copytree(EXAMPLES, tmp_path / "repo")
    return tmp_path / "repo"


def _findings(repo: Path, *args: str) -> tuple[int, list[dict[str, object]]]:
    code, out, _ = cli("check", ".", "-f", "json", *args, cwd=repo)
    return code, json.loads(out)["findings"]


def test_round_trip_on_the_examples(repo: Path, update_golden: bool) -> None:
    code, before = _findings(repo)
    assert code == 1 and before
    code, out, err = cli("check", ".", "-f", "json", "--write-baseline", "kqlint-baseline.yaml", cwd=repo)
    assert code == 0 and json.loads(out)["findings"] == []
    assert f"wrote {len(before)} finding(s) to the baseline kqlint-baseline.yaml" in err
    written = (repo / "kqlint-baseline.yaml").read_text()
    check_golden("examples/baseline.yaml", written, update_golden)
    assert _findings(repo, "--baseline", "kqlint-baseline.yaml") == (0, [])

    # an edit that moves findings (lines inserted above, the object moved to another file)
    job = repo / "tenants" / "vision" / "training" / "embed-precompute.yaml"
    text = job.read_text()
    job.unlink()
    (repo / "tenants" / "vision" / "moved.yaml").write_text("# moved here\n\n\n" + text)
    conf = repo / "platform" / "kueue" / "cluster-queues.yaml"
    conf.write_text("# a new header comment\n" * 5 + conf.read_text())
    code, moved = _findings(repo)
    assert code == 1 and {(f["code"], f["line"]) for f in moved} != {(f["code"], f["line"]) for f in before}
    assert _findings(repo, "--baseline", "kqlint-baseline.yaml") == (0, [])

    # a new trap: exactly it is reported (its global-default leak, and its pods requesting
    # nothing while the ClusterQueue's flavors place pods)
    (repo / "tenants" / "vision" / "training" / "late.yaml").write_text(NEW_TRAP)
    code, new = _findings(repo, "--baseline", "kqlint-baseline.yaml")
    assert code == 1 and sorted((f["file"], f["code"]) for f in new) == [
        ("tenants/vision/training/late.yaml", "KQ102"), ("tenants/vision/training/late.yaml", "KQ215")]


def test_json_baseline_and_counts(repo: Path) -> None:
    code, _, _ = cli("check", ".", "-q", "--write-baseline", "base.json", cwd=repo)
    assert code == 0
    data = json.loads((repo / "base.json").read_text())
    assert data["version"] == 1 and data["findings"] == sorted(
        data["findings"], key=lambda e: (e["code"], e["object"], e["path"], e["file"] if not e["object"] else ""))
    assert _findings(repo, "--baseline", "base.json") == (0, [])


def _finding(path: tuple[str, ...], line: int, obj: ObjectRef | None = JOB, file: str = "a.yaml",
             code: str = "KQ101") -> Finding:
    return Finding(code, "slug", Severity.ERROR, f"line {line}", Location(file, line, 1, path, obj), obj)


def test_keys_ignore_lines_and_messages_but_count_duplicates() -> None:
    template = ("spec", "template", "spec", "priorityClassName")
    accepted = Counter({baseline.finding_key(_finding(template, 3)): 1})
    report = Report((_finding(template, 40), _finding(template, 41), _finding(("spec",), 3)))
    kept, absorbed = baseline.apply(report, accepted)
    assert absorbed == 1 and [f.location.line for f in kept.findings] == [41, 3]
    file_level = _finding((), 1, None, "broken.yaml", "KQ001")
    assert baseline.finding_key(file_level) == baseline.Key("KQ001", "", "", "broken.yaml")
    assert baseline.finding_key(_finding(("value",), 2, PC)).object == "PriorityClass/high"


def test_written_yaml_is_sorted_counted_and_reads_back(tmp_path: Path) -> None:
    template = ("spec", "template")
    findings = [_finding(template, 9), _finding(template, 2), _finding((), 1, None, "z: weird \"file\".yaml", "KQ001"),
                _finding(("value",), 5, PC, "pc.yaml", "KQ109")]
    path = tmp_path / "b.yaml"
    assert baseline.write(str(path), findings) == 4
    text = path.read_text()
    assert text.startswith("# kqlint baseline")
    assert text.index('code: "KQ001"') < text.index('code: "KQ101"') < text.index('code: "KQ109"')
    assert "count: 2" in text and "line" not in text.split("findings:")[1]
    assert baseline.load(str(path)) == Counter(baseline.finding_key(f) for f in findings)
    assert baseline.dumps(findings) == baseline.dumps(list(reversed(findings)))
    assert baseline.dumps([]).endswith("findings: []\n")


@pytest.mark.parametrize("content,message", [
    (None, "baseline file not found"),
    ("findings: [\n", "invalid YAML"),
    ("version: 2\nfindings: []\n", "not a kqlint baseline"),
    ("version: 1\nfindings:\n  - {object: x}\n", "needs at least a `code`"),
    ("version: 1\nfindings:\n  - {code: KQ101, count: 0}\n", "positive integer"),
])
def test_bad_baselines_are_usage_errors(repo: Path, content: str | None, message: str) -> None:
    if content is not None:
        (repo / "b.yaml").write_text(content)
    code, _, err = cli("check", ".", "--baseline", "b.yaml", cwd=repo)
    assert code == 2 and message in err and "Traceback" not in err


def test_empty_baseline_round_trips(tmp_path: Path) -> None:
    path = tmp_path / "empty.yaml"
    baseline.write(str(path), [])
    assert baseline.load(str(path)) == Counter()


def test_summaries_count_what_the_baseline_hid_or_wrote(repo: Path) -> None:
    _, before = _findings(repo)
    code, out, _ = cli("check", ".", "--write-baseline", "kqlint-baseline.yaml", cwd=repo)
    assert code == 0 and out.rstrip().endswith(f", {len(before)} written to the baseline")
    code, out, _ = cli("check", ".", "--baseline", "kqlint-baseline.yaml", cwd=repo)
    assert code == 0 and out.rstrip().endswith(f", {len(before)} hidden by the baseline")
    code, out, _ = cli("check", ".", "-f", "concise", "--baseline", "kqlint-baseline.yaml", cwd=repo)
    assert code == 0 and out.rstrip().endswith(f" ({len(before)} hidden by the baseline).")
    code, out, _ = cli("check", ".", "-f", "concise", cwd=repo)  # no baseline: no clause
    assert "baseline" not in out
