"""Baselines (``--write-baseline FILE`` / ``--baseline FILE``): adopt kqlint in an existing
repository by accepting today's findings and reporting only new ones.

An entry is keyed on rule code + object (``kind/namespace/name``) + field path inside
the object, never on a line number, so edits elsewhere in a file, or moving an object
to another file, do not resurrect it. Findings without an object (KQ001, KQ006) are keyed
on the file instead. Identical keys are counted: a baseline entry with ``count: 2`` absorbs
two such findings, and a third one is new.

The file is YAML (or JSON when its name ends in ``.json``), sorted, with one entry per
key, so it diffs and reviews well. ``file`` and ``slug`` are there for the reviewer; they
are not part of the key.
"""
from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from kqlint.errors import BaselineError
from kqlint.model import Finding, Report

VERSION = 1
HEADER = """\
# kqlint baseline: findings accepted when kqlint was adopted. `kqlint check --baseline FILE`
# reports only findings not listed here. Entries are keyed on rule code + object + field path
# (never line numbers); `file` and `slug` are for reviewers. Regenerate with --write-baseline.
"""


@dataclass(frozen=True, order=True)
class Key:
    code: str
    object: str        # "Kind/namespace/name", "Kind/name" (cluster-scoped) or "" (file-level)
    path: str          # field path inside the object, dotted ("spec.template.spec.priorityClassName")
    file: str = ""     # only for file-level findings (no object)


def object_id(finding: Finding) -> str:
    obj = finding.obj
    if obj is None:
        return ""
    return f"{obj.kind}/{obj.namespace}/{obj.name}" if obj.namespace else f"{obj.kind}/{obj.name}"


def finding_key(finding: Finding) -> Key:
    from kqlint.sanitize import undecodable_escaped  # a non-UTF-8 file name round-trips as `\xff`

    obj = object_id(finding)
    return Key(finding.code, obj, finding.field_path(), "" if obj else undecodable_escaped(finding.location.file))


def occurrences(findings: Iterable[Finding]) -> list[tuple[Finding, Key, int]]:
    """Each finding with its key and its 1-based ordinal among findings with that key (in
    the given order): what SARIF fingerprints use to stay distinct and stable."""
    seen: Counter[Key] = Counter()
    result = []
    for finding in findings:
        key = finding_key(finding)
        seen[key] += 1
        result.append((finding, key, seen[key]))
    return result


# ------------------------------------------------------------------ writing

def entries(findings: Iterable[Finding]) -> list[dict[str, Any]]:
    counts: Counter[Key] = Counter()
    meta: dict[Key, tuple[str, str]] = {}
    for finding in findings:
        key = finding_key(finding)
        counts[key] += 1
        meta.setdefault(key, (finding.slug, key.file or finding.location.file))
    result = []
    for key in sorted(counts):
        slug, file = meta[key]
        entry: dict[str, Any] = {"code": key.code, "slug": slug, "object": key.object, "path": key.path,
                                 "file": file}
        if counts[key] > 1:
            entry["count"] = counts[key]
        result.append(entry)
    return result


def dumps(findings: Iterable[Finding], as_json: bool = False) -> str:
    listed = entries(findings)
    if as_json:
        return json.dumps({"version": VERSION, "findings": listed}, indent=2, ensure_ascii=False) + "\n"
    lines = [HEADER + f"version: {VERSION}", "findings:" + ("" if listed else " []")]
    for entry in listed:
        items = list(entry.items())
        for index, (name, value) in enumerate(items):
            lead = "  - " if index == 0 else "    "
            lines.append(f"{lead}{name}: {_scalar(value)}")
    return "\n".join(lines) + "\n"


def _scalar(value: Any) -> str:
    # JSON strings are valid YAML double-quoted scalars: no escaping rules of our own
    return str(value) if isinstance(value, int) else json.dumps(value, ensure_ascii=False)


def write(path: str, findings: Iterable[Finding]) -> int:
    """Write the baseline of ``findings`` to ``path``; returns the number of findings."""
    findings = list(findings)
    text = dumps(findings, as_json=path.endswith(".json"))
    from kqlint.project.writer import OutputError, write_file

    try:
        write_file(path, text, "baseline")
    except OutputError as exc:
        raise BaselineError(str(exc)) from None
    return len(findings)


# ------------------------------------------------------------------ reading and applying

MAX_BASELINE_SIZE = 64 * 1024 * 1024


def load(path: str) -> Counter[Key]:
    """The accepted findings of a baseline file, as key -> count."""
    from kqlint.project.bounded import ReadRefused, read_file
    from kqlint.project.writer import remember_read

    if not os.path.isfile(path):
        raise BaselineError(f"baseline file not found: {path}")
    try:
        raw = read_file(path, MAX_BASELINE_SIZE)
    except (OSError, ReadRefused) as exc:
        raise BaselineError(f"cannot read baseline {path}: {getattr(exc, 'strerror', None) or exc}") from None
    remember_read([path])
    data = _parse(raw, path)
    items = data.get("findings") if isinstance(data, dict) else None
    if not isinstance(items, list) or data.get("version") != VERSION:
        raise BaselineError(f"{path} is not a kqlint baseline (version: {VERSION} and a findings list)")
    counts: Counter[Key] = Counter()
    for entry in items:
        key, count = _entry(entry, path)
        counts[key] += count
    return counts


def _parse(raw: bytes, path: str) -> Any:
    """JSON, or YAML read by kqlint's own loader (safe tags, alias and depth budgets)."""
    if path.endswith(".json"):
        try:
            return json.loads(raw.decode("utf-8"))
        except (ValueError, RecursionError) as exc:
            raise BaselineError(f"{path}: invalid JSON: {_reason(exc)}") from None
    from kqlint.loader import parse_bytes

    source = parse_bytes(path, raw)
    if source.problems:
        problem = source.problems[0]
        raise BaselineError(f"{path}:{problem.line}:{problem.column}: {problem.message}")
    documents = [d for d in source.documents if d is not None]
    return documents[0] if len(documents) == 1 else None


def _reason(exc: BaseException) -> str:
    from kqlint.sanitize import shorten

    return "nested too deeply" if isinstance(exc, RecursionError) else shorten(str(exc) or type(exc).__name__)


def _entry(entry: Any, path: str) -> tuple[Key, int]:
    from kqlint.sanitize import excerpt

    if not isinstance(entry, dict) or not isinstance(entry.get("code"), str):
        raise BaselineError(f"{path}: every finding needs at least a `code`: {excerpt(entry)}")
    count = entry.get("count", 1)
    if not isinstance(count, int) or isinstance(count, bool) or count < 1:
        raise BaselineError(f"{path}: `count` must be a positive integer: {excerpt(entry)}")
    obj, field_path = str(entry.get("object") or ""), str(entry.get("path") or "")
    return Key(entry["code"], obj, field_path, "" if obj else str(entry.get("file") or "")), count


def apply(report: Report, accepted: Counter[Key]) -> tuple[Report, int]:
    """``report`` without the findings the baseline accepts; returns (new report, number
    of findings the baseline absorbed)."""
    left = Counter(accepted)
    kept = []
    for finding in report.findings:
        key = finding_key(finding)
        if left[key] > 0:
            left[key] -= 1
        else:
            kept.append(finding)
    return replace(report, findings=tuple(kept)), len(report.findings) - len(kept)
