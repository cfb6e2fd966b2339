"""Did-you-mean becomes a fix (issue 30, item 5): an unknown reference with exactly one close
known name (KQ202-KQ206) says "did you mean" and offers the rename as an unsafe fix of exactly
the reference's value; two equally close names give neither a guess nor a fix. The fixture
pairs (tests/fixtures/rules/KQ20x/bad-one-close-name*, bad-two-*) are also applied end to end
by tests/test_rule_fixes_e2e.py."""
from __future__ import annotations

from pathlib import Path

import pytest
from helpers import lint_case
from kqlint.cli import main
from kqlint.fix.model import Applicability
from kqlint.model import Finding
from kqlint.spelling import affix_variants, nearest_spellings

RULES = Path(__file__).parent / "fixtures" / "rules"
QUEUES = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: training, namespace: team-a}
spec: {clusterQueue: shared}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: shared}
spec: {namespaceSelector: {}}
"""
JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: train
  namespace: team-a
  labels:
    kueue.x-k8s.io/queue-name: trainig   # the slip
spec:
  suspend: true
  template:
    spec:
      restartPolicy: Never
      containers: [{name: main, image: busybox}]
"""


def only(case: str, code: str) -> Finding:
    [finding] = lint_case(RULES / code / case, code).findings
    return finding


@pytest.mark.parametrize("code,case,path,name", [
    ("KQ203", "bad-one-close-name.yaml", ("metadata", "labels", "kueue.x-k8s.io/queue-name"), "training"),
    ("KQ204", "bad-marker-suffix.yaml", ("spec", "clusterQueue"), "ml"),
    ("KQ206", "bad-one-close-name.yaml", ("spec", "resourceGroups", 0, "flavors", 0, "name"), "kq206-spot"),
])
def test_one_close_name_is_the_hint_and_an_unsafe_fix_of_the_value(code: str, case: str, path: tuple[object, ...],
                                                                    name: str) -> None:
    finding = only(case, code)
    assert f"(did you mean `{name}`?)" in finding.message
    assert finding.fix is not None and finding.fix.applicability is Applicability.UNSAFE
    [edit] = finding.fix.edits
    assert (edit.op, edit.path, edit.value) == ("replace", path, name)
    assert finding.location.path == path  # the finding and the fix are on the same value node


@pytest.mark.parametrize("code,case", [("KQ203", "bad-two-close-names.yaml"), ("KQ204", "bad-two-marker-names.yaml")])
def test_two_equally_close_names_are_no_guess_and_no_fix(code: str, case: str) -> None:
    finding = only(case, code)
    assert "did you mean" not in finding.message and finding.fix is None


def test_kq202_names_a_pod_priority_class_instead_of_guessing() -> None:
    finding = only("bad-names-pod-priority-class", "KQ202")
    assert "is a pod PriorityClass" in finding.message and finding.fix is None


def test_kq205_offers_a_kai_built_in_class() -> None:
    finding = only("bad-kai-typo", "KQ205")
    assert "(did you mean `train`?)" in finding.message
    assert finding.fix is not None and finding.fix.edits[0].value == "train"


def test_the_spelling_rules() -> None:
    assert nearest_spellings("trainig", ["training", "serving"]) == ["training"]
    assert nearest_spellings("train-c", ["train-a", "train-b"]) == ["train-a", "train-b"]
    assert nearest_spellings("cpu", ["gpu"]) == []  # short names: only a difference of case
    assert nearest_spellings("CPU", ["cpu"]) == ["cpu"]
    suffixes, prefixes = ("-cq", "-queue"), ("cq-",)
    assert affix_variants("ml-cq", ["ml", "ml-gpu", "ai"], suffixes, prefixes) == ["ml"]
    assert affix_variants("ml", ["ml-cq", "cq-ml", "ml-queue"], suffixes, prefixes) == ["cq-ml", "ml-cq", "ml-queue"]
    assert affix_variants("ml-cq", ["ml-queue"], suffixes, prefixes) == ["ml-queue"]  # one marker for another
    assert affix_variants("-cq", ["cq"], suffixes, prefixes) == []  # a marker alone is no name
    assert affix_variants("ml-cq", ["ml"]) == []  # no affixes: nothing but spelling


# ------------------------------------------------------------------ the CLI

@pytest.fixture
def repo(in_tmp_cwd: Path) -> Path:
    (in_tmp_cwd / ".git").mkdir()
    (in_tmp_cwd / "queues.yaml").write_text(QUEUES)
    (in_tmp_cwd / "job.yaml").write_text(JOB)
    return in_tmp_cwd


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["check", "--no-cache", "--select", "KQ203", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_fix_writes_the_rename_only_with_unsafe_fixes(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, ".", "--fix")
    assert code == 1 and (repo / "job.yaml").read_text() == JOB  # unsafe: --fix alone keeps it
    assert out.endswith("[*] 0 fixable with --fix (1 more with --unsafe-fixes)\n")
    code, out, _ = run(capsys, ".", "--fix", "--unsafe-fixes")
    assert code == 0, out
    assert (repo / "job.yaml").read_text() == JOB.replace("queue-name: trainig ", "queue-name: training ")
    assert (repo / "queues.yaml").read_text() == QUEUES


def test_diff_shows_the_rename_with_unsafe_fixes(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, ".", "--diff")[:2] == (0, "")  # an unsafe fix is no change of --diff alone
    code, out, err = run(capsys, ".", "--diff", "--unsafe-fixes")
    assert code == 1 and (repo / "job.yaml").read_text() == JOB
    assert out == ("--- a/job.yaml\n+++ b/job.yaml\n@@ -4,7 +4,7 @@\n"
                   "   name: train\n   namespace: team-a\n   labels:\n"
                   "-    kueue.x-k8s.io/queue-name: trainig   # the slip\n"
                   "+    kueue.x-k8s.io/queue-name: training   # the slip\n"
                   " spec:\n   suspend: true\n   template:\n")
    assert "would fix 1 finding(s) (KQ203: 1)" in err
