"""A persistent cache of parsed files (``.kqlint_cache/`` in the project root).

What is cached, per file *content*: the loaded documents with their positions, the
file-level problems (KQ001/KQ006 found while reading that file alone), the ``# kqlint:``
comment lines and, per object, its identity, its ``metadata.labels`` and the extended
resources its pods request (kqlint.cache_entry: a context object answers these, Kueue
routing and platform evidence, without its body being decoded). Nothing that depends
on another file, on the configuration or on where the file was found: display paths and
findings are rebuilt every run, so a warm run gives the same report as a cold one. The
reports of the last few complete runs are kept too, keyed by everything they read
(kqlint.cache_run).

Layout::

    .kqlint_cache/.gitignore             "*" (never committed)
    .kqlint_cache/<settings>/index.json  files: relative path -> [mtime_ns, size, inode, ctime_ns, hash]
                                         entries: hash -> [pack, offset, length]
    .kqlint_cache/<settings>/pack-<id>   the entries one run parsed, concatenated
    .kqlint_cache/<settings>/report-<key> the report of one complete run

``<settings>`` hashes everything that changes how a file is read: the cache format,
kqlint's version, the Python and ruamel.yaml versions, the parser (C or pure Python), the
size/depth/alias limits, and the *source* of the loader, of objects.py and of the cache
modules (so any edit of the loader starts a new cache: no version constant to forget).
``hash`` is the BLAKE2b digest of the file's bytes. A file whose stat (mtime, size, inode,
ctime, in nanoseconds) matches its index record is trusted to still have the recorded hash:
git's fast path, with git's "racy clean" rule (a file changed less than two seconds before
the run started is always hashed again). ctime cannot be set from user space, so a rewrite
that restores the mtime and size is still seen.

Writes are atomic (temporary file + ``os.replace``): each run writes at most one new pack
and then the index, merged with the index on disk at that moment. Two runs at once both
stay correct; the one that writes its index last wins, and the other's pack becomes
garbage that a later run removes. Anything unreadable (missing, truncated or corrupt pack,
foreign format) is a miss and is rebuilt. Entries are unpickled with a restricted unpickler
that only builds plain data, Map, Seq and arrays, so a planted cache file cannot run code. A
cache that cannot be written (read-only, full disk) is switched off for the run with one
line on stderr. Size: packs whose entries are more than half garbage are compacted.
"""
from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kqlint import loader
from kqlint.cache_entry import CachedSource, Entry, decode_entry
from kqlint.loader import SourceFile

CACHE_FORMAT = 3            # bump when the layout or the entry encoding changes
DIR_NAME = ".kqlint_cache"
ENV_VAR = "KQLINT_CACHE_DIR"
RACY_NS = 2_000_000_000     # files changed this close to the run's start are hashed every time
GARBAGE_AGE_NS = 60 * 1_000_000_000  # unreferenced packs younger than this may be a concurrent run's
STALE_SETTINGS_S = 120      # other settings folders (kqlint versions) unused this long are removed
_HASH_BYTES = 16


# ------------------------------------------------------------------ settings key

def _source_bytes(module: Any) -> bytes:
    try:
        with open(module.__file__, "rb") as handle:
            return handle.read()
    except (OSError, TypeError, AttributeError):
        return repr(getattr(module, "__file__", module)).encode()


def settings_key(max_file_size: int) -> str:
    """Everything that changes what a file loads to, hashed (16 hex digits)."""
    import ruamel.yaml
    from kqlint import __version__, cache_entry, objects, platform, podspec, workloads

    digest = hashlib.blake2b(digest_size=8)
    for part in (str(CACHE_FORMAT), __version__, sys.version.split()[0], ruamel.yaml.__version__,
                 str(loader.FAST_PATH), str(max_file_size), str(loader.MAX_DEPTH),
                 str(loader.MAX_EXPANDED_NODES), str(loader.COL_BITS)):
        digest.update(part.encode() + b"\x00")
    for module in (*loader.SOURCE_MODULES, objects, cache_entry, platform, podspec, workloads, sys.modules[__name__]):
        digest.update(_source_bytes(module))
    return digest.hexdigest()


def content_hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=_HASH_BYTES).hexdigest()


def project_root(start: str | None = None) -> str:
    """The project root (discover's root finder), else the current directory."""
    from kqlint.discover import project_root as find_project_root

    cwd = os.path.abspath(start or os.getcwd())
    return find_project_root(cwd) or cwd


