"""One wording for KQ004's webhook-parity findings (JobSet, LWS, Volcano, KAI)."""
from __future__ import annotations

from typing import Any

from kqlint.domain.objects import K8sObject
from kqlint.engine.rule import RuleContext
from kqlint.model import Finding


def rejected(obj: K8sObject, ctx: RuleContext, at: Any, who: str, rule: str, remedy: str) -> Finding:
    """``<object>: <who> rejects it: <rule>``; ``rule`` quotes the server's words in backquotes."""
    return ctx.finding(at=at, message=f"{obj.display()}: {who} rejects it: {rule}",
                       remedy=remedy[:1].upper() + remedy[1:])

