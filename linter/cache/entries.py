"""Cache entries: what one file's content loads to, encoded without running code on the way
back, and the lazy context objects built from an entry (see kqlint.cache)."""
from __future__ import annotations

import dataclasses
import io
import pickle
from array import array
from dataclasses import dataclass
from typing import Any

from kqlint import loader
from kqlint.cache.codec import FRAME, MAGIC, ModelUnpickler, checksum, framed, unpickle_data
from kqlint.domain.kinds import POD_GROUPS
from kqlint.domain.kueue import CLUSTER_QUEUE_FIELD, COHORT_FIELDS
from kqlint.domain.objects import INPUT, K8sObject, dig, mapping_at, objects_from_file
from kqlint.domain.workloads import (
    KUBEFLOW_RUN_POLICY_PATH,
    POD_GROUP_MIN_MEMBER_PATH,
    RUNTIME_REF_PATH,
    is_template_facts,
)
from kqlint.domain.workloads.templates import KUBEFLOW_REPLICA_KEYS
from kqlint.loader import LoadProblem, SourceFile

IDENTITY_PATHS = frozenset({("apiVersion",), ("kind",), ("metadata", "name"), ("metadata", "generateName"),
                            ("metadata", "namespace"), ("metadata", "labels"), ("metadata", "annotations")})
_METADATA_KEYS = ("name", "generateName", "namespace", "labels", "annotations")


# per kind name, the spec fields the identity keeps too: the routes and cohorts of Kueue's
# queues (the cache's scoped reads, kqlint.domain.kueue.quota.quota_scope, look them up everywhere),
# a TrainJob's runtime (every run indexes the TrainJobs of each runtime), a PodGroup's
# minMember and a Kubeflow job's runPolicy (gang sizes and the job's priority class: KQ301
# and Kueue's priority read every one)
IDENTITY_SPEC: dict[str, tuple[str, ...]] = {"LocalQueue": (CLUSTER_QUEUE_FIELD,), "ClusterQueue": COHORT_FIELDS,
                                             "TrainJob": RUNTIME_REF_PATH[1:],
                                             **{kind: POD_GROUP_MIN_MEMBER_PATH[1:] for _, kind in POD_GROUPS},
                                             **{kind: KUBEFLOW_RUN_POLICY_PATH[1:] for kind in KUBEFLOW_REPLICA_KEYS}}


def in_identity(path: tuple[Any, ...], kind: str = "") -> bool:
    """``path`` reads a field the identity keeps as written (labels, IDENTITY_SPEC: also every key below)."""
    return path[:2] in IDENTITY_PATHS or path in IDENTITY_PATHS \
        or (len(path) >= 2 and path[0] == "spec" and path[1] in IDENTITY_SPEC.get(kind, ()))


def _identity(obj: K8sObject) -> Any:
    """What identifies one object without its body: the raw apiVersion, kind and metadata
    name/generateName/namespace, as a Map K8sObject.__init__ reads exactly like the real one,
    and ``metadata.labels`` and ``metadata.annotations`` as written (Kueue routing reads the
    labels; suppressions and Kueue's own annotations are read from every object), and the
    IDENTITY_SPEC fields of its kind; with their positions (a finding there needs no body)."""
    data = obj.data
    metadata, spec = data.get("metadata"), data.get("spec")
    spec_keys = IDENTITY_SPEC.get(obj.kind, ())
    keys = ("apiVersion", "kind") + (("metadata",) if isinstance(metadata, dict) else ()) \
        + (("spec",) if isinstance(spec, dict) and any(key in spec for key in spec_keys) else ())
    ident = _subset(data, keys)
    if "metadata" in ident:
        ident["metadata"] = _subset(metadata, _METADATA_KEYS)
    if "spec" in ident:
        ident["spec"] = _subset(spec, spec_keys)
    return ident


def _subset(source: Any, keys: tuple[str, ...]) -> Any:
    """The entries of ``keys`` in the mapping ``source``, in its order, with their positions
    (none when ``source`` has none for every key)."""
    kept = loader.Map()
    positions = array("Q")
    given = loader.positions_of(source)
    known = len(given) == 2 * len(source)
    for index, key in enumerate(source):
        if key in keys:
            kept[key] = source[key]
            if known:
                positions.extend(given[2 * index:2 * index + 2])
    kept.pos = positions if known else ()
    return kept


