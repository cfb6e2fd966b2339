"""``check --add-noqa``: a ``# kqlint: ignore[CODE]`` comment for the findings of one file, where
the suppression matcher (kqlint.engine.suppress) looks for it: on the finding's line, or on a
comment line just above it.

For each line that holds findings, in this order:

1. its codes added to a ``# kqlint: ignore[...]`` already on that line, or on a comment-only
   line just above it (one comment per line, never a second);
2. a comment at the end of the line;
3. a comment on a line of its own above it, at its indentation (for a line whose end is
   inside a multi-line string or a plain scalar that goes on below, where a comment would
   change the value or end it).

A placement is kept only when the new text parses to the same documents with the same load
problems (as --fix verifies its edits), every comment suppression still covers the lines it
covered, and the new comment covers the finding's line. A line where none of them holds is
left alone with a reason, as is a KQ000 finding (an unused suppression is removed or moved,
not silenced); a file kubectl reads as JSON (no comments), that is not UTF-8 or that does
not load as manifests (KQ001, KQ006) is left alone whole.
"""
from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from kqlint.fix.text import Text, TextEdit, apply_text
from kqlint.model import Finding

NOT_IN_A_LINE = ("KQ001", "KQ006")  # the file as a whole cannot be read: no comment can be checked
UNUSED_SUPPRESSION = "KQ000"  # silencing it would keep a stale or misplaced suppression for good


@dataclass(frozen=True)
class Placement:
    edit: TextEdit
    new_line: bool  # a comment on a line of its own: the lines below move down by one


@dataclass
class Commented:
    """The outcome for one file."""

    text: str                        # the new text (BOM excluded)
    data: bytes = b""                # the new text as the file's bytes (its byte-order mark kept)
    edits: list[TextEdit] = field(default_factory=list)  # what changed, offsets in the text
    lines: int = 0                   # lines given a comment or more codes in one
    skipped: list[tuple[int, str]] = field(default_factory=list)  # (line, why not)
    refused: str | None = None       # why the file is left alone whole


def directive(codes: Iterable[str]) -> str:
    return f"# kqlint: ignore[{', '.join(codes)}]"


def add_noqa(raw: bytes, display: str, findings: Sequence[Finding]) -> Commented:
    """``raw`` (the file ``display``) with a suppression for each of ``findings`` (all in it)."""
    try:
        text = Text(raw)
    except UnicodeDecodeError:
        return Commented("", refused="it is not UTF-8 text")
    refusal = _refusal(text, display, findings)
    if refusal is not None:
        return Commented(text.text, refused=refusal)
    codes: dict[int, set[str]] = {}
    outcome = Commented(text.text)
    for finding in findings:
        if finding.code == UNUSED_SUPPRESSION:
            outcome.skipped.append((finding.location.line, "the suppression here silenced nothing (KQ000): "
                                                           "remove it or move it to its finding"))
        else:
            codes.setdefault(finding.location.line, set()).add(finding.code)
    outcome.skipped += [(line, "the finding has no line in the file") for line in sorted(codes)
                        if not 1 <= line <= len(text.starts)]
    check = _Checker(text, display)
    wanted = {line: [code for code in sorted(found) if not check.silenced(line, code)]  # not done already
              for line, found in sorted(codes.items()) if 1 <= line <= len(text.starts)}
    wanted = check.wanted = {line: found for line, found in wanted.items() if found}
    continued = _continued_lines(check.source.documents, text)
    options = {line: placements(text, line, found, line in continued) for line, found in wanted.items()}
    chosen = _choose(check, options, outcome.skipped)
    outcome.skipped.sort()
    outcome.lines = len(chosen)
    outcome.edits = [p.edit for p in chosen.values()]
    outcome.text = apply_text(text.text, outcome.edits)
    outcome.data = text.encoded(outcome.text)
    return outcome


