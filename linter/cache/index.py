"""A settings folder's contents: ``index.json`` (relative path -> stat and content hash;
content hash -> where its entry sits) and the packs holding the entries, concatenated."""
from __future__ import annotations

import json
import os
from typing import Any

from kqlint.cache.home import read_owned
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


def pack_entries(pack: str, new: dict[str, bytes], entries: Records) -> list[bytes]:
    """The chunks of the pack named ``pack`` holding ``new`` (by content hash), written one
    after another (never joined: a pack is as large as every entry of a cold run); records in
    ``entries`` where each one sits."""
    offset = 0
    chunks = []
    for digest, blob in sorted(new.items()):
        entries[digest] = [pack, offset, len(blob)]
        chunks.append(blob)
        offset += len(blob)
    return chunks


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


def entry_bytes(data: bytes | None, offset: int, length: int) -> bytes | None:
    """The entry at ``offset`` of a pack's bytes, or None when the pack is missing or too short."""
    if data is None or offset + length > len(data):
        return None
    return data[offset:offset + length]