_SOURCE_OWN = ("path", "documents", "problems", "comment_lines")  # encoded on their own
# doc, base, identity, requested resources, its templates (kqlint.domain.workloads.template_facts; None: not kept)
Skeleton = tuple[int, tuple[Any, ...], Any, tuple[str, ...], Any]


def _fields(value: Any, skip: tuple[str, ...]) -> dict[str, Any]:
    """A dataclass's fields by name (but ``skip``): new fields are cached without a change here."""
    return {f.name: getattr(value, f.name) for f in dataclasses.fields(value) if f.name not in skip}


def encode(source: SourceFile, raw: bytes) -> tuple[bytes, list[Skeleton], tuple[str, ...], tuple[str, ...]]:
    """The entry of ``source``, parsed now from ``raw``, and the parts the run needs at once:
    (entry, skeletons, document digests, projection digests).

    Header: problems, comments, the source's other fields, object skeletons, the documents'
    digests and their projections' (kqlint.cache.digests). Body: the documents, pickled
    together (every run that reads one reads them all), after the header, so the header is
    read without unpickling the body (kqlint.cache.codec.framed)."""
    from kqlint.cache.digests import document_digests
    from kqlint.domain.platform import object_requested_resources
    from kqlint.domain.workloads import has_pod_templates, owned, pod_templates, template_facts
    from kqlint.loader.decode import to_utf8

    objects, documents, skipped = objects_from_file(source, "default", INPUT)
    problems = [_fields(p, ("file",)) for p in source.problems]
    skeletons: list[Skeleton] = []
    masks: dict[int, list[Any]] = {}
    for obj in objects:
        every = pod_templates(obj) if has_pod_templates(obj) else []
        templates = owned(obj, every)  # own_templates, without extracting them twice
        skeletons.append((obj.doc, obj.base, _identity(obj),
                          tuple(sorted(object_requested_resources(obj, templates=templates))),
                          template_facts(obj, every) if every else None))
        masks.setdefault(obj.doc, []).extend(_mask_sites(obj, templates))
    ends = source.document_ends if len(source.document_ends) == len(source.documents) else [0] * len(source.documents)
    digests, projections = document_digests(to_utf8(raw)[0] or raw, ends, masks)  # the text the parser read
    plain = pickle.dumps(source.documents, protocol=5)  # one pickle: keys spelt once per file, not per document
    head = pickle.dumps((problems, source.comment_lines, _fields(source, _SOURCE_OWN), skeletons,
                         documents, skipped, digests, projections), protocol=5)
    return framed(head, plain), skeletons, digests, projections


def _mask_sites(obj: K8sObject, templates: list[Any]) -> list[Any]:
    from kqlint.cache.masks import mask_sites

    try:
        return mask_sites(obj, templates)
    except Exception:  # an odd object: nothing masked, its projection is its document
        return []


def encode_entry(source: SourceFile, raw: bytes) -> bytes:
    return encode(source, raw)[0]


@dataclass
class Entry:
    """One decoded entry; the documents are unpickled only when asked for."""

    problems: list[dict[str, Any]]
    comment_lines: dict[int, str]
    fields: dict[str, Any]              # SourceFile's other fields (placeholder_hint, ...)
    skeletons: list[Skeleton]
    documents_count: int
    skipped: int
    stream: bytes | memoryview          # header and body
    head_size: int                      # the header's size in the stream
    document_digests: tuple[str, ...] = ()  # one per document (kqlint.cache.digests)
    projections: tuple[str, ...] = ()       # one per document: its digest with values masked
    made_here: bool = False                 # encoded by this run (a worker): no need to restrict unpickling

    def documents(self) -> list[Any]:
        raw = memoryview(self.stream)[self.head_size:]
        documents = (pickle.loads if self.made_here else unpickle_data)(raw)
        if not isinstance(documents, list) or len(documents) != len(self.document_digests):
            raise ValueError("cache entry body does not hold its documents")
        return documents

    def source(self, display: str) -> SourceFile:
        return known_source(self.make(SourceFile, display, self.documents()), self.skeletons)

    def lazy_source(self, display: str, path: str) -> CachedSource:
        """The source whose objects decode this entry's body when first read (``path``: the
        file to parse again if the body cannot be read)."""
        source = self.make(CachedSource, display, [])
        assert isinstance(source, CachedSource)
        source.entry, source.real_path = self, path
        return source

    def make(self, kind: type[SourceFile], display: str, documents: list[Any]) -> SourceFile:
        return kind(display, documents, [LoadProblem(display, **fields) for fields in self.problems],
                    dict(self.comment_lines), **self.fields)


