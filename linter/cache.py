"""A persistent cache of parsed files (``.kqlint_cache/`` in the project root).

What is cached, per file *content*: the loaded documents with their positions, the
file-level problems (KQ001/KQ006 found while reading that file alone), the ``# kqlint:``
comment lines and the identity of its objects. Nothing that depends on another file,
on the configuration (namespace, rules) or on where the file was found: paths and
findings are rebuilt every run, so a warm run gives the same report as a cold one.

Layout::

    .kqlint_cache/.gitignore            "*" (never committed)
    .kqlint_cache/<settings>/index.json relative path -> [mtime_ns, size, inode, ctime_ns, hash]
    .kqlint_cache/<settings>/<hash>     one entry per distinct file content

``<settings>`` hashes everything that changes how a file is read: kqlint's version, the
source of the loader (so a changed loader never reads old entries), the parser (C or
pure Python) and ruamel.yaml's version, the size/depth/alias limits and the cache format.
``<hash>`` is the BLAKE2b digest of the file's bytes. A file whose stat (mtime, size,
inode, ctime, all in nanoseconds) matches its index record is trusted to still have the
recorded hash: the same fast path git uses, with git's "racy clean" rule (a file written
less than two seconds before the index is always hashed again).

Every write is atomic (temporary file + ``os.replace``); concurrent runs write identical
entries under identical names. An entry that is corrupt, truncated, from another version
or unreadable is a miss. Entries are unpickled with a restricted unpickler that only
builds plain data, :class:`Map`, :class:`Seq` and arrays, so a planted cache file cannot
run code. A cache that cannot be written (read-only, full disk) is switched off for the
run with one line on stderr.
"""
from __future__ import annotations

import hashlib
import io
import json
import os
import pickle
import sys
import tempfile
import time
import zlib
from dataclasses import dataclass, field
from typing import Any, Callable

from kqlint import loader
from kqlint.loader import LoadProblem, SourceFile
from kqlint.objects import INPUT, K8sObject, objects_from_file

CACHE_FORMAT = 1            # bump when the entry layout changes
DIR_NAME = ".kqlint_cache"
ENV_VAR = "KQLINT_CACHE_DIR"
MAGIC = b"KQLC\x00\x01"
RACY_NS = 2_000_000_000     # stat records younger than this before the index write are not trusted
STALE_SETTINGS_S = 24 * 3600  # other settings folders unused for a day are removed
_HASH_BYTES = 16


# ------------------------------------------------------------------ settings key

def _source_digest(module: Any) -> bytes:
    """The bytes of a module's source: any edit of the loader changes the key."""
    try:
        with open(module.__file__, "rb") as handle:
            return handle.read()
    except (OSError, TypeError, AttributeError):
        return repr(getattr(module, "__file__", module)).encode()


def settings_key(max_file_size: int) -> str:
    """Everything that changes what a file loads to, hashed (16 hex digits)."""
    import ruamel.yaml

    from kqlint import __version__, objects

    digest = hashlib.blake2b(digest_size=8)
    for part in (str(CACHE_FORMAT), __version__, sys.version.split()[0], ruamel.yaml.__version__,
                 str(loader.FAST_PATH), str(max_file_size), str(loader.MAX_DEPTH),
                 str(loader.MAX_EXPANDED_NODES), str(loader.COL_BITS)):
        digest.update(part.encode() + b"\x00")
    for module in (loader, objects, sys.modules[__name__]):
        digest.update(_source_digest(module))
    return digest.hexdigest()


def content_hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=_HASH_BYTES).hexdigest()


# ------------------------------------------------------------------ entries

_ALLOWED = {("kqlint.loader", "Map"), ("kqlint.loader", "Seq"), ("array", "array"),
            ("array", "_array_reconstructor"), ("kqlint.loader", "LoadProblem")}


