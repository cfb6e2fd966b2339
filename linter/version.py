"""kqlint's version, in one place (the package, the cache key and the build read it)."""

__version__ = "0.1.0"
