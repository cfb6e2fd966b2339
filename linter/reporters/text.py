"""``--format text``: findings grouped by file, then a summary line (rich)."""
from __future__ import annotations

import io
from typing import Any

from kqlint.model import Report, Severity

_STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}


def render(report: Report, color: bool = False, statistics: bool = False, quiet: bool = False,
           width: int = 100, **_: Any) -> str:
    from rich.console import Console
    from rich.markup import escape

    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=color, no_color=not color, width=width,
                      highlight=False, soft_wrap=True)
    current = None
    for f in report.findings:
        if f.location.file != current:
            if current is not None:
                console.print()
            current = f.location.file
            console.print(f"[bold underline]{escape(current)}[/]")
        loc = f.location
        console.print(f"  {loc.line}:{loc.column}  [{_STYLE[f.severity]}]{f.severity.label}[/]  "
                      f"[bold]{f.code}[/] [dim]{f.slug}[/]  {escape(f.message)}")
        for related in f.related:
            note = f" {escape(related.message)}" if related.message else ""
            console.print(f"      [dim]related: {escape(related.file)}:{related.line}:{related.column}{note}[/]")
    if statistics and report.findings:
        _statistics(console, report)
    if not quiet or report.findings:
        _summary(console, report)
    return buffer.getvalue()


def _statistics(console: Any, report: Report) -> None:
    counts: dict[tuple[str, str], int] = {}
    for f in report.findings:
        counts[(f.code, f.slug)] = counts.get((f.code, f.slug), 0) + 1
    console.print()
    for (code, slug), count in sorted(counts.items()):
        console.print(f"{count:6d}  {code} {slug}")


def _summary(console: Any, report: Report) -> None:
    s = report.summary
    parts = ", ".join(f"{report.count(sev)} {sev.label}{'s' if report.count(sev) != 1 else ''}"
                      for sev in (Severity.ERROR, Severity.WARNING, Severity.INFO))
    if report.findings:
        console.print()
    console.print(f"{len(report.findings)} finding{'s' if len(report.findings) != 1 else ''} "
                  f"({parts}) in {s.files} file{'s' if s.files != 1 else ''}, {s.objects} objects"
                  + (f", {len(report.suppressed)} suppressed" if report.suppressed else ""))
