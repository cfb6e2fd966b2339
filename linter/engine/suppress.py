"""Suppression: object annotations and YAML comments (cli.md "Suppression").

- ``kqlint.io/ignore: "KQ101,pod-preemption-enabled"`` (codes or slugs, or ``all``) on an
  object's ``metadata.annotations`` silences those rules for the object and its pod
  templates. An empty value silences nothing.
- ``ignore.kqlint.io/KQ101: "<reason>"`` (or ``ignore.kqlint.io/<slug>``) silences one rule
  and records why: the reason becomes ``Finding.suppression`` (the justification in JSON
  and SARIF).
- ``# kqlint: ignore[KQ101]`` (several: ``ignore[KQ101, KQ401]``) silences findings on its
  own line and on the line below it; ``# kqlint: ignore-file[KQ101]`` anywhere in a file
  silences the whole file. A bare ``ignore`` / ``ignore-file`` (or empty brackets) means
  all rules.

Only a ``#`` that starts a YAML comment counts: at the start of the line or after
whitespace, and outside a quoted scalar on that line, so ``msg: "see # kqlint: ignore"``
is a string, not a suppression. (Best effort: lines inside block scalars ``|``/``>`` and
continuation lines of multi-line quoted strings are not recognised as such.)

Every suppression records whether it silenced something (``used``), for the
unused-suppression report (KQ000).
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from kqlint.loader.comments import DIRECTIVE_PREFIX
from kqlint.model import Finding

if TYPE_CHECKING:
    from kqlint.domain.objects import K8sObject

IGNORE_ANNOTATION = "kqlint.io/ignore"
IGNORE_REASON_PREFIX = "ignore.kqlint.io/"
ALL = "all"
# The directive grammar, written once (kqlint.engine.directives builds its checks from the same parts):
# ``# kqlint: ignore[...]`` / ``# kqlint: ignore-file[...]``.
DIRECTIVE_KIND = r"\s*(ignore-file|ignore)(?![\w-])\s*"
_DIRECTIVE_RE = re.compile(DIRECTIVE_PREFIX + DIRECTIVE_KIND + r"(?:\[([^\]]*)\])?")
_SEPARATOR_RE = re.compile(r"[,\s]+")
_SCALAR_START = frozenset(" \t-:[{,?")


@dataclass
class Suppression:
    """One suppression written by the user, and whether it silenced anything."""

    file: str
    line: int
    column: int
    names: frozenset[str]          # upper-cased codes and lower-cased slugs, or "all"
    reason: str
    kind: str                      # "annotation", "comment", "file-comment"
    used: bool = False
    end_column: int = 0            # a comment: just past its last character (reports' regions)

    def matches(self, finding: Finding) -> bool:
        return ALL in self.names or finding.code.upper() in self.names or finding.slug in self.names


def parse_names(text: str, empty_means_all: bool = True) -> frozenset[str]:
    """``"KQ101, pod-preemption-enabled"`` -> both spellings of each; ``all`` stays ``all``."""
    names: set[str] = set()
    for part in _SEPARATOR_RE.split(text.strip()):
        if part:
            names.update((part.upper(), part.lower()))  # codes compare upper-case, slugs lower-case
    if "ALL" in names:
        return frozenset({ALL})
    return frozenset(names or ({ALL} if empty_means_all else set()))


def comment_start(line: str) -> int | None:
    """Index of the ``#`` that starts a YAML comment on ``line`` (None when there is none).

    A ``#`` starts a comment at the start of the line or after a space/tab, outside a
    quoted scalar. A quote opens a scalar only where a scalar can start (line start,
    after whitespace, ``-``, ``:``, ``[``, ``{``, ``,`` or ``?``), so ``it's`` in a plain
    scalar is not a quote.
    """
    quote: str | None = None
    index = 0
    while index < len(line):
        char = line[index]
        if quote == '"':
            if char == "\\":
                index += 1
            elif char == '"':
                quote = None
        elif quote == "'":
            if char == "'":
                quote = None  # a doubled '' re-opens at once on the next character
                if index + 1 < len(line) and line[index + 1] == "'":
                    quote, index = "'", index + 1
        elif char == "#" and (index == 0 or line[index - 1] in " \t"):
            return index
        elif char in "\"'" and (index == 0 or line[index - 1] in _SCALAR_START):
            quote = char
        index += 1
    return None


def directives(line: str) -> list[tuple[str, str | None, int]]:
    """``(kind, names or None, 1-based column)`` for each ``kqlint:`` directive in the
    comment of ``line``."""
    start = comment_start(line)
    if start is None:
        return []
    return [(m.group(1), m.group(2), m.start() + 1) for m in _DIRECTIVE_RE.finditer(line, start)]


def ignore_brackets(line: str) -> tuple[int, int] | None:
    """The span (0-based, end exclusive) of what is inside the brackets of the first
    ``# kqlint: ignore[...]`` naming rules in the comment of ``line`` (None: there is none):
    where ``check --add-noqa`` adds a code to a comment already there."""
    start = comment_start(line)
    if start is None:
        return None
    for match in _DIRECTIVE_RE.finditer(line, start):
        if match.group(1) == "ignore" and match.group(2) is not None and parse_names(match.group(2), False):
            return match.start(2), match.end(2)
    return None


def line_coverage(file: str, comment_lines: dict[int, str]) -> dict[int, frozenset[str]]:
    """Line -> the rule names ``# kqlint: ignore`` comments silence there (``all`` included)."""
    index = SuppressionIndex()
    index.add_comments(file, comment_lines)
    return {line: frozenset().union(*(item.names for item in items)) for (_, line), items in index.by_line.items()}


@dataclass
class SuppressionIndex:
    by_object: dict[str, list[Suppression]] = field(default_factory=dict)   # file + ObjectRef.key()
    by_line: dict[tuple[str, int], list[Suppression]] = field(default_factory=dict)
    by_file: dict[str, list[Suppression]] = field(default_factory=dict)

    def all(self) -> list[Suppression]:
        """Every suppression once, in file/line/column order."""
        items = {id(s): s for group in (*self.by_object.values(), *self.by_line.values(),
                                        *self.by_file.values()) for s in group}
        return sorted(items.values(), key=lambda s: (s.file, s.line, s.column))

    def unused(self) -> list[Suppression]:
        return [s for s in self.all() if not s.used]

    def add_comments(self, file: str, comment_lines: dict[int, str]) -> None:
        """Register the ``# kqlint:`` comments of ``file`` (line number -> line text)."""
        for line, text in sorted(comment_lines.items()):
            for kind, names, column in directives(text):
                item = Suppression(file, line, column, parse_names(names or ""), "",
                                   "file-comment" if kind == "ignore-file" else "comment",
                                   end_column=len(text.rstrip(" \t\r\n")) + 1)
                if kind == "ignore-file":
                    self.by_file.setdefault(file, []).append(item)
                else:  # its own line and the line below it
                    self.by_line.setdefault((file, line), []).append(item)
                    self.by_line.setdefault((file, line + 1), []).append(item)

    def add_object(self, obj: K8sObject) -> None:
        """Register the suppression annotations of a K8sObject."""
        annotations = obj.annotations
        if not annotations:
            return
        key = _object_key(obj.file, obj.ref.key())
        for name, value in annotations.items():
            item = _annotation(obj, name, value)
            if item is not None:
                self.by_object.setdefault(key, []).append(item)

    def match(self, finding: Finding) -> Suppression | None:
        """The first suppression covering ``finding`` (object, line, then file); marks every
        covering suppression as used."""
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


def _annotation(obj: K8sObject, name: Any, value: Any) -> Suppression | None:
    if not isinstance(name, str):
        return None
    text = "" if value is None else str(value)
    if name == IGNORE_ANNOTATION:
        names, reason = parse_names(text, empty_means_all=False), ""
    elif name.startswith(IGNORE_REASON_PREFIX) and len(name) > len(IGNORE_REASON_PREFIX):
        names, reason = parse_names(name[len(IGNORE_REASON_PREFIX):]), text.strip()
    else:
        return None
    if not names:
        return None
    location = obj.at("metadata", "annotations", name)
    return Suppression(location.file, location.line, location.column, names, reason, "annotation")


def _object_key(file: str, key: str) -> str:
    return f"{file}\0{key}"


def _default_reason(item: Suppression) -> str:
    where = f"{item.file}:{item.line}"
    return {"annotation": f"suppressed by annotation at {where}",
            "comment": f"suppressed by `# kqlint: ignore` at {where}",
            "file-comment": f"suppressed by `# kqlint: ignore-file` at {where}"}[item.kind]


def apply(findings: Iterable[Finding], index: SuppressionIndex) -> tuple[list[Finding], list[Finding]]:
    """Split findings into (reported, suppressed); suppressed ones carry the reason."""
    reported, suppressed = [], []
    for finding in findings:
        hit = index.match(finding)
        if hit is None:
            reported.append(finding)
        else:
            suppressed.append(replace(finding, suppression=hit.reason or _default_reason(hit)))
    return reported, suppressed
