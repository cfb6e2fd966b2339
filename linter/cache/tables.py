"""Files kept beside the entries (whole reports, stored findings, resolved fixes, placeholder
verdicts): one pickled, compressed value per file, behind a magic prefix, written atomically,
read back with the restricted unpickler; anything missing, foreign or damaged reads as None."""
from __future__ import annotations

import io
import pickle
import zlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kqlint.cache.store import FileCache


def load_table(path: str, magic: bytes) -> Any:
    from kqlint.cache.codec import ModelUnpickler
    from kqlint.cache.home import read_owned

    try:
        blob = read_owned(path)
        if not blob.startswith(magic):
            return None
        return ModelUnpickler(io.BytesIO(zlib.decompress(blob[len(magic):]))).load()
    except Exception:
        return None


def save_table(cache: FileCache, path: str, magic: bytes, value: Any, prefix: str, keep: int) -> None:
    """Write ``value`` (if the cache can be written), keeping the ``keep`` newest tables named ``prefix…``."""
    if not cache.writable:
        return
    try:
        blob = magic + zlib.compress(pickle.dumps(value, protocol=5), 1)
    except Exception:
        return
    from kqlint.cache.layout import keep_newest

    if cache._write(path, blob):
        keep_newest(cache.folder, prefix, keep)
