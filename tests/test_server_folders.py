"""kqlint.server.workspace.Folders: which workspace folder lints a file, and which kept
context a change on disk makes stale (no LSP: the classes the server uses)."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from kqlint.server.workspace import Folders

PROJECT = Path(__file__).parent / "fixtures" / "server" / "project"


def test_a_file_is_linted_in_the_innermost_folder_holding_it_else_beside_it(tmp_path: Path) -> None:
    outer, inner = tmp_path / "repo", tmp_path / "repo" / "team"
    folders = Folders([str(outer), str(inner)])
    assert folders.of(str(inner / "job.yaml")).root == str(inner)
    assert folders.of(str(outer / "other" / "job.yaml")).root == str(outer)
    assert folders.of(str(tmp_path / "elsewhere" / "job.yaml")).root == str(tmp_path / "elsewhere")
    assert folders.of(str(inner / "job.yaml")) is folders.of(str(inner / "a.yaml"))  # one Workspace per folder
    folders.remove(str(inner))
    assert folders.of(str(inner / "job.yaml")).root == str(outer)


def test_a_change_outside_a_kept_context_keeps_it_and_one_inside_drops_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    root, other = tmp_path / "a", tmp_path / "b"
    shutil.copytree(PROJECT, root)
    shutil.copytree(PROJECT, other)
    for folder in (root, other):
        (folder / ".git").mkdir()  # each its own repository: its manifests are its context
    folders = Folders([str(root), str(other)], use_cache=False)
    job = root / "job.yaml"
    workspace = folders.of(str(job))
    workspace.lint(str(job), job.read_bytes())
    kept = dict(workspace._contexts)
    assert kept
    folders.files_changed([str(other / "queues.yaml")])  # the other folder's: not this context
    assert workspace._contexts == kept
    folders.files_changed([str(root / "queues.yaml")])
    assert workspace._contexts == {}
    settings = workspace.settings()
    folders.files_changed([str(root / ".kqlint.yaml")])  # created: the configuration is read again
    assert workspace.settings() is not settings