def decode_entry(blob: bytes, made_here: bool = False) -> Entry:
    """Raises on anything that is not a complete entry of this format. ``made_here``: encoded by
    this run's own worker and handed over in memory, so neither checked nor restricted."""
    if not blob.startswith(MAGIC):
        raise ValueError("not a kqlint cache entry")
    size, check = FRAME.unpack_from(blob, len(MAGIC))
    stream = memoryview(blob)[len(MAGIC) + FRAME.size:]
    if not made_here and checksum(size, stream) != check:  # checked now: a context file's body is read much later
        raise ValueError("damaged cache entry")
    if size > len(stream):
        raise ValueError("damaged cache entry")
    if made_here:
        head = pickle.loads(stream[:size])
    else:
        head = ModelUnpickler(io.BytesIO(stream[:size])).load()
        _check_head(head)
    problems, comments, fields, skeletons, documents, skipped, digests, projections = head
    return Entry(list(problems), dict(comments), fields, list(skeletons), int(documents), int(skipped), stream,
                 size, digests, projections, made_here)


def _check_head(head: Any) -> None:
    """Raises unless an entry's header read from disk holds what the run reads from it unchecked."""
    problems, comments, fields, skeletons, documents, skipped, digests, projections = head
    for _, _, _, requests, templates in skeletons:
        if not isinstance(requests, tuple) or not all(isinstance(name, str) for name in requests) \
                or not is_template_facts(templates):
            raise ValueError("damaged cache entry")
    if not isinstance(fields, dict) or not all(isinstance(p, dict) for p in problems):
        raise ValueError("damaged cache entry")
    if not isinstance(digests, tuple) or not isinstance(projections, tuple) or len(projections) != len(digests) \
            or not all(isinstance(d, str) for d in digests + projections):
        raise ValueError("damaged cache entry")


# ------------------------------------------------------------------ input objects with known facts

class KnownSource(SourceFile):
    """A fully loaded file whose objects' requested resources are already known (computed
    when it was encoded): kqlint.domain.platform does not compute them again."""

    requests: dict[tuple[int, tuple[Any, ...]], tuple[str, ...]]


def known_source(source: SourceFile, skeletons: list[Skeleton]) -> KnownSource:
    known = KnownSource(**_fields(source, ()))
    known.requests = {(doc, base): requests for doc, base, _, requests, _ in skeletons}
    return known


class PreparedSource(KnownSource):
    """A file parsed without the cache whose per-object facts were worked out where it was
    parsed (kqlint.engine.inputs): its objects' requested resources, and ``skip_objects`` when
    envsubst placeholders make the whole file one KQ006 (already among its problems)."""

    skip_objects: bool = False

    @classmethod
    def of(cls, source: SourceFile, objects: list[K8sObject]) -> PreparedSource:
        from kqlint.domain.platform import object_requested_resources

        prepared = cls(**_fields(source, ()))
        prepared.requests = {(obj.doc, obj.base): tuple(sorted(object_requested_resources(obj))) for obj in objects}
        return prepared


class KnownObject(K8sObject):
    __slots__ = ("known_requests",)
    known_requests: frozenset[str]


def _with_known_requests(obj: K8sObject, requests: tuple[str, ...]) -> K8sObject:
    known = KnownObject.__new__(KnownObject)
    for cls in type(obj).__mro__:
        for name in getattr(cls, "__slots__", ()):
            if hasattr(obj, name):
                setattr(known, name, getattr(obj, name))
    known.known_requests = frozenset(requests)
    return known


# ------------------------------------------------------------------ lazy context objects

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
                   _with_known_requests(obj, requests[(obj.doc, obj.base)]) for obj in objects]
    return objects, documents, skipped
