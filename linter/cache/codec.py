"""How a cache entry's bytes are framed and read back without running code: a magic prefix, a
frame with a CRC-32 checked before anything is unpickled, and unpicklers that build only plain data
(and, for an entry's header, kqlint's own value types)."""
from __future__ import annotations

import dataclasses
import enum
import io
import pickle
import struct
import sys
import zlib
from typing import Any

MAGIC = b"KQLC\x00\x0b"  # 11: not compressed (10: one pickle of all documents; 9: one compressed stream)
_ALLOWED = {("kqlint.loader.nodes", "Map"), ("kqlint.loader.nodes", "Seq"), ("array", "array"),
            ("array", "_array_reconstructor")}


class _DataUnpickler(pickle.Unpickler):
    """Builds only plain data, Map/Seq and arrays: a planted entry runs no code."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in _ALLOWED:
            return super().find_class(module, name)
        if module == "builtins" and name in ("set", "frozenset", "complex"):
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"{module}.{name} is not allowed in a cache entry")


class ModelUnpickler(_DataUnpickler):
    """Also builds kqlint's own value types (reports, findings and whatever fields they gain):
    frozen dataclasses and enums of already imported ``kqlint.`` modules, and
    ApplyTimeNamespace. Nothing else is importable, so a planted file runs no foreign code and
    builds nothing with side effects (no cache, no config loader)."""

    def find_class(self, module: str, name: str) -> Any:
        loaded = sys.modules.get(module) if module.startswith("kqlint.") else None
        found = getattr(loaded, name, None) if loaded is not None else None
        if isinstance(found, type) and (_is_value_type(found) or issubclass(found, enum.Enum)
                                        or (module, name) == ("kqlint.domain.objects", "ApplyTimeNamespace")):
            return found
        return super().find_class(module, name)


def _is_value_type(cls: type) -> bool:
    params = getattr(cls, "__dataclass_params__", None)
    return dataclasses.is_dataclass(cls) and params is not None and bool(params.frozen)


def unpickle_data(data: bytes | memoryview) -> Any:
    return _DataUnpickler(io.BytesIO(data)).load()


FRAME = struct.Struct(">II")  # the header's size, the CRC-32 of that size, the header and the body
SIZE = struct.Struct(">I")


def framed(head: bytes, body: bytes) -> bytes:
    """An entry's bytes: MAGIC, FRAME, the header, then the body. Not compressed: a cold run
    pays for every entry it writes and a warm one for every entry it reads, and zlib cost both
    more than the disk it saved (docs/performance.md); a CI cache compresses the folder anyway."""
    return b"".join((MAGIC, FRAME.pack(len(head), checksum(len(head), head, body)), head, body))


def checksum(size: int, *parts: bytes | memoryview) -> int:
    """The CRC-32 of an entry's header size and of its header and body (``parts``)."""
    check = zlib.crc32(SIZE.pack(size))
    for part in parts:
        check = zlib.crc32(part, check)
    return check
