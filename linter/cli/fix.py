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
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from kqlint.fix.passes import FixOutcome, fix_run, unified_diff


@dataclass(frozen=True)
class FixRequest:
    paths: list[str]
    config: Any
    context: tuple[str, ...]
    inline: bool
    rules: Sequence[Any]
    unsafe: bool
    diff: bool
    fix_only: bool
    quiet: bool
    jobs: int | None
    cache: Any = None


def run_fixes(request: FixRequest, lint: Callable[..., Any], err: Callable[[str], None]) -> tuple[Any, int | None]:
    """(the report to print, None) or (None, the exit status when nothing more is printed)."""
    if request.paths == ["-"]:
        outcome = _fix_stdin(request, lint)
    else:
        def lint_once() -> Any:
            return lint(request.paths, request.config, request.context, request.inline, request.rules,
                        progress=False, jobs=request.jobs, cache=request.cache)

        from kqlint.engine.parallel import default_jobs

        outcome = fix_run(lint_once, request.unsafe, not request.diff, request.config.namespace or "default",
                          report_needed=not request.fix_only, jobs=request.jobs or default_jobs())
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


def _diff(outcome: FixOutcome, request: FixRequest, err: Callable[[str], None]) -> tuple[Any, int]:
    from kqlint.project.writer import write_stdout

    text = outcome.diff()
    if text:
        write_stdout(text)
    if not request.quiet:
        err(f"kqlint: would {outcome.summary().replace('fixed', 'fix', 1)}" if outcome.fixed
            else "kqlint: no fixes to apply")
    return None, 3 if outcome.report.internal_errors else (1 if outcome.files else 0)


def _fix_stdin(request: FixRequest, lint: Callable[..., Any]) -> FixOutcome:
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
    report = lint(["-"], request.config, request.context, request.inline, request.rules,
                  progress=False, jobs=request.jobs, cache=None)
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
                outcome.report = lint(["-"], request.config, request.context, request.inline, request.rules,
                                      progress=False, jobs=request.jobs, cache=None)
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


def _stdin_display(config: Any) -> str | None:
    name = getattr(config, "stdin_filename", None)
    if not name:
        return None
    from kqlint.project.discover import display_path

    return str(display_path(name))


__all__ = ["FixRequest", "run_fixes", "unified_diff"]
