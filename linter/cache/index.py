"""A settings folder's contents: ``index.json`` (relative path -> stat and content hash;
content hash -> where its entry sits) and the packs holding the entries, concatenated."""
from __future__ import annotations

import json
import os
import stat
import tempfile
from typing import IO, Any

from kqlint.cache.home import MAX_READ, read_owned
from kqlint.cache.keys import CACHE_FORMAT

INDEX = "index.json"
# files: relative path -> [mtime_ns, size, inode, ctime_ns, hash]; entries: hash -> [pack, offset, length]
Records = dict[str, list[Any]]


def read_index(folder: str) -> tuple[Records, Records]:
    """(files, entries) of the folder's index; both empty when it is missing, corrupt or foreign."""
    try:
        data = json.loads(read_owned(os.path.join(folder, INDEX)))
        if data.get("format") != CACHE_FORMAT:
            return {}, {}
        files = {k: v for k, v in data["files"].items()
                 if isinstance(k, str) and isinstance(v, list) and len(v) == 5}
        entries = {k: v for k, v in data["entries"].items()
                   if isinstance(v, list) and len(v) == 3 and isinstance(v[0], str)
                   and "/" not in v[0] and isinstance(v[1], int) and isinstance(v[2], int)}
        return files, entries
    except Exception:
        return {}, {}


def encode_index(files: Records, entries: Records) -> bytes:
    return json.dumps({"format": CACHE_FORMAT, "files": files, "entries": entries},
                      sort_keys=True, separators=(",", ":")).encode()


class PackWriter:
    """The entries a run parses, written to a temporary file of the settings folder as they
    arrive (a cold run keeps none of them in memory: together they are as large as the
    repository's parse), then given a pack's name by ``finish``: no run sees a pack half written."""

    def __init__(self, folder: str) -> None:
        self.folder = folder
        self._where: dict[str, tuple[int, int]] = {}  # content hash -> (offset, length) in the file
        self._out: IO[bytes] | None = None
        self._temporary = ""
        self._size = 0

    @property
    def writing(self) -> bool:
        return self._out is not None

    def add(self, digest: str, blob: bytes) -> None:
        """Append one entry (once per content hash). Raises OSError."""
        if digest in self._where:
            return
        if self._out is None:
            handle, self._temporary = tempfile.mkstemp(dir=self.folder, prefix=".tmp-")
            self._out = os.fdopen(handle, "wb")
        self._out.write(blob)
        self._where[digest] = (self._size, len(blob))
        self._size += len(blob)

    def finish(self, pack: str, live: set[str], entries: Records) -> None:
        """Name the file ``pack`` and record in ``entries`` where each of its ``live`` entries
        sits; with no live entry, remove it. The next ``add`` starts a new file. Raises OSError."""
        out, temporary, where = self._out, self._temporary, self._where
        self._out, self._temporary, self._where, self._size = None, "", {}, 0
        if out is None:
            return
        kept = {digest: place for digest, place in where.items() if digest in live}
        try:
            out.close()
            if kept:
                os.replace(temporary, os.path.join(self.folder, pack))
        finally:
            if not kept or os.path.exists(temporary):
                _unlink(temporary)
        for digest, (offset, length) in kept.items():
            entries[digest] = [pack, offset, length]


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def sparse_packs(folder: str, entries: Records) -> list[str]:
    """Packs whose live entries fill less than half of the file: worth compacting."""
    used: dict[str, int] = {}
    for pack, _, length in entries.values():
        used[pack] = used.get(pack, 0) + length
    sparse = []
    for pack, size in used.items():
        try:
            total = os.stat(os.path.join(folder, pack)).st_size
        except OSError:
            continue
        if size * 2 < total:
            sparse.append(pack)
    return sparse


class PackReader:
    """Entries read one at a time from the packs of a settings folder, so a run holds only the
    entries it keeps (not whole packs): a pack is opened once, without following a link, and
    must be a regular file; an entry must lie inside it. ``close`` before the packs are pruned."""

    def __init__(self, folder: str) -> None:
        self.folder = folder
        self._open: dict[str, tuple[int, int] | None] = {}  # pack -> (descriptor, size), None: unreadable

    def entry(self, pack: str, offset: int, length: int) -> bytes | None:
        """The entry's bytes, or None when the pack is missing, foreign or too short."""
        if pack not in self._open:
            self._open[pack] = _open_pack(os.path.join(self.folder, pack))
        opened = self._open[pack]
        if opened is None or offset < 0 or not 0 <= length <= MAX_READ or offset + length > opened[1]:
            return None
        descriptor = opened[0]
        try:
            if hasattr(os, "pread"):
                data = os.pread(descriptor, length, offset)
            else:  # Windows
                os.lseek(descriptor, offset, os.SEEK_SET)
                data = os.read(descriptor, length)
        except OSError:
            return None
        return data if len(data) == length else None

    def close(self) -> None:
        for opened in self._open.values():
            if opened is not None:
                os.close(opened[0])
        self._open.clear()


def _open_pack(path: str) -> tuple[int, int] | None:
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        descriptor = os.open(path, flags)
    except OSError:
        return None
    try:
        info = os.fstat(descriptor)
    except OSError:
        info = None
    if info is None or not stat.S_ISREG(info.st_mode):
        os.close(descriptor)
        return None
    return descriptor, info.st_size
