"""`kqlint check --add-noqa` (issue 30, item 2): a `# kqlint: ignore[CODE]` comment for each
current finding where the suppression matcher looks for it, so that a second `check` reports
none of them; one comment per line (codes merged into one already there); every other byte
kept; only input files written, never through a symlink to a file that is not an input; files
that cannot hold a comment (JSON) or do not load (KQ001) left alone with a reason."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from ci_helpers import cli
from kqlint.fix.noqa import add_noqa
from kqlint.model import Finding, Location, Severity

FIXTURES = Path(__file__).parent / "fixtures" / "rules"

FLOW_AND_MULTI = """\
apiVersion: batch/v1
kind: Job
metadata: {name: flow, namespace: research, labels: {kueue.x-k8s.io/queue-name: nosuch}}
spec:
  template:
    spec:
      priorityClassName: missing-class
      restartPolicy: Never
      containers: [{name: main, image: busybox}]
---
apiVersion: batch/v1
kind: Job
metadata:
  name: folded
  namespace: research
spec:
  template:
    spec:
      priorityClassName: >-
        missing-class
      restartPolicy: Never
      containers: [{name: main, image: busybox}]
"""


def _job(name: str, priority_class: str) -> str:
    return (f"apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: {name}\n  namespace: research\nspec:\n"
            f"  template:\n    spec:\n      priorityClassName: {priority_class}\n      restartPolicy: Never\n"
            f"      containers: [{{name: main, image: busybox}}]\n")


# the value goes on below its first line: a comment at the end of that line would end it
# (plain) or become part of it (quoted), so the comment goes on a line of its own above
MULTI_LINE_VALUES = _job("plain", "missing\n        class") + "---\n" + _job("quoted", '"missing\n        class"')
EXISTING = """\
apiVersion: v1
kind: Pod
metadata:
  name: merged
  namespace: x
spec:
  priorityClassName: nope   # kqlint: ignore[gang-without-gang-scheduler]
  containers: [{name: a, image: b}]
---
apiVersion: v1
kind: Pod
metadata:
  name: above
  namespace: x
spec:
  # kqlint: ignore[KQ101]
  priorityClassName: nope
  containers: [{name: a, image: b}]
