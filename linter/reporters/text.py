"""``--format text``: findings grouped by file (code, slug, message, related lines), then
a summary line. Rendered with rich; plain text unless ``color`` (the CLI decides: a TTY,
no ``--no-color``, no ``NO_COLOR``). Fixed width and soft wrap keep it deterministic."""
from __future__ import annotations

import io
from typing import Any

from kqlint.model import Finding, Report, Severity

_STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}
_ORDER = (Severity.ERROR, Severity.WARNING, Severity.INFO)


def render(report: Report, color: bool = False, statistics: bool = False, quiet: bool = False,
           width: int = 100, **_: Any) -> str:
    from rich.console import Console

    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=color, no_color=not color, width=width,
                      highlight=False, soft_wrap=True, emoji=False, color_system="standard" if color else None)
    current = None
    for finding in report.findings:
        if finding.location.file != current:
            if current is not None:
                console.print()
            current = finding.location.file
            console.print(f"[bold underline]{_esc(current)}[/]")
        _finding(console, finding)
    if statistics and (report.findings or report.platform):
        _statistics(console, report)
    if not quiet or report.findings:
        _summary(console, report)
    return buffer.getvalue()


def _esc(text: str) -> str:
    from rich.markup import escape

    return escape(text)


def _finding(console: Any, f: Finding) -> None:
    loc = f.location
    message = "\n      ".join(f.message.splitlines())  # continuation lines stay under the finding
    console.print(f"  {loc.line}:{loc.column}  [{_STYLE[f.severity]}]{f.severity.label}[/]  "
                  f"[bold]{_esc(f.code)}[/] [dim]{_esc(f.slug)}[/]  {_esc(message)}")
    for related in f.related:
        note = f"  {_esc(related.message)}" if related.message else ""
        console.print(f"      [dim]related: {_esc(related.file)}:{related.line}:{related.column}[/]{note}")


def _statistics(console: Any, report: Report) -> None:
    counts: dict[tuple[str, str], int] = {}
    for f in report.findings:
        counts[(f.code, f.slug)] = counts.get((f.code, f.slug), 0) + 1
    console.print()
    for (code, slug), count in sorted(counts.items()):
        console.print(f"{count:6d}  {_esc(code)} {_esc(slug)}")
    for line in report.platform:  # what the rules assumed about the cluster
        console.print(f"platform: {_esc(line)}")


def _plural(count: int, word: str, plural: str | None = None) -> str:
    return f"{count} {word if count == 1 else (plural or word + 's')}"


def _summary(console: Any, report: Report) -> None:
    s = report.summary
    parts = ", ".join(_plural(report.count(sev), sev.label, "info" if sev is Severity.INFO else None)
                      for sev in _ORDER)
    line = (f"{_plural(len(report.findings), 'finding')} ({parts}) in {_plural(s.files, 'file')}, "
            f"{_plural(s.objects, 'object')}")
    if s.skipped_documents:
        line += f", {_plural(s.skipped_documents, 'non-Kubernetes document')} skipped"
    if report.suppressed:
        line += f", {len(report.suppressed)} suppressed"
    if report.findings:
        console.print()
    console.print(_esc(line))
