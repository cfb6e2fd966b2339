"""``--format concise`` (``--output-format concise``): one finding per line,
``path:line:col: severity CODE [slug] message``, the form editors, terminals and grep
understand; related locations are left out (they are in the full text, JSON and SARIF
reports). A summary line follows unless ``--quiet``."""
from __future__ import annotations

from typing import Any

from kqlint.model import Finding, Report, Severity
from kqlint.reporters.remedy import fixable, fixable_footer, with_remedy
from kqlint.sanitize import terminal_safe

# ANSI SGR codes, as the text report's styles (bold red, yellow, cyan): no rich on this path
_SEVERITY = {Severity.ERROR: "1;31", Severity.WARNING: "33", Severity.INFO: "36"}


def _sgr(text: str, code: str, color: bool) -> str:
    return f"\x1b[{code}m{text}\x1b[0m" if color else text


def line(finding: Finding, unsafe_fixes: bool = False, color: bool = False) -> str:
    """One finding; with ``color`` the path bold, the severity in its colour, the code bold
    (the text is made terminal-safe before the colour codes are added)."""
    loc = finding.location
    message = terminal_safe(" ".join(with_remedy(finding).split()))
    mark = "[*] " if fixable(finding, unsafe_fixes) else ""
    where = _sgr(terminal_safe(f"{loc.file}:{loc.line}:{loc.column}:"), "1", color)
    severity = _sgr(finding.severity.label, _SEVERITY[finding.severity], color)
    code = _sgr(terminal_safe(finding.code), "1", color)
    return f"{where} {severity} {code} [{terminal_safe(finding.slug)}] {mark}{message}"


def render(report: Report, quiet: bool = False, unsafe_fixes: bool = False, color: bool = False,
           **_: Any) -> str:
    lines = [line(f, unsafe_fixes, color) for f in report.findings]
    if not quiet or lines:
        count = len(report.findings)
        lines.append(f"Found {count} finding{'' if count == 1 else 's'} in {report.summary.files} "
                     f"file{'' if report.summary.files == 1 else 's'}.")
        footer = fixable_footer(report.findings, unsafe_fixes)
        if footer:
            lines.append(f"[*] {footer}.")
    return "\n".join(lines) + ("\n" if lines else "")
