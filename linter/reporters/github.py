"""``--format github``: GitHub Actions workflow commands (annotations on the diff)."""
from __future__ import annotations

from typing import Any

from kqlint.model import Report, Severity

_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render(report: Report, **_: Any) -> str:
    lines = []
    for f in report.findings:
        loc = f.location
        props = (f"file={escape_property(loc.file)},line={loc.line},col={loc.column},"
                 f"title={escape_property(f'{f.code} {f.slug}')}")
        lines.append(f"::{_LEVEL[f.severity]} {props}::{escape_data(f.message)}")
    return "\n".join(lines) + ("\n" if lines else "")
