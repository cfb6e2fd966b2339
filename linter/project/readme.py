"""READMEs, which mark the folders of a repository of independent samples (rules.md "Applied
together"): found without importing the scope machinery, so a warm run's cache key stays cheap."""
from __future__ import annotations

import os
from collections.abc import Iterable


def holds_readme(folder: str) -> bool:
    """``folder`` holds a file named README (any case, any extension)."""
    try:
        with os.scandir(folder) as entries:
            return any(entry.name[:6].lower() == "readme" and entry.is_file() for entry in entries)
    except OSError:
        return False


def readme_folders(files: Iterable[str], top: str) -> tuple[str, ...]:
    """The folders above ``files`` (absolute), below ``top``, that hold a README."""
    seen: set[str] = set()
    for file in files:
        folder = os.path.dirname(file)
        while folder not in seen and folder != top and folder.startswith(top.rstrip(os.sep) + os.sep):
            seen.add(folder)
            folder = os.path.dirname(folder)
    return tuple(sorted(folder for folder in seen if holds_readme(folder)))


def sample_markers(files: Iterable[str]) -> tuple[str, ...]:
    """The folders above ``files`` (up to their project root) holding a README: what, beside
    the files themselves, decides which folders are independent samples (a run's cache key)."""
    from kqlint.project.discover import scope_top

    named = sorted({os.path.abspath(f) for f in files if f and not f.startswith("<")})
    return readme_folders(named, scope_top(named)) if named else ()
