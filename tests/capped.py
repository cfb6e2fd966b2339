"""Run kqlint in a subprocess under an address-space cap and a timeout, and measure it:
the hostile tests check bounds (seconds, peak memory, output size), not just "no crash".

``KQLINT_UNDER_TEST=/path/to/kqlint`` runs the tests against another build (e.g. the
unchanged main branch, to see each attack test fail there)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

KQLINT = os.environ.get("KQLINT_UNDER_TEST") or str(Path(sys.executable).with_name("kqlint"))
MEMORY_CAP = 1536 * 1024 * 1024  # RLIMIT_AS of every run (virtual memory, per process)


@dataclass
class Run:
    code: int
    stdout: str
    stderr: str
    seconds: float
    peak_mb: float          # peak resident memory of kqlint's main process
    stdout_bytes: int
    stderr_bytes: int

    def __str__(self) -> str:
        return (f"exit {self.code} in {self.seconds:.1f}s, peak {self.peak_mb:.0f} MB, stdout "
                f"{self.stdout_bytes} B, stderr {self.stderr_bytes} B: {self.stderr[:500]!r}")


# A forked child inherits the peak RSS of its parent (Linux keeps it across exec), and pytest
# grows large over a whole suite: so a small launcher process is forked instead, and it starts
# kqlint (its own fresh child), waits for it and reports kqlint's own peak through a pipe.
_LAUNCHER = """
import os, resource, sys
memory, report = int(sys.argv[1]), int(sys.argv[2])
os.setsid()
resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
pid = os.fork()
if pid == 0:
    os.close(report)
    os.execv(sys.argv[3], sys.argv[3:])
_, status, usage = os.wait4(pid, 0)
os.write(report, f"{usage.ru_maxrss} {os.waitstatus_to_exitcode(status)}".encode())
"""


def run(args: Sequence[str], cwd: Path, *, timeout: float = 60, memory: int = MEMORY_CAP,
        stdin: bytes | None = None, env: dict[str, str] | None = None, tail: int = 200_000,
        stdout_path: str | None = None) -> Run:
    """``kqlint ARGS`` in ``cwd``; killed (exit -9) after ``timeout`` seconds."""
    environment = {k: v for k, v in os.environ.items()
                   if k not in ("GITHUB_ACTIONS", "KQLINT_ALLOW_PLUGINS", "FORCE_COLOR")}
    environment.update(NO_COLOR="1", **(env or {}))
    out_path, err_path = (Path(tempfile.mkstemp(dir=cwd.parent, prefix=f".{cwd.name}.", suffix=suffix)[1])
                          for suffix in (".out", ".err"))
    with open(stdout_path or out_path, "wb") as out, open(err_path, "wb") as err:
        start = time.perf_counter()
        report_read, report_write = os.pipe()
        command = [sys.executable, "-S", "-c", _LAUNCHER, str(memory), str(report_write), KQLINT, *args]
        process = subprocess.Popen(command, cwd=cwd, env=environment, stdout=out, stderr=err,
                                   stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                                   pass_fds=(report_write,))
        os.close(report_write)
        timer = threading.Timer(timeout, lambda: _kill(process.pid))
        timer.start()
        try:
            if stdin is not None:
                _feed(process, stdin)
            _, status, _usage = os.wait4(process.pid, 0)
        finally:
            timer.cancel()
        with os.fdopen(report_read, "rb") as report:
            measured = report.read().split()
        peak_kb, code = (int(measured[0]), int(measured[1])) if len(measured) == 2 else (0, -9)  # killed
        seconds = time.perf_counter() - start
    process.returncode = code
    if process.stdin:
        process.stdin.close()
    stdout = b"" if stdout_path else out_path.read_bytes()
    stderr = err_path.read_bytes()
    out_path.unlink()
    err_path.unlink()
    return Run(process.returncode, stdout[:tail].decode("utf-8", "replace"), stderr[:tail].decode("utf-8", "replace"),
               seconds, peak_kb / 1024, len(stdout), len(stderr))


def _feed(process: subprocess.Popen[bytes], data: bytes) -> None:
    assert process.stdin is not None
    try:
        process.stdin.write(data)
    except (BrokenPipeError, OSError):
        pass
    finally:
        try:
            process.stdin.close()
        except OSError:
            pass


def _kill(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass
