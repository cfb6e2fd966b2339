"""Suppression: object annotations and YAML comments (cli.md "Suppression").

- ``kqlint.io/ignore: "KQ101,pod-preemption-enabled"`` (or ``all``) on an object silences
  those rules for the object and its pod templates;
- ``ignore.kqlint.io/KQ101: "<reason>"`` silences one rule and records why;
- ``# kqlint: ignore[KQ101]`` on the offending line or the line above it;
- ``# kqlint: ignore-file[KQ101]`` anywhere in a file. A bare ``ignore`` means all rules.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable

from kqlint.model import Finding

IGNORE_ANNOTATION = "kqlint.io/ignore"
IGNORE_REASON_PREFIX = "ignore.kqlint.io/"
_COMMENT_RE = re.compile(r"#\s*kqlint:\s*(ignore-file|ignore)\b\s*(?:\[([^\]]*)\])?")


@dataclass
class Suppression:
    """One suppression written by the user, and whether it silenced anything."""

    file: str
    line: int
    column: int
    names: frozenset[str]          # codes/slugs, upper-cased codes, lower-cased slugs; "all"
    reason: str
    kind: str                      # "annotation", "comment", "file-comment"
    used: bool = False

    def matches(self, finding: Finding) -> bool:
        return "all" in self.names or finding.code.upper() in self.names or finding.slug in self.names


def _names(text: str) -> frozenset[str]:
    names = set()
    for part in text.split(","):
        part = part.strip()
        if part:
            names.update((part.upper(), part.lower()))  # codes compare upper-case, slugs lower-case
    return frozenset(names or {"all"})


@dataclass
class SuppressionIndex:
    by_object: dict[str, list[Suppression]] = field(default_factory=dict)   # ObjectRef.key() + file
    by_line: dict[tuple[str, int], list[Suppression]] = field(default_factory=dict)
    by_file: dict[str, list[Suppression]] = field(default_factory=dict)

    def all(self) -> list[Suppression]:
        items = [s for group in self.by_object.values() for s in group]
        items += [s for group in self.by_line.values() for s in group]
        items += [s for group in self.by_file.values() for s in group]
        return items

    def add_comments(self, file: str, comment_lines: dict[int, str]) -> None:
        for line, text in sorted(comment_lines.items()):
            for match in _COMMENT_RE.finditer(text):
                kind, names = match.group(1), match.group(2)
                item = Suppression(file, line, match.start() + 1, _names(names or ""), "",
                                   "file-comment" if kind == "ignore-file" else "comment")
                if kind == "ignore-file":
                    self.by_file.setdefault(file, []).append(item)
                else:
                    # applies to its own line and the line below it
                    self.by_line.setdefault((file, line), []).append(item)
                    self.by_line.setdefault((file, line + 1), []).append(item)

    def add_object(self, obj: object) -> None:
        annotations = getattr(obj, "annotations", {})
        if not annotations:
            return
        key = _object_key(obj.file, obj.ref.key())  # type: ignore[attr-defined]
        for name, value in annotations.items():
            if not isinstance(name, str):
                continue
            location = obj.at("metadata", "annotations", name)  # type: ignore[attr-defined]
            if name == IGNORE_ANNOTATION:
                item = Suppression(location.file, location.line, location.column,
                                   _names(str(value or "")), "", "annotation")
            elif name.startswith(IGNORE_REASON_PREFIX):
                item = Suppression(location.file, location.line, location.column,
                                   _names(name[len(IGNORE_REASON_PREFIX):]), str(value or ""), "annotation")
            else:
                continue
            self.by_object.setdefault(key, []).append(item)

    def match(self, finding: Finding) -> Suppression | None:
        loc = finding.location
        candidates: list[Suppression] = []
        if finding.obj is not None:
            candidates += self.by_object.get(_object_key(loc.file, finding.obj.key()), [])
        candidates += self.by_line.get((loc.file, loc.line), [])
        candidates += self.by_file.get(loc.file, [])
        hit = None
        for item in candidates:
            if item.matches(finding):
                item.used = True
                hit = hit or item
        return hit


def _object_key(file: str, key: str) -> str:
    return f"{file}\0{key}"


def apply(findings: Iterable[Finding], index: SuppressionIndex) -> tuple[list[Finding], list[Finding]]:
    """Split findings into (reported, suppressed); suppressed ones carry the reason."""
    from dataclasses import replace

    reported, suppressed = [], []
    for finding in findings:
        hit = index.match(finding)
        if hit is None:
            reported.append(finding)
        else:
            suppressed.append(replace(finding, suppression=hit.reason or f"suppressed by {hit.kind}"))
    return reported, suppressed
