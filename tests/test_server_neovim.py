"""A real editor as the client: headless Neovim (Debian's `neovim`, installed by .ci/run) runs
`kqlint server` for a YAML buffer; its diagnostics equal `kqlint check --format json`."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pygls")

FIXTURES = Path(__file__).parent / "fixtures" / "server"
NVIM = shutil.which("nvim")


@pytest.mark.skipif(NVIM is None, reason="nvim is not installed (.ci/run installs Debian's neovim when it can)")
def test_neovim_shows_what_check_reports(tmp_path: Path) -> None:
    root = tmp_path / "project"
    shutil.copytree(FIXTURES / "project", root)
    out = tmp_path / "diagnostics.json"
    env = {**os.environ, "KQ_OUT": str(out), "KQ_FILE": str(root / "job.yaml"), "KQ_ROOT": str(root),
           "KQ_CMD": json.dumps([sys.executable, "-m", "kqlint", "server"]), "XDG_CONFIG_HOME": str(tmp_path),
           "XDG_DATA_HOME": str(tmp_path), "XDG_STATE_HOME": str(tmp_path)}
    assert NVIM is not None
    subprocess.run([NVIM, "--headless", "-n", "-i", "NONE", "-u", str(FIXTURES / "nvim_init.lua")], cwd=root,
                   env=env, stdin=subprocess.DEVNULL, capture_output=True, timeout=180, check=False)
    shown = sorted(json.loads(out.read_text(encoding="utf-8")), key=lambda d: (d["lnum"], d["col"]))
    report = subprocess.run([sys.executable, "-m", "kqlint", "check", "job.yaml", "--format", "json"], cwd=root,
                            capture_output=True, text=True, check=False)
    lines = (root / "job.yaml").read_text(encoding="utf-8").splitlines()
    severity = {"error": 1, "warning": 2, "info": 3}
    expected = [{"lnum": f["line"] - 1, "col": len(lines[f["line"] - 1][:f["column"] - 1].encode("utf-8")),
                 "severity": severity[f["severity"]], "message": f["message"], "code": f["code"], "source": "kqlint"}
                for f in json.loads(report.stdout)["findings"]]
    assert len(expected) == 3
    assert shown == expected  # Neovim counts columns in bytes: the UTF-16 positions were converted exactly
