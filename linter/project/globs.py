"""``exclude`` globs compiled once per run into two regular expressions (a hostile
configuration with tens of thousands of globs must not cost minutes: ``fnmatch`` keeps a
bounded cache, so each glob was recompiled for every path). Semantics are ``fnmatch``'s:
a glob matches the displayed path, or a folder above it; an absolute glob (a config file's,
anchored at its folder) the absolute path; a glob without ``/`` also matches any single path
component."""
from __future__ import annotations

import fnmatch
import functools
import os
import re

MAX_EXCLUDES = 1000  # per run (config `exclude` and --exclude together)


class ExcludeMatcher:
    def __init__(self, excludes: tuple[str, ...]) -> None:
        whole: list[str] = []
        absolute: list[str] = []
        parts: list[str] = []
        for pattern in excludes:
            pattern = pattern.rstrip("/") or pattern
            (absolute if os.path.isabs(pattern) else whole).extend(
                [fnmatch.translate(pattern), fnmatch.translate(pattern.rstrip("/") + "/*")])
            if "/" not in pattern:
                parts.append(fnmatch.translate(pattern))
        self._whole, self._absolute, self._part = _compiled(whole), _compiled(absolute), _compiled(parts)

    def matches(self, shown: str, absolute: str | None = None) -> bool:
        """``shown``: the path as reports display it; ``absolute``: the same path absolute, which
        the globs a config file anchors at its folder match (kqlint.config.validate.anchored)."""
        if self._whole is not None and self._whole.match(shown):
            return True
        if self._absolute is not None and self._absolute.match(absolute or os.path.abspath(shown)):
            return True
        part = self._part
        return part is not None and any(part.match(name) for name in shown.split("/"))


def _compiled(patterns: list[str]) -> re.Pattern[str] | None:
    return re.compile("|".join(f"(?:{p})" for p in patterns)) if patterns else None


@functools.lru_cache(maxsize=8)
def exclude_matcher(excludes: tuple[str, ...]) -> ExcludeMatcher:
    return ExcludeMatcher(excludes)
