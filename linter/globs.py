"""``exclude`` globs compiled once per run into two regular expressions (a hostile
configuration with tens of thousands of globs must not cost minutes: ``fnmatch`` keeps a
bounded cache, so each glob was recompiled for every path). Semantics are ``fnmatch``'s:
a glob matches the displayed path, or a folder above it; a glob without ``/`` also
matches any single path component."""
from __future__ import annotations

import fnmatch
import functools
import re

MAX_EXCLUDES = 1000  # per run (config `exclude` and --exclude together)


class ExcludeMatcher:
    def __init__(self, excludes: tuple[str, ...]) -> None:
        whole, parts = [], []
        for pattern in excludes:
            pattern = pattern.rstrip("/")
            whole += [fnmatch.translate(pattern), fnmatch.translate(pattern + "/*")]
            if "/" not in pattern:
                parts.append(fnmatch.translate(pattern))
        self._whole = re.compile("|".join(f"(?:{p})" for p in whole)) if whole else None
        self._part = re.compile("|".join(f"(?:{p})" for p in parts)) if parts else None

    def matches(self, shown: str) -> bool:
        if self._whole is not None and self._whole.match(shown):
            return True
        part = self._part
        return part is not None and any(part.match(name) for name in shown.split("/"))


@functools.lru_cache(maxsize=8)
def exclude_matcher(excludes: tuple[str, ...]) -> ExcludeMatcher:
    return ExcludeMatcher(excludes)
