"""Which configuration file a run reads (cli.md "Configuration"): from the current directory
upwards, in each folder ``.kqlint.yaml``, then ``.kqlint.yml``, then ``[tool.kqlint]`` in
``pyproject.toml``; the first hit wins, and the search stops at the repository root (the
folder holding ``.git``)."""
from __future__ import annotations

import os
import re

from kqlint.config.settings import DEFAULT_MAX_FILE_SIZE

CONFIG_NAMES = (".kqlint.yaml", ".kqlint.yml")
_TOOL_SECTION_RE = re.compile(rb"^[ \t]*\[\[?[ \t]*tool[ \t]*\.[ \t]*\"?kqlint\"?[ \t]*[\].]", re.M)


def discover_config(start: str | None = None) -> str | None:
    from kqlint.project.discover import folders_up, is_repository_root

    for folder in folders_up(start or os.getcwd()):
        found = config_file_in(folder)
        if found is not None:
            return found
        if is_repository_root(folder):
            return None  # never above the project root: a parent folder's config is not this repository's
    return None


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


def _has_tool_section(pyproject: str) -> bool:
    from kqlint.project.bounded import ReadRefused, read_file

    try:
        return _TOOL_SECTION_RE.search(read_file(pyproject, DEFAULT_MAX_FILE_SIZE)) is not None
    except ReadRefused:
        return True  # named by discovery: load.py's TOML reading says what is wrong with it
    except OSError:
        return False
