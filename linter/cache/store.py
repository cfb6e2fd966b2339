"""The cache of one run (:class:`FileCache`): a file is looked up by its stat, else by the
hash of its bytes; the entries this run parsed are written by ``flush`` as one pack and the
index merged over the one on disk. Layout and guarantees: :mod:`kqlint.cache`."""
from __future__ import annotations

import os
import stat
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kqlint import loader
from kqlint.cache import layout
from kqlint.cache.entries import Entry, decode_entry
from kqlint.cache.home import (
    CacheRefused,
    cache_home,
    check_below,
    check_owned,
    owned_folder,
    project_folder,
)
from kqlint.cache.index import INDEX, PackReader, PackWriter, encode_index, read_index, sparse_packs
from kqlint.cache.keys import content_hash, project_root, settings_key
from kqlint.loader import SourceFile

RACY_NS = 2_000_000_000     # files changed this close to the run's start are hashed every time


@dataclass
class Miss:
    """A file to parse: its bytes were read (and hashed) while looking it up; or, in an empty
    cache (nothing to look up), not yet: ``raw`` and ``digest`` are None, and whoever parses it
    stats, reads and hashes it (``hashed`` records that), so a first run does not read every
    file twice in one process, nor stat every file in the main process before parsing."""

    path: str
    raw: bytes | None
    digest: str | None


