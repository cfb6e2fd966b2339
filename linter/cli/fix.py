"""The CLI side of ``check --fix`` / ``--diff`` / ``--fix-only`` (kqlint.fix.passes does the work).

- ``--fix``: fixes written, then the report of what is left (exit status as for ``check``);
- ``--diff``: a unified diff on stdout, nothing written, exit 1 when there is a change;
- ``--fix-only``: fixes written, no report, exit 0 (3 on an internal error);
- with ``-`` (stdin): one pass over the stream; the fixed stream (or its diff) goes to stdout
  and the report to stderr. A stream split by Helm ``# Source:`` comments is not fixed.
"""
from __future__ import annotations

import io
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kqlint.fix.passes import FixOutcome, fix_run, unified_diff

if TYPE_CHECKING:
    from kqlint.config import Config
    from kqlint.engine.pipeline import Pipeline
    from kqlint.model import Report


@dataclass(frozen=True)
class FixRequest:
    paths: list[str]
    pipeline: Pipeline
    context: tuple[str, ...]
    inline: bool
    unsafe: bool
    diff: bool
    fix_only: bool
    quiet: bool
    jobs: int

    @property
    def config(self) -> Config:
        return self.pipeline.config

    def lint(self) -> Report:
        """One lint of the request's paths (again after each pass of fixes)."""
        from kqlint.cli.progress import guarded_lint

        return guarded_lint(self.pipeline, self.paths, self.context, self.inline, jobs=self.jobs)


def run_fixes(request: FixRequest, err: Callable[[str], None]) -> tuple[Report | None, int | None]:
    """(the report to print, None) or (None, the exit status when nothing more is printed)."""
    if request.paths == ["-"]:
        outcome = _fix_stdin(request)
    else:
        with request.pipeline.fix_passes():  # a pass parses only the files the last one changed
            outcome = fix_run(request.lint, request.unsafe, not request.diff, request.config.namespace or "default",
                              report_needed=not request.fix_only, jobs=request.jobs)
    for note in outcome.notes:
        err(f"kqlint: {note}")
    if request.diff:
        return _diff(outcome, request, err)
    if not request.quiet:
        err(f"kqlint: {outcome.summary()}")
    if request.fix_only:
        for line in outcome.report.internal_errors:
            err(f"kqlint: {line}")
        return None, 3 if outcome.report.internal_errors else 0
    return outcome.report, None


def _diff(outcome: FixOutcome, request: FixRequest, err: Callable[[str], None]) -> tuple[Report | None, int]:
    from kqlint.project.writer import write_stdout

    text = outcome.diff()
    if text:
        write_stdout(text)
    if not request.quiet:
        err(f"kqlint: would {outcome.summary().replace('fixed', 'fix', 1)}" if outcome.fixed
            else "kqlint: no fixes to apply")
    return None, 3 if outcome.report.internal_errors else (1 if outcome.files else 0)


def _fix_stdin(request: FixRequest) -> FixOutcome:
    """One pass over the stream; the fixed stream (or the diff) is written to stdout here."""
    from kqlint.fix import fix_file
    from kqlint.fix.passes import _encoded, fixable
    from kqlint.project.bounded import ReadRefused, read_stream
    from kqlint.project.stdin import STDIN_NAME
    try:
        raw = read_stream(sys.stdin.buffer, request.config.max_file_size)
    except ReadRefused:
        raw = b""
    sys.stdin = io.TextIOWrapper(io.BytesIO(raw))  # the lint reads the same bytes
    report = request.lint()
    outcome = FixOutcome(report)
    name = _stdin_display(request.config) or STDIN_NAME
    findings = [f for f in report.findings if fixable(f, request.unsafe) and f.location.file == name]
    fixed = raw
    if findings and set(report.files) == {name}:
        result = fix_file(raw, name, findings, request.config.namespace or "default")
        if result.applied:
            fixed = _encoded(raw, result.text)
            outcome.fixed.update(f.code for f in result.applied)
            outcome.files[name] = (raw, fixed)
            if not request.diff:  # the report is of the stream as printed
                sys.stdin = io.TextIOWrapper(io.BytesIO(fixed))
                outcome.report = request.lint()
    if not request.diff:
        _write_bytes(fixed)
    return outcome


def _write_bytes(data: bytes) -> None:
    from kqlint.project.writer import OutputError

    stream = getattr(sys.stdout, "buffer", None)
    if stream is None:
        raise OutputError("cannot write the fixed stream: stdout is closed")
    try:
        sys.stdout.flush()
        stream.write(data)
        stream.flush()
    except (OSError, ValueError) as exc:
        raise OutputError(f"cannot write the fixed stream to stdout: {exc}") from None


def _stdin_display(config: Config) -> str | None:
    name = getattr(config, "stdin_filename", None)
    if not name:
        return None
    from kqlint.project.discover import display_path

    return str(display_path(name))


__all__ = ["FixRequest", "run_fixes", "unified_diff"]
