"""Objects built from a cache entry whose fields are decoded on first use: a context file's
objects (most are never read) and an input file's while only built-in rules look at it."""
from __future__ import annotations

from typing import Any

from kqlint import loader
from kqlint.cache.entries import Entry, KnownSource, in_identity, with_known_requests
from kqlint.domain.objects import K8sObject, dig, mapping_at, objects_from_file
from kqlint.loader import SourceFile

_DATA = K8sObject.__dict__["data"]
_ROOT = K8sObject.__dict__["root"]


class _Body:
    """The documents of one cached file, loaded the first time one of its objects is read."""

    def __init__(self, entry: Entry, objects: list[LazyObject], path: str) -> None:
        self.entry, self.objects, self.path = entry, objects, path

    def _documents(self) -> list[Any]:
        try:
            return self.entry.documents()
        except Exception:  # parsed again: what the skeletons knew may no longer hold
            for obj in self.objects:
                obj.known_templates = None
            return loader.load_file(self.path, self.objects[0].file if self.objects else self.path).documents

    def fill(self) -> None:
        import gc

        enabled = gc.isenabled()
        gc.disable()  # thousands of containers at once, kept to the end of the run: as the
        try:          # runner does after loading, freeze them instead of scanning them again
            documents = self._documents()
        finally:
            if enabled:
                gc.freeze()
                gc.enable()
        for obj in self.objects:
            root = documents[obj.doc] if obj.doc < len(documents) else None
            data = dig(root, obj.base)
            if not isinstance(data, dict):  # the file changed under us: keep what identifies it
                root = data = _DATA.__get__(obj)
            _ROOT.__set__(obj, root)
            _DATA.__set__(obj, data)
            obj._body = None
            obj.__class__ = FilledObject  # type: ignore[assignment]  # plain slots from now on: rules read fields often
        self.objects = []


class LazyObject(K8sObject):
    """An object from the cache: identity now, fields on first access.

    Context objects only resolve references; most are never read in a pre-commit run. An
    input whose rules' findings are all reused (kqlint.cache.findings) is never read either.
    ``known_requests``: the extended resources its pods request (kqlint.domain.platform evidence),
    computed from the same content when it was cached."""

    __slots__ = ("_body", "known_requests", "known_templates")

    def __init__(self, file: str, doc: int, base: tuple[Any, ...], identity: Any,
                 default_namespace: str, source: str, body: _Body,
                 requests: tuple[str, ...] = (), templates: Any = None) -> None:
        self._body = None
        K8sObject.__init__(self, file, doc, identity, base, identity, default_namespace, source)
        self._body = body
        self.known_requests = frozenset(requests)
        self.known_templates = templates

    @property
    def data(self) -> Any:
        if self._body is not None:
            self._body.fill()
        return _DATA.__get__(self)

    @data.setter
    def data(self, value: Any) -> None:
        _DATA.__set__(self, value)

    def get(self, *path: Any, default: Any = None) -> Any:
        """Identity fields are answered without decoding the body (they are kept as written)."""
        if self._body is not None and in_identity(path, self.kind):
            return dig(_DATA.__get__(self), path, default)
        return K8sObject.get(self, *path, default=default)

    def _locate(self, path: tuple[Any, ...], value: bool) -> Any:
        """A key or scalar the identity keeps is located without decoding the body."""
        if self._body is not None and path and in_identity(path, self.kind):
            identity = _DATA.__get__(self)
            try:
                start, end, depth = loader.locate(identity, tuple(path), value)
            except (IndexError, TypeError, ValueError):  # positions not kept: read the body
                start, end, depth = 0, 0, 0
            if depth == len(path) and start and not (value and isinstance(dig(identity, path), (dict, list))):
                return self._location(start, end, tuple(path))
        return K8sObject._locate(self, path, value)

    @property
    def labels(self) -> dict[str, Any]:
        return mapping_at(_DATA.__get__(self) if self._body is not None else self.data, ("metadata", "labels"))

    @property
    def annotations(self) -> dict[str, Any]:
        return mapping_at(_DATA.__get__(self) if self._body is not None else self.data,
                          ("metadata", "annotations"))

    @property
    def root(self) -> Any:
        if self._body is not None:
            self._body.fill()
        return _ROOT.__get__(self)

    @root.setter
    def root(self, value: Any) -> None:
        _ROOT.__set__(self, value)


class FilledObject(K8sObject):
    """A LazyObject once its body is read: the same slots, without the lazy accessors."""

    __slots__ = ("_body", "known_requests", "known_templates")


class CachedSource(SourceFile):
    """A context file served from the cache: objects built from skeletons, body on demand."""

    entry: Entry
    real_path: str

    def objects(self, default_namespace: str, tier: str) -> tuple[list[K8sObject], int, int]:
        objects: list[LazyObject] = []
        body = _Body(self.entry, objects, self.real_path)
        for doc, base, identity, requests, templates in self.entry.skeletons:
            objects.append(LazyObject(self.path, doc, base, identity, default_namespace, tier, body, requests,
                                      templates))
        return list(objects), self.entry.documents_count, self.entry.skipped


def objects_of(source: SourceFile, default_namespace: str, tier: str) -> tuple[list[K8sObject], int, int]:
    """``objects_from_file`` for any source, lazy for context files served from the cache,
    with their known requested resources for files the cache encoded."""
    if isinstance(source, CachedSource):
        return source.objects(default_namespace, tier)
    objects, documents, skipped = objects_from_file(source, default_namespace, tier)
    if isinstance(source, KnownSource):
        requests = source.requests
        objects = [obj if (obj.doc, obj.base) not in requests else
                   with_known_requests(obj, requests[(obj.doc, obj.base)]) for obj in objects]
    return objects, documents, skipped


def lazy_source(entry: Entry, display: str, path: str) -> CachedSource:
    """The source whose objects decode ``entry``'s body when first read (``path``: the file to
    parse again if the body cannot be read)."""
    source = entry.make(CachedSource, display, [])
    assert isinstance(source, CachedSource)
    source.entry, source.real_path = entry, path
    return source
