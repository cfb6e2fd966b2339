"""A real editor as the client: headless Neovim (Debian's `neovim`, 0.7.2, installed by
.ci/run) runs the README's Neovim snippet as written, which starts `kqlint server` for a YAML
buffer; its diagnostics equal `kqlint check --format json` (message, then remedy)."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pygls")

FIXTURES = Path(__file__).parent / "fixtures" / "server"
README = Path(__file__).resolve().parent.parent / "README.md"
NVIM = shutil.which("nvim")
SNIPPET = re.compile(r"^Neovim \(0\.7 or later.*?^```lua\n(.*?)^```", re.MULTILINE | re.DOTALL)


def readme_snippet() -> str:
    """The README's Neovim snippet, verbatim."""
    found = SNIPPET.search(README.read_text(encoding="utf-8"))
    assert found, "README.md has no Neovim snippet"
    return found.group(1)


@pytest.mark.skipif(NVIM is None, reason="nvim is not installed (.ci/run installs Debian's neovim when it can)")
def test_neovim_shows_what_check_reports(tmp_path: Path) -> None:
    root = tmp_path / "project"
    shutil.copytree(FIXTURES / "project", root)
    out = tmp_path / "diagnostics.json"
    snippet = tmp_path / "kqlint.lua"
    snippet.write_text(readme_snippet(), encoding="utf-8")
    # the snippet runs `kqlint server` from PATH: this interpreter's kqlint
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    env = {**os.environ, "PATH": path, "KQ_OUT": str(out), "KQ_FILE": str(root / "job.yaml"),
           "KQ_SNIPPET": str(snippet), "XDG_CONFIG_HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path),
           "XDG_STATE_HOME": str(tmp_path)}
    assert NVIM is not None
    subprocess.run([NVIM, "--headless", "-n", "-i", "NONE", "-u", str(FIXTURES / "nvim_init.lua")], cwd=root,
                   env=env, stdin=subprocess.DEVNULL, capture_output=True, timeout=180, check=False)
    result = json.loads(out.read_text(encoding="utf-8"))
    assert result["clients"] == 1 and result["root"] == str(root)  # rooted at the folder with .kqlint.yaml
    shown = sorted(result["diagnostics"], key=lambda d: (d["lnum"], d["col"]))
    report = subprocess.run([sys.executable, "-m", "kqlint", "check", "job.yaml", "--format", "json"], cwd=root,
                            capture_output=True, text=True, check=False)
    lines = (root / "job.yaml").read_text(encoding="utf-8").splitlines()
    severity = {"error": 1, "warning": 2, "info": 3}
    expected = [{"lnum": f["line"] - 1, "col": len(lines[f["line"] - 1][:f["column"] - 1].encode("utf-8")),
                 "severity": severity[f["severity"]], "code": f["code"], "source": "kqlint",
                 "message": f"{f['message']}. {f['remedy']}" if f.get("remedy") else f["message"]}
                for f in json.loads(report.stdout)["findings"]]
    assert len(expected) == 3
    assert shown == expected  # Neovim counts columns in bytes: the UTF-16 positions were converted exactly
