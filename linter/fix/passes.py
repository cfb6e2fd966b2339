"""``check --fix`` / ``--unsafe-fixes`` / ``--diff`` / ``--fix-only``: lint, apply fixes, lint again.

A pass groups the fixable findings by file and applies what does not overlap
(kqlint.fix); a fix that overlaps one already taken waits for the next pass, which
starts from a fresh lint. At most MAX_PASSES passes; the report is the last lint's.

Writing is narrow: only input files are written (never a ``--context`` file, never a
pseudo-file, never a symlink whose target is not itself an input), atomically (a temporary
file in the same folder, then a rename) with the file's mode kept, and only when the file
still holds the bytes the fix was computed from; otherwise the file is left alone and a
note says so. ``--diff`` computes one pass in memory and writes nothing.
"""
from __future__ import annotations

import difflib
import os
import stat
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from kqlint.fix.model import Applicability
from kqlint.model import Finding, Report, StreamText

MAX_PASSES = 8


@dataclass
class FixOutcome:
    report: Report                                            # what is left (the last lint)
    fixed: Counter[str] = field(default_factory=Counter)      # rule code -> findings fixed
    files: dict[str, tuple[bytes, bytes]] = field(default_factory=dict)  # file -> (first read, last written)
    notes: list[str] = field(default_factory=list)            # files not written, and why

    def diff(self) -> str:
        return "".join(unified_diff(path, before, after) for path, (before, after) in sorted(self.files.items()))

    def summary(self) -> str:
        total = sum(self.fixed.values())
        if not total:
            return "no fixes applied"
        rules = ", ".join(f"{code}: {count}" for code, count in sorted(self.fixed.items()))
        files = len(self.files)
        return f"fixed {total} finding(s) ({rules}) in {files} file{'s' if files != 1 else ''}"


def fixable(finding: Finding, unsafe: bool) -> bool:
    fix = finding.fix
    return fix is not None and bool(fix.edits) and (unsafe or fix.applicability is Applicability.SAFE)


def fix_counts(findings: Iterable[Finding]) -> tuple[int, int]:
    """(safe fixes, unsafe-only fixes) among ``findings``."""
    safe = sum(1 for f in findings if fixable(f, False))
    unsafe = sum(1 for f in findings if fixable(f, True)) - safe
    return safe, unsafe


def unified_diff(path: str, before: bytes, after: bytes) -> str:
    """The diff of one file; its name escaped as every report does (a committed name could
    otherwise print ESC sequences, a workflow command or a forged ``+++`` header line)."""
    from kqlint.sanitize import terminal_safe

    old = before.decode("utf-8", "surrogateescape").splitlines(keepends=True)
    new = after.decode("utf-8", "surrogateescape").splitlines(keepends=True)
    name = terminal_safe(path)
    lines = list(difflib.unified_diff(old, new, f"a/{name}", f"b/{name}"))
    return "".join(line if line.endswith(("\n", "\r")) else line + "\n\\ No newline at end of file\n"
                   for line in lines)


def fix_run(lint: Callable[[], Report], unsafe: bool, write: bool, namespace: str = "default",
            report_needed: bool = True, jobs: int = 1) -> FixOutcome:
    """Lint with ``lint``, fix, and lint again until nothing more applies (``write``), or one
    pass in memory (not ``write``: ``--diff``). Without ``report_needed`` (``--fix-only``) the
    last lint is left out unless a fix waits for another pass. A lint after a pass parses
    only the files it changed when the caller lints in ``Pipeline.fix_passes()``; fixes are
    worked out over ``jobs`` processes, files written in order by this one."""
    report = lint()
    outcome = FixOutcome(report)
    for _ in range(MAX_PASSES):
        applied, waiting = _one_pass(report, unsafe, write, namespace, outcome, jobs)
        if not write or not applied or not (report_needed or waiting):
            break
        report = lint()
        outcome.report = report
        if not any(fixable(f, unsafe) for f in report.findings):
            break
    return outcome


