"""`kqlint check --fix / --unsafe-fixes / --diff / --fix-only` (cli.md): what is written, what
is printed, exit statuses, and the guarantees about which files may be written and how."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from ci_helpers import validate_sarif
from helpers import validate_json_report
from kqlint.cli import main
from kqlint.fix.passes import write_atomically

SAFE = """\
# a comment that stays
apiVersion: batch/v1
kind: Job
metadata:
  name: train
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: main
          image: busybox
          resources:
            requests:
              nvidia.com/gpu: 2
            limits: {nvidia.com/gpu: "4"}   # flow style stays
"""
SAFE_FIXED = SAFE.replace('{nvidia.com/gpu: "4"}', '{nvidia.com/gpu: "2"}')  # the limit follows the request
UNSAFE = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: too-big
  annotations:
    kai.scheduler/batch-min-member: "8"
spec:
  parallelism: 4
  template:
    spec:
      schedulerName: kai-scheduler
      restartPolicy: Never
      containers: [{name: c, image: busybox}]
"""


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["check", "--no-cache", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def repo(in_tmp_cwd: Path) -> Path:
    (in_tmp_cwd / ".git").mkdir()
    (in_tmp_cwd / "job.yaml").write_text(SAFE)
    (in_tmp_cwd / "gang.yaml").write_text(UNSAFE)
    return in_tmp_cwd


def test_text_report_marks_fixable_findings(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, ".", "--select", "KQ403,KQ301")
    assert code == 1
    assert "KQ403 [*] extended-resource-mismatch" in out and "KQ301 min-member-mismatch" in out
    assert out.endswith("[*] 1 fixable with --fix (1 more with --unsafe-fixes)\n")
    _, out, _ = run(capsys, ".", "--select", "KQ403,KQ301", "--unsafe-fixes")
    assert "KQ301 [*]" in out and out.endswith("[*] 2 fixable with --fix --unsafe-fixes\n")
    assert (repo / "job.yaml").read_text() == SAFE  # --unsafe-fixes alone writes nothing


def test_diff_writes_nothing_and_exits_1(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, ".", "--diff")
    assert code == 1 and (repo / "job.yaml").read_text() == SAFE
    assert out == ("--- a/job.yaml\n+++ b/job.yaml\n@@ -13,4 +13,4 @@\n"
                   "           resources:\n             requests:\n               nvidia.com/gpu: 2\n"
                   '-            limits: {nvidia.com/gpu: "4"}   # flow style stays\n'
                   '+            limits: {nvidia.com/gpu: "2"}   # flow style stays\n')
    assert "would fix 1 finding(s) (KQ403: 1)" in err
    (repo / "job.yaml").write_text(SAFE_FIXED)
    assert run(capsys, ".", "--diff")[:2] == (0, "")


def test_diff_escapes_file_names(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hostile = "x\x1b[2J\n+++ forged.yaml\n::error file=a::pwned\u202e.yaml"
    (repo / "job.yaml").rename(repo / hostile)
    code, out, _ = run(capsys, ".", "--diff", "--select", "KQ403")
    header = "x\\x1b[2J\\n+++ forged.yaml\\n::error file=a::pwned\\u202e.yaml"
    assert code == 1 and out.startswith(f"--- a/{header}\n+++ b/{header}\n@@ -13,4 +13,4 @@\n")
    assert "\x1b" not in out and "\u202e" not in out
    assert not [line for line in out.splitlines() if line.startswith(("::", "+++ forged"))]


def test_fix_writes_safe_fixes_then_reports_the_rest(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    os.chmod(repo / "job.yaml", 0o640)
    code, out, err = run(capsys, ".", "--fix")
    assert (repo / "job.yaml").read_text() == SAFE_FIXED
    assert (repo / "gang.yaml").read_text() == UNSAFE
    assert oct(os.stat(repo / "job.yaml").st_mode & 0o777) == "0o640"
    assert "fixed 1 finding(s) (KQ403: 1) in 1 file" in err
    assert "KQ403" not in out and "KQ301" in out and code == 1
    assert run(capsys, ".", "--fix")[2].startswith("kqlint: no fixes applied")  # idempotent
    code, out, _ = run(capsys, ".", "--fix", "--unsafe-fixes")
    assert code == 0 and "0 findings" in out
    assert '    kai.scheduler/batch-min-member: "4"\n' in (repo / "gang.yaml").read_text()


def test_fix_only_reports_nothing_and_exits_0(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, ".", "--fix-only", "--select", "KQ301", "--unsafe-fixes")
    assert (code, out) == (0, "") and "KQ301: 1" in err
    assert (repo / "job.yaml").read_text() == SAFE  # --select limits which rules fix


def test_crlf_and_bom_survive(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "job.yaml").write_bytes(b"\xef\xbb\xbf" + SAFE.replace("\n", "\r\n").encode())
    run(capsys, "job.yaml", "--fix")
    assert (repo / "job.yaml").read_bytes() == b"\xef\xbb\xbf" + SAFE_FIXED.replace("\n", "\r\n").encode()


def test_context_files_and_outside_symlinks_are_never_written(repo: Path, tmp_path_factory: pytest.TempPathFactory,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "ctx").mkdir()
    (repo / "ctx" / "other.yaml").write_text(SAFE)
    outside = tmp_path_factory.mktemp("outside") / "target.yaml"
    outside.write_text(SAFE)
    (repo / "link.yaml").symlink_to(outside)
    code, _, err = run(capsys, "job.yaml", "link.yaml", "--context", "ctx", "--fix", "--follow-external-symlinks")
    assert (repo / "job.yaml").read_text() == SAFE_FIXED
    assert (repo / "ctx" / "other.yaml").read_text() == SAFE and outside.read_text() == SAFE
    assert "link.yaml: not fixed: it is a symlink to a file that is not an input" in err


def test_a_file_changed_on_disk_is_not_written(tmp_path: Path) -> None:
    target = tmp_path / "f.yaml"
    target.write_text("changed by someone else\n")
    assert write_atomically(str(target), b"what kqlint read\n", b"fixed\n") == "it changed on disk since it was read"
    assert target.read_text() == "changed by someone else\n" and os.listdir(tmp_path) == ["f.yaml"]


def test_stdin_fixed_stream_to_stdout_report_to_stderr(repo: Path) -> None:
    result = subprocess.run([sys.executable, "-m", "kqlint.cli", "check", "-", "--fix", "--no-cache"],
                            cwd=repo, input=SAFE.encode(), capture_output=True, timeout=60, check=False)
    assert result.stdout.decode() == SAFE_FIXED
    assert b"fixed 1 finding(s)" in result.stderr and b"0 findings" in result.stderr
    assert result.returncode == 0


def test_json_and_sarif_carry_the_fix(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "job.yaml", "-f", "json")
    finding = validate_json_report(out)["findings"][0]
    assert finding["fix"] == {"title": "Set extended-resource limits equal to their requests", "applicability": "safe",
                              "edits": [{"start": {"line": 16, "column": 38}, "end": {"line": 16, "column": 41},
                                         "content": '"2"'}]}
    _, out, _ = run(capsys, "job.yaml", "-f", "sarif")
    result = validate_sarif(out)["runs"][0]["results"][0]
    change = result["fixes"][0]["artifactChanges"][0]
    assert change["replacements"] == [{"deletedRegion": {"startLine": 16, "startColumn": 38, "endLine": 16,
                                                         "endColumn": 41}, "insertedContent": {"text": '"2"'}}]
    assert json.dumps(result["fixes"][0]["properties"]) == '{"applicability": "safe"}'


def test_fix_with_kustomize_is_a_usage_error(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "--kustomize", ".", "--fix")
    assert code == 2 and "--kustomize" in err
