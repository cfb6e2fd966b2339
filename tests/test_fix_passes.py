"""`check --fix` passes after the first parse only the files a fix changed (kqlint.engine.inputs
.parses_reused), with and without the cache, and report exactly what a new `check` reports."""
from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
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
    """How often each file is parsed."""
    counts: Counter[str] = Counter()
    parse_one = inputs._parse_one

    def counting(path: str, *args: Any) -> Any:
        counts[Path(path).name] += 1
        return parse_one(path, *args)
    monkeypatch.setattr(inputs, "_parse_one", counting)
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
