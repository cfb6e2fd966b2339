from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
SHARED = ROOT.parent / "shared"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-golden", action="store_true", help="rewrite golden report files")


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-golden"))


def shared_dir(name: str) -> Path:
    """A folder of ../shared, or skip: a user's clone has no ../shared."""
    path = SHARED / name
    if not path.is_dir():
        pytest.skip(f"../shared/{name} is not present (only in the kqlint development workspace)")
    return path


@pytest.fixture
def in_tmp_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture(autouse=True)
def _no_github_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    os.environ.setdefault("NO_COLOR", "1")


@pytest.fixture(autouse=True)
def _private_cache_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test gets its own empty cache folder: no test reads another's cache or writes one
    into the repository or its inputs (tests/test_cache.py sets its own)."""
    monkeypatch.setenv("KQLINT_CACHE_DIR", str(tmp_path_factory.mktemp("kqlint-cache")))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("xdg-cache")))  # the default's home


@pytest.fixture
def examples_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git-like project (``.git`` marks its root) holding the examples, as the current
    directory, with its cache where it goes by default (no KQLINT_CACHE_DIR: in XDG_CACHE_HOME)."""
    import shutil

    project = tmp_path / "project"
    shutil.copytree(Path(__file__).resolve().parent.parent / "examples", project)
    (project / ".git").mkdir()
    monkeypatch.delenv("KQLINT_CACHE_DIR", raising=False)
    monkeypatch.chdir(project)
    return project

