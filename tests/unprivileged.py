"""Run Python in a child process that file modes bind even when the tests run as root.

Root reads every file and folder whatever its mode (capabilities CAP_DAC_OVERRIDE and
CAP_DAC_READ_SEARCH), so a test of an unreadable file would have to skip under root, which
is how CI runs. The child keeps uid 0 (it still reads the virtualenv and the test's folder)
but drops both capabilities from its bounding set before it executes Python, so the new
program starts without them and a mode-0 file is refused to it as to any user.
"""
from __future__ import annotations

import ctypes
import os
import subprocess
import sys
from pathlib import Path

PR_CAPBSET_DROP = 24  # <linux/prctl.h>
CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH = 1, 2  # <linux/capability.h>


def _drop_mode_override() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH):
        if libc.prctl(PR_CAPBSET_DROP, capability, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), f"prctl(PR_CAPBSET_DROP, {capability})")


def python(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """``python ARGS`` in ``cwd``, bound by file modes (as root too: see the module docstring)."""
    as_root = hasattr(os, "geteuid") and os.geteuid() == 0
    return subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True, timeout=120,
                          check=False, preexec_fn=_drop_mode_override if as_root else None)
