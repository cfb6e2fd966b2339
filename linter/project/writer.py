"""The one place kqlint writes: reports (``--output``, ``graph -o``), baselines
(``--write-baseline``) and stdout.

A file is written only when it is safe to replace:

- never a file this run reads (an input, a context file, the config, the baseline):
  the parent process remembers what it reads with :func:`remember_read`;
- never through a symlink: a symlink as the target is refused, and so is a folder inside
  the working tree that is a symlink to somewhere outside it (a committed ``out -> /etc``);
- atomically: the text goes to a temporary file in the same folder, which then replaces
  the target (``os.replace``), so a crash leaves the old report (or none), never a
  truncated one, and two runs writing the same report leave one of the two whole.
  The mode of a replaced file is kept; a new file gets ``0666`` minus the umask.

Paths under ``/dev/`` (``-o /dev/stdout``, ``/dev/null``) are written in place, appended.
Text is UTF-8; characters that cannot be encoded (a non-UTF-8 file name) are written as
backslash escapes rather than failing the run.
"""
from __future__ import annotations

import errno
import os
import stat
import sys
import tempfile
from collections.abc import Iterable

_READ: dict[str, None] = {}  # every file this run reads, absolute (stat'ed only when a report would replace a file)
DEVICE_PREFIX = "/dev/"


class OutputError(Exception):
    """A report that cannot or must not be written: one line, exit 2."""


def remember_read(paths: Iterable[str]) -> None:
    """Record files this run reads, so no report or baseline is written over them."""
    cwd = os.getcwd()  # os.path.abspath, without a getcwd() per file
    _READ.update((os.path.normpath(os.path.join(cwd, path)), None) for path in paths if path != "-")


def _is_read(target: os.stat_result) -> bool:
    """Whether ``target`` is (the same inode as) a file this run reads."""
    for path in _READ:
        try:
            info = os.stat(path)
        except (OSError, ValueError):
            continue
        if (info.st_dev, info.st_ino) == (target.st_dev, target.st_ino):
            return True
    return False


def encode(text: str) -> bytes:
    return text.encode("utf-8", "backslashreplace")


def write_file(path: str, text: str, what: str = "report") -> None:
    """Write ``text`` to ``path`` atomically, or raise OutputError saying why not."""
    if path.startswith(DEVICE_PREFIX):
        _write_device(path, text, what)
        return
    existing = _check_target(path, what)
    folder = os.path.dirname(os.path.abspath(path))
    mode = stat.S_IMODE(existing.st_mode) if existing is not None else 0o666 & ~_umask()
    temporary_file = _temporary(folder, path, what, existing is not None)
    if temporary_file is None:  # a writable report in a read-only folder: the one non-atomic case
        _write_in_place(path, text, what)
        return
    handle, temporary = temporary_file
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(encode(text))
            stream.flush()
            os.fchmod(stream.fileno(), mode)
        os.replace(temporary, path)
    except OSError as exc:
        raise OutputError(f"cannot write {_name(what, path)}: {exc.strerror or exc}") from None
    finally:
        if os.path.lexists(temporary):
            try:
                os.unlink(temporary)
            except OSError:
                pass


def _temporary(folder: str, path: str, what: str, exists: bool) -> tuple[int, str] | None:
    """A temporary file beside ``path``; None when the folder refuses one but ``path`` exists."""
    try:
        return tempfile.mkstemp(dir=folder, prefix=f".{os.path.basename(path)}.", suffix=".tmp")
    except PermissionError:
        if exists:
            return None
        raise OutputError(f"cannot write {_name(what, path)}: permission denied") from None
    except OSError as exc:
        raise OutputError(f"cannot write {_name(what, path)}: {exc.strerror or exc}") from None


def _write_in_place(path: str, text: str, what: str) -> None:
    """Replace the content of an existing regular file, never following a symlink."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0))
        with os.fdopen(fd, "wb") as stream:
            stream.write(encode(text))
    except OSError as exc:
        raise OutputError(f"cannot write {_name(what, path)}: {exc.strerror or exc}") from None


def _check_target(path: str, what: str) -> os.stat_result | None:
    """The target's stat when it exists and may be replaced; OutputError otherwise."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise OutputError(f"cannot write {_name(what, path)}: {exc.strerror or exc}") from None
    if info is not None and stat.S_ISLNK(info.st_mode):
        raise OutputError(f"refusing to write {_name(what, path)}: it is a symlink, and kqlint never "
                          "writes through symlinks; remove it or choose another path")
    if info is not None and not stat.S_ISREG(info.st_mode):
        raise OutputError(f"refusing to write {_name(what, path)}: not a regular file")
    if info is not None and _is_read(info):
        raise OutputError(f"refusing to write {_name(what, path)}: this run reads that file (an input, "
                          "context, config or baseline file); choose another path")
    _check_folder(path, what)
    return info


def _check_folder(path: str, what: str) -> None:
    """A folder inside the working tree must not lead outside it through a symlink."""
    from kqlint.project.containment import inside

    folder = os.path.dirname(os.path.abspath(path))
    cwd = os.getcwd()
    if not inside(folder, cwd):
        return
    real = os.path.realpath(folder)
    if not inside(real, os.path.realpath(cwd)):
        raise OutputError(f"refusing to write {_name(what, path)}: its folder is a symlink to {real}, "
                          "outside the working tree; kqlint never writes through symlinks")


def _name(what: str, path: str) -> str:
    return path if what == "report" else f"{what} {path}"


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _write_device(path: str, text: str, what: str) -> None:
    """Appended: ``/dev/stderr`` or ``/dev/stdout`` redirected to a file (``2> log``) keeps what
    the run wrote there before (opening it to write would truncate the file)."""
    try:
        with open(path, "ab") as stream:
            stream.write(encode(text))
    except OSError as exc:
        raise OutputError(f"cannot write {_name(what, path)}: {exc.strerror or exc}") from None


def write_stdout(text: str) -> None:
    """Print ``text``; a closed, broken or full stdout is an OutputError (one line, exit 2)."""
    stream = sys.stdout
    if stream is None:
        raise OutputError("cannot write to stdout: it is closed")
    try:
        buffer = getattr(stream, "buffer", None)
        if buffer is not None:
            stream.flush()
            buffer.write(text.encode(stream.encoding or "utf-8", "backslashreplace"))
            buffer.flush()
        else:
            stream.write(text)
            stream.flush()
    except (OSError, ValueError) as exc:
        _silence_stdout()
        reason = "the reader closed the pipe" if isinstance(exc, BrokenPipeError) \
            else (exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc))
        if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
            reason = "no space left on device"
        raise OutputError(f"cannot write to stdout: {reason}") from None


def _silence_stdout() -> None:
    """Point fd 1 at /dev/null so the interpreter's last flush does not fail again."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.close(null)
    except OSError:
        pass
