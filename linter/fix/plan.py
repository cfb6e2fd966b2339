"""One file: each finding's fix planned as text edits, overlaps deferred to the next pass, the
verified ones applied (fix_file) or turned into text ranges for reports (resolve)."""
from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import TYPE_CHECKING, Any

from kqlint.fix.edits import Planned, Target
from kqlint.fix.model import Fix, TextRange
from kqlint.fix.text import NotApplicable, Text, TextEdit, apply_text
from kqlint.fix.verify import parse_bytes, verified
from kqlint.loader import SourceFile, position
from kqlint.model import Finding

if TYPE_CHECKING:
    from kqlint.domain.objects import K8sObject


@dataclass
class FileFixes:
    """The outcome for one file."""

    text: str                       # the new text (BOM excluded)
    applied: list[Finding] = field(default_factory=list)
    deferred: list[Finding] = field(default_factory=list)  # overlap an applied fix: next pass
    failed: list[Finding] = field(default_factory=list)    # cannot be written safely
    stale: bool = False             # the file no longer matches the findings: nothing applied


def fix_file(raw: bytes, display: str, findings: Sequence[Finding], namespace: str = "default") -> FileFixes:
    """Apply the fixes of ``findings`` (all in this file) to ``raw``, as far as they do not
    overlap; returns the new text and which findings were fixed, deferred or failed."""
    planned = plan_file(raw, display, findings, namespace)
    if planned is None:
        return FileFixes("", failed=list(findings))
    text, source, plans, outcome = planned
    if outcome.stale:
        return outcome
    taken = _without_overlaps(plans, outcome.deferred)
    accepted = verified(text, source, taken, display)
    outcome.applied = [p.finding for p in accepted]
    accepted_ids = {id(p) for p in accepted}
    outcome.failed += [p.finding for p in taken if id(p) not in accepted_ids]
    outcome.text = apply_text(text.text, [e for p in accepted for e in p.edits])
    return outcome


def plan_file(raw: bytes, display: str, findings: Sequence[Finding], namespace: str = "default"
              ) -> tuple[Text, SourceFile, list[Planned], FileFixes] | None:
    """The text edits of each finding's fix (None: the file is not UTF-8 text)."""
    try:
        text = Text(raw)
    except UnicodeDecodeError:
        return None
    source = parse_bytes(display, raw)
    outcome = FileFixes(text.text)
    planned: list[Planned] = []
    from kqlint.domain.objects import objects_from_file

    objects, _, _ = objects_from_file(source, namespace)  # once per file, not once per finding
    index = _ObjectIndex(objects)
    for finding in findings:
        plan = _plan(text, index, finding)
        if plan == "stale":
            return text, source, [], FileFixes(text.text, failed=list(findings), stale=True)
        if isinstance(plan, Planned):
            planned.append(plan)
        else:
            outcome.failed.append(finding)
    return text, source, planned, outcome


FILES_PER_JOB = 40  # each file is parsed at least twice: worth a worker from a few dozen on


def resolve(findings: Sequence[Finding], read: Any, namespace: str = "default", jobs: int = 1,
            memo: Any = None, beside: Callable[[], None] | None = None) -> list[Finding]:
    """``findings`` with each fix's text ranges filled in (``Fix.text``); a fix that cannot
    be written safely (or whose file cannot be read with ``read(file)``) is dropped. Files are
    resolved over ``jobs`` processes; ``memo`` (kqlint.cache.fixes.ResolvedFixes) answers
    files resolved by an earlier run from the same content and fixes. ``beside()`` runs in
    this process first, beside the workers when there are any (parallel.map_chunks' before)."""
    by_file: dict[str, list[Finding]] = {}
    for finding in findings:
        if finding.fix is not None:
            by_file.setdefault(finding.location.file, []).append(finding)
    keys = {file: memo.key(file, fixable, namespace) if memo is not None else None
            for file, fixable in by_file.items()}
    fixes: dict[str, list[Fix | None]] = {}
    for file, key in keys.items():
        stored = memo.get(key) if key is not None else None
        if stored is not None and len(stored) == len(by_file[file]):
            fixes[file] = stored
    misses = [(file, fixable) for file, fixable in by_file.items() if file not in fixes]
    from kqlint.engine.parallel import map_chunks

    for (file, _), resolved in zip(misses, map_chunks(partial(_resolve_file, read=read, namespace=namespace),
                                                      misses, jobs, FILES_PER_JOB, before=beside), strict=True):
        fixes[file] = resolved
        if keys[file] is not None:
            memo.put(keys[file], resolved)
    new = {id(finding): replace(finding, fix=fix) for file, fixable in by_file.items()
           for finding, fix in zip(fixable, fixes[file], strict=True)}
    return [new.get(id(f), f) for f in findings]


