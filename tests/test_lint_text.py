"""The engine hook of the language server: Pipeline.lint_text lints an unsaved buffer's text
against a context loaded once, and reports what lint([path]) reports once the text is saved."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from kqlint.config import Config, load_config
from kqlint.engine.inputs import Loaded, context_paths, load_context
from kqlint.engine.pipeline import KeptContext, Pipeline, lint

PROJECT = Path(__file__).parent / "fixtures" / "server" / "project"


def _setup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Config, KeptContext]:
    root = tmp_path / "project"
    shutil.copytree(PROJECT, root)
    monkeypatch.chdir(root)
    config = load_config(str(root / ".kqlint.yaml"))
    named, _ = context_paths(["job.yaml"], (), config)
    return root, config, KeptContext(load_context(named, config, Loaded()))


def _seen(findings: tuple[object, ...]) -> list[tuple[object, ...]]:
    return [(f.code, f.location.file, f.location.line, f.location.column, f.message,  # type: ignore[attr-defined]
             tuple((r.file, r.line, r.column) for r in f.related)) for f in findings]  # type: ignore[attr-defined]


def test_unsaved_text_reports_what_lint_reports_once_saved(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root, config, kept = _setup(tmp_path, monkeypatch)
    pipeline = Pipeline(config)
    job = root / "job.yaml"
    edited = job.read_text(encoding="utf-8").replace("nvidia.com/gpu: 2", "nvidia.com/gpu: 1")
    before = _seen(pipeline.lint_text(str(job), job.read_text(encoding="utf-8").encode(), kept).findings)
    unsaved = _seen(pipeline.lint_text(str(job), edited.encode(), kept).findings)
    assert before == _seen(lint(["job.yaml"], config).findings)
    assert job.read_text(encoding="utf-8") != edited  # nothing written
    job.write_text(edited, encoding="utf-8")
    assert unsaved == _seen(lint(["job.yaml"], config).findings)
    assert [f[0] for f in unsaved] == ["KQ203", "KQ102"]  # KQ102: the PriorityClass is in the kept context
    assert unsaved[1][5] == (("classes.yaml", 6, 1),)


def test_oversized_text_is_kq001_as_the_saved_file_would_be(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root, config, kept = _setup(tmp_path, monkeypatch)
    from dataclasses import replace

    small = replace(config, max_file_size=64)
    job = root / "job.yaml"
    [finding] = Pipeline(small).lint_text(str(job), b"# " + b"x" * 100 + b"\n", kept).findings
    job.write_bytes(b"# " + b"x" * 100 + b"\n")
    [saved] = lint(["job.yaml"], small).findings
    assert (finding.code, finding.location.line, finding.location.column, finding.message) == (
        saved.code, saved.location.line, saved.location.column, saved.message)
    assert finding.code == "KQ001"
