"""--jobs gives byte-identical output; the slow-parser warning; YAML 1.1 scalars as the API
server decodes them."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers import chdir
from kqlint.cli import main
from kqlint.engine import parallel
from kqlint.loader import parse_bytes

ROOT = Path(__file__).resolve().parent.parent


def _json_report(capsys: pytest.CaptureFixture[str], tree: Path, jobs: int) -> str:
    with chdir(tree):
        assert main(["check", ".", "--format", "json", "--jobs", str(jobs)]) == 1
    return capsys.readouterr().out


def test_jobs_output_is_byte_identical(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for copy in range(16):  # enough files and objects for --jobs 2 to really fork
        shutil.copytree(ROOT / "examples", tmp_path / f"team-{copy:02d}")
    assert parallel.effective_jobs(2, len(list(tmp_path.rglob("*.yaml")))) == 2
    one = _json_report(capsys, tmp_path, 1)
    two = _json_report(capsys, tmp_path, 2)
    assert one == two and '"findings"' in one


def test_map_chunks_keeps_order() -> None:
    items = list(range(1000))
    assert parallel.map_chunks(lambda x: x * x, items, 3) == [x * x for x in items]


def test_map_chunks_balances_batches_and_keeps_order(monkeypatch: pytest.MonkeyPatch) -> None:
    """The parent, slowed by ``before()``, takes fewer batches; the results keep item order."""
    import os
    import time

    monkeypatch.setattr(parallel, "can_fork", lambda: True)
    items = list(range(480))

    def work(x: int) -> tuple[int, int]:
        time.sleep(0.001)
        return x * x, os.getpid()

    found = parallel.map_chunks(work, items, 2, min_items=1, before=lambda: time.sleep(0.3))
    assert [square for square, _ in found] == [x * x for x in items]
    by_parent = sum(1 for _, pid in found if pid == os.getpid())
    assert 0 < by_parent < len(items) / 2  # the worker did more while the parent was busy


@pytest.mark.parametrize("count", [1, 7, 397, 4965, 10000])
def test_batches_cover_every_item_once_and_shrink_towards_the_end(count: int) -> None:
    """Guided self-scheduling: big batches first (few messages), small last ones (nobody
    waits long for the last batch)."""
    for jobs in (2, 3, 8):
        batches = parallel._batches(count, jobs)
        assert [i for batch in batches for i in batch] == list(range(count))
        sizes = [len(batch) for batch in batches]
        assert sizes == sorted(sizes, reverse=True) and all(size > 0 for size in sizes)
        assert sizes[-1] <= -(-count // (jobs * parallel.BATCHES_PER_JOB))
        assert len(batches) <= 8 * jobs * 4  # a bounded number of messages


def test_a_worker_that_fails_leaves_its_batches_to_the_parent(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    monkeypatch.setattr(parallel, "can_fork", lambda: True)
    parent = os.getpid()

    def work(x: int) -> int:
        if os.getpid() != parent:
            raise RuntimeError("a broken worker")
        return x + 1

    assert parallel.map_chunks(work, list(range(500)), 2, min_items=1) == list(range(1, 501))


def test_before_runs_once_without_workers() -> None:
    calls: list[str] = []
    assert parallel.map_chunks(lambda x: x, [1, 2], 4, before=lambda: calls.append("before")) == [1, 2]
    assert calls == ["before"]


def test_warns_once_when_the_c_parser_is_missing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("kqlint.loader.FAST_PATH", False)
    (tmp_path / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n")
    with chdir(tmp_path):
        assert main(["check", "cm.yaml", "--jobs", "1"]) == 0
    assert capsys.readouterr().err.count("ruamel.yaml.clib") == 1


def test_yaml_1_1_scalars_like_kubernetes() -> None:
    data = b"a: yes\nb: on\nc: off\nd: 0755\ne: '0755'\nf: 1_000\ng: ~\nh: 2024-01-02\n"
    doc = parse_bytes("s.yaml", data).documents[0]
    assert doc == {"a": True, "b": True, "c": False, "d": 493, "e": "0755", "f": 1000, "g": None, "h": "2024-01-02"}


NOTED = """
import time

from kqlint.engine.parallel import map_chunks
from kqlint.errors import note_once


def noted(item):
    time.sleep(0.001)  # slow enough that the worker takes batches too
    note_once("kqlint: note: one for the whole run")
    note_once(f"kqlint: note: one of three {item % 3}")
    return item


assert map_chunks(noted, list(range(2000)), 2) == list(range(2000))
"""


def test_a_note_found_by_every_process_is_said_once(tmp_path: Path) -> None:
    """issue 33: a CEL rule kqlint cannot evaluate is said once per run; with --jobs every
    process meets it, so a worker holds its notes and the parent says what no process said yet
    (a process of its own: stderr as the command line has it)."""
    import subprocess
    import sys

    from kqlint.engine import parallel

    if not parallel.can_fork():
        pytest.skip("no fork on this platform")
    (tmp_path / "noted.py").write_text(NOTED)
    done = subprocess.run([sys.executable, str(tmp_path / "noted.py")], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("one for the whole run") == 1, done.stderr
    assert sorted(line[-1] for line in done.stderr.splitlines() if "one of three" in line) == ["0", "1", "2"]
