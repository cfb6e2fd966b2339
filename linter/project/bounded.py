"""Bounded, non-blocking reads: every input kqlint reads (manifests, stdin, configs,
``pyproject.toml``, baselines) has a size limit, and a path that turns out to be a FIFO,
socket or device (even one swapped in after the folder was listed) is refused at once
instead of blocking the run: files are opened with ``O_NONBLOCK`` and checked with
``fstat`` on the open descriptor."""
from __future__ import annotations

import os
import stat
from typing import BinaryIO

DEFAULT_MAX_FILE_SIZE = 16 * 1024 * 1024  # `max-file-size`'s default: no manifest is near it
CHUNK = 1 << 20
# After a short read (a regular file read to its size) the next read only has to see the end
# of the file: asking for a whole CHUNK there would allocate and free a megabyte per file,
# which glibc serves with mmap/munmap once the heap is fragmented (about 60 µs a file).
EOF_PROBE = 1 << 12


class ReadRefused(Exception):
    """Not a regular file, or over the size limit: the message says which."""


def read_file(path: str, limit: int) -> bytes:
    """The bytes of the regular file ``path`` (at most ``limit``); OSError or ReadRefused."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    fd = os.open(path, flags)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ReadRefused("not a regular file (FIFO, socket or device); skipped")
        if info.st_size > limit:
            raise ReadRefused(too_large(info.st_size, limit))
        with os.fdopen(fd, "rb", closefd=True) as handle:
            fd = -1
            return read_stream(handle, limit, first=info.st_size + 1)
    finally:
        if fd >= 0:
            os.close(fd)


def read_stream(stream: BinaryIO, limit: int, first: int = CHUNK) -> bytes:
    """Read ``stream`` to its end, refusing more than ``limit`` bytes (never allocating
    more than ``limit`` + one chunk, whatever the limit)."""
    chunks = []
    total = 0
    size = max(1, min(first, limit + 1))
    while True:
        chunk = stream.read(size)
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
        if total > limit:
            raise ReadRefused(too_large(None, limit))
        size = min(EOF_PROBE if len(chunk) < size else CHUNK, limit + 1 - total)
    return b"".join(chunks)


def too_large(size: int | None, limit: int) -> str:
    if size is None:
        return f"input is over the size limit of {limit} bytes (config `max-file-size`); not parsed"
    return f"file is {size} bytes, over the size limit of {limit} bytes (config `max-file-size`); not parsed"
