"""A second real editor as the client: Emacs (Debian's emacs-nox 28 with elpa-eglot and
elpa-yaml-mode, installed by .ci/run) in batch loads the README's Emacs snippet as written,
opens a YAML file and receives from `kqlint server` what the language server test expects."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pygls")

FIXTURES = Path(__file__).parent / "fixtures" / "server"
README = Path(__file__).resolve().parent.parent / "README.md"
EMACS = shutil.which("emacs")
SNIPPET = re.compile(r"^Emacs \(eglot.*?^```elisp\n(.*?)^```", re.MULTILINE | re.DOTALL)


def _eglot_installed() -> bool:
    if EMACS is None:
        return False
    probe = subprocess.run([EMACS, "--batch", "-q", "--eval",
                            "(progn (package-initialize) (require 'eglot) (require 'yaml-mode))"],
                           capture_output=True, timeout=60, check=False, env={**os.environ, "HOME": "/nonexistent"})
    return probe.returncode == 0


@pytest.mark.skipif(not _eglot_installed(),
                    reason="emacs with eglot and yaml-mode is not installed (.ci/run installs Debian's when it can)")
def test_emacs_eglot_shows_what_check_reports(tmp_path: Path) -> None:
    from test_server import expected_diagnostics

    found = SNIPPET.search(README.read_text(encoding="utf-8"))
    assert found, "README.md has no Emacs snippet"
    snippet = tmp_path / "kqlint.el"
    snippet.write_text(found.group(1), encoding="utf-8")
    root = tmp_path / "project"
    shutil.copytree(FIXTURES / "project", root)
    out = tmp_path / "diagnostics.json"
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])  # this kqlint
    env = {**os.environ, "PATH": path, "HOME": str(tmp_path), "KQ_SNIPPET": str(snippet),
           "KQ_FILE": str(root / "job.yaml"), "KQ_OUT": str(out)}
    assert EMACS is not None
    subprocess.run([EMACS, "--batch", "-q", "-l", str(FIXTURES / "emacs_harness.el")], cwd=root, env=env,
                   stdin=subprocess.DEVNULL, capture_output=True, timeout=180, check=False)
    result: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    assert result["mode"] == "yaml-mode" and result["uri"] == (root / "job.yaml").as_uri()
    shown = [{"code": d["code"], "message": d["message"], "start": {"line": d["line"], "character": d["character"]}}
             for d in result["diagnostics"]]
    expected = [{"code": d["code"], "message": d["message"], "start": d["start"]}
                for d in expected_diagnostics(root, "job.yaml")]
    assert len(expected) == 3 and shown == expected