@dataclass
class FileCache:
    directory: str                      # this project's folder inside kqlint's own (kqlint.cache.home)
    max_file_size: int = loader.MAX_FILE_SIZE
    warn: Callable[[str], None] = field(default=lambda line: _stderr(line))
    root: str = field(default_factory=project_root)

    def __post_init__(self) -> None:
        self.folder = os.path.join(self.directory, settings_key(self.max_file_size))
        check_below(os.path.dirname(self.directory), self.folder)  # no link anywhere below kqlint's folder
        self.started_ns = time.time_ns()
        self.writable = True
        self.files, self.entries = read_index(self.folder)
        try:  # in use from now: see layout.prune_other_settings
            os.utime(os.path.join(self.folder, ".used"), follow_symlinks=os.utime not in os.supports_follow_symlinks)
        except OSError:
            pass
        self.seen: dict[str, list[Any]] = {}
        self._packer = PackWriter(self.folder)  # the entries parsed in this run, on disk as they come
        self._flushes = 0
        self._packs = PackReader(self.folder)
        self._discoveries: dict[tuple[Any, ...], Any] = {}
        self.changed_during_run = False
        self._cwd = os.getcwd()  # a run changes no directory: one system call, not one per file
        self._stats: dict[str, tuple[str, os.stat_result]] = {}
        self._unparsed: dict[str, bytes] = {}  # bytes read by digest() for files not in the cache
        self._digests_this_lint: dict[str, str] = {}  # rel -> the hash this lint found (trusted or read)
        self._hashed: dict[str, tuple[tuple[int, ...], str]] = {}  # files hashed in this run: rel -> (stat, hash)
        self.digest_of_display: dict[str, str] = {}  # files looked up this run: display path -> hash
        self.documents_of_display: dict[str, tuple[str, ...]] = {}  # display path -> its documents' digests
        self.projections_of_display: dict[str, tuple[str, ...]] = {}  # and their projections' (cache_masks)
        self._live: set[str] | None = None
        self.writes_later = False  # set by kqlint check: the run's writes wait for write()
        self._writes: list[Callable[[], None]] = []
        self._written: list[Callable[[], None]] = []  # writes_later: the last writes done, what they read kept

    def begin_lint(self) -> None:
        """A lint starts (one cache serves every pass of ``--fix``): what an earlier lint
        remembered of the files (stats, bytes read, discovery) may predate the fixes written since,
        and a file that now hashes otherwise changed before this lint, not during it."""
        self._stats.clear()
        self._unparsed.clear()
        self._discoveries.clear()
        self._digests_this_lint.clear()
        self._packs.close()  # a pack an earlier lint read may since have been replaced
        self.changed_during_run = False
        self._cwd = os.getcwd()

    def discover(self, paths: list[str], excludes: tuple[str, ...]) -> Any:
        """discover.discover, once per run for the same arguments (the run key needs it too)."""
        from kqlint.project.discover import discover

        key = (tuple(paths), tuple(excludes))
        if key not in self._discoveries:
            self._discoveries[key] = discover(paths, excludes)
        return self._discoveries[key]

    # ------------------------------------------------------------ lookup
    def relative(self, path: str) -> str | None:
        """The path relative to the project root, or None for files outside it (not cached)."""
        absolute = os.path.normpath(os.path.join(self._cwd, path))  # os.path.abspath, without its getcwd()
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
            found = self.cacheable_stat(path)
            if found is not None:
                self._stats[path] = found
        return found

    def cacheable_stat(self, path: str) -> tuple[str, os.stat_result] | None:
        """(relative path, stat) of ``path`` if it can be cached (a regular file in the project
        within the size limit), else None; taken before its bytes are read."""
        rel = self.relative(path)
        if rel is None:
            return None
        try:
            st = os.stat(path)
        except OSError:
            return None
        if not stat.S_ISREG(st.st_mode) or st.st_size > self.max_file_size:
            return None
        return rel, st

    def _known_digest(self, rel: str, st: os.stat_result) -> str | None:
        record = self.seen.get(rel) or self.files.get(rel)
        if record and tuple(record[:4]) == _stamp(st):
            return record[4]  # type: ignore[no-any-return]
        return None

    def _hash(self, path: str, rel: str, st: os.stat_result) -> tuple[bytes, str] | None:
        raw, _ = loader.read_bytes(path, self.max_file_size)
        if raw is None:
            return None
        digest = content_hash(raw)
        self._record(rel, st, digest, len(raw))
        return raw, digest

    def _record(self, rel: str, st: os.stat_result, digest: str, size: int) -> None:
        """The file at ``rel``, stat'ed as ``st`` before its ``size`` bytes were read, hashes to ``digest``."""
        self._found(rel, digest)
        racy = max(st.st_mtime_ns, st.st_ctime_ns) >= self.started_ns - RACY_NS or size != st.st_size
        self.seen[rel] = [0, 0, 0, 0, digest] if racy else [*_stamp(st), digest]
        self._hashed[rel] = (_stamp(st), digest)

    def _found(self, rel: str, digest: str) -> None:
        """This lint takes ``digest`` as the content of ``rel`` (its stat trusted, or its bytes hashed)."""
        if self._digests_this_lint.setdefault(rel, digest) != digest:
            self.changed_during_run = True  # looked at twice in this lint, with different content

    def _trusted(self, rel: str, digest: str) -> None:
        """The index's hash of ``rel`` is taken on its stat: kept for the next index."""
        if rel not in self.seen:
            self.seen[rel] = self.files[rel]
        self._found(rel, digest)

    def hashed(self, path: str, display: str, digest: str, size: int, found: tuple[str, os.stat_result]) -> None:
        """A miss looked up unread was stat'ed (``found``: cacheable_stat's answer), then read
        (``size`` bytes) and hashed where it was parsed."""
        self._record(found[0], found[1], digest, size)
        self.digest_of_display[display] = digest
        self._stats[path] = found  # the run key's look at it (after the run) takes this stat

    @property
    def empty(self) -> bool:
        """Nothing stored to look up, nothing hashed yet: misses are read and hashed where they
        are parsed (a --fix run's later passes look up what its first pass parsed)."""
        return not self.entries and not self._hashed

    def digest(self, path: str) -> str | None:
        """The content hash of ``path`` (from the index when its stat is unchanged), or None."""
        found = self._stat(path)
        if found is None:
            return None
        rel, st = found
        earlier = self._hashed.get(rel)
        if earlier is not None and earlier[0] == _stamp(st):  # hashed in this run, unchanged since
            return earlier[1]
        known = self._known_digest(rel, st)
        if known is not None:
            self._trusted(rel, known)
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
        parse, or None when the file is not cached (outside the project, not a regular file).
        In an empty cache every file is a Miss without bytes: whoever parses it decides with
        cacheable_stat whether it is cached."""
        if self.empty:  # nothing to find: stat'ed (cacheable_stat) and read where it is parsed
            return Miss(path, None, None)
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
            self._trusted(rel, digest)
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
        entry = decode_entry(blob, made_here=True)
        return self._source(entry, path, display, lazy)

    def _source(self, entry: Entry, path: str, display: str, lazy: bool) -> SourceFile:
        self.documents_of_display[display] = entry.document_digests
        self.projections_of_display[display] = entry.projections
        if lazy:
            return entry.lazy_source(display, path)
        return entry.source(display)

    def _read_entry(self, digest: str) -> Entry | None:
        try:
            blob = self._packs.entry(*self.entries[digest])
            return None if blob is None else decode_entry(blob)
        except Exception:
            return None

    # ------------------------------------------------------------ store
    def add(self, digest: str, blob: bytes) -> None:
        """An entry parsed in this run (maybe in a worker): written now, made a pack by flush()."""
        if self.writable:
            try:
                if not self._packer.writing:
                    layout.ensure_folder(self.folder)
                self._packer.add(digest, blob)
            except (CacheRefused, OSError) as exc:
                self._disable(exc)

    def write_later(self, writes: Callable[[], None]) -> None:
        """``writes()`` (the run's report, entries and results), at once unless ``writes_later``:
        then when write() is called, so the writing can go on beside other work."""
        self._writes.append(writes)
        if not self.writes_later:
            self.write()

    def write(self) -> None:
        """Do the writes left for later (once). When they waited for this (``writes_later``: kqlint
        check, beside the workers resolving fixes), what they wrote from (a run's findings
        tables, the objects and scopes their digests came from) is not freed here but with the
        cache: freed beside those workers, it copied most of the heap they share (0.17 s of a
        cold run on 10,000 documents), and the command exits without freeing it at all
        (kqlint.engine.lifetime). A long-lived process (the Python API) frees it as usual."""
        writes, self._writes = self._writes, []
        for pending in writes:
            pending()
        if writes and self.writes_later:
            self._written = writes

    def flush(self) -> None:
        """Write this run's pack and the index (merged over the one on disk), then prune."""
        if not self.writable:
            return
        self._mark_used()
        layout.prune_other_settings(self.directory, self.folder)
        files, entries = read_index(self.folder)  # what concurrent runs wrote meanwhile
        files.update(self.seen)
        for rel in [rel for rel in files if rel not in self.seen]:
            if not os.path.exists(os.path.join(self.root, rel)):
                del files[rel]  # pruned: the file was deleted or renamed
        live = self._live = {record[4] for record in files.values()}
        entries = {digest: where for digest, where in entries.items() if digest in live}
        for pack in sparse_packs(self.folder, entries):  # mostly garbage: its live entries move to this run's pack
            for digest, (name, offset, length) in list(entries.items()):
                blob = self._packs.entry(name, offset, length) if name == pack else None
                if blob is not None:
                    self.add(digest, blob)
        self._packs.close()  # before pruning: an open pack keeps its disk space
        self._flushes += 1
        try:
            self._packer.finish(f"pack-{self.started_ns:x}-{os.getpid()}-{self._flushes}", live, entries)
        except FileNotFoundError:  # the folder was pruned meanwhile by another version's run
            pass
        except OSError as exc:
            self._disable(exc)
        if not self.writable or (files == self.files and entries == self.entries):
            return
        if self._write(os.path.join(self.folder, INDEX), encode_index(files, entries)):
            layout.prune_packs(self.folder, {where[0] for where in entries.values()},
                               self.started_ns - layout.GARBAGE_AGE_NS)

    def live_digests(self) -> set[str]:
        """The content hashes the index keeps (after flush: as written)."""
        if self._live is not None:
            return self._live
        return {record[4] for record in {**self.files, **self.seen}.values()}

    def _mark_used(self) -> None:
        """The folder's ``.used`` file's mtime: when a run last used it (see layout.prune_other_settings)."""
        marker = os.path.join(self.folder, ".used")
        try:
            os.utime(marker, follow_symlinks=os.utime not in os.supports_follow_symlinks)
        except OSError:
            self._write(marker, b"")

    def prepare_writes(self) -> None:
        """Before parsing misses: find out once whether the cache is writable (one warning)."""
        if self.writable and self._write(os.path.join(self.folder, ".probe"), b""):
            try:
                os.unlink(os.path.join(self.folder, ".probe"))
            except OSError:
                pass

    def _write(self, target: str, blob: bytes | list[bytes]) -> bool:
        if not self.writable:
            return False
        try:
            layout.ensure_folder(self.folder)
            try:
                layout.atomic_write(target, blob)
            except FileNotFoundError:  # the folder was pruned meanwhile by another version's run
                layout.ensure_folder(self.folder)
                layout.atomic_write(target, blob)
            return True
        except (CacheRefused, OSError) as exc:
            self._disable(exc)
            return False

    def _disable(self, exc: CacheRefused | OSError) -> None:
        """No more writes in this run, said once on stderr."""
        self.writable = False
        if isinstance(exc, CacheRefused):
            self.warn(f"kqlint: cache disabled for this run: {exc}")
        else:
            self.warn(f"kqlint: cache disabled for this run: cannot write {_shown(self.directory)}: "
                      f"{exc.strerror or exc}")


def _stamp(st: os.stat_result) -> tuple[int, ...]:
    return st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns


def _shown(path: str) -> str:
    from kqlint.project.discover import display_path

    return display_path(path)


def _stderr(line: str) -> None:
    try:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):
        pass


def open_cache(home: str | None, max_file_size: int) -> FileCache | None:
    """The cache of this run, in kqlint's own folder inside ``home`` (``--cache-dir``; default:
    kqlint.cache.home.cache_home), or None when it cannot be used (one line on stderr)."""
    from kqlint.project.root import project_root as repository_or_config_root

    owned = owned_folder(cache_home(home))
    root = project_root()
    try:
        check_owned(owned, repository_or_config_root(root))
        folder = project_folder(owned, root)
        check_below(owned, folder)
        return FileCache(folder, max_file_size, root=root)
    except CacheRefused as exc:
        _stderr(f"kqlint: cache disabled for this run: {exc}")
    except Exception as exc:
        _stderr(f"kqlint: cache disabled for this run: {type(exc).__name__}: {exc}")
    return None
