"""Split a finding's message into what is wrong and what to do (the ``help:`` line).

Rules write one sentence: the problem, why it breaks, then the remedy after a ``;`` or ``.``
(``...: the gang can never be scheduled; set minMember: 4``). A finding that carries its own
``remedy`` attribute (a later refactor adds the field) is used as is; otherwise the last
clause that starts with an imperative verb is the remedy. When none does, there is no
``help:`` line and the message is printed whole.
"""
from __future__ import annotations

import re
from typing import Any

_VERBS = ("add", "change", "declare", "define", "drop", "give", "keep", "label", "lint", "list", "make",
          "move", "name", "pick", "point", "put", "raise", "lower", "remove", "rename", "replace",
          "run", "set", "split", "use", "write", "create", "delete", "enable", "disable", "install",
          "pass", "apply", "align", "match", "quote", "spell", "fix", "either", "ask", "route", "mark")
_REMEDY = re.compile(r"(?:[;.]|:)\s+(?=(?:" + "|".join(_VERBS) + r")\b)", re.IGNORECASE)


def fixable(finding: Any, unsafe: bool = False) -> bool:
    """Whether ``--fix`` (with ``unsafe``: ``--fix --unsafe-fixes``) applies the finding's fix."""
    fix = getattr(finding, "fix", None)
    if fix is None or not fix.text:
        return False
    return unsafe or fix.applicability.value == "safe"


def fixable_footer(findings: Any, unsafe: bool = False) -> str | None:
    """ruff's closing line: ``N fixable with --fix (M more with --unsafe-fixes)``."""
    findings = list(findings)
    safe = sum(1 for f in findings if fixable(f))
    every = sum(1 for f in findings if fixable(f, True))
    if not every:
        return None
    if unsafe:
        return f"{every} fixable with --fix --unsafe-fixes"
    more = f" ({every - safe} more with --unsafe-fixes)" if every > safe else ""
    return f"{safe} fixable with --fix{more}"


def with_remedy(finding: Any) -> str:
    """The message, and the rule's remedy when it gave one apart (one line: concise, GitHub)."""
    remedy = getattr(finding, "remedy", None)
    message = str(finding.message)
    return f"{message}; {remedy}" if remedy and remedy not in message else message


def split_remedy(finding: Any) -> tuple[str, str | None]:
    remedy = getattr(finding, "remedy", None)
    message = str(finding.message)
    if remedy:
        return message, str(remedy)
    matches = list(_REMEDY.finditer(message))
    if not matches:
        return message, None
    cut = matches[-1]
    head, tail = message[:cut.start()].rstrip(), message[cut.end():].strip()
    if not head or not tail:
        return message, None
    return head, tail[0].upper() + tail[1:]
