"""Frozen value types shared by the engine, the rules and the reporters."""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kqlint.fix.model import Fix


class Severity(IntEnum):
    INFO = 1
    WARNING = 2
    ERROR = 3

    @property
    def label(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, text: str) -> Severity:
        return cls[text.strip().upper()]


@dataclass(frozen=True, order=True)
class ObjectRef:
    """Identity of a Kubernetes object as shown in reports."""

    api_version: str
    kind: str
    namespace: str | None
    name: str

    def display(self) -> str:
        if self.namespace:
            return f"{self.kind} {self.namespace}/{self.name}"
        return f"{self.kind} {self.name}"

    def key(self) -> str:
        return f"{self.kind}/{self.namespace or ''}/{self.name}"

    def to_json(self) -> dict[str, Any]:
        return {"apiVersion": self.api_version, "kind": self.kind,
                "namespace": self.namespace, "name": self.name}


@dataclass(frozen=True)
class Location:
    """A 1-based position in a file. ``path`` is the field path inside the object
    (used for baselines and fingerprints, never for display). ``end_line``/``end_column``:
    just past the node there (a key, a scalar, a collection's last scalar), 0 when unknown."""

    file: str
    line: int
    column: int
    path: tuple[Any, ...] = ()
    obj: ObjectRef | None = None
    message: str = ""
    end_line: int = field(default=0, compare=False)
    end_column: int = field(default=0, compare=False)

    def with_message(self, message: str) -> Location:
        return Location(self.file, self.line, self.column, self.path, self.obj, message,
                        self.end_line, self.end_column)

    def sort_key(self) -> tuple[str, int, int]:
        return (self.file, self.line, self.column)


@dataclass(frozen=True)
class Finding:
    code: str
    slug: str
    severity: Severity
    message: str
    location: Location
    obj: ObjectRef | None = None
    related: tuple[Location, ...] = ()
    suppression: str | None = None  # justification when suppressed (reported with --report-suppressed)
    fix: Fix | None = field(default=None, compare=False)  # kqlint.fix.model: what --fix would change
    remedy: str | None = None  # how to fix it, apart from the message (the `help:` line; None: no remedy)

    @property
    def end_line(self) -> int:
        return self.location.end_line

    @property
    def end_column(self) -> int:
        return self.location.end_column

    def sort_key(self) -> tuple[Any, ...]:
        """Every field a report shows: findings equal up to their ``related`` (two taints of one
        flavor) come out in one order, whatever the hash seed (same input, same bytes)."""
        loc = self.location
        return (loc.file, loc.line, loc.column, self.code, self.message,
                tuple((r.file, r.line, r.column, r.message) for r in self.related),
                self.remedy or "", self.suppression or "", repr(self.obj), loc.path.__repr__())

    def field_path(self) -> str:
        return ".".join(str(p) for p in self.location.path)


@dataclass(frozen=True)
class Summary:
    files: int = 0
    documents: int = 0
    objects: int = 0
    skipped_documents: int = 0


@dataclass(frozen=True)
class StreamText:
    """An input read from stdin, as read: what a report shows of its text (code frames, fixes)
    comes from here, never from a file of that name on disk. ``whole``: the entire stream (not
    a document a Helm ``# Source:`` comment cut out of it), which ``check --fix -`` rewrites;
    ``objects``: the objects it holds (they tell apart the documents of one template)."""

    file: str
    data: bytes
    whole: bool = True
    objects: frozenset[ObjectRef] = frozenset()


@dataclass(frozen=True)
class Report:
    findings: tuple[Finding, ...]
    summary: Summary = field(default_factory=Summary)
    internal_errors: tuple[str, ...] = ()
    suppressed: tuple[Finding, ...] = ()
    files: tuple[str, ...] = ()  # every input file read, as displayed (JUnit: one test case each)
    baselined: int = 0  # findings absorbed by --baseline (reported in the JSON summary)
    baseline_written: bool = False  # the baselined findings are the ones --write-baseline just wrote
    warnings: tuple[str, ...] = ()  # one-line notes for stderr (misspelt directives, ...)
    notes: tuple[str, ...] = ()  # one-line notes for stderr: no project root, paths skipped for safety
    platform: tuple[str, ...] = ()  # the platform model, one line per known fact (--statistics)
    streams: tuple[StreamText, ...] = ()  # the text of what was read from stdin

    def count(self, severity: Severity) -> int:
        return sum(1 for f in self.findings if f.severity == severity)
