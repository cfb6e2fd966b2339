"""What a report shows of a stream read from stdin (issue 24): code frames and fixes come from
the stream's own text, never from a file on disk that the stream's ``# Source:`` comments or
``--stdin-filename`` name; ``--fix``/``--diff`` take ``-`` alone; a report on /dev/stderr
redirected to a file keeps the lines written before it."""
from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FIXTURES
from kqlint.cli import main

JOB = (FIXTURES / "stdin" / "gpu-job.yaml").read_text()  # KQ403 on line 15, its safe fix too (the limit)
FIXED = JOB.replace("nvidia.com/gpu: 4", "nvidia.com/gpu: 2")
# the same file on disk, its lines elsewhere: a frame read from it would show another line
ON_DISK = "# a comment\n# another\n" + JOB.replace("train", "on-disk")
FRAME = ("      15 |               nvidia.com/gpu: 4\n"
         "         |               ^^^^^^^^^^^^^^\n")


@pytest.fixture
def project(in_tmp_cwd: Path) -> Path:
    (in_tmp_cwd / ".git").mkdir()
    (in_tmp_cwd / "chart" / "templates").mkdir(parents=True)
    (in_tmp_cwd / "chart" / "templates" / "job.yaml").write_text(ON_DISK)
    return in_tmp_cwd


def _check(stream: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
           *args: str) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stream.encode())))
    status = main(["check", "-", "--no-config", *args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.mark.parametrize("template", ["chart/templates/job.yaml", "chart/templates/absent.yaml"],
                         ids=["a file on disk with other text", "no such file"])
def test_helm_frames_come_from_the_stream(project: Path, template: str, capsys: pytest.CaptureFixture[str],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    status, out, _ = _check(f"---\n# Source: {template}\n{JOB}", capsys, monkeypatch)
    assert status == 1
    assert out.startswith(f"{template}\n  15:15  error  KQ403 extended-resource-mismatch  Job default/train: ")
    assert FRAME in out
    assert "[*]" not in out  # a document cut out of a Helm stream is not fixed (`--fix -` leaves it)


def test_stdin_filename_frames_and_fixes_come_from_the_stream(project: Path, capsys: pytest.CaptureFixture[str],
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    named = ("--stdin-filename", "chart/templates/job.yaml")
    _, out, _ = _check(JOB, capsys, monkeypatch, *named)
    assert out.startswith("chart/templates/job.yaml\n  15:15  error  KQ403 [*] extended-resource-mismatch  ")
    assert FRAME in out and out.endswith("[*] 1 fixable with --fix\n")
    _, out, _ = _check(JOB, capsys, monkeypatch, *named, "-f", "json")
    [finding] = json.loads(out)["findings"]
    assert (finding["file"], finding["line"], finding["column"]) == ("chart/templates/job.yaml", 15, 15)
    assert finding["fix"]["edits"] == [{"start": {"line": 15, "column": 31}, "end": {"line": 15, "column": 32},
                                        "content": "2"}]
    status, out, _ = _check(JOB, capsys, monkeypatch, *named, "--fix")
    assert (status, out) == (0, FIXED)
    assert (project / "chart" / "templates" / "job.yaml").read_text() == ON_DISK


def test_plain_stdin_gets_frames_and_fixes(project: Path, capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    _, out, _ = _check(JOB, capsys, monkeypatch)
    assert out.startswith("<stdin>\n  15:15  error  KQ403 [*] extended-resource-mismatch  ")
    assert FRAME in out and out.endswith("[*] 1 fixable with --fix\n")


def test_documents_of_one_template_each_show_their_own_line(project: Path, capsys: pytest.CaptureFixture[str],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Two documents with one `# Source:` (a template rendering twice): the same line number
    holds other text in each; each finding's frame is its own document's line."""
    second = JOB.replace("train", "eval").replace("  template:\n", "  backoffLimit: 1\n  template:\n")
    stream = f"---\n# Source: chart/templates/job.yaml\n{JOB}---\n# Source: chart/templates/job.yaml\n{second}"
    _, out, _ = _check(stream, capsys, monkeypatch, "-f", "text")
    blocks = out.split("\n  1")
    assert blocks[1].startswith("5:15  error  KQ403 extended-resource-mismatch  Job default/train: ")
    assert FRAME in "\n  1" + blocks[1]
    assert blocks[2].startswith("6:15  error  KQ403 extended-resource-mismatch  Job default/eval: ")
    assert ("      16 |               nvidia.com/gpu: 4\n"
            "         |               ^^^^^^^^^^^^^^\n") in blocks[2]


@pytest.mark.parametrize("mode", ["--fix", "--diff", "--fix-only"])
def test_fixing_the_stream_with_other_paths_is_a_usage_error(project: Path, mode: str,
                                                            capsys: pytest.CaptureFixture[str],
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Before: `--fix - --stdin-filename F other.yaml` wrote the stream's fixes into F on disk,
    then read the spent stdin again and failed ("stdin (-) is empty")."""
    (project / "chart" / "templates" / "job.yaml").write_text(JOB)
    (project / "other.yaml").write_text(JOB.replace("train", "other"))
    status, out, err = _check(JOB, capsys, monkeypatch, "--stdin-filename", "chart/templates/job.yaml",
                              "other.yaml", mode)
    assert (status, out) == (2, "")
    assert err == ("kqlint: --fix, --diff and --fix-only take `-` alone (the fixed stream goes to stdout); "
                   "fix the stream and the files in separate runs\n")
    assert (project / "chart" / "templates" / "job.yaml").read_text() == JOB
    assert (project / "other.yaml").read_text() == JOB.replace("train", "other")


def test_the_report_on_a_redirected_stderr_keeps_the_lines_before_it(project: Path) -> None:
    """`--fix -` writes its report to /dev/stderr: with stderr redirected to a file, opening it
    truncated the file and lost the "fixed ..." line."""
    log = project / "stderr.log"
    with log.open("wb") as stderr:
        result = subprocess.run([sys.executable, "-m", "kqlint.cli", "check", "-", "--fix", "--no-config"],
                                cwd=project, input=JOB.encode(), stdout=subprocess.PIPE, stderr=stderr,
                                timeout=60, check=False)
    assert (result.returncode, result.stdout.decode()) == (0, FIXED)
    assert log.read_text() == ("kqlint: fixed 1 finding(s) (KQ403: 1) in 1 file\n"
                               "0 findings (0 errors, 0 warnings, 0 info) in 1 file, 1 object\n")
