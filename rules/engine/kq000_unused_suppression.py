"""
## What it catches
Suppressions that silenced nothing in this run: a `kqlint.io/ignore` or
`ignore.kqlint.io/<rule>` annotation, a `# kqlint: ignore[...]` comment or a
`# kqlint: ignore-file[...]` comment.

- By default, only a comment one line off its finding, as a warning: a
  `# kqlint: ignore[...]` comment naming rules that silenced nothing while a finding it names is
  reported in the same block (the mapping or sequence holding the line the comment is
  about), e.g. a comment above `requests:` when the finding is on the limit below. The
  finding is under `related`.
- Every unused suppression, as info, with `kqlint check --report-unused-suppressions`,
  when KQ000 is selected by its code or slug, or with `rules: {KQ000: {report-all: true}}`.

A suppression is judged only against the rules that ran, so `--select KQ1` never
flags a suppression of KQ401; a blanket suppression (`all`, or no rule list) and one
naming no known rule (a typo) are always judged.

## Why it breaks on a cluster
A stale suppression is a loaded gun: the object was fixed (or the rule's name was
mistyped from the start), so the comment silences nothing today, but the next time
someone reintroduces the mistake — a preempting PriorityClass on a gang, a queue that
does not exist — kqlint stays quiet and the problem reaches the cluster. A mistyped
rule name is worse: it never silenced anything and suggests a review that never
happened. A comment one line off its finding silences nothing either: whoever wrote it
believes the finding is handled, and every run still reports it.

## Bad
```yaml
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: gpu-gang
value: 100000
preemptionPolicy: Never
---
apiVersion: batch/v1
kind: Job
metadata:
  name: nightly-eval
  namespace: research
  annotations:
    kqlint.io/ignore: "pod-preemtion-enabled"   # a typo: the slug is pod-preemption-enabled
spec:
  template:
    spec:
      priorityClassName: gpu-gang   # kqlint: ignore  (left over after the class was fixed)
      restartPolicy: Never
      containers:
        - name: eval
          image: busybox
```

## Good
```yaml
apiVersion: batch/v1
kind: Job
metadata:
  name: nightly-eval
  namespace: research
  annotations:
    # the class is created by the platform's Helm chart, outside this repository
    ignore.kqlint.io/KQ205: "platform-batch is installed by the platform chart"
spec:
  template:
    spec:
      priorityClassName: platform-batch
      restartPolicy: Never
      containers:
        - name: eval
          image: busybox
```

## How to fix
A comment one line off its finding: move it to the end of the finding's line or onto a
line of its own just above it (`kqlint check --add-noqa` writes such a comment for every
current finding). Otherwise delete the suppression, or correct the rule code or slug it
names (`kqlint rules` lists them). Prefer a suppression that names its rule with a reason
(`ignore.kqlint.io/KQ205: "<why>"`) over a blanket `# kqlint: ignore`. To keep an
intentionally unused suppression, silence this rule for it explicitly:
`# kqlint: ignore[KQ000]` on the line above (a blanket `ignore` does not silence KQ000).
"""
from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kqlint.engine.rule import Rule, RuleContext, RuleMeta, Run, SuppressionAudit
from kqlint.engine.suppress import ALL, IGNORE_ANNOTATION, Suppression
from kqlint.model import Finding, Location, ObjectRef, Severity

if TYPE_CHECKING:
    from kqlint.domain.objects import K8sObject

META = RuleMeta(code="KQ000", slug="unused-suppression", severity=Severity.INFO,
                summary="a suppression silenced nothing: a comment one line off its finding (warning), "
                        "every one with --report-unused-suppressions",
                scope="engine")
CODE, SLUG = META.code, META.slug
_CODE_LIKE = re.compile(r"^[A-Z]+\d")


@dataclass(frozen=True)
class Options:
    report_all: bool = False  # every unused suppression, as --report-unused-suppressions does

# A suppression is judged only against the rules that ran: one naming KQ401 in a run with
# `--select KQ1` is left alone, since deleting it would bring the finding back in a full run.
# It is reported when it silenced nothing and it is blanket (`all`), names a rule that ran,
# or names something that is no rule at all (a typo never silences anything). Suppressions
# naming KQ000 itself are not judged: they exist to silence KQ000 findings (the engine
# applies only those to this hook's findings, so a stale blanket one cannot hide itself).


def prepare(run: Run) -> tuple[set[str], set[str], bool]:
    """(every known rule name, the names of the rules that run), upper-case codes and slugs, and
    whether every unused suppression is reported (selected by its own code or slug), not only
    comments one line off their finding."""
    ran = _names(run.selected)
    by_name = any(name.strip().upper() == CODE or name.strip().lower() == SLUG for name in run.config.select)
    return _names(run.rules) | ran, ran, by_name


