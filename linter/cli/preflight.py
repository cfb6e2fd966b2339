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
    from kqlint.project.discover import STDIN, is_excluded

    for path in paths:
        if path != STDIN and os.path.exists(path) and is_excluded(path, config.exclude):
            warn(f"kqlint: warning: {terminal_safe(path)} is named on the command line but matches an "
                 f"exclude glob ({', '.join(terminal_safe(g) for g in config.exclude)}); it is not linted")
    for rule in rules:
        profile = rule.meta.profile
        if profile and profile != config.profile and any(
                name.strip().upper() == rule.code or name.strip().lower() == rule.slug for name in config.select):
            warn(f"kqlint: warning: --select {rule.code} ({rule.slug}) selects a rule of the {profile} profile, "
                 f"which runs only with --profile {profile} (or `profile: {profile}` in the config)")


def report_empty(report: Report, paths: list[str], warn: Callable[[str], None]) -> None:
    if report.summary.files == 0 and not report.findings:
        named = " ".join(terminal_safe(p) for p in paths)
        warn(f"kqlint: warning: nothing to lint: no .yaml, .yml or .json files in {named} "
             f"(or every one is excluded)")
