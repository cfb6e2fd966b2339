"""Where the cache lives, and the promise that kqlint only ever changes its own folder there.

The cache home is ``--cache-dir DIR`` or ``KQLINT_CACHE_DIR``, else ``$XDG_CACHE_HOME``, else
``~/.cache``: outside the work tree by default, as pip and pre-commit keep theirs, so a
repository cannot bring a cache along (committed files, links). kqlint keeps everything in one
folder of its own there, ``kqlint/``, marked as a cache with ``CACHEDIR.TAG`` (as ruff marks
its own); below it, one folder per project (the hash of the project root's real path), and in
it one folder per settings key. kqlint deletes, moves or rewrites only inside ``kqlint/``;
the home's other entries are never touched.

A cache folder is refused (the run goes on without a cache, one line on stderr) when:
- ``kqlint/`` or a folder below it is a symbolic link, or not a folder;
- ``kqlint/`` exists but kqlint did not make it (no ``CACHEDIR.TAG`` of kqlint's);
- ``kqlint/`` lies inside the project being linted: a repository could have brought it.
Every file kqlint reads back from its folder is opened without following a link, must be a
regular file, and is read up to a bound (:func:`read_owned`).
"""
from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterable

OWNED_NAME = "kqlint"
TAG_NAME = "CACHEDIR.TAG"
TAG = (b"Signature: 8a477f597d28d172789f06886806bc55\n"
       b"# This file is a cache directory tag created by kqlint.\n"
       b"# For information about cache directory tags, see https://bford.info/cachedir/\n")
MAX_READ = 1 << 30  # no index, pack or table kqlint writes comes near it
ENV_VAR = "KQLINT_CACHE_DIR"


class CacheRefused(Exception):
    """The cache folder cannot be trusted or used; the message says why."""


def cache_home(explicit: str | None = None) -> str:
    """The folder kqlint's own cache folder sits in."""
    chosen = explicit or os.environ.get(ENV_VAR)
    if chosen:
        return os.path.abspath(chosen)
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg and os.path.isabs(xdg):
        return xdg
    return os.path.join(os.path.expanduser("~"), ".cache")


def owned_folder(home: str) -> str:
    """kqlint's own folder in the cache home: the only place it deletes anything."""
    return os.path.join(home, OWNED_NAME)


def project_folder(owned: str, root: str) -> str:
    """The folder of one project (its root's real path) inside kqlint's folder."""
    key = hashlib.blake2b(os.path.realpath(root).encode("utf-8", "surrogateescape"), digest_size=12).hexdigest()
    return os.path.join(owned, key)


def check_owned(owned: str, root: str | None) -> None:
    """Refuse (CacheRefused) a folder kqlint must not use as its own; creates it when absent.
    ``root``: the project's root (a repository or a configuration), None when there is none."""
    if root is not None and any(_inside(path, os.path.realpath(root))
                                for path in (os.path.abspath(owned), os.path.realpath(owned))):
        raise CacheRefused(f"{owned} lies inside the project {root}: a repository could bring its own cache; "
                           "pass --cache-dir with a folder outside it")
    if not os.path.lexists(owned):
        _make_owned(owned)
    _real_folder(owned)
    try:
        marked = read_owned(os.path.join(owned, TAG_NAME), len(TAG)) == TAG
    except OSError:
        marked = False
    if not marked:
        raise CacheRefused(f"{owned} was not made by kqlint (no kqlint {TAG_NAME}); not used, not touched")


def check_below(owned: str, folder: str) -> None:
    """Every folder from ``owned`` down to ``folder`` that exists is a real folder, not a link."""
    relative = os.path.relpath(folder, owned)
    probe = owned
    for part in [] if relative == "." else relative.split(os.sep):
        probe = os.path.join(probe, part)
        if os.path.lexists(probe):
            _real_folder(probe)


def read_owned(path: str, limit: int = MAX_READ) -> bytes:
    """The bytes of a regular file of kqlint's folder, at most ``limit``; a link, a device, a
    FIFO or a larger file raises OSError."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    handle = os.open(path, flags)
    try:
        info = os.fstat(handle)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(f"{path}: not a regular file")
        if info.st_size > limit:
            raise OSError(f"{path}: larger than {limit} bytes")
        chunks, left = [], info.st_size
        while left > 0:
            chunk = os.read(handle, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(handle)


def atomic_write(target: str, blob: bytes | Iterable[bytes]) -> None:
    """Write ``target`` whole or not at all (a temporary file beside it, then os.replace);
    ``blob`` may come in chunks (a pack: never joined in memory)."""
    import tempfile

    handle, temporary = tempfile.mkstemp(dir=os.path.dirname(target), prefix=".tmp-")
    try:
        with os.fdopen(handle, "wb") as out:
            if isinstance(blob, bytes):
                out.write(blob)
            else:
                out.writelines(blob)
        os.replace(temporary, target)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


def _make_owned(owned: str) -> None:
    """Make kqlint's folder whole (its tag and .gitignore in place) under a temporary name, then
    give it its name: a concurrent run never sees it unmarked (it would refuse it)."""
    import tempfile

    home = os.path.dirname(owned)
    os.makedirs(home, exist_ok=True)
    building = tempfile.mkdtemp(dir=home, prefix=".kqlint-")
    made = [os.path.join(building, TAG_NAME), os.path.join(building, ".gitignore")]
    try:
        atomic_write(made[0], TAG)
        atomic_write(made[1], b"# created by kqlint: the cache is never committed\n*\n")
        try:
            os.rename(building, owned)
        except OSError:  # a concurrent run named its own first (check_owned checks what is there)
            pass
    finally:
        if os.path.lexists(building):
            for path in made:
                if os.path.lexists(path):
                    os.unlink(path)
            os.rmdir(building)


def remove_owned(owned: str) -> bool:
    """Remove kqlint's folder (``kqlint cache clean``), only when it is kqlint's: False when absent."""
    if not os.path.lexists(owned):
        return False
    check_owned(owned, None)
    import shutil

    shutil.rmtree(owned)
    return True


def _real_folder(path: str) -> None:
    info = os.lstat(path)
    if stat.S_ISLNK(info.st_mode):
        raise CacheRefused(f"{path} is a symbolic link; kqlint never follows a link in its cache")
    if not stat.S_ISDIR(info.st_mode):
        raise CacheRefused(f"{path} is not a folder")


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)
