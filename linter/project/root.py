"""Where a project starts: the repository root (the folder holding ``.git``), the project root
(cli.md "Project root and context") and the configuration file a folder holds; the one upward
walk behind all three."""
from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator

CONFIG_NAMES = (".kqlint.yaml", ".kqlint.yml")
_TOOL_SECTION_RE = re.compile(rb"^[ \t]*\[\[?[ \t]*tool[ \t]*\.[ \t]*\"?kqlint\"?[ \t]*[\].]", re.M)


def project_root(start: str) -> str | None:
    """The project root (cli.md "Project root and context"): the nearest folder at or above
    ``start`` holding ``.git``, else the nearest holding a kqlint configuration; None when
    neither exists (a source export, a container build context without either)."""
    return repository_root(start) or _nearest(start, holds_config)


def repository_root(start: str) -> str | None:
    """Nearest ancestor of ``start`` (itself included) holding ``.git``."""
    return _nearest(start, is_repository_root)


def is_repository_root(folder: str) -> bool:
    return os.path.exists(os.path.join(folder, ".git"))


def holds_config(folder: str) -> bool:
    """``folder`` holds a kqlint configuration (``.kqlint.yaml``/``.yml``, or a
    ``pyproject.toml`` with a ``[tool.kqlint]`` table)."""
    return config_file_in(folder) is not None


def config_file_in(folder: str) -> str | None:
    """The configuration file ``folder`` holds, if any."""
    for name in CONFIG_NAMES:
        candidate = os.path.join(folder, name)
        if os.path.isfile(candidate):
            return candidate
    pyproject = os.path.join(folder, "pyproject.toml")
    if os.path.isfile(pyproject) and _has_tool_section(pyproject):
        return pyproject
    return None


def folders_up(start: str) -> Iterator[str]:
    """``start`` (made absolute) and every folder above it, nearest first: the one upward
    walk behind the project root, the repository root and config discovery."""
    probe = os.path.abspath(start)
    while True:
        yield probe
        parent = os.path.dirname(probe)
        if parent == probe:
            return
        probe = parent


def _nearest(start: str, holds: Callable[[str], bool]) -> str | None:
    return next((folder for folder in folders_up(start) if holds(folder)), None)


def _has_tool_section(pyproject: str) -> bool:
    from kqlint.project.bounded import DEFAULT_MAX_FILE_SIZE, ReadRefused, read_file

    try:
        return _TOOL_SECTION_RE.search(read_file(pyproject, DEFAULT_MAX_FILE_SIZE)) is not None
    except ReadRefused:
        return True  # named by discovery: load.py's TOML reading says what is wrong with it
    except OSError:
        return False
