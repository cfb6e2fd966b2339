"""KQ002's findings for the CEL rules (``x-kubernetes-validations``) of a kind's CRD schema."""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kqlint.domain.fields import is_integer
from kqlint.domain.objects import K8sObject
from kqlint.engine.rule import RuleContext
from kqlint.model import Finding, Location
from kqlint.schema.cel import CelSchema, CelViolation
from kqlint.spelling import dotted

MAX_MESSAGE = 240
MAX_QUOTED = 120  # of the CRD's own message, so the finding's message stays within MAX_MESSAGE
MAX_RULE_SHOWN = 160


def cel_findings(obj: K8sObject, ctx: RuleContext, rules: CelSchema) -> Iterator[Finding]:
    for violation in rules.violations(obj.data):
        yield ctx.finding(at=_position(obj, violation), message=_message(obj, violation, rules),
                          related=_related(obj, violation), remedy=_remedy(violation))


def _position(obj: K8sObject, violation: CelViolation) -> Location:
    """The rule's fieldPath when present, else the node the rule sits on: a list item's rule
    points at the list's key, a rule at the root at the object."""
    path = violation.path + violation.field if violation.field is not None else _key_path(violation.path)
    return obj.at(*path) if path else obj.location()


def _key_path(path: tuple[Any, ...]) -> tuple[Any, ...]:
    while path and is_integer(path[-1]):
        path = path[:-1]
    return path


def _related(obj: K8sObject, violation: CelViolation) -> list[tuple[Location, str]]:
    if violation.field is None and violation.path != _key_path(violation.path):
        return [(obj.at(*violation.path), f"`{dotted(violation.path)}`, the item the rule failed on")]
    return []


def _message(obj: K8sObject, violation: CelViolation, rules: CelSchema) -> str:
    where = dotted(violation.path + (violation.field or ())) or "the object"
    head = f"{obj.display()}: `{where}`: {violation.reason}: "
    tail = f" (CEL rule of {rules.source}): the API server rejects the object"
    room = max(40, min(MAX_QUOTED, MAX_MESSAGE - len(head) - len(tail)))
    message = head + _clip(violation.message, room) + tail
    return message if len(message) <= MAX_MESSAGE else head + _clip(violation.message, room) + \
        ": the API server rejects the object"


def _remedy(violation: CelViolation) -> str:
    return (f"Change the object so that the CRD's rule holds: `{_clip(violation.rule.rule, MAX_RULE_SHOWN)}`"
            " (defaults of the schema count as set)")


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "…"
