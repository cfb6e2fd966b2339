"""Report writers, looked up by format name. Each module has ``render(report, **kw) -> str``."""
from __future__ import annotations

import importlib
from typing import Any

from kqlint.model import Report

REPORTERS = {
    "text": "kqlint.reporters.text",
    "concise": "kqlint.reporters.concise",
    "gitlab": "kqlint.reporters.gitlab",
    "json": "kqlint.reporters.json",
    "github": "kqlint.reporters.github",
    "sarif": "kqlint.reporters.sarif",
    "junit": "kqlint.reporters.junit",
}


JSON_FORMATS = frozenset({"json", "sarif", "gitlab"})


def render(format_name: str, report: Report, **options: Any) -> str:
    module = importlib.import_module(REPORTERS[format_name])
    text: str = module.render(report, **options)
    if format_name in JSON_FORMATS:  # C1, bidi and undecodable characters as \uXXXX escapes
        from kqlint.sanitize import json_safe

        text = json_safe(text)
    return text
