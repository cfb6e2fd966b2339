"""``--format concise`` (``--output-format concise``): one finding per line,
``path:line:col: severity CODE [slug] message``, the form editors, terminals and grep
understand; related locations are left out (they are in the full text, JSON and SARIF
reports). A summary line follows unless ``--quiet``."""
from __future__ import annotations

from typing import Any

from kqlint.model import Finding, Report
from kqlint.reporters import baseline_clause
from kqlint.reporters.remedy import fixable, fixable_footer, with_remedy
from kqlint.sanitize import terminal_safe


def line(finding: Finding, unsafe_fixes: bool = False) -> str:
    loc = finding.location
    message = " ".join(with_remedy(finding).split())
    mark = "[*] " if fixable(finding, unsafe_fixes) else ""
    return terminal_safe(f"{loc.file}:{loc.line}:{loc.column}: {finding.severity.label} "
                         f"{finding.code} [{finding.slug}] {mark}{message}")


def render(report: Report, quiet: bool = False, unsafe_fixes: bool = False, **_: Any) -> str:
    lines = [line(f, unsafe_fixes) for f in report.findings]
    if not quiet or lines:
        count = len(report.findings)
        hidden = baseline_clause(report)
        lines.append(f"Found {count} finding{'' if count == 1 else 's'} in {report.summary.files} "
                     f"file{'' if report.summary.files == 1 else 's'}{f' ({hidden})' if hidden else ''}.")
        footer = fixable_footer(report.findings, unsafe_fixes)
        if footer:
            lines.append(f"[*] {footer}.")
    return "\n".join(lines) + ("\n" if lines else "")
