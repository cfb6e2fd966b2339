"""The CLI side of ``check --add-noqa``: a suppression comment for each current finding, placed
by kqlint.fix.noqa and written by --fix's writer (input files only, never through a symlink to a
file that is not an input, atomically, only when the file still holds the bytes read); then the
report of what is left."""
from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kqlint.model import Finding, Report


def add_noqa_run(lint: Callable[[], Report], shown: Callable[[Report], Report],
                 err: Callable[[str], None], quiet: bool) -> Report:
    """Lint, comment the findings ``shown`` keeps (those a baseline does not absorb) and lint
    again; what was written and what was not are said on stderr."""
    from kqlint.fix.noqa import add_noqa
    from kqlint.fix.passes import Refusal, read_input, writable_target, write_atomically

    report = lint()
    inputs = set(report.files)
    by_file: dict[str, list[Finding]] = {}
    for finding in shown(report).findings:
        if finding.location.file in inputs:
            by_file.setdefault(finding.location.file, []).append(finding)
    notes: list[str] = []
    targets: dict[str, tuple[str, str, list[Finding]]] = {}  # real file -> (path, target, findings)
    for path, findings in sorted(by_file.items()):
        target = writable_target(path, inputs)
        if isinstance(target, Refusal):
            notes.append(f"{path}: no comments added: {target.reason}")
            continue  # an input and a symlink to it are one file: its comments are written once
        targets.setdefault(os.path.realpath(target), (path, target, []))[2].extend(findings)
    lines = files = 0
    for path, target, findings in targets.values():
        raw = read_input(target)
        outcome = add_noqa(raw, path, findings) if raw is not None else None
        refused = "cannot read it" if outcome is None else outcome.refused
        if outcome is None or refused is not None:
            notes.append(f"{path}: no comments added: {refused}")
            continue
        notes += [f"{path}:{line}: no comment added: {why}" for line, why in outcome.skipped]
        problem = write_atomically(target, raw, outcome.data) if outcome.lines and raw is not None else None
        if problem is not None:
            notes.append(f"{path}: no comments added: {problem}")
        elif outcome.lines:
            lines, files = lines + outcome.lines, files + 1
    for note in notes:
        err(f"kqlint: {note}")
    if not quiet:
        err(f"kqlint: added {lines} suppression comment(s) in {files} file{'s' if files != 1 else ''}")
    return lint() if files else report
