"""The server's side of the wire: pygls' protocol and stdin, held to what the LSP spec and a
bounded read require (a request after ``shutdown`` answered, a huge message refused unread),
and the ``file:`` URIs the client names files with."""
from __future__ import annotations

import os
import sys
from typing import Any
from urllib.parse import unquote, urlparse

from lsprotocol import types
from pygls.protocol import LanguageServerProtocol

MAX_MESSAGE = 64 << 20  # bytes: a message is a buffer (max-file-size, 16 MiB by default) in JSON, with room
MAX_HEADER = 4096       # bytes of one header line read at most


class LspProtocol(LanguageServerProtocol):
    """pygls' protocol, but a request after ``shutdown`` gets an error answer (LSP: "requests
    ... should error with InvalidRequest"), not silence that leaves the client waiting."""

    def handle_message(self, message: Any) -> None:
        method = getattr(message, "method", "")
        if self._shutdown and method != types.EXIT and getattr(message, "id", None) is not None and method:
            self._send_response(message.id, error=types.ResponseError(
                code=types.ErrorCodes.InvalidRequest, message=f"`{method}` after shutdown"))
            return
        super().handle_message(message)


class BoundedInput:
    """stdin as pygls reads it, bounded: a header line is read up to MAX_HEADER bytes, and a
    body whose Content-Length exceeds MAX_MESSAGE is refused before any of it is allocated
    (the connection ends: its bytes cannot be skipped safely, one line on stderr says why)."""

    def __init__(self, raw: Any) -> None:
        self.raw = raw

    def readline(self) -> bytes:
        return bytes(self.raw.readline(MAX_HEADER))

    def read(self, size: int) -> bytes:
        if size > MAX_MESSAGE:
            print(f"kqlint server: a message of {size} bytes exceeds the limit of {MAX_MESSAGE} bytes; "
                  "stopping (the editor may restart the server)", file=sys.stderr)
            return b""
        return bytes(self.raw.read(size))


def path_of(uri: str) -> str | None:
    parsed = urlparse(uri)
    return os.path.abspath(unquote(parsed.path)) if parsed.scheme == "file" else None


def uri_of(path: str) -> str:
    from pathlib import Path

    return Path(os.path.abspath(path)).as_uri()
