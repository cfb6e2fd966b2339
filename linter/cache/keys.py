"""What names a cache folder and an entry: the settings key (everything that changes what a
file loads to) and the content hash of a file."""
from __future__ import annotations

import hashlib
import os
import sys
from typing import Any

CACHE_FORMAT = 5            # bump when the layout or the entry encoding changes
_HASH_BYTES = 16
_CACHE_MODULES = ("kqlint.cache", "kqlint.cache.keys", "kqlint.cache.layout", "kqlint.cache.index",
                  "kqlint.cache.store", "kqlint.cache.home", "kqlint.version")
# Besides the loader (kqlint.loader.SOURCE_MODULES): every module whose code decides what an
# entry stores (objects, skeletons, requested resources, masked values, digests); checked by
# tests/test_cache.py against what encoding a file imports.
ENCODING_MODULES = ("kqlint.domain", "kqlint.engine", "kqlint.domain.objects", "kqlint.cache.entries",
                    "kqlint.cache.codec",
                    "kqlint.cache.masks", "kqlint.cache.digests",
                    "kqlint.domain.platform", "kqlint.domain.requested", "kqlint.domain.podspec",
                    "kqlint.domain.fields", "kqlint.domain.kueue_config", "kqlint.domain.kueue_config_facts",
                    "kqlint.domain.quantity", "kqlint.domain.kinds", "kqlint.domain.workloads",
                    "kqlint.domain.workloads.extract", "kqlint.domain.workloads.gang",
                    "kqlint.domain.workloads.shapes", "kqlint.domain.workloads.templates",
                    "kqlint.domain.workloads.trainer", "kqlint.domain.kueue", "kqlint.domain.kueue.podsets",
                    "kqlint.domain.kueue.priority", "kqlint.domain.kueue.quota", "kqlint.domain.kueue.limitranges",
                    "kqlint.domain.kueue.routing",
                    "kqlint.domain.graph", "kqlint.model", "kqlint.domain.wording", "kqlint.spelling")


def _source_bytes(module: Any) -> bytes:
    return _file_bytes(getattr(module, "__file__", module))


def _module_source(name: str) -> bytes:
    """The source of module ``name``, read without importing it (hashing runs no module)."""
    import importlib.util

    module = sys.modules.get(name)
    if module is not None:
        return _source_bytes(module)
    spec = importlib.util.find_spec(name)
    return _file_bytes(spec.origin if spec is not None else name)


def _file_bytes(path: Any) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except (OSError, TypeError):
        return repr(path).encode()


def settings_key(max_file_size: int) -> str:
    """Everything that changes what a file loads to, hashed (16 hex digits)."""
    import ruamel.yaml
    from kqlint import loader
    from kqlint.version import __version__

    digest = hashlib.blake2b(digest_size=8)
    for part in (str(CACHE_FORMAT), __version__, sys.version.split()[0], ruamel.yaml.__version__,
                 str(loader.FAST_PATH), str(max_file_size), str(loader.MAX_DEPTH),
                 str(loader.MAX_EXPANDED_NODES), str(loader.COL_BITS)):
        digest.update(part.encode() + b"\x00")
    for module in loader.SOURCE_MODULES:
        digest.update(_source_bytes(module))
    for name in ENCODING_MODULES + _CACHE_MODULES:
        digest.update(_module_source(name))
    return digest.hexdigest()


def content_hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=_HASH_BYTES).hexdigest()


def project_root(start: str | None = None) -> str:
    """The project root (discover's root finder), else the current directory: what the
    cache's paths are relative to."""
    from kqlint.project.root import project_root as find_project_root

    cwd = os.path.abspath(start or os.getcwd())
    return find_project_root(cwd) or cwd


def code_fingerprint() -> str:
    """kqlint's own code and schemas, by name, size and mtime: a changed rule is a new key."""
    digest = hashlib.blake2b(digest_size=16)
    roots = [os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]  # kqlint's own folder
    try:
        import kqlint.rules
        import kqlint.schemas

        roots += [os.path.dirname(kqlint.rules.__file__), os.path.dirname(kqlint.schemas.__file__)]
    except ImportError:  # pragma: no cover - a broken install: no report cache then
        return ""
    for root in roots:
        for folder, dirs, names in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(names):
                if name.endswith((".py", ".json", ".yaml")):
                    st = os.stat(os.path.join(folder, name))
                    digest.update(f"{folder}/{name}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def crd_digest(crds: tuple[str, ...]) -> str | None:
    """The content of every ``--crd`` file (KQ002 validates against them), or None if unreadable."""
    if not crds:
        return ""
    from kqlint.project.discover import discover

    digest = hashlib.blake2b(digest_size=16)
    for given in crds:
        found = discover([given])
        if found.missing:
            return None
        for path in found.files:
            try:
                with open(path, "rb") as handle:
                    digest.update(os.path.abspath(path).encode("utf-8", "surrogateescape") + b"\x00"
                                  + hashlib.blake2b(handle.read(), digest_size=16).digest())
            except OSError:
                return None
    return digest.hexdigest()