class _DataUnpickler(pickle.Unpickler):
    """Builds only plain data, Map/Seq, arrays and LoadProblem: a planted entry runs no code."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in _ALLOWED:
            return super().find_class(module, name)
        if module == "builtins" and name in ("set", "frozenset", "complex"):
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"{module}.{name} is not allowed in a cache entry")


def _unpickle(data: bytes) -> Any:
    return _DataUnpickler(io.BytesIO(data)).load()


@dataclass
class Skeleton:
    """What identifies one object without its body: enough to build its K8sObject."""

    doc: int
    base: tuple[Any, ...]
    identity: Any  # a Map with apiVersion, kind and metadata name/generateName/namespace


def _skeleton(obj: K8sObject) -> Skeleton:
    data = obj.data
    ident = loader.Map()
    for key in ("apiVersion", "kind"):
        if key in data:
            ident[key] = data[key]
    metadata = data.get("metadata")
    if isinstance(metadata, dict):
        meta = loader.Map()
        for key in ("name", "generateName", "namespace"):
            if key in metadata:
                meta[key] = metadata[key]
        meta.pos = ()
        ident["metadata"] = meta
    ident.pos = ()
    return Skeleton(obj.doc, obj.base, ident)


def encode_entry(source: SourceFile) -> bytes:
    """Header (problems, comments, object identities) and body (documents), each compressed."""
    objects, documents, skipped = objects_from_file(source, "default", INPUT)
    problems = [(p.line, p.column, p.message, p.code) for p in source.problems]
    skeletons = [(s.doc, s.base, s.identity) for s in map(_skeleton, objects)]
    head = zlib.compress(pickle.dumps((problems, source.comment_lines, skeletons, documents, skipped),
                                      protocol=5), 1)
    body = zlib.compress(pickle.dumps(source.documents, protocol=5), 1)
    return MAGIC + len(head).to_bytes(4, "big") + head + body


@dataclass
class Entry:
    """One decoded entry; the documents are decompressed only when asked for."""

    problems: list[tuple[int, int, str, str]]
    comment_lines: dict[int, str]
    skeletons: list[tuple[int, tuple[Any, ...], Any]]
    documents_count: int
    skipped: int
    body: bytes

    def documents(self) -> list[Any]:
        documents = _unpickle(zlib.decompress(self.body))
        if not isinstance(documents, list):
            raise ValueError("cache entry body is not a list")
        return documents

    def source(self, display: str) -> SourceFile:
        source = SourceFile(display, self.documents())
        source.problems = [LoadProblem(display, line, col, message, code)
                           for line, col, message, code in self.problems]
        source.comment_lines = dict(self.comment_lines)
        return source


def decode_entry(blob: bytes) -> Entry:
    """Raises on anything that is not a complete entry of this format."""
    if not blob.startswith(MAGIC):
        raise ValueError("not a kqlint cache entry")
    start = len(MAGIC) + 4
    size = int.from_bytes(blob[len(MAGIC):start], "big")
    head = _unpickle(zlib.decompress(blob[start:start + size]))
    problems, comments, skeletons, documents, skipped = head
    body = blob[start + size:]
    if not body:
        raise ValueError("truncated cache entry")
    return Entry(list(problems), dict(comments), list(skeletons), int(documents), int(skipped), body)


# ------------------------------------------------------------------ lazy context objects

_DATA = K8sObject.__dict__["data"]
_ROOT = K8sObject.__dict__["root"]


class _Body:
    """The documents of one cached file, loaded the first time one of its objects is read."""

    def __init__(self, entry: Entry, objects: list["LazyObject"]) -> None:
        self.entry, self.objects = entry, objects

    def fill(self) -> None:
        documents = self.entry.documents()
        for obj in self.objects:
            root = documents[obj.doc]
            data = root
            for step in obj.base:
                data = data[step]
            _ROOT.__set__(obj, root)
            _DATA.__set__(obj, data)
            obj._body = None
        self.objects = []


class LazyObject(K8sObject):
    """A context object from the cache: identity now, fields on first access.

    Context objects only resolve references; most are never read in a pre-commit run."""

    __slots__ = ("_body",)

    def __init__(self, file: str, doc: int, base: tuple[Any, ...], identity: Any,
                 default_namespace: str, source: str, body: _Body) -> None:
        self._body = None
        K8sObject.__init__(self, file, doc, identity, base, identity, default_namespace, source)
        self._body = body

    @property  # type: ignore[override]
    def data(self) -> Any:
        if self._body is not None:
            self._body.fill()
        return _DATA.__get__(self)

    @data.setter
    def data(self, value: Any) -> None:
        _DATA.__set__(self, value)

    @property  # type: ignore[override]
    def root(self) -> Any:
        if self._body is not None:
            self._body.fill()
        return _ROOT.__get__(self)

    @root.setter
    def root(self, value: Any) -> None:
        _ROOT.__set__(self, value)


class CachedSource(SourceFile):
    """A context file served from the cache: objects built from skeletons, body on demand."""

    entry: Entry

    def objects(self, default_namespace: str, tier: str) -> tuple[list[K8sObject], int, int]:
        objects: list[LazyObject] = []
        body = _Body(self.entry, objects)
        for doc, base, identity in self.entry.skeletons:
            objects.append(LazyObject(self.path, doc, base, identity, default_namespace, tier, body))
        return list(objects), self.entry.documents_count, self.entry.skipped


def objects_of(source: SourceFile, default_namespace: str, tier: str) -> tuple[list[K8sObject], int, int]:
    """``objects_from_file`` for any source, lazy for context files served from the cache."""
    if isinstance(source, CachedSource):
        return source.objects(default_namespace, tier)
    return objects_from_file(source, default_namespace, tier)


# ------------------------------------------------------------------ the cache

def project_root(start: str | None = None) -> str:
    from kqlint.discover import repository_root

    cwd = os.path.abspath(start or os.getcwd())
    return repository_root(cwd) or cwd


def default_cache_dir() -> str:
    override = os.environ.get(ENV_VAR)
    if override:
        return os.path.abspath(override)
    return os.path.join(project_root(), DIR_NAME)


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
        self.index: dict[str, list[Any]] = self._read_index()
        self.seen: dict[str, list[Any]] = {}
        self.written = 0

    # ------------------------------------------------------------ lookup
    def relative(self, path: str) -> str | None:
        """The path relative to the project root, or None for files outside it (not cached)."""
        absolute = os.path.abspath(path)
        if not absolute.startswith(self.root.rstrip(os.sep) + os.sep):
            return None
        return os.path.relpath(absolute, self.root).replace(os.sep, "/")

    def lookup(self, path: str, display: str, lazy: bool) -> SourceFile | Miss | None:
        """A cached source, or a Miss with the bytes to parse, or None (not cacheable here)."""
        rel = self.relative(path)
        if rel is None:
            return None
        try:
            st = os.stat(path)
        except OSError:
            return None
        if not _is_regular(st) or st.st_size > self.max_file_size:
            return None
        stat_key = [st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns]
        record = self.index.get(rel)
        digest = record[4] if record and record[:4] == stat_key else None
        raw = None
        if digest is None:
            raw, _ = loader.read_bytes(path, self.max_file_size)
            if raw is None:
                return None
            digest = content_hash(raw)
        self.seen[rel] = stat_key + [digest] if not self._racy(st) else [0, 0, 0, 0, digest]
        entry = self._read_entry(digest)
        if entry is not None:
            try:
                return self._source(entry, display, lazy)
            except Exception:  # noqa: BLE001 - a corrupt body is a miss
                pass
        if raw is None:
            raw, _ = loader.read_bytes(path, self.max_file_size)
            if raw is None:
                return None
            digest = content_hash(raw)
            self.seen[rel] = [0, 0, 0, 0, digest]
        return Miss(path, raw, digest)

    def _source(self, entry: Entry, display: str, lazy: bool) -> SourceFile:
        if lazy:
            source = CachedSource(display)
            source.entry = entry
            return source
        return entry.source(display)

    def _racy(self, st: os.stat_result) -> bool:
        return st.st_mtime_ns >= self.started_ns - RACY_NS or st.st_ctime_ns >= self.started_ns - RACY_NS

    def _read_entry(self, digest: str) -> Entry | None:
        try:
            with open(os.path.join(self.folder, digest), "rb") as handle:
                return decode_entry(handle.read())
        except Exception:  # noqa: BLE001 - missing, unreadable, corrupt, foreign: rebuild it
            return None

    # ------------------------------------------------------------ store
    def store(self, miss: Miss, source: SourceFile) -> None:
        if not self.writable:
            return
        try:
            blob = encode_entry(source)
        except Exception:  # noqa: BLE001 - something unpicklable: just not cached
            return
        if self._write(os.path.join(self.folder, miss.digest), blob):
            self.written += 1

    def prepare_writes(self) -> None:
        """Before parsing misses (maybe in workers): find out once whether the cache is writable."""
        if self.writable:
            self._write(os.path.join(self.folder, ".probe"), b"")

    def _ensure_folder(self) -> None:
        if os.path.isdir(self.folder):
            return
        os.makedirs(self.folder, exist_ok=True)
        ignore = os.path.join(self.directory, ".gitignore")
        if not os.path.exists(ignore):
            _atomic_write(ignore, b"# created by kqlint: the cache is never committed\n*\n")

    def _write(self, target: str, blob: bytes) -> bool:
        try:
            self._ensure_folder()
            _atomic_write(target, blob)
            return True
        except OSError as exc:
            self.writable = False
            self.warn(f"kqlint: cache disabled for this run: cannot write {_shown(self.directory)}: "
                      f"{exc.strerror or exc}")
            return False

    # ------------------------------------------------------------ index
    def _index_path(self) -> str:
        return os.path.join(self.folder, "index.json")

    def _read_index(self) -> dict[str, list[Any]]:
        try:
            with open(self._index_path(), "rb") as handle:
                data = json.loads(handle.read())
            files = data["files"] if data.get("format") == CACHE_FORMAT else {}
            return {k: v for k, v in files.items()
                    if isinstance(k, str) and isinstance(v, list) and len(v) == 5}
        except Exception:  # noqa: BLE001 - no index or a broken one: every file is hashed again
            return {}

    def flush(self) -> None:
        """Write the index (seen files merged over the old one) and prune what is gone."""
        if not self.writable:
            return
        merged = dict(self.index)
        merged.update(self.seen)
        for rel in [rel for rel in merged if rel not in self.seen]:
            if not os.path.exists(os.path.join(self.root, rel)):
                del merged[rel]
        if merged == self.index and not self.written:
            return
        blob = json.dumps({"format": CACHE_FORMAT, "files": merged}, sort_keys=True,
                          separators=(",", ":")).encode()
        if self._write(self._index_path(), blob):
            self._prune(merged)

    def _prune(self, index: dict[str, list[Any]]) -> None:
        """Remove entries no file refers to any more, and settings folders unused for a day."""
        keep = {record[4] for record in index.values()} | {"index.json", ".probe"}
        try:
            names = os.listdir(self.folder)
        except OSError:
            return
        for name in names:
            if name not in keep:
                _remove_if_older(os.path.join(self.folder, name), self.started_ns)
        self._prune_other_settings()

    def _prune_other_settings(self) -> None:
        try:
            names = os.listdir(self.directory)
        except OSError:
            return
        horizon = time.time() - STALE_SETTINGS_S
        for name in names:
            path = os.path.join(self.directory, name)
            if path == self.folder or name.startswith(".") or not os.path.isdir(path):
                continue
            try:
                if os.stat(os.path.join(path, "index.json")).st_mtime > horizon:
                    continue
            except OSError:
                pass
            _remove_tree(path)


# ------------------------------------------------------------------ helpers

def _is_regular(st: os.stat_result) -> bool:
    import stat

    return stat.S_ISREG(st.st_mode)


def _atomic_write(target: str, blob: bytes) -> None:
    folder = os.path.dirname(target)
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=".tmp-")
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


def _remove_if_older(path: str, started_ns: int) -> None:
    try:
        if os.stat(path).st_mtime_ns < started_ns - RACY_NS:
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
    ignore = os.path.join(directory, ".gitignore")
    if os.path.basename(os.path.normpath(directory)) != DIR_NAME and not os.path.isfile(ignore):
        raise OSError(f"{directory} does not look like a kqlint cache (no .gitignore); not removed")
    _remove_tree(directory)
    return True


# ------------------------------------------------------------------ one run

def open_cache(directory: str | None, max_file_size: int) -> FileCache | None:
    """The cache of this run (``directory`` or the default), or None when it cannot be used."""
    try:
        return FileCache(os.path.abspath(directory) if directory else default_cache_dir(), max_file_size)
    except Exception as exc:  # noqa: BLE001 - a cache problem never stops a lint run
        _stderr(f"kqlint: cache disabled for this run: {type(exc).__name__}: {exc}")
        return None


def load_sources(files: list[str], cache: FileCache, lazy: bool, jobs: int,
                 parse: Callable[[str, bytes | None], SourceFile]) -> list[SourceFile]:
    """Every file's source, in order: hits from the cache, misses parsed (over ``jobs``
    processes) and stored. ``parse(path, raw)`` parses one file (``raw`` None: read it)."""
    from kqlint.discover import STDIN, display_path
    from kqlint.parallel import map_chunks

    results: list[SourceFile | None] = [None] * len(files)
    misses: list[tuple[int, str, Miss | None]] = []
    for position, path in enumerate(files):
        hit = cache.lookup(path, display_path(path), lazy) if path != STDIN else None
        if isinstance(hit, SourceFile):
            results[position] = hit
        else:
            misses.append((position, path, hit))
    if any(miss is not None for _, _, miss in misses):
        cache.prepare_writes()

    def parse_and_store(item: tuple[int, str, Miss | None]) -> SourceFile:
        _, path, miss = item
        if miss is None:
            return parse(path, None)
        source = parse(path, miss.raw)
        cache.store(miss, source)
        return source

    for (position, _, _), source in zip(misses, map_chunks(parse_and_store, misses, jobs)):
        results[position] = source
    return results  # type: ignore[return-value]