def _one_pass(report: Report, unsafe: bool, write: bool, namespace: str, outcome: FixOutcome,
              jobs: int = 1) -> tuple[int, int]:
    """(fixes applied, fixes waiting for the next pass)."""
    from kqlint.engine.parallel import map_chunks
    from kqlint.fix import fix_file
    from kqlint.fix.plan import FILES_PER_JOB

    inputs = set(report.files)
    by_file: dict[str, list[Finding]] = {}
    for finding in report.findings:
        if fixable(finding, unsafe) and finding.location.file in inputs:
            by_file.setdefault(finding.location.file, []).append(finding)
    notes: dict[str, str] = {}  # path -> why it was not fixed (said in path order)
    readable: list[tuple[str, str, bytes, list[Finding]]] = []
    for path, findings in sorted(by_file.items()):
        target = writable_target(path, inputs)
        raw = read_input(target) if not isinstance(target, Refusal) else None
        if isinstance(target, Refusal):
            notes[path] = target.reason
        elif raw is None:
            notes[path] = "cannot read it"
        else:
            readable.append((path, target, raw, findings))
    results = map_chunks(lambda item: fix_file(item[2], item[0], item[3], namespace), readable, jobs, FILES_PER_JOB)
    applied = waiting = 0
    for (path, target, raw, _), result in zip(readable, results, strict=True):
        if result.stale:
            notes[path] = "it changed on disk since it was read"
            continue
        waiting += len(result.deferred)
        if not result.applied:
            continue
        new = _encoded(raw, result.text)
        problem = write_atomically(target, raw, new) if write else None
        if problem is not None:
            notes[path] = problem
            continue
        first = outcome.files.get(path, (raw, raw))[0]
        outcome.files[path] = (first, new)
        outcome.fixed.update(f.code for f in result.applied)
        applied += len(result.applied)
    outcome.notes.extend(f"{path}: not fixed: {notes[path]}" for path in sorted(notes))
    return applied, waiting


def _encoded(raw: bytes, text: str) -> bytes:
    from kqlint.fix import BOM

    return ((BOM if raw.startswith(b"\xef\xbb\xbf") else "") + text).encode("utf-8")


def readable_input(files: Iterable[str], streams: Iterable[StreamText] = ()) -> Callable[[str], bytes | None]:
    """``read(file)``: the bytes of an input file (None for a context file, a failure); of what
    was read from stdin, the stream's own bytes when it is the whole stream (what ``--fix -``
    rewrites), else None (a document cut out by a Helm ``# Source:`` comment is not fixed)."""
    inputs = set(files)
    read_from_stdin: dict[str, bytes | None] = {}
    for stream in streams:
        read_from_stdin[stream.file] = stream.data if stream.whole and stream.file not in read_from_stdin else None

    def read(path: str) -> bytes | None:
        if path in read_from_stdin:
            return read_from_stdin[path]
        return read_input(path) if path in inputs and not path.startswith("<") else None
    return read


def read_input(path: str) -> bytes | None:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError:
        return None


# ------------------------------------------------------------------ writing

@dataclass(frozen=True)
class Refusal:
    reason: str


def writable_target(path: str, inputs: set[str]) -> str | Refusal:
    """The real file to write for input ``path``, or why it must not be written."""
    if path.startswith("<") and path.endswith(">"):
        return Refusal("not a file")
    if not os.path.lexists(path):
        return Refusal("it no longer exists")
    if os.path.islink(path):
        real = os.path.realpath(path)
        if not any(os.path.realpath(other) == real and not os.path.islink(other) for other in inputs):
            return Refusal("it is a symlink to a file that is not an input; fix the target itself")
        return real
    if not stat.S_ISREG(os.stat(path).st_mode):
        return Refusal("not a regular file")
    return path


def write_atomically(path: str, expected: bytes, data: bytes) -> str | None:
    """Replace ``path`` with ``data`` if it still holds ``expected``; None, or why not."""
    folder = os.path.dirname(os.path.abspath(path))
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=f".{os.path.basename(path)}.", suffix=".kqlint")
    except OSError as exc:
        return f"cannot write in its folder ({exc.strerror or exc})"
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fchmod(stream.fileno(), mode)
        if read_input(path) != expected:
            return "it changed on disk since it was read"
        os.replace(temporary, path)
        return None
    except OSError as exc:
        return f"cannot write it ({exc.strerror or exc})"
    finally:
        if os.path.lexists(temporary):
            os.unlink(temporary)
