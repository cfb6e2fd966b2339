"""Raw bytes -> UTF-8 for the parser: byte-order marks, UTF-16, binary and invalid files (KQ001)."""
from __future__ import annotations


def to_utf8(data: bytes) -> tuple[bytes | None, tuple[int, int, str] | None]:
    """Return UTF-8 bytes for the parser, or (line, column, message). Handles BOMs and UTF-16."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    elif data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            data = data.decode("utf-16").encode("utf-8")
        except UnicodeDecodeError:
            return None, (1, 1, "file starts with a UTF-16 byte-order mark but is not valid UTF-16")
    nul = data.find(b"\x00")
    if nul >= 0:
        line, col = offset_position(data, nul)
        return None, (line, col, "binary file (contains NUL bytes); not a YAML or JSON manifest")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, col = offset_position(data, exc.start)
        return None, (line, col, f"not valid UTF-8 (byte 0x{data[exc.start]:02x}); save the file as UTF-8")
    return data, None


def offset_position(data: bytes, offset: int) -> tuple[int, int]:
    line = data.count(b"\n", 0, offset) + 1
    start = data.rfind(b"\n", 0, offset) + 1
    return line, offset - start + 1
