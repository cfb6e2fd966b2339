"""The folder a run's paths are shown relative to and its relative names resolve from: the
current directory, unless the pipeline runs for another folder (each workspace folder of the
language server) and says so, without changing the process's current directory."""
from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_FOLDER: ContextVar[str | None] = ContextVar("kqlint_working_folder", default=None)


def working_folder() -> str:
    """The absolute folder this run works in."""
    return _FOLDER.get() or os.getcwd()


def absolute(path: str) -> str:
    """``path`` made absolute against the working folder (os.path.abspath against the cwd)."""
    return os.path.normpath(os.path.join(working_folder(), path))


@contextmanager
def working_in(folder: str | None) -> Iterator[None]:
    """Within the block, the run works in ``folder`` (None: the current directory)."""
    token = _FOLDER.set(os.path.abspath(folder) if folder else None)
    try:
        yield
    finally:
        _FOLDER.reset(token)
