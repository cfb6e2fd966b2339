"""``--format github``: GitHub Actions workflow commands (annotations on the diff).

One line per finding: ``::error file=…,line=…,col=…,title=KQ101::message``, the file named
from the project root (the repository's spelling, wherever kqlint ran). Data is
escaped for ``%``, CR and LF; properties additionally for ``:`` and ``,`` (the rules
of the Actions runner's command parser). Related locations follow the message on
their own (escaped) lines.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kqlint.model import Finding, Report, Severity

_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def escape_data(text: str) -> str:
    from kqlint.sanitize import terminal_safe  # the other control, bidi and undecodable characters

    return terminal_safe(text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"))


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(finding: Finding, path: Callable[[str], str] = str) -> str:
    """``path``: the repository's spelling of a displayed path (kqlint.reporters.paths)."""
    loc = finding.location
    props = (f"file={escape_property(path(loc.file))},line={loc.line},col={loc.column},"
             f"title={escape_property(finding.code)}")
    from kqlint.reporters.remedy import with_remedy

    text = f"{with_remedy(finding)} ({finding.code} {finding.slug})"
    for related in finding.related:
        note = f": {related.message}" if related.message else ""
        text += f"\nrelated: {path(related.file)}:{related.line}:{related.column}{note}"
    return f"::{_LEVEL[finding.severity]} {props}::{escape_data(text)}"


def render(report: Report, **_: Any) -> str:
    from kqlint.reporters.paths import repository_paths

    path = repository_paths(report)
    lines = [command(f, path) for f in report.findings]
    return "\n".join(lines) + ("\n" if lines else "")
