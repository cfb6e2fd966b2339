"""What ``kqlint check`` does with a finished report: each fix as the text it changes, the
lines beside the report on stderr, the baseline, and the reports written to their targets."""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from kqlint.cli.app import STDOUT, Exit, emit, err

if TYPE_CHECKING:
    from kqlint.cache import FileCache
    from kqlint.config import Config
    from kqlint.model import Report


def with_text_fixes(report: Report, config: Config, cache: FileCache | None = None, jobs: int = 1,
                    beside: Callable[[], None] | None = None) -> Any:
    """Each fix as the text it changes (JSON, SARIF, the ``[*]`` marks); fixes that cannot be
    written safely are dropped. Files resolved by an earlier run are taken from ``cache``.
    ``beside()`` runs in this process while workers resolve fixes (if there are any)."""
    if not any(f.fix is not None for f in report.findings):
        return report
    from dataclasses import replace

    from kqlint.fix import resolve
    from kqlint.fix.passes import readable_input

    memo = None
    if cache is not None:
        from kqlint.cache.fixes import ResolvedFixes

        memo = ResolvedFixes(cache, frozenset(stream.file for stream in report.streams))
    findings = resolve(report.findings, readable_input(report.files, report.streams), config.namespace or "default",
                       jobs, memo, beside)
    if memo is not None:
        memo.save()
    return replace(report, findings=tuple(findings))


def report_stderr_lines(report: Report, paths: list[str], quiet: bool) -> None:
    """What the run says beside its report: warnings (misspelt directives, nothing to lint),
    then notes (no project root, paths skipped for safety) unless ``--quiet``."""
    from kqlint.cli import preflight

    for line in report.warnings:
        err(line)
    preflight.report_empty(report, paths, err)
    for note in () if quiet else report.notes:
        err(f"kqlint: note: {note}")


def apply_baseline(report: Report, baseline_file: str | None, write_file: str | None, quiet: bool) -> Any:
    """``--write-baseline``: accept every current finding; ``--baseline``: drop accepted ones."""
    if not baseline_file and not write_file:
        return report
    from kqlint.engine import baseline
    from kqlint.errors import BaselineError

    try:
        if write_file:
            count = baseline.write(write_file, report.findings)
            if not quiet:
                err(f"kqlint: wrote {count} finding(s) to the baseline {write_file}")
        accepted = baseline.load(write_file or baseline_file or "")
    except BaselineError as exc:
        raise Exit(2, f"kqlint: {exc}") from None
    kept, absorbed = baseline.apply(report, accepted)
    from dataclasses import replace

    return replace(kept, baselined=absorbed)


def write_reports(report: Report, targets: list[tuple[str, str]], *, color: bool, quiet: bool,
                   statistics: bool, **options: Any) -> None:
    from kqlint.cli.output import terminal_width
    from kqlint.reporters import render

    for name, target in targets:
        to_stdout = target == STDOUT
        width = terminal_width() if to_stdout and name == "text" else None
        try:  # colour (the --color decision) for the human formats on stdout, never in a file
            text = render(name, report, color=to_stdout and name in ("text", "concise") and color, quiet=quiet,
                          statistics=statistics, wrap=width, **options)
        except Exception as exc:
            from kqlint.errors import InternalError

            raise InternalError(f"the {name} report", exc) from exc
        emit(text, target)
