"""Resolved fixes kept in the cache (``<settings>/fixes-<code>`` in the project's cache folder).

Resolving a fix to text ranges parses its file again and verifies the edited text (plan.py),
so a report with fixes costs a parse or two per fixed file. The result is a function of the
file's bytes (content hash), its display path, the default namespace, each finding's location,
object and fix, and kqlint's own code (the table's name): those are the key. A warm run, or a
run after a few files changed, resolves only the files whose key is new. The table keeps the
entries of the last run only (bounded by the files that have fixes), one table per code.
"""
from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from kqlint.cache.tables import load_table, save_table
from kqlint.fix.model import Fix

if TYPE_CHECKING:
    from kqlint.cache.store import FileCache

_MAGIC = b"KQLF\x00\x01"
MAX_TABLES = 2  # one per recent kqlint code
Resolved = list[Fix | None]


class ResolvedFixes:
    """One run's view of the table: what it finds there, what it resolves, saved by save()."""

    def __init__(self, cache: FileCache, streams: frozenset[str] = frozenset()) -> None:
        from kqlint.cache.keys import code_fingerprint

        self.cache = cache
        self.streams = streams  # files read from stdin: their text is not the file's of that name
        self.path = os.path.join(cache.folder, f"fixes-{code_fingerprint()}")
        self.stored = _load(self.path)
        self.used: dict[str, Resolved] = {}
        self.added = False

    def key(self, file: str, findings: Sequence[Any], namespace: str) -> str | None:
        """The key of one file's fixes; None when its content cannot be hashed (stdin, outside
        the project): resolved every time then."""
        content = self.cache.digest(file) if not file.startswith("<") and file not in self.streams else None
        if content is None:
            return None
        described = repr([(f.location, f.obj, f.fix) for f in findings])
        digest = hashlib.blake2b(digest_size=16)
        for part in (content, file, namespace, described):
            digest.update(part.encode("utf-8", "surrogateescape") + b"\x00")
        return digest.hexdigest()

    def get(self, key: str) -> Resolved | None:
        found = self.stored.get(key)
        if found is not None:
            self.used[key] = found
        return found

    def put(self, key: str, resolved: Resolved) -> None:
        self.used[key] = resolved
        self.added = True

    def save(self) -> None:
        """Write the entries this run used, if it added any."""
        if self.added:
            save_table(self.cache, self.path, _MAGIC, self.used, "fixes-", MAX_TABLES)


def _load(path: str) -> dict[str, Resolved]:
    """The stored table; anything unreadable or malformed is an empty one (resolved again)."""
    table = load_table(path, _MAGIC)
    if not isinstance(table, dict):
        return {}
    return {key: value for key, value in table.items()
            if isinstance(key, str) and isinstance(value, list)
            and all(fix is None or isinstance(fix, Fix) for fix in value)}
