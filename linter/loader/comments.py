"""The ``# kqlint:`` comments of a file, collected while it is read, in one pass over its bytes:
kqlint.engine.suppress turns them into suppressions, kqlint.engine.directives warns about
misspelt ones."""
from __future__ import annotations

import re

DIRECTIVE_PREFIX = r"#\s*kqlint:"
_ANY_DIRECTIVE_RE = re.compile(DIRECTIVE_PREFIX)


def comment_lines(data: bytes) -> dict[int, str]:
    """Line number -> text of each line of ``data`` with a ``# kqlint:`` comment, misspelt ones
    too (kqlint.engine.directives warns about those); the loader keeps them in ``SourceFile``."""
    found: dict[int, str] = {}
    for number, line in enumerate(data.decode("utf-8", "replace").splitlines(), start=1):
        if "kqlint:" in line and _ANY_DIRECTIVE_RE.search(line):
            found[number] = line
    return found
