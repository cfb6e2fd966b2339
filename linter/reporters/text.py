"""``--format text`` (``--output-format full``): findings grouped by file, then a summary line.

Each finding: ``line:col  severity  CODE slug  message``; under it a code frame (the offending
line of the file with carets under the YAML token, as ruff and rustc print it) when the file
can be read, the remedy on its own ``help:`` line (kqlint.reporters.remedy), then related
locations. Rendered with rich; plain text unless ``color`` (the CLI decides: ``--color``,
``NO_COLOR``, ``FORCE_COLOR``, a TTY). ``wrap`` (the terminal's width; None when piped)
wraps messages under their indent; piped output keeps one message per line. Every string
from the input passes through kqlint.sanitize.terminal_safe."""
from __future__ import annotations

import io
import textwrap
from typing import Any

from kqlint.model import Finding, ObjectRef, Report, Severity
from kqlint.reporters.remedy import fixable, fixable_footer, split_remedy
from kqlint.reporters.source import SourceLines, token_end
from kqlint.sanitize import safe_lines, terminal_safe

_STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}
_ORDER = (Severity.ERROR, Severity.WARNING, Severity.INFO)


_INDENT = "      "
_RELATED_INDENT = _INDENT + "  "  # a related note's continuation lines, under "related:"
_MAX_FRAME = 160


def render(report: Report, color: bool = False, statistics: bool = False, quiet: bool = False,
           width: int = 100, wrap: int | None = None, unsafe_fixes: bool = False, **_: Any) -> str:
    from rich.console import Console

    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=color, no_color=not color, width=width,
                      highlight=False, soft_wrap=True, emoji=False, color_system="standard" if color else None)
    current = None
    sources = SourceLines(report.streams)
    for finding in report.findings:
        if finding.location.file != current:
            if current is not None:
                console.print()
            current = finding.location.file
            console.print(f"[bold underline]{_esc(current)}[/]")
        _finding(console, finding, sources, wrap, unsafe_fixes)
    if statistics and (report.findings or report.platform):
        _statistics(console, report)
    if not quiet or report.findings:
        _summary(console, report)
        footer = fixable_footer(report.findings, unsafe_fixes)
        if footer:
            console.print(_esc(f"[*] {footer}"))
    return buffer.getvalue()


def _esc(text: str) -> str:
    from rich.markup import escape

    return escape(safe_lines(text))  # kqlint's own line breaks stay; everything else escaped


def _wrapped(text: str, first_indent: int, wrap: int | None, continuation: str = _INDENT) -> str:
    """``text`` (already one paragraph per line) wrapped to ``wrap`` columns, continuation
    lines indented by ``continuation`` (under the finding); unchanged when ``wrap`` is None."""
    lines = text.splitlines() or [""]
    if wrap is None:
        return ("\n" + continuation).join(lines)
    out: list[str] = []
    for number, paragraph in enumerate(lines):
        indent = first_indent if number == 0 else len(continuation)
        parts = textwrap.wrap(paragraph, width=max(20, wrap - 1), initial_indent=" " * indent,
                              subsequent_indent=continuation, break_on_hyphens=False) or [" " * indent]
        parts[0] = parts[0][indent:]
        out.append("\n".join(parts))
    return ("\n" + _INDENT).join(out)


def _finding(console: Any, f: Finding, sources: SourceLines, wrap: int | None, unsafe_fixes: bool) -> None:
    loc = f.location
    problem, remedy = split_remedy(f)
    mark = " [*]" if fixable(f, unsafe_fixes) else ""
    head = f"  {loc.line}:{loc.column}  {f.severity.label}  {f.code}{mark} {f.slug}  "
    message = _wrapped(problem, len(head), wrap)
    console.print(f"  {loc.line}:{loc.column}  [{_STYLE[f.severity]}]{f.severity.label}[/]  "
                  f"[bold]{_esc(f.code)}[/]{_esc(mark)} [dim]{_esc(f.slug)}[/]  {_esc(message)}")
    _frame(console, sources, loc.file, loc.line, loc.column, f.obj or loc.obj)
    if remedy:
        help_text = _wrapped(remedy, len(_INDENT) + len("help: "), wrap)
        console.print(f"{_INDENT}[bold cyan]help:[/] {_esc(help_text)}")
    for related in f.related:
        where = f"related: {related.file}:{related.line}:{related.column}"
        note = ""
        if related.message:  # wrapped like the message, continuation lines under the note's start
            note = "  " + _esc(_wrapped(related.message, len(_INDENT) + len(where) + 2, wrap, _RELATED_INDENT))
        console.print(f"{_INDENT}[dim]{_esc(where)}[/]{note}")


def _frame(console: Any, sources: SourceLines, file: str, line: int, column: int, obj: ObjectRef | None) -> None:
    """The offending line with carets under the token at ``column`` (nothing when the file
    cannot be read, or the line is blank or very long); stdin's from the stream (``obj``: the
    finding's object, which tells apart documents that carry one template's name)."""
    text = sources.line(file, line, obj)
    if text is None or not text.strip() or len(text) > _MAX_FRAME or column > len(text) + 1:
        return
    text = terminal_safe(text.expandtabs(1).rstrip())
    end = token_end(text, column) or column + 1
    gutter = " " * len(str(line))
    console.print(f"{_INDENT}[dim]{line} |[/] {_esc(text)}")
    console.print(f"{_INDENT}[dim]{gutter} |[/] {' ' * (column - 1)}[bold]{'^' * max(1, end - column)}[/]")


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
