"""KQ000 unused-suppression: suppressions that silenced nothing (``--report-unused-suppressions``).

A suppression is judged only against the rules that ran: one naming KQ401 in a run with
``--select KQ1`` is left alone, since deleting it would bring the finding back in a full
run. It is reported when it silenced nothing and it is blanket (``all``), names a rule
that ran, or names something that is no rule at all (a typo never silences anything).

Suppressions that name KQ000 itself are not judged: they exist to silence KQ000 findings
and are applied to them here, in a second pass (a blanket ``ignore`` never silences
KQ000, or a stale blanket suppression would hide itself).
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from kqlint.model import Finding, Location, ObjectRef
from kqlint.suppress import ALL, IGNORE_ANNOTATION, Suppression, SuppressionIndex, apply

CODE = "KQ000"
SLUG = "unused-suppression"
_CODE_LIKE = re.compile(r"^[A-Z]+\d")


def enable(rules: list[Any], config: Any) -> tuple[list[Any], Any]:
    """``--report-unused-suppressions``: turn KQ000 on (it is off by default), also under a
    narrowed ``select``; an explicit ``ignore`` of KQ000 still wins."""
    rules = [replace(r, meta=replace(r.meta, enabled=True)) if r.code == CODE else r for r in rules]
    if config.select and CODE not in config.select:
        config = config.with_overrides(select=tuple(config.select) + (CODE,))
    return rules, config


def unused_suppressions(index: SuppressionIndex, ran: Iterable[Any], objects: list[Any],
                        config: Any) -> tuple[list[Finding], list[Finding]]:
    """(reported, suppressed) KQ000 findings for the suppressions of ``index`` that silenced
    nothing; ``ran`` are the rules of this run (KQ000 among them)."""
    ran = list(ran)
    rule = next(r for r in ran if r.code == CODE)
    known = _names(_known_rules(config, ran))
    ran_names = _names(ran)
    findings = []
    for item in index.unused():
        if _names_kq000(item) or not _judged(item, ran_names, known):
            continue
        location, obj = _where(item, objects)
        message = _message(item, obj, known, location)
        finding = Finding(CODE, SLUG, rule.meta.severity, message, location, location.obj)
        findings.append(_with_severity(finding, config))
    return apply(findings, _only(index, _names_kq000))


# ------------------------------------------------------------------ judging

def _names(rules: Iterable[Any]) -> set[str]:
    return {name for rule in rules for name in (rule.code.upper(), rule.slug)}


def _known_rules(config: Any, ran: list[Any]) -> list[Any]:
    from kqlint.explain import available_rules

    try:
        return available_rules(config) + ran
    except Exception:
        return ran


def _parts(item: Suppression) -> list[tuple[str, str]]:
    """The names as written, one per part: (upper spelling, lower spelling)."""
    return sorted({(name.upper(), name.lower()) for name in item.names if name != ALL})


def _is_known(part: tuple[str, str], known: set[str]) -> bool:
    return part[0] in known or part[1] in known


def _names_kq000(item: Suppression) -> bool:
    return CODE in item.names or SLUG in item.names


def _judged(item: Suppression, ran: set[str], known: set[str]) -> bool:
    if ALL in item.names:
        return True
    return any(_is_known(part, ran) or not _is_known(part, known) for part in _parts(item))


def _only(index: SuppressionIndex, keep: Any) -> SuppressionIndex:
    """The suppressions of ``index`` for which ``keep`` holds (same lookup structure)."""
    def pick(groups: dict[Any, list[Suppression]]) -> dict[Any, list[Suppression]]:
        return {key: [s for s in group if keep(s)] for key, group in groups.items()}
    return SuppressionIndex(pick(index.by_object), pick(index.by_line), pick(index.by_file))


# ------------------------------------------------------------------ where and what

def _where(item: Suppression, objects: list[Any]) -> tuple[Location, Any]:
    """The suppression's location, with the object it belongs to (the annotation's owner, or
    the object whose document holds the comment) for baselines and fingerprints."""
    in_file = [o for o in objects if o.file == item.file]
    if item.kind == "annotation":
        for obj in in_file:
            for key in obj.annotations:
                loc = obj.at("metadata", "annotations", key)
                if (loc.line, loc.column) == (item.line, item.column):
                    return loc, obj
    if item.kind == "comment":
        owner = None
        for obj in in_file:  # the last object starting at or before the line it covers
            if obj.location().line <= item.line + 1:
                owner = obj
        if owner is not None:
            ref: ObjectRef = owner.ref
            return Location(item.file, item.line, item.column, (), ref, "", *_comment_end(item)), owner
    return Location(item.file, item.line, item.column, (), None, "", *_comment_end(item)), None


def _comment_end(item: Suppression) -> tuple[int, int]:
    return (item.line, item.end_column) if item.end_column > item.column else (0, 0)


def _spelling(part: tuple[str, str], known: set[str]) -> str:
    upper, lower = part
    if upper in known or (lower not in known and _CODE_LIKE.match(upper)):
        return upper
    return lower


def _directive(item: Suppression, location: Location, known: set[str]) -> str:
    names = "all" if ALL in item.names else ", ".join(_spelling(part, known) for part in _parts(item))
    if item.kind == "annotation":
        key = location.path[-1] if location.path else IGNORE_ANNOTATION
        return f"annotation `{key}`" if key != IGNORE_ANNOTATION else f"annotation `{key}: \"{names}\"`"
    directive = "ignore-file" if item.kind == "file-comment" else "ignore"
    return f"`# kqlint: {directive}{'' if ALL in item.names else f'[{names}]'}`"


def _message(item: Suppression, obj: Any, known: set[str], location: Location) -> str:
    what = _directive(item, location, known)
    unknown = [_spelling(p, known) for p in _parts(item) if not _is_known(p, known)]
    if unknown:
        return (f"{what} names no known rule ({', '.join(unknown)}), so it can never silence a "
                f"finding; correct the code or slug (`kqlint rules` lists them) or remove it")
    rules = "finding" if ALL in item.names else \
        " or ".join(_spelling(p, known) for p in _parts(item)) + " finding"
    scope = {"annotation": f"{obj.display() if obj is not None else 'the object'} has no {rules}",
             "comment": f"there is no {rules} on this line or the line below it",
             "file-comment": f"there is no {rules} in this file"}[item.kind]
    return f"{what} silenced nothing: {scope}; remove it (it would hide a future finding unnoticed)"


def _with_severity(finding: Finding, config: Any) -> Finding:
    override = config.severity.get(CODE) or config.severity.get(SLUG)
    return replace(finding, severity=override) if override is not None else finding
