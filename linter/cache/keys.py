"""What names a cache folder and an entry: the settings key (everything that changes what a
file loads to), the content hash of a file, and where the cache lives by default."""
from __future__ import annotations

import hashlib
import os
import sys
from typing import Any

CACHE_FORMAT = 4            # bump when the layout or the entry encoding changes
DIR_NAME = ".kqlint_cache"
ENV_VAR = "KQLINT_CACHE_DIR"
_HASH_BYTES = 16
_CACHE_MODULES = ("kqlint.cache", "kqlint.cache.keys", "kqlint.cache.layout", "kqlint.cache.index",
                  "kqlint.cache.store")


def _source_bytes(module: Any) -> bytes:
    try:
        with open(module.__file__, "rb") as handle:
            return handle.read()
    except (OSError, TypeError, AttributeError):
        return repr(getattr(module, "__file__", module)).encode()


def settings_key(max_file_size: int) -> str:
    """Everything that changes what a file loads to, hashed (16 hex digits)."""
    import importlib

    import ruamel.yaml
    from kqlint import __version__, cache_entry, loader, objects, platform, podspec, workloads

    digest = hashlib.blake2b(digest_size=8)
    for part in (str(CACHE_FORMAT), __version__, sys.version.split()[0], ruamel.yaml.__version__,
                 str(loader.FAST_PATH), str(max_file_size), str(loader.MAX_DEPTH),
                 str(loader.MAX_EXPANDED_NODES), str(loader.COL_BITS)):
        digest.update(part.encode() + b"\x00")
    cache_modules = [importlib.import_module(name) for name in _CACHE_MODULES]
    for module in (*loader.SOURCE_MODULES, objects, cache_entry, platform, podspec, workloads, *cache_modules):
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