def default_cache_dir() -> str:
    override = os.environ.get(ENV_VAR)
    if override:
        return os.path.abspath(override)
    return os.path.join(project_root(), DIR_NAME)


# ------------------------------------------------------------------ the cache

@dataclass
class Miss:
    """A file to parse: its bytes were read (and hashed) while looking it up."""

    path: str
    raw: bytes
    digest: str


@dataclass
class FileCache:
    directory: str                      # .kqlint_cache
    max_file_size: int = loader.MAX_FILE_SIZE
    warn: Callable[[str], None] = field(default=lambda line: _stderr(line))
    root: str = field(default_factory=project_root)

    def __post_init__(self) -> None:
        self.folder = os.path.join(self.directory, settings_key(self.max_file_size))
        self.started_ns = time.time_ns()
        self.writable = True
        self.files, self.entries = self._read_index()
        try:
            os.utime(os.path.join(self.folder, ".used"))  # in use from now: see _prune_other_settings
        except OSError:
            pass
        self.seen: dict[str, list[Any]] = {}
        self.new_entries: dict[str, bytes] = {}
        self._packs: dict[str, bytes | None] = {}
        self._discoveries: dict[tuple[Any, ...], Any] = {}
        self.changed_during_run = False
        self._stats: dict[str, tuple[str, os.stat_result]] = {}
        self._unparsed: dict[str, bytes] = {}  # bytes read by digest() for files not in the cache
        self.digest_of_display: dict[str, str] = {}  # files looked up this run: display path -> hash
        self._live: set[str] | None = None

    def discover(self, paths: list[str], excludes: tuple[str, ...]) -> Any:
        """discover.discover, once per run for the same arguments (the run key needs it too)."""
        from kqlint.discover import discover

        key = (tuple(paths), tuple(excludes))
        if key not in self._discoveries:
            self._discoveries[key] = discover(paths, excludes)
        return self._discoveries[key]

    # ------------------------------------------------------------ lookup
    def relative(self, path: str) -> str | None:
        """The path relative to the project root, or None for files outside it (not cached)."""
        absolute = os.path.abspath(path)
        prefix = self.root.rstrip(os.sep) + os.sep
        if not absolute.startswith(prefix):
            return None
        relative = absolute[len(prefix):]  # abspath normalised it: no `..` left
        return relative if os.sep == "/" else relative.replace(os.sep, "/")

    def _stat(self, path: str) -> tuple[str, os.stat_result] | None:
        """(relative path, stat) of a cacheable file; remembered for the run's second look
        (run key, then load), but a file re-read after a change is stat'ed again."""
        found = self._stats.pop(path, None)
        if found is None:
            found = self._stat_now(path)
            if found is not None:
                self._stats[path] = found
        return found

    def _stat_now(self, path: str) -> tuple[str, os.stat_result] | None:
        rel = self.relative(path)
        if rel is None:
            return None
        try:
            st = os.stat(path)
        except OSError:
            return None
        if not _is_regular(st) or st.st_size > self.max_file_size:
            return None
        return rel, st

    def _known_digest(self, rel: str, st: os.stat_result) -> str | None:
        record = self.seen.get(rel) or self.files.get(rel)
        if record and record[:4] == [st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns]:
            return record[4]  # type: ignore[no-any-return]
        return None

    def _hash(self, path: str, rel: str, st: os.stat_result) -> tuple[bytes, str] | None:
        raw, _ = loader.read_bytes(path, self.max_file_size)
        if raw is None:
            return None
        digest = content_hash(raw)
        if rel in self.seen and self.seen[rel][4] != digest:
            self.changed_during_run = True  # read twice in this run, with different content
        racy = max(st.st_mtime_ns, st.st_ctime_ns) >= self.started_ns - RACY_NS or len(raw) != st.st_size
        self.seen[rel] = [0, 0, 0, 0, digest] if racy else \
            [st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns, digest]
        return raw, digest

    def digest(self, path: str) -> str | None:
        """The content hash of ``path`` (from the index when its stat is unchanged), or None."""
        found = self._stat(path)
        if found is None:
            return None
        rel, st = found
        known = self._known_digest(rel, st)
        if known is not None:
            self.seen.setdefault(rel, self.files[rel] if rel in self.files else self.seen[rel])
            return known
        hashed = self._hash(path, rel, st)
        if hashed is None:
            return None
        raw, digest = hashed
        if digest not in self.entries:
            self._unparsed[rel] = raw  # lookup() will need these bytes: do not read them twice
        return digest

    def lookup(self, path: str, display: str, lazy: bool) -> SourceFile | Miss | None:
        """A cached source (lazy: objects only, for context files), or a Miss with the bytes to
        parse, or None when the file is not cached (outside the project, not a regular file)."""
        found = self._stat(path)
        if found is None:
            return None
        rel, st = found
        raw = self._unparsed.pop(rel, None)
        digest = self.seen[rel][4] if raw is not None else self._known_digest(rel, st)
        if digest is None:
            hashed = self._hash(path, rel, st)
            if hashed is None:
                return None
            raw, digest = hashed
        else:
            self.seen.setdefault(rel, self.files.get(rel) or self.seen[rel])
        self.digest_of_display[display] = digest
        entry = self._read_entry(digest)
        if entry is not None:
            try:
                return self._source(entry, path, display, lazy)
            except Exception:
                pass
        if raw is None:  # trusted the stat, but the entry is gone: read the file now
            hashed = self._hash(path, rel, st)
            if hashed is None:
                return None
            raw, digest = hashed
            self.digest_of_display[display] = digest
        return Miss(path, raw, digest)

    def source_of(self, blob: bytes, path: str, display: str, lazy: bool) -> SourceFile:
        """The source an entry encodes (made by a worker from the file just parsed)."""
        return self._source(decode_entry(blob), path, display, lazy)

    def _source(self, entry: Entry, path: str, display: str, lazy: bool) -> SourceFile:
        if lazy:
            source = entry.make(CachedSource, display, [])
            source.entry, source.real_path = entry, path  # type: ignore[attr-defined]
            return source
        return entry.source(display)

    def _read_entry(self, digest: str) -> Entry | None:
        try:
            pack, offset, length = self.entries[digest]
            data = self._pack(pack)
            if data is None or offset + length > len(data):
                return None
            return decode_entry(data[offset:offset + length])
        except Exception:
            return None

    def _pack(self, name: str) -> bytes | None:
        if name not in self._packs:
            try:
                with open(os.path.join(self.folder, name), "rb") as handle:
                    self._packs[name] = handle.read()
            except OSError:
                self._packs[name] = None
        return self._packs[name]

    # ------------------------------------------------------------ store
    def add(self, digest: str, blob: bytes) -> None:
        """An entry parsed in this run (maybe in a worker), written to disk by flush()."""
        if self.writable:
            self.new_entries[digest] = blob

    def flush(self) -> None:
        """Write this run's pack and the index (merged over the one on disk), then prune."""
        if not self.writable:
            return
        self._mark_used()
        self._prune_other_settings()
        files, entries = self._read_index()  # what concurrent runs wrote meanwhile
        files.update(self.seen)
        for rel in [rel for rel in files if rel not in self.seen]:
            if not os.path.exists(os.path.join(self.root, rel)):
                del files[rel]  # pruned: the file was deleted or renamed
        live = self._live = {record[4] for record in files.values()}
        entries = {digest: where for digest, where in entries.items() if digest in live}
        new = {digest: blob for digest, blob in self.new_entries.items() if digest in live}
        new.update(self._compaction(entries))
        if new:
            pack = f"pack-{self.started_ns:x}-{os.getpid()}"
            offset = 0
            chunks = []
            for digest, blob in sorted(new.items()):
                entries[digest] = [pack, offset, len(blob)]
                chunks.append(blob)
                offset += len(blob)
            if not self._write(os.path.join(self.folder, pack), b"".join(chunks)):
                return
        if files == self.files and entries == self.entries:
            return
        blob = json.dumps({"format": CACHE_FORMAT, "files": files, "entries": entries},
                          sort_keys=True, separators=(",", ":")).encode()
        if self._write(os.path.join(self.folder, "index.json"), blob):
            self._prune({where[0] for where in entries.values()})

    def live_digests(self) -> set[str]:
        """The content hashes the index keeps (after flush: as written)."""
        if self._live is not None:
            return self._live
        return {record[4] for record in {**self.files, **self.seen}.values()}

    def _compaction(self, entries: dict[str, list[Any]]) -> dict[str, bytes]:
        """Entries to rewrite into this run's pack: those of packs that are mostly garbage."""
        used: dict[str, int] = {}
        for pack, _, length in entries.values():
            used[pack] = used.get(pack, 0) + length
        moved: dict[str, bytes] = {}
        for pack, size in used.items():
            try:
                total = os.stat(os.path.join(self.folder, pack)).st_size
            except OSError:
                continue
            if size * 2 < total:
                data = self._pack(pack)
                for digest, (name, offset, length) in list(entries.items()):
                    if name == pack and data is not None and offset + length <= len(data):
                        moved[digest] = data[offset:offset + length]
        return moved

    def _prune(self, packs: set[str]) -> None:
        """Remove packs nothing refers to, and settings folders unused for a day."""
        try:
            names = os.listdir(self.folder)
        except OSError:
            return
        for name in names:
            if (name.startswith("pack-") or name.startswith(".tmp-")) and name not in packs:
                _remove_if_older(os.path.join(self.folder, name), self.started_ns - GARBAGE_AGE_NS)

    def _mark_used(self) -> None:
        """The folder's ``.used`` file's mtime: when a run last used it (see _prune_other_settings)."""
        marker = os.path.join(self.folder, ".used")
        try:
            os.utime(marker)
        except OSError:
            self._write(marker, b"")

    def _prune_other_settings(self) -> None:
        """Folders of other settings (another kqlint version, other limits) go as soon as no run
        used them for STALE_SETTINGS_S, so versions do not pile up. Safe for a run of another
        version still going: whatever it has not read yet becomes a miss (parsed again), and its
        writes recreate its folder."""
        try:
            names = os.listdir(self.directory)
        except OSError:
            return
        horizon = time.time() - STALE_SETTINGS_S
        for name in names:
            path = os.path.join(self.directory, name)
            if path == self.folder or name.startswith(".") or not os.path.isdir(path):
                continue
            if max(_mtime(os.path.join(path, ".used")), _mtime(os.path.join(path, "index.json")),
                   _mtime(path)) > horizon:
                continue
            _remove_tree(path)

    def prepare_writes(self) -> None:
        """Before parsing misses: find out once whether the cache is writable (one warning)."""
        if self.writable and self._write(os.path.join(self.folder, ".probe"), b""):
            try:
                os.unlink(os.path.join(self.folder, ".probe"))
            except OSError:
                pass

    def _ensure_folder(self) -> None:
        if os.path.isdir(self.folder):
            return
        os.makedirs(self.folder, exist_ok=True)
        ignore = os.path.join(self.directory, ".gitignore")
        if not os.path.exists(ignore):
            _atomic_write(ignore, b"# created by kqlint: the cache is never committed\n*\n")

    def _write(self, target: str, blob: bytes) -> bool:
        if not self.writable:
            return False
        try:
            self._ensure_folder()
            try:
                _atomic_write(target, blob)
            except FileNotFoundError:  # the folder was pruned meanwhile by another version's run
                self._ensure_folder()
                _atomic_write(target, blob)
            return True
        except OSError as exc:
            self.writable = False
            self.warn(f"kqlint: cache disabled for this run: cannot write {_shown(self.directory)}: "
                      f"{exc.strerror or exc}")
            return False

    # ------------------------------------------------------------ index
    def _read_index(self) -> tuple[dict[str, list[Any]], dict[str, list[Any]]]:
        try:
            with open(os.path.join(self.folder, "index.json"), "rb") as handle:
                data = json.loads(handle.read())
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


