"""Say something when nothing (or less than asked) would happen, before and after a run.

Errors (exit 2, as for any missing path): a ``--context`` path that does not exist, a
``--namespace`` that is not a valid namespace name. Warnings on stderr: a path named on the
command line that ``exclude`` removes, a ``--select`` naming a profile rule whose profile is
not enabled, and an empty input (no manifests in the named paths)."""
from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from kqlint.sanitize import terminal_safe

if TYPE_CHECKING:
    from kqlint.config import Config
    from kqlint.model import Report

_SHOWN_GLOBS = 3  # a warning names at most this many of the globs that matched
_NAMESPACE = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")


class PreflightError(Exception):
    pass


def check(paths: list[str], config: Config, context: Iterable[str], warn: Callable[[str], None],
          rules: Iterable[Any] = ()) -> None:
    for path in context:
        if not os.path.exists(path):
            raise PreflightError(f"--context path does not exist: {terminal_safe(path)}")
    namespace = config.namespace
    if namespace and (len(namespace) > 63 or not _NAMESPACE.match(namespace)):
        raise PreflightError(f"--namespace {terminal_safe(namespace)!r} is not a valid namespace name "
                             f"(lowercase letters, digits and '-', at most 63 characters)")
    _warn_excluded(paths, config, warn)
    for rule in rules:
        profile = rule.meta.profile
        if profile and profile != config.profile and any(
                name.strip().upper() == rule.code or name.strip().lower() == rule.slug for name in config.select):
            warn(f"kqlint: warning: --select {rule.code} ({rule.slug}) selects a rule of the {profile} profile, "
                 f"which runs only with --profile {profile} (or `profile: {profile}` in the config)")


def _warn_excluded(paths: list[str], config: Config, warn: Callable[[str], None]) -> None:
    """A path named on the command line that ``exclude`` removes is not linted: say so, naming
    the globs that matched as they were written, unless ``force-exclude`` asks for silence
    (pre-commit names every staged file, excluded or not)."""
    if config.force_exclude or not config.exclude:
        return
    from kqlint.project.discover import STDIN, excluded_by, is_excluded

    for path in paths:
        if path == STDIN or not os.path.exists(path) or not is_excluded(path, config.exclude):
            continue
        globs = excluded_by(path, config.exclude)
        shown = ", ".join(terminal_safe(_as_written(glob, config)) for glob in globs[:_SHOWN_GLOBS])
        if len(globs) > _SHOWN_GLOBS:
            shown += f" and {len(globs) - _SHOWN_GLOBS} more"
        warn(f"kqlint: warning: {terminal_safe(path)} is named on the command line but matches the exclude "
             f"glob{'s' if len(globs) > 1 else ''} {shown}; it is not linted (force-exclude silences this)")


def _as_written(glob: str, config: Config) -> str:
    """A config ``exclude`` glob as its file spells it (kqlint anchors one with a ``/`` at the
    config file's folder); a ``--exclude`` glob is kept as typed."""
    from kqlint.config.validate import anchored

    path = config.path
    if config.origin is None or path is None:
        return glob
    written = config.origin.data.get("exclude")
    for entry in written if isinstance(written, list) else ():
        if isinstance(entry, str) and anchored(entry, path) == glob:
            return entry
    return glob


def report_empty(report: Report, paths: list[str], warn: Callable[[str], None], config: Config) -> None:
    """Nothing was linted: say so, unless ``force-exclude`` asked for silence about the paths
    named on the command line and every one of them is excluded."""
    if report.summary.files or report.findings or (config.force_exclude and _all_excluded(paths, config)):
        return
    named = " ".join(terminal_safe(p) for p in paths)
    warn(f"kqlint: warning: nothing to lint: no .yaml, .yml or .json files in {named} "
         f"(or every one is excluded)")


def _all_excluded(paths: list[str], config: Config) -> bool:
    from kqlint.project.discover import STDIN, is_excluded

    return all(path != STDIN and is_excluded(path, config.exclude) for path in paths)
