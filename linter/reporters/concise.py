"""``--format concise`` (``--output-format concise``): one finding per line,
``path:line:col: severity CODE [slug] message``, the form editors, terminals and grep
understand; related locations are left out (they are in the full text, JSON and SARIF
reports). A summary line follows unless ``--quiet``."""
from __future__ import annotations

from typing import Any

from kqlint.model import Finding, Report
from kqlint.sanitize import terminal_safe


def line(finding: Finding) -> str:
    loc = finding.location
    message = " ".join(finding.message.split())
    return terminal_safe(f"{loc.file}:{loc.line}:{loc.column}: {finding.severity.label} "
                         f"{finding.code} [{finding.slug}] {message}")


def render(report: Report, quiet: bool = False, **_: Any) -> str:
    lines = [line(f) for f in report.findings]
    if not quiet or lines:
        count = len(report.findings)
        lines.append(f"Found {count} finding{'' if count == 1 else 's'} in {report.summary.files} "
                     f"file{'' if report.summary.files == 1 else 's'}.")
    return "\n".join(lines) + ("\n" if lines else "")