def _choose(check: _Checker, options: dict[int, list[Placement]], skipped: list[tuple[int, str]]
            ) -> dict[int, Placement]:
    """A placement for each line: the first choice of every line at once, halved where that
    fails (a parse per try: a few lines that need another choice cost a few parses each)."""
    chosen: dict[int, Placement] = {}

    def settle(lines: list[int]) -> None:
        trial = {**chosen, **{line: options[line][0] for line in lines}}
        if check.keeps(trial):
            chosen.update(trial)
        elif len(lines) > 1:
            settle(lines[:len(lines) // 2])
            settle(lines[len(lines) // 2:])
        else:
            fitting = next((p for p in options[lines[0]][1:] if check.keeps({**chosen, lines[0]: p})), None)
            if fitting is None:
                skipped.append((lines[0], "a comment on or above this line would change what the file means "
                                          "(inside a multi-line value)"))
            else:
                chosen[lines[0]] = fitting

    if options:
        settle(list(options))
    return chosen


def _refusal(text: Text, display: str, findings: Sequence[Finding]) -> str | None:
    if display.endswith(".json") or text.text.lstrip()[:1] in ("{", "["):
        return "kubectl reads it as JSON, which has no comments"
    unreadable = sorted((f.location.line, f.code) for f in findings if f.code in NOT_IN_A_LINE)
    if unreadable:
        line, code = unreadable[0]
        return f"it does not load as manifests ({code} at line {line}); fix or render it first"
    return None


def placements(text: Text, line: int, codes: Sequence[str], continued: bool = False) -> list[Placement]:
    """Where a comment silencing ``codes`` on ``line`` can go, best first (see the module);
    ``continued``: a scalar goes on past the line's end, so a line above comes first."""
    from kqlint.engine.suppress import ignore_brackets, parse_names

    start = text.starts[line - 1]
    end = text.line_end(start)
    content = text.text[start:end]
    found: list[Placement] = []
    above = text.starts[line - 2] if line > 1 else None
    for at, words in ((start, content), (above, text.text[above:text.line_end(above)] if above is not None else "")):
        span = ignore_brackets(words) if at == start or words.lstrip().startswith("#") else None
        if at is not None and span is not None:
            inner = words[span[0]:span[1]]
            missing = [code for code in codes if code.upper() not in parse_names(inner)]
            joined = inner.rstrip() + (", " if inner.strip() else "") + ", ".join(missing)
            found.append(Placement(TextEdit(at + span[0], at + span[1], joined), False))
            break
    separator = "" if not content or content[-1] in " \t" else "  "
    found.append(Placement(TextEdit(end, end, separator + directive(codes)), False))
    indent = content[:len(content) - len(content.lstrip(" \t"))]
    line_break = text.text[end:text.next_line(start)] or text.newline
    found.insert(len(found) - 1 if continued else len(found),
                 Placement(TextEdit(start, start, indent + directive(codes) + line_break), True))
    return found


def _continued_lines(documents: Sequence[Any], text: Text) -> set[int]:
    """The lines a plain or quoted scalar goes on past (a block scalar's header line takes a
    comment): there a comment at the end of the line would end the scalar or join it. Only
    an order of preference: every placement is verified."""
    from kqlint.loader import Map, Seq, node_end, positions_of, unpack

    lines: set[int] = set()
    stack: list[Any] = [d for d in documents if isinstance(d, (Map, Seq))]
    seen: set[int] = set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        positions: Any = positions_of(node)
        values = list(node.values()) if isinstance(node, Map) else list(node)
        starts = [positions[2 * i + 1] for i in range(len(values))] if isinstance(node, Map) else list(positions)
        for value, packed in zip(values, starts, strict=False):
            if isinstance(value, (Map, Seq)):
                stack.append(value)
                continue
            (first, column), end = unpack(packed), node_end(value, packed)
            last = unpack(end)[0] if end else first
            if last > first and text.text[text.starts[first - 1] + column - 1:][:1] not in ("|", ">"):
                lines.update(range(first, last))
    return lines


class _Checker:
    """Whether placements keep the file's meaning and silence what they are for."""

    def __init__(self, text: Text, display: str) -> None:
        from kqlint.domain.fields import plain
        from kqlint.engine.suppress import line_coverage
        from kqlint.fix.verify import parse_bytes

        self.text, self.display = text, display
        self.wanted: dict[int, list[str]] = {}  # line -> the codes its comment must silence
        self.source = parse_bytes(display, text.encoded(text.text))
        self.expected: list[Any] = [plain(document) for document in self.source.documents]
        self.covered = line_coverage(display, self.source.comment_lines)

    def silenced(self, line: int, code: str) -> bool:
        """Whether a comment already silences ``code`` on ``line`` (another name of the file did)."""
        from kqlint.engine.suppress import ALL

        return not {code.upper(), ALL}.isdisjoint(self.covered.get(line, ()))

    def keeps(self, chosen: dict[int, Placement]) -> bool:
        from kqlint.engine.suppress import ALL, line_coverage
        from kqlint.fix.verify import parse_bytes, reads_as

        new_text = apply_text(self.text.text, [p.edit for p in chosen.values()])
        fixed = parse_bytes(self.display, self.text.encoded(new_text))
        if not reads_as(self.source, fixed, self.expected):
            return False
        covered = line_coverage(self.display, fixed.comment_lines)
        inserted = sorted(line for line, p in chosen.items() if p.new_line)

        def moved(line: int) -> int:  # where an old line is now
            return line + bisect_right(inserted, line)

        if any(not names <= covered.get(moved(line), frozenset()) for line, names in self.covered.items()):
            return False  # a comment line put between an old comment and the line it silenced
        return all(not {code.upper(), ALL}.isdisjoint(covered.get(moved(line), ()))
                   for line in chosen for code in self.wanted[line])
