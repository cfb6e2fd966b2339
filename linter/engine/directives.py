"""Misspelt ``# kqlint:`` comments, each a warning on stderr naming file, line and the fix,
as ruff warns about an invalid ``# noqa``: an unknown directive (``# kqlint: ignroe[KQ202]``)
suppresses nothing; codes outside square brackets (``# kqlint: ignore(KQ202)``) leave a
bare ``ignore``, which silences every rule on the line."""
from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from typing import Protocol

from kqlint.engine.suppress import DIRECTIVE_KIND
from kqlint.loader.comments import DIRECTIVE_PREFIX
from kqlint.sanitize import terminal_safe

KNOWN = ("ignore", "ignore-file")
_COMMENT = re.compile(DIRECTIVE_PREFIX + r"\s*(?P<word>[\w-]*)(?P<rest>\S*)")
_VALID = re.compile(DIRECTIVE_PREFIX + DIRECTIVE_KIND + r"(?:\[[^\]]*\]|$|\s)")


def problems(file: str, comment_lines: dict[int, str]) -> list[str]:
    from kqlint.engine.suppress import comment_start

    result = []
    for line, text in sorted(comment_lines.items()):
        start = comment_start(text)
        if start is None:
            continue
        for match in _COMMENT.finditer(text, start):
            if _VALID.match(text, match.start()):
                continue
            result.append(terminal_safe(f"kqlint: warning: {file}:{line}:{match.start() + 1}: "
                                        f"{_explain(match.group('word'), match.group().strip())}"))
    return result


def _explain(word: str, written: str) -> str:
    if word in KNOWN:
        return (f"`{written}`: codes go in square brackets (`# kqlint: {word}[CODE]`); as written it "
                f"silences every rule")
    close = difflib.get_close_matches(word, KNOWN, n=1, cutoff=0.6)
    hint = f"did you mean `# kqlint: {close[0]}[...]`?" if close \
        else "write `# kqlint: ignore[CODE]` or `# kqlint: ignore-file[CODE]`"
    return f"unknown kqlint directive `{written}` suppresses nothing; {hint}"


class CommentedSource(Protocol):
    """What this module reads of a loaded file (the loader's ``SourceFile``)."""

    path: str
    comment_lines: dict[int, str]


def all_problems(sources: Iterable[CommentedSource]) -> tuple[str, ...]:
    found: list[str] = []
    for source in sources:
        if source.comment_lines:
            found.extend(problems(source.path, source.comment_lines))
    return tuple(found)
