"""The envsubst-placeholder verdict of each file, kept in the cache (``placeholders-<code>``).

A file whose text may hold ``$VAR``-style placeholders (``SourceFile.placeholder_hint``) is
checked against the schemas of its objects' fields (kqlint.loader.placeholders): that reads every
field of every object in it. The verdict (one KQ006, or none) is a function of the file's
bytes, its display path (the finding names it), the default namespace, the ``--crd`` files'
content and kqlint's code and schemas (the table's name): those are the key, so a warm run
neither checks nor decodes such files again. The table keeps the verdicts of the last run.
"""
from __future__ import annotations

import hashlib
import os
from typing import TYPE_CHECKING

from kqlint.cache.tables import load_table, save_table
from kqlint.loader import LoadProblem, SourceFile

if TYPE_CHECKING:
    from kqlint.cache.store import FileCache

_MAGIC = b"KQLP\x00\x01"
MAX_TABLES = 2
_CLEAN = "clean"  # the stored verdict "no placeholder where another type is expected"


class PlaceholderVerdicts:
    def __init__(self, cache: FileCache, namespace: str, crds: tuple[str, ...]) -> None:
        from kqlint.cache.keys import code_fingerprint, crd_digest

        self.cache = cache
        self.settings = crd_digest(crds)  # None: a --crd file cannot be read: nothing kept
        self.namespace = namespace
        self.path = os.path.join(cache.folder, f"placeholders-{code_fingerprint()}")
        self.stored = _load(self.path) if self.settings is not None else {}
        self.used: dict[str, LoadProblem | str] = {}
        self.added = False

    def key(self, display: str) -> str | None:
        content = self.cache.digest_of_display.get(display)
        if content is None or self.settings is None:
            return None
        digest = hashlib.blake2b(digest_size=16)
        for part in (content, display, self.namespace, self.settings):
            digest.update(part.encode("utf-8", "surrogateescape") + b"\x00")
        return digest.hexdigest()

    def get(self, key: str) -> tuple[bool, LoadProblem | None]:
        """(known, verdict): stored by an earlier run, or judged where this run parsed the file."""
        found = self.used.get(key) or self.stored.get(key)
        if found is None:
            return False, None
        self.used[key] = found
        return True, None if found == _CLEAN else found  # type: ignore[return-value]

    def record(self, display: str, verdict: LoadProblem | None) -> None:
        """A verdict worked out where the file was parsed (a --jobs worker)."""
        key = self.key(display)
        if key is not None:
            self.put(key, verdict)

    def put(self, key: str, verdict: LoadProblem | None) -> None:
        self.used[key] = _CLEAN if verdict is None else verdict
        self.added = True

    def save(self) -> None:
        """Write the entries this run used, if it added any."""
        if self.added:
            save_table(self.cache, self.path, _MAGIC, self.used, "placeholders-", MAX_TABLES)


def _load(path: str) -> dict[str, LoadProblem | str]:
    """The stored table; anything unreadable or malformed is an empty one (checked again)."""
    table = load_table(path, _MAGIC)
    if not isinstance(table, dict):
        return {}
    return {key: value for key, value in table.items()
            if isinstance(key, str) and (value == _CLEAN or isinstance(value, LoadProblem))}


def placeholder_verdict(source: SourceFile, namespace: str, tier: str, crds: tuple[str, ...]) -> LoadProblem | None:
    """The KQ006 a file whose text hints at envsubst placeholders gets (or None), worked out
    where it is parsed (a --jobs worker): the same judgement kqlint.engine.inputs makes."""
    from kqlint.domain.objects import objects_from_file
    from kqlint.schema.placeholders import unrendered_placeholders

    objects, _, _ = objects_from_file(source, namespace, tier)
    return unrendered_placeholders(source, objects, crds) if objects else None
