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
