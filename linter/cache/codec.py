"""How a cache entry's bytes are framed and read back without running code: a magic prefix, a
frame of CRC-32s checked before anything is unpickled, and unpicklers that build only plain data
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

MAGIC = b"KQLC\x00\x0a"  # 10: one pickle of all documents; 9: header and body one compressed stream
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


FRAME = struct.Struct(">III")  # the header's size, its CRC-32, the stream's CRC-32


def framed(head: bytes, body: bytes) -> bytes:
    """An entry's bytes: MAGIC, FRAME, then the header and the body compressed as one stream."""
    compressor = zlib.compressobj(1)
    stream = compressor.compress(head) + compressor.compress(body) + compressor.flush()
    return MAGIC + FRAME.pack(len(head), zlib.crc32(head), zlib.crc32(stream)) + stream