def _resolve_file(item: tuple[str, list[Finding]], read: Any, namespace: str) -> list[Fix | None]:
    """Each finding's fix with its text ranges, or None where it cannot be written safely."""
    file, fixable = item
    raw = read(file)
    planned = plan_file(raw, file, fixable, namespace) if raw is not None else None
    plans = verified(planned[0], planned[1], planned[2], file) if planned and not planned[3].stale else []
    text = planned[0] if planned else None
    good = {id(plan.finding): plan for plan in plans}
    resolved: list[Fix | None] = []
    for finding in fixable:
        plan, fix = good.get(id(finding)), finding.fix
        assert fix is not None
        resolved.append(replace(fix, text=tuple(_range(text, e) for e in plan.edits)) if plan and text else None)
    return resolved


def _range(text: Text, edit: TextEdit) -> TextRange:
    line, column = text.position(edit.start)
    end_line, end_column = text.position(edit.end)
    return TextRange(line, column, end_line, end_column, edit.content)


def _plan(text: Text, index: _ObjectIndex, finding: Finding) -> Planned | str | None:
    fix = finding.fix
    if fix is None:
        return None
    obj = index.object_of(finding)
    if obj is None:
        return None  # not a top-level object (one wrapped in another): not fixed
    if finding.location.path and not _still_there(obj, finding):
        return "stale"
    target = Target(text, obj.root, obj.base)
    try:
        edits = tuple(e for edit in fix.edits for e in target.edit(edit))
    except (NotApplicable, KeyError, IndexError, TypeError):
        return None
    if any(a.overlaps(b) and not (a.start == a.end == b.start == b.end)
           for i, a in enumerate(edits) for b in edits[i + 1:]):
        return None  # inserts at one point are fine inside a fix: the deeper one goes first
    return Planned(finding, obj.doc, obj.base, edits)


class _ObjectIndex:
    """A file's objects by identity, each with where it starts: a finding finds its object
    without a walk over the whole file (one file of thousands of fixable documents)."""

    def __init__(self, objects: list[Any]) -> None:
        self.everything: list[tuple[tuple[int, int], Any]] = []
        self.by_identity: dict[tuple[str, str, str], list[tuple[tuple[int, int], Any]]] = {}
        for obj in objects:
            start = obj.location()
            entry = ((start.line, start.column), obj)
            self.everything.append(entry)
            self.by_identity.setdefault((obj.kind, obj.name, obj.api_version), []).append(entry)

    def object_of(self, finding: Finding) -> Any:
        """The object the finding's location points into: same identity, the last one starting
        at or before the location (the first one for a location before every object)."""
        location = finding.location
        ref = location.obj or finding.obj
        same = self.everything if ref is None else self.by_identity.get((ref.kind, ref.name, ref.api_version), [])
        here = (location.line, location.column)
        before = [obj for start, obj in same if start <= here]
        return before[-1] if before else (same[0][1] if same else None)


def _still_there(obj: K8sObject, finding: Finding) -> bool:
    """Whether the finding's node is still at its reported position (the file did not change)."""
    full = obj.base + tuple(finding.location.path)
    here = (finding.location.line, finding.location.column)
    return any(position(obj.root, full, value)[:2] == here for value in (False, True)) or \
        position(obj.root, full)[2] < len(full)  # a missing node: at() points at its parent


def _without_overlaps(planned: list[Planned], deferred: list[Finding]) -> list[Planned]:
    """The plans, in order, that overlap no plan taken before them (the rest deferred)."""
    taken: list[Planned] = []
    edits = _TakenEdits()
    for plan in sorted(planned, key=lambda p: (p.edits[0].start if p.edits else 0, p.finding.sort_key())):
        if any(edits.overlapped(a) for a in plan.edits):
            deferred.append(plan.finding)
        else:
            taken.append(plan)
            edits.add(plan.edits)
    return taken


class _TakenEdits:
    """The edits of the plans taken so far, by start. They never overlap one another (but for
    one fix's inserts at one point), so a new edit can only overlap the last one starting
    before it or those starting inside it: looked up by bisection, not over every edit."""

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.edits: list[TextEdit] = []

    def overlapped(self, edit: TextEdit) -> bool:
        low = bisect_left(self.starts, edit.start)
        high = bisect_right(self.starts, edit.end)
        nearby = self.edits[max(0, low - 1):high]
        return any(edit.overlaps(other) for other in nearby)

    def add(self, edits: tuple[TextEdit, ...]) -> None:
        for edit in edits:
            at = bisect_right(self.starts, edit.start)
            self.starts.insert(at, edit.start)
            self.edits.insert(at, edit)


def changed_paths(fix: Fix) -> list[tuple[Any, ...]]:
    """The paths a fix touches (for reports)."""
    return [edit.path + ((edit.key,) if edit.op == "insert" else ()) for edit in fix.edits]
