"""A project's cache folder on disk: atomic writes and pruning (packs nothing refers to,
folders of other settings, old run reports), all inside kqlint's own folder (kqlint.cache.home)."""
from __future__ import annotations

import os
import re
import stat
import time

from kqlint.cache.home import atomic_write as atomic_write  # re-exported: the writes of every cache module
from kqlint.cache.home import check_below

GARBAGE_AGE_NS = 60 * 1_000_000_000  # unreferenced packs younger than this may be a concurrent run's
STALE_SETTINGS_S = 120      # other settings folders (kqlint versions) unused this long are removed
_SETTINGS_NAME = re.compile(r"[0-9a-f]{16,64}")  # a settings key (kqlint.cache.keys): nothing else is removed


def ensure_folder(folder: str) -> None:
    """``folder`` (a settings folder inside kqlint's own) exists as a real folder."""
    if not os.path.isdir(folder):
        os.makedirs(folder, exist_ok=True)
    check_below(os.path.dirname(os.path.dirname(folder)), folder)


def prune_packs(folder: str, packs: set[str], horizon_ns: int) -> None:
    """Remove packs (and temporary files) not in ``packs`` and older than ``horizon_ns``."""
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        if (name.startswith("pack-") or name.startswith(".tmp-")) and name not in packs:
            _remove_if_older(os.path.join(folder, name), horizon_ns)


def prune_other_settings(directory: str, folder: str) -> None:
    """Folders of other settings (another kqlint version, other limits) go as soon as no run
    used them for STALE_SETTINGS_S, so versions do not pile up. Safe for a run of another
    version still going: whatever it has not read yet becomes a miss (parsed again), and its
    writes recreate its folder."""
    try:
        names = os.listdir(directory)
    except OSError:
        return
    horizon = time.time() - STALE_SETTINGS_S
    for name in names:
        path = os.path.join(directory, name)
        if path == folder or not _SETTINGS_NAME.fullmatch(name) or not _real_folder(path):
            continue
        if max(_mtime(os.path.join(path, ".used")), _mtime(os.path.join(path, "index.json")),
               _mtime(path)) > horizon:
            continue
        _remove_tree(path)


def keep_newest(folder: str, prefix: str, count: int) -> None:
    """Remove all but the ``count`` newest files of ``folder`` whose name starts with ``prefix``."""
    try:
        paths = [os.path.join(folder, n) for n in os.listdir(folder) if n.startswith(prefix)]
        paths.sort(key=lambda p: os.stat(p).st_mtime_ns, reverse=True)
    except OSError:
        return
    for path in paths[count:]:
        try:
            os.unlink(path)
        except OSError:
            pass


def _real_folder(path: str) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def _mtime(path: str) -> float:
    try:
        return os.stat(path).st_mtime
    except OSError:
        return 0.0


def _remove_if_older(path: str, horizon_ns: int) -> None:
    try:
        if os.stat(path).st_mtime_ns < horizon_ns:
            os.unlink(path)
    except OSError:
        pass


def _remove_tree(path: str) -> None:
    import shutil

    shutil.rmtree(path, ignore_errors=True)
