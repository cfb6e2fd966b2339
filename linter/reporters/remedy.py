"""A finding's remedy and fixes as the reporters print them.

Rules set the message (what breaks on the cluster) and the remedy (how to fix it) apart, as
ruff keeps ``message`` and ``fix_title``: the text reporter prints the remedy on its own
``help:`` line; one-line formats (concise, GitHub, GitLab, SARIF) append it as a sentence.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kqlint.model import Finding


def fixable(finding: Finding, unsafe: bool = False) -> bool:
    """Whether ``--fix`` (with ``unsafe``: ``--fix --unsafe-fixes``) applies the finding's fix."""
    fix = getattr(finding, "fix", None)
    if fix is None or not fix.text:
        return False
    return unsafe or fix.applicability.value == "safe"


def fixable_footer(findings: Iterable[Finding], unsafe: bool = False) -> str | None:
    """ruff's closing line: ``N fixable with --fix (M more with --unsafe-fixes)``."""
    listed = list(findings)
    safe = sum(1 for f in listed if fixable(f))
    every = sum(1 for f in listed if fixable(f, True))
    if not every:
        return None
    if unsafe:
        return f"{every} fixable with --fix --unsafe-fixes"
    more = f" ({every - safe} more with --unsafe-fixes)" if every > safe else ""
    return f"{safe} fixable with --fix{more}"


def with_remedy(finding: Finding) -> str:
    """The message, then the remedy as its own sentence (one line: concise, GitHub, GitLab, SARIF)."""
    remedy = getattr(finding, "remedy", None)
    message = str(finding.message)
    if not remedy or remedy in message:
        return message
    return f"{message}{'' if message.endswith(('.', '?', '!')) else '.'} {remedy}"


def split_remedy(finding: Finding) -> tuple[str, str | None]:
    """The message and the remedy (None when the rule gave none: no ``help:`` line)."""
    remedy = getattr(finding, "remedy", None)
    return str(finding.message), str(remedy) if remedy else None
