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


def render(format_name: str, report: Report, **options: Any) -> str:
    module = importlib.import_module(REPORTERS[format_name])
    return module.render(report, **options)  # type: ignore[no-any-return]
