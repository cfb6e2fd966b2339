"""`check --fix` passes after the first parse only the files a fix changed (kqlint.engine.pipeline
.Pipeline.fix_passes), with and without the cache, and report exactly what a new `check` reports."""
from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from kqlint import loader
from kqlint.cli import main
from kqlint.engine import inputs

FIXABLE = """\
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
            requests: {nvidia.com/gpu: "2"}
            limits:
              nvidia.com/gpu: 4
"""
CLEAN = FIXABLE.replace("nvidia.com/gpu: 4", "nvidia.com/gpu: 2")  # the limit follows the request


@pytest.fixture
def parsed(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How often each file is parsed (by the engine, or by the cache for a file it stores)."""
    counts: Counter[str] = Counter()
    parse_file = loader.parse_file

    def counting(path: str, *args: Any) -> Any:
        counts[Path(path).name] += 1
        return parse_file(path, *args)
    monkeypatch.setattr(inputs, "parse_file", counting)
    monkeypatch.setattr(loader, "parse_file", counting)
    return counts


@pytest.mark.parametrize("cache", [["--no-cache"], []], ids=["no-cache", "cache"])
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_pass_parses_only_the_fixed_files(in_tmp_cwd: Path, parsed: Counter[str], cache: list[str], jobs: str,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    (in_tmp_cwd / ".git").mkdir()
    (in_tmp_cwd / "fixable.yaml").write_text(FIXABLE)
    for number in range(3):
        (in_tmp_cwd / f"clean-{number}.yaml").write_text(CLEAN.replace("train", f"train-{number}"))
    main(["check", ".", "--fix", "-f", "json", "--jobs", jobs, *cache])
    fixed_report = capsys.readouterr().out
    assert (in_tmp_cwd / "fixable.yaml").read_text() == CLEAN
    assert parsed == {"fixable.yaml": 2, "clean-0.yaml": 1, "clean-1.yaml": 1, "clean-2.yaml": 1}
    main(["check", ".", "--no-cache", "-f", "json"])
    assert capsys.readouterr().out == fixed_report  # the reused parses report what a new check does


def _many_fixable(count: int) -> str:
    return "---\n".join(FIXABLE.replace("name: train", f"name: train-{i}") for i in range(count))


def test_fix_only_on_one_file_of_many_fixes_grows_linearly(in_tmp_cwd: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 28: one file of N fixable documents cost superlinear time (2k/4k/8k fixes: 3.0/9.1/37 s
    CPU): every fix was compared with every other one, each found its object by a walk over the
    file, and the text was rebuilt once per edit. Counted, not timed: the comparisons of edits
    grow with N (apply_text's one pass: test_apply_text_builds_what_one_edit_after_another_builds)."""
    from kqlint.fix.text import TextEdit

    work: Counter[str] = Counter()
    overlaps = TextEdit.overlaps

    def counting_overlaps(self: TextEdit, other: TextEdit) -> bool:
        work["comparisons"] += 1
        return overlaps(self, other)

    monkeypatch.setattr(TextEdit, "overlaps", counting_overlaps)
    per_size = {}
    for count in (200, 400):
        work.clear()
        Path("jobs.yaml").write_text(_many_fixable(count))
        assert main(["check", "--fix-only", "--no-cache", "--select", "KQ403", "jobs.yaml"]) == 0
        assert Path("jobs.yaml").read_text() == _many_fixable(count).replace("nvidia.com/gpu: 4", "nvidia.com/gpu: 2")
        per_size[count] = dict(work)
    assert per_size[400]["comparisons"] <= 2.2 * per_size[200]["comparisons"], per_size


def test_apply_text_builds_what_one_edit_after_another_builds() -> None:
    import random

    from kqlint.fix.text import TextEdit, _apply_one_by_one, apply_text

    chance = random.Random(28)
    text = "".join(chance.choice("ab\n ") for _ in range(2000))
    for _ in range(200):
        points = sorted(chance.sample(range(len(text)), 40))
        edits = [TextEdit(start, start if chance.random() < 0.5 else min(end, start + 3),
                          " " * chance.randint(0, 4) + "x")
                 for start, end in zip(points[::2], points[1::2], strict=True)]
        edits += [TextEdit(edits[0].start, edits[0].start, "  deeper"), TextEdit(edits[0].start, edits[0].start, "y")]
        ordered = sorted(edits, key=lambda e: (e.start, e.end, -len(e.content) + len(e.content.lstrip(" "))))
        assert apply_text(text, edits) == _apply_one_by_one(text, ordered)
