"""Everything kqlint keeps on disk between runs.

A persistent cache of parsed files, in kqlint's own folder outside the work tree
(kqlint.cache.home: ``~/.cache/kqlint/<project>/`` by default).

What is cached, per file *content*: the loaded documents with their positions, the
file-level problems (KQ001/KQ006 found while reading that file alone), the ``# kqlint:``
comment lines and, per object, its identity, its ``metadata.labels`` and the extended
resources its pods request (kqlint.cache.entries: a context object answers these, Kueue
routing and platform evidence, without its body being decoded). Nothing that depends
on another file, on the configuration or on where the file was found: display paths and
findings are rebuilt every run, so a warm run gives the same report as a cold one. The
reports of the last few complete runs are kept too, keyed by everything they read
(kqlint.cache.run).

Layout (``kqlint/`` in the cache home; kqlint deletes nothing outside it)::

    kqlint/CACHEDIR.TAG                      marks the folder as kqlint's (checked before any use)
    kqlint/.gitignore                        "*" (never committed)
    kqlint/<project>/<settings>/index.json   files: relative path -> [mtime_ns, size, inode, ctime_ns, hash]
                                             entries: hash -> [pack, offset, length]
    kqlint/<project>/<settings>/pack-<id>    the entries one run parsed, concatenated
    kqlint/<project>/<settings>/report-<key> the report of one complete run

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
and then the index, merged with the index on disk at that moment, once its findings are
known (``kqlint check``: while workers work out its fixes' text). Two runs at once both
stay correct; the one that writes its index last wins, and the other's pack becomes
garbage that a later run removes. Anything unreadable (missing, truncated or corrupt pack,
foreign format) is a miss and is rebuilt: an entry's compressed stream and its header each
carry a CRC-32, checked before anything is unpickled. Entries are unpickled with a restricted unpickler
that only builds plain data, Map, Seq and arrays, so a planted cache file cannot run code. A
cache that cannot be written (read-only, full disk) is switched off for the run with one
line on stderr. Size: packs whose entries are more than half garbage are compacted.

Modules: :mod:`~kqlint.cache.home` (where the cache lives, ownership, bounded reads),
:mod:`~kqlint.cache.keys` (settings key, content hash),
:mod:`~kqlint.cache.index` (index and packs), :mod:`~kqlint.cache.layout` (atomic writes,
pruning, ``kqlint cache clean``), :mod:`~kqlint.cache.store` (:class:`FileCache`, one run's
lookups and writes).
"""
from __future__ import annotations

from kqlint.cache.home import ENV_VAR, CacheRefused, cache_home, owned_folder, remove_owned
from kqlint.cache.keys import CACHE_FORMAT, content_hash, settings_key
from kqlint.cache.layout import STALE_SETTINGS_S, keep_newest
from kqlint.cache.store import FileCache, Miss, open_cache

__all__ = ["CACHE_FORMAT", "ENV_VAR", "STALE_SETTINGS_S", "CacheRefused", "FileCache", "Miss", "cache_home",
           "content_hash", "keep_newest", "open_cache", "owned_folder", "remove_owned", "settings_key"]
