"""Misspelt ``# kqlint:`` comments (``# kqlint: ignroe[KQ202]``, ``# kqlint: ignore(KQ202)``):
they suppress nothing, so each is a warning on stderr naming file, line and the fix, as
ruff warns about an invalid ``# noqa``."""
from __future__ import annotations

import difflib
import re
from typing import Iterable

from kqlint.sanitize import terminal_safe

KNOWN = ("ignore", "ignore-file")
_COMMENT = re.compile(r"#\s*kqlint:\s*(?P<word>[\w-]*)(?P<rest>\S*)")
_VALID = re.compile(r"#\s*kqlint:\s*(ignore-file|ignore)(?![\w-])\s*(?:\[[^\]]*\]|$|\s)")


def problems(file: str, comment_lines: dict[int, str]) -> list[str]:
    result = []
    for line, text in sorted(comment_lines.items()):
        for match in _COMMENT.finditer(text):
            if _VALID.match(text, match.start()):
                continue
            word = match.group("word")
            close = difflib.get_close_matches(word, KNOWN, n=1, cutoff=0.6)
            hint = f"did you mean `# kqlint: {close[0]}[CODE]`?" if close and close[0] != word \
                else "write `# kqlint: ignore[CODE]` or `# kqlint: ignore-file[CODE]`"
            result.append(terminal_safe(f"kqlint: warning: {file}:{line}:{match.start() + 1}: unknown kqlint "
                                        f"directive `{match.group().strip()}` suppresses nothing; {hint}"))
    return result


def all_problems(sources: Iterable[object]) -> tuple[str, ...]:
    found: list[str] = []
    for source in sources:
        comments = getattr(source, "comment_lines", None)
        if comments:
            found.extend(problems(getattr(source, "path"), comments))
    return tuple(found)