"""
CLEAN = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: clean\n  namespace: x\n"


@pytest.fixture
def repo(in_tmp_cwd: Path) -> Path:
    (in_tmp_cwd / ".git").mkdir()
    return in_tmp_cwd


def _findings(repo: Path, *args: str) -> tuple[int, list[tuple[str, int, str]]]:
    code, out, err = cli("check", ".", "-f", "json", *args, cwd=repo)
    assert "Traceback" not in err, err
    return code, [(f["file"], f["line"], f["code"]) for f in json.loads(out)["findings"]]


def _add_noqa(repo: Path, *args: str) -> tuple[int, str]:
    code, _, err = cli("check", ".", "--add-noqa", "-f", "json", *args, cwd=repo)
    assert "Traceback" not in err, err
    return code, err


def test_round_trip_flow_style_multi_document_and_block_scalar(repo: Path) -> None:
    shutil.copy(FIXTURES / "KQ403" / "bad-mismatch.yaml", repo / "gpu.yaml")
    (repo / "jobs.yaml").write_text(FLOW_AND_MULTI)
    (repo / "clean.yaml").write_text(CLEAN)
    before = _findings(repo)
    assert before == (1, [("gpu.yaml", 30, "KQ403"), ("jobs.yaml", 3, "KQ203"), ("jobs.yaml", 7, "KQ205"),
                          ("jobs.yaml", 19, "KQ205")])
    clean_stat = os.stat(repo / "clean.yaml")
    code, err = _add_noqa(repo)
    assert code == 0 and "added 4 suppression comment(s) in 2 files" in err
    assert _findings(repo) == (0, [])
    jobs = (repo / "jobs.yaml").read_text()
    assert jobs == (FLOW_AND_MULTI
                    .replace("nosuch}}\n", "nosuch}}  # kqlint: ignore[KQ203]\n")
                    .replace(": missing-class\n", ": missing-class  # kqlint: ignore[KQ205]\n")
                    .replace(">-\n", ">-  # kqlint: ignore[KQ205]\n"))  # a comment may follow a block header
    assert "nvidia.com/gpu: 4  # expect: KQ403:19 fixable  # kqlint: ignore[KQ403]\n" in \
        (repo / "gpu.yaml").read_text()
    assert os.stat(repo / "clean.yaml").st_mtime_ns == clean_stat.st_mtime_ns  # no finding: not touched
    assert _add_noqa(repo)[1].endswith("added 0 suppression comment(s) in 0 files\n")  # nothing left to do


def test_a_value_that_goes_on_below_gets_its_comment_above(repo: Path) -> None:
    (repo / "jobs.yaml").write_text(MULTI_LINE_VALUES)
    assert [line for _, line, _ in _findings(repo)[1]] == [9, 22]
    assert _add_noqa(repo)[0] == 0 and _findings(repo) == (0, [])
    assert (repo / "jobs.yaml").read_text() == MULTI_LINE_VALUES.replace(
        "    spec:\n      priorityClassName:", "    spec:\n      # kqlint: ignore[KQ205]\n      priorityClassName:")


def test_codes_merge_into_the_comment_already_there(repo: Path) -> None:
    (repo / "pods.yaml").write_text(EXISTING)
    assert _add_noqa(repo)[0] == 0 and _findings(repo) == (0, [])
    assert (repo / "pods.yaml").read_text() == EXISTING.replace(
        "ignore[gang-without-gang-scheduler]", "ignore[gang-without-gang-scheduler, KQ205]").replace(
        "ignore[KQ101]", "ignore[KQ101, KQ205]")


def test_line_endings_and_byte_order_mark_survive(repo: Path) -> None:
    raw = b"\xef\xbb\xbf" + MULTI_LINE_VALUES.replace("\n", "\r\n").encode()
    (repo / "jobs.yaml").write_bytes(raw)
    assert _add_noqa(repo)[0] == 0 and _findings(repo) == (0, [])
    expected = MULTI_LINE_VALUES.replace(
        "    spec:\n      priorityClassName:", "    spec:\n      # kqlint: ignore[KQ205]\n      priorityClassName:")
    assert (repo / "jobs.yaml").read_bytes() == b"\xef\xbb\xbf" + expected.replace("\n", "\r\n").encode()


def test_files_that_cannot_hold_a_comment_are_left_alone_with_a_reason(repo: Path) -> None:
    json_pod = ('{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "x"}, '
                '"spec": {"priorityClassName": "nope", "containers": [{"name": "a", "image": "b"}]}}\n')
    (repo / "pod.yaml").write_text(json_pod)
    (repo / "broken.yaml").write_text(EXISTING + "---\nkind: Pod\nmetadata: {name: \"x\n")
    code, err = _add_noqa(repo)
    assert code == 1
    assert "pod.yaml: no comments added: kubectl reads it as JSON, which has no comments" in err
    assert "broken.yaml: no comments added: it does not load as manifests (KQ001 at line" in err
    assert (repo / "pod.yaml").read_text() == json_pod
    assert (repo / "broken.yaml").read_text().startswith(EXISTING)


def test_never_writes_through_a_symlink_to_a_file_that_is_not_an_input(
        repo: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    outside = tmp_path_factory.mktemp("outside") / "target.yaml"
    outside.write_text(FLOW_AND_MULTI)
    (repo / "link.yaml").symlink_to(outside)
    (repo / "jobs.yaml").write_text(MULTI_LINE_VALUES)
    code, _, err = cli("check", "jobs.yaml", "link.yaml", "--add-noqa", "--follow-external-symlinks", cwd=repo)
    assert code == 1 and "link.yaml: no comments added: it is a symlink to a file that is not an input" in err
    assert outside.read_text() == FLOW_AND_MULTI and "# kqlint: ignore[KQ205]" in (repo / "jobs.yaml").read_text()


def test_an_input_and_a_symlink_to_it_get_one_comment(repo: Path) -> None:
    (repo / "pods.yaml").write_text(EXISTING)
    (repo / "alias.yaml").symlink_to("pods.yaml")
    assert _add_noqa(repo)[0] == 0
    assert (repo / "pods.yaml").read_text().count("KQ205") == 2 and (repo / "alias.yaml").is_symlink()


def test_refuses_stdin_and_the_fix_modes(repo: Path) -> None:
    (repo / "pods.yaml").write_text(EXISTING)
    for args in (("-",), (".", "--fix"), (".", "--diff"), (".", "--write-baseline", "b.yaml"),
                 (".", "--no-inline-suppressions")):
        code, _, err = cli("check", *args, "--add-noqa", cwd=repo)
        assert code == 2 and "--add-noqa writes comments into the files it lints" in err
    assert (repo / "pods.yaml").read_text() == EXISTING


def test_baselined_findings_get_no_comment(repo: Path) -> None:
    (repo / "pods.yaml").write_text(EXISTING)
    assert cli("check", ".", "--write-baseline", "baseline.yaml", cwd=repo)[0] == 0
    assert _add_noqa(repo, "--baseline", "baseline.yaml")[0] == 0
    assert (repo / "pods.yaml").read_text() == EXISTING


def _finding(code: str, line: int) -> Finding:
    return Finding(code, code.lower(), Severity.ERROR, "m", Location("f.yaml", line, 1))


def test_a_line_inside_a_block_scalar_is_skipped_with_a_reason() -> None:
    text = "a: |\n  one\n  two\nb: 1\n"
    outcome = add_noqa(text.encode(), "f.yaml", [_finding("KQ101", 2), _finding("KQ102", 4)])
    assert outcome.skipped == [(2, "a comment on or above this line would change what the file means "
                                   "(inside a multi-line value)")]
    assert outcome.text == "a: |\n  one\n  two\nb: 1  # kqlint: ignore[KQ102]\n" and outcome.lines == 1


def test_a_comment_line_never_comes_between_a_suppression_and_its_line() -> None:
    # line 2's value goes on below (a comment at its end would end it), and the comment on
    # line 1 silences KQ102 on line 2: a comment line above line 2 would take that away
    text = "a: 1  # kqlint: ignore[KQ102]\nb: two\n  words\n"
    outcome = add_noqa(text.encode(), "f.yaml", [_finding("KQ101", 2)])
    assert outcome.lines == 0 and [line for line, _ in outcome.skipped] == [2]
    assert outcome.text == text


@pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl is not installed")
def test_kubectl_reads_the_commented_files_as_before(repo: Path) -> None:
    (repo / "jobs.yaml").write_text(FLOW_AND_MULTI)
    (repo / "values.yaml").write_text(MULTI_LINE_VALUES)

    def decoded() -> list[str]:
        return [subprocess.run(["kubectl", "label", "--local", "-f", name, "probe=1", "-o", "json"],
                               capture_output=True, text=True, check=True).stdout
                for name in ("jobs.yaml", "values.yaml")]

    before = decoded()
    assert _add_noqa(repo)[0] == 0
    assert decoded() == before


def test_values_that_go_on_below_cost_no_parse_of_their_own(monkeypatch: pytest.MonkeyPatch) -> None:
    import kqlint.fix.verify as verify

    parses = []
    real = verify.parse_bytes

    def counted(display: str, raw: bytes) -> object:
        parses.append(display)
        return real(display, raw)

    monkeypatch.setattr(verify, "parse_bytes", counted)
    text = "".join(f"k{i}: one\n  two\n" if i % 2 else f"k{i}: |\n  one\n" for i in range(200))
    findings = [_finding("KQ101", 1 + 2 * i) for i in range(200)]
    outcome = add_noqa(text.encode(), "f.yaml", findings)
    assert outcome.lines == 200 and not outcome.skipped
    assert outcome.text.count("\n# kqlint: ignore[KQ101]\nk") == 100  # above the plain scalars that go on
    assert outcome.text.count(": |  # kqlint: ignore[KQ101]\n") == 100  # after the block scalars' headers
    assert len(parses) == 2  # the file, then every comment at once


def test_an_unused_suppression_is_not_silenced() -> None:
    text = "# kqlint: ignore[KQ101]\na: 1\n"
    outcome = add_noqa(text.encode(), "f.yaml", [_finding("KQ000", 1)])
    assert (outcome.text, outcome.lines, outcome.edits) == (text, 0, [])
    assert outcome.skipped == [(1, "the suppression here silenced nothing (KQ000): remove it or move it to "
                                   "its finding")]


def test_round_trip_on_the_examples_leaves_only_files_that_do_not_load(tmp_path: Path) -> None:
    examples = tmp_path / "examples"
    shutil.copytree(Path(__file__).parent.parent / "examples", examples)
    (examples / ".git").mkdir()
    before = {p: p.read_bytes() for p in examples.rglob("*") if p.is_file()}
    code, found = _findings(examples)
    assert code == 1 and len({c for _, _, c in found}) >= 8  # many rules, KQ001 and KQ006 among them
    code, err = _add_noqa(examples)
    left = _findings(examples)[1]
    assert code == 1 and sorted({c for _, _, c in left}) == ["KQ001", "KQ006"]
    assert len(left) == sum(1 for _, _, c in found if c in ("KQ001", "KQ006"))
    changed = {p for p, raw in before.items() if p.read_bytes() != raw}
    assert {str(p.relative_to(examples)) for p in changed} == {f for f, _, c in found if c not in ("KQ001", "KQ006")}
    assert f"added {len(found) - len(left)} suppression comment(s) in {len(changed)} files" in err
    for path in changed:  # only comments were added: without them, every line is as it was
        new = path.read_text().splitlines()
        assert [line.split("  # kqlint: ignore[")[0] for line in new if not line.strip().startswith("# kqlint:")] \
            == before[path].decode().splitlines()


def test_a_file_that_is_not_utf8_is_left_alone() -> None:
    raw = "apiVersion: v1\nkind: Pod\n".encode("utf-16")
    outcome = add_noqa(raw, "f.yaml", [_finding("KQ101", 2)])
    assert (outcome.refused, outcome.lines) == ("it is not UTF-8 text", 0)