# ------------------------------------------------------------------ helpers

def _is_regular(st: os.stat_result) -> bool:
    import stat

    return stat.S_ISREG(st.st_mode)


def _atomic_write(target: str, blob: bytes) -> None:
    handle, temporary = tempfile.mkstemp(dir=os.path.dirname(target), prefix=".tmp-")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(blob)
        os.replace(temporary, target)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


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


def _shown(path: str) -> str:
    from kqlint.discover import display_path

    return display_path(path)


def _stderr(line: str) -> None:
    try:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):
        pass


def clean(directory: str) -> bool:
    """Remove a cache folder (``kqlint cache clean``); refuses folders that are not a cache."""
    if not os.path.isdir(directory):
        return False
    if not os.path.isfile(os.path.join(directory, ".gitignore")):
        raise OSError(f"{directory} does not look like a kqlint cache (no .gitignore); not removed")
    _remove_tree(directory)
    return True


def open_cache(directory: str | None, max_file_size: int) -> FileCache | None:
    """The cache of this run (``directory`` or the default), or None when it cannot be used."""
    try:
        return FileCache(os.path.abspath(directory) if directory else default_cache_dir(), max_file_size)
    except Exception as exc:
        _stderr(f"kqlint: cache disabled for this run: {type(exc).__name__}: {exc}")
        return None
