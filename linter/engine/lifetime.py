"""What a run keeps until its process exits, and how the command exits without freeing it.

Freeing a repository's parsed documents node by node costs about a tenth of a second per
10,000 documents, and a command that is about to exit gains nothing from it. The command
(kqlint.cli.boundary.entry) asks to keep what a run loads and exits without freeing it, as
mypy does; the Python API (kqlint.lint) frees it as usual.
"""
from __future__ import annotations

import os
import sys
from typing import Any

_kept: list[Any] | None = None  # a list while the command runs: what its latest run loaded


def keep_until_exit() -> None:
    """From now on, what a run loads stays referenced until ``exit_now``."""
    global _kept
    _kept = []


def keep(*loaded: Any) -> None:
    """Keep ``loaded`` (replacing what an earlier run of this process kept: a --fix pass)."""
    if _kept is not None:
        _kept[:] = loaded


def exit_now(status: int) -> None:
    """Flush the output and exit with ``status``, without freeing anything; under a profiler,
    a tracer or coverage, exit as usual so that they write what they measured."""
    if sys.getprofile() is not None or sys.gettrace() is not None:
        sys.exit(status)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # a closed pipe: nothing more can be said
            pass
    os._exit(status)