def check_suppressions(audit: SuppressionAudit, ctx: RuleContext) -> Iterator[Finding]:
    known, ran, by_name = ctx.state
    report_all = by_name or bool(ctx.options is not None and ctx.options.report_all)
    files = _files(audit)
    for item in audit.index.unused():
        if _names_kq000(item) or not _judged(item, ran, known):
            continue
        in_file = files.get(item.file) or _File((), ())
        named = item.kind == "comment" and ALL not in item.names  # a blanket one says nothing of what it meant
        meant = in_file.meant(item) if named else None
        if meant is None and not report_all:
            continue
        location, obj = _where(item, in_file)
        if meant is not None:
            message, remedy = _near_miss(item, location, known, meant)
            yield ctx.finding(location, message, remedy=remedy, severity=Severity.WARNING,
                              related=[(meant.location, f"the {meant.code} finding it probably meant")])
        else:
            message, remedy = _message(item, obj, known, location)
            yield ctx.finding(location, message, remedy=remedy)


# ------------------------------------------------------------------ judging

def _names(rules: Iterable[Rule]) -> set[str]:
    return {name for rule in rules for name in (rule.code.upper(), rule.slug)}


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


# ------------------------------------------------------------------ a comment one line off

class _File:
    """One file's input objects by the line each starts on, its reported findings by line, and
    each object's blocks (kqlint.loader.positions.blocks_by_line), worked out when asked."""

    def __init__(self, objects: Iterable[K8sObject], findings: Iterable[Finding]) -> None:
        starts = sorted((obj.location().line, index, obj) for index, obj in enumerate(objects))
        self.starts = [line for line, _, _ in starts]
        self.objects = [obj for _, _, obj in starts]
        self.findings = sorted(findings, key=lambda f: f.location.line)
        self.lines = [f.location.line for f in self.findings]
        self.blocks: dict[int, dict[int, tuple[int, int]]] = {}

    def owner(self, line: int) -> K8sObject | None:
        """The last object starting at or before ``line``."""
        index = bisect_right(self.starts, line) - 1
        return self.objects[index] if index >= 0 else None

    def block(self, line: int) -> tuple[int, int] | None:
        from kqlint.loader.positions import blocks_by_line

        obj = self.owner(line)
        if obj is None or obj.root is None:
            return None
        if id(obj) not in self.blocks:
            self.blocks[id(obj)] = blocks_by_line(obj.data)
        return self.blocks[id(obj)].get(line)

    def meant(self, item: Suppression) -> Finding | None:
        """The reported finding a comment that silenced nothing was probably written for: one
        it names, in the mapping or sequence holding the node the comment is about (the nearest)."""
        block = self.block(item.line) or self.block(item.line + 1)  # at the end of a line, or above one
        if block is None:
            return None
        inside = self.findings[bisect_left(self.lines, block[0]):bisect_right(self.lines, block[1])]
        return min((f for f in inside if item.matches(f)),
                   key=lambda f: (abs(f.location.line - item.line), -f.location.line), default=None)


def _files(audit: SuppressionAudit) -> dict[str, _File]:
    objects: dict[str, list[K8sObject]] = {}
    for obj in audit.objects:
        objects.setdefault(obj.file, []).append(obj)
    findings: dict[str, list[Finding]] = {}
    for finding in audit.reported:
        findings.setdefault(finding.location.file, []).append(finding)
    return {file: _File(objects.get(file, ()), findings.get(file, ())) for file in objects.keys() | findings.keys()}


def _near_miss(item: Suppression, location: Location, known: set[str], meant: Finding) -> tuple[str, str]:
    line = meant.location.line
    return (f"{_directive(item, location, known)} silenced nothing: a comment covers its own line and the next, "
            f"and the {meant.code} finding in the same block is on line {line}, so it is still reported",
            f"Move the comment to the end of line {line} or onto a line of its own just above it "
            f"(`kqlint check --add-noqa` writes it there)")


# ------------------------------------------------------------------ where and what

def _where(item: Suppression, in_file: _File) -> tuple[Location, Any]:
    """The suppression's location, with the object it belongs to (the annotation's owner, or
    the object whose document holds the comment) for baselines and fingerprints."""
    if item.kind == "annotation":
        owner = in_file.owner(item.line)
        for obj in ([owner] if owner is not None else []) + in_file.objects:  # its owner, almost always
            for key in obj.annotations:
                loc = obj.at("metadata", "annotations", key)
                if (loc.line, loc.column) == (item.line, item.column):
                    return loc, obj
    if item.kind == "comment":
        owner = in_file.owner(item.line + 1)  # the last object starting at or before the line it covers
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


def _message(item: Suppression, obj: K8sObject | None, known: set[str], location: Location) -> tuple[str, str]:
    """What is wrong with the suppression, and the remedy."""
    what = _directive(item, location, known)
    unknown = [_spelling(p, known) for p in _parts(item) if not _is_known(p, known)]
    if unknown:
        return (f"{what} names no known rule ({', '.join(unknown)}), so it can never silence a finding",
                "Correct the code or slug (`kqlint rules` lists them) or remove it")
    rules = "finding" if ALL in item.names else \
        " or ".join(_spelling(p, known) for p in _parts(item)) + " finding"
    scope = {"annotation": f"{obj.display() if obj is not None else 'the object'} has no {rules}",
             "comment": f"there is no {rules} on this line or the line below it",
             "file-comment": f"there is no {rules} in this file"}[item.kind]
    return f"{what} silenced nothing: {scope}", "Remove it (it would hide a future finding unnoticed)"
