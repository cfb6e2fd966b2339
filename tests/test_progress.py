"""The progress bar (linter/cli/progress.py): on stderr, only when stderr is a terminal and the
run reads more than THRESHOLD files; never on stdout, never in a pipe or with --quiet."""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from kqlint.cli.progress import THRESHOLD, LoadProgress

CONFIGMAP = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-{i}\n  namespace: default\ndata:\n  k: v\n"


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("stream,total,shown", [
    (Terminal(), THRESHOLD + 1, True),
    (Terminal(), THRESHOLD, False),
    (io.StringIO(), THRESHOLD * 3, False),
])
def test_shown_only_on_a_terminal_for_long_runs(stream: io.StringIO, total: int, shown: bool) -> None:
    with LoadProgress(stream) as progress:
        for done in range(1, total + 1):
            progress(done, total)
        assert progress.bar is None  # closed when the last file is loaded
    assert bool(stream.getvalue()) is shown


def test_closed_stream_never_breaks_a_run() -> None:
    stream = io.StringIO()
    stream.close()
    progress = LoadProgress(stream)
    progress(1, THRESHOLD * 2)
    assert progress.bar is None


@pytest.fixture(scope="module")
def many_files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("many")
    for i in range(THRESHOLD + 100):
        (root / f"cm-{i:04d}.yaml").write_text(CONFIGMAP.format(i=i))
    return root


def _run(cwd: Path, args: list[str], stderr_tty: bool) -> tuple[int, bytes, bytes]:
    """Run kqlint with stdout to a file and stderr to a pseudo-terminal (or a pipe)."""
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "GITHUB_ACTIONS")}
    out_path = cwd.parent / f"{cwd.name}.stdout"
    with open(out_path, "wb") as out:
        if not stderr_tty:
            result = subprocess.run([sys.executable, "-m", "kqlint.cli", *args], cwd=cwd, env=env, stdout=out,
                                    stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, timeout=300, check=False)
            return result.returncode, out_path.read_bytes(), result.stderr
        pty = pytest.importorskip("pty")
        master, slave = pty.openpty()
        process = subprocess.Popen([sys.executable, "-m", "kqlint.cli", *args], cwd=cwd, env=env, stdout=out,
                                   stderr=slave, stdin=subprocess.DEVNULL)
        os.close(slave)
        chunks = []
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            chunks.append(chunk)
        code = process.wait(timeout=300)
        os.close(master)
    return code, out_path.read_bytes(), b"".join(chunks)


def test_progress_on_a_terminal_stderr_keeps_stdout_clean(many_files: Path) -> None:
    code, out, err = _run(many_files, ["check", ".", "-f", "json"], stderr_tty=True)
    assert code == 0
    assert json.loads(out)["summary"]["files"] == THRESHOLD + 100  # stdout is pure JSON
    assert b"kqlint: loading" in err


@pytest.mark.parametrize("args,stderr_tty", [(["check", ".", "-f", "sarif"], False),
                                             (["check", ".", "--quiet"], True)])
def test_no_progress_in_a_pipe_or_when_quiet(many_files: Path, args: list[str], stderr_tty: bool) -> None:
    code, out, err = _run(many_files, args, stderr_tty)
    assert code == 0 and b"loading" not in err and b"loading" not in out
