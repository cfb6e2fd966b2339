"""Every error kqlint reports on purpose, in one hierarchy.

The CLI sorts them by class alone (``kqlint.cli.boundary._handle``): a :class:`UserError` is one line
and exit 2, an :class:`InternalError` is a bug (one line and exit 3). Modules raise these;
they never import each other to reach an exception class, which is what caused the hidden
import cycles config <-> custom and config <-> profiles.
"""
from __future__ import annotations

import sys


class KqlintError(Exception):
    """Base of every error kqlint raises on purpose."""


class UserError(KqlintError):
    """Something the user can fix (a flag, a file, a setting): one line, exit 2."""


class ConfigError(UserError):
    """A configuration problem: reported as one line (file:line:col: message), exit 2."""


class UsageError(UserError):
    """Bad paths or flags: one line, exit 2."""


class RegistryError(UserError):
    """A plugin or rule module that cannot be used (a configuration error, exit 2)."""


class CrdError(UserError):
    """A ``--crd`` path that is missing, unparsable or holds no CRD (a usage error, exit 2)."""


class BaselineError(UserError):
    """A baseline file that cannot be read or is not a kqlint baseline (exit 2)."""


class InternalError(KqlintError):
    """A bug in kqlint while processing ``file`` (a file, a folder, a report): the CLI prints
    one line and exits 3."""

    def __init__(self, file: str, error: BaseException) -> None:
        super().__init__(f"{type(error).__name__}: {error}")
        self.file = file

    @property
    def where(self) -> str:
        return self.file


__all__ = ["KqlintError", "UserError", "ConfigError", "UsageError", "RegistryError", "CrdError",
           "BaselineError", "InternalError"]


# ------------------------------------------------------------------ notes said once per run

class _Notes:
    said: set[str] = set()
    held: list[str] | None = None  # in a --jobs worker: the notes it found, sent to the parent at its end


def note_once(line: str) -> None:
    """``line`` on stderr once per run, whichever process finds it: a --jobs worker holds it
    for the parent (kqlint.engine.parallel), which says what no process said yet."""
    if line in _Notes.said:
        return
    _Notes.said.add(line)
    if _Notes.held is not None:
        _Notes.held.append(line)
        return
    try:
        print(line, file=sys.stderr)
    except (OSError, ValueError):
        pass


def hold_notes() -> None:
    """This process is a --jobs worker: notes wait for ``held_notes``."""
    _Notes.held = []


def held_notes() -> list[str]:
    return list(_Notes.held or [])
