"""A finished report, graph or rule as text, one module per format.

Report writers, looked up by format name the way ``kqlint graph`` looks up its formats
(kqlint.reporters.formats). Each module has ``render(report, **kw) -> str``."""
from __future__ import annotations

from typing import Any

from kqlint.model import Report

FORMATS = {  # in the order a usage error lists them
    "text": "kqlint.reporters.text",
    "concise": "kqlint.reporters.concise",
    "json": "kqlint.reporters.json",
    "sarif": "kqlint.reporters.sarif",
    "github": "kqlint.reporters.github",
    "junit": "kqlint.reporters.junit",
    "gitlab": "kqlint.reporters.gitlab",
}


JSON_FORMATS = frozenset({"json", "sarif", "gitlab"})


def render(format_name: str, report: Report, **options: Any) -> str:
    from kqlint.reporters import formats

    return formats.render(FORMATS, JSON_FORMATS, format_name, report, **options)
