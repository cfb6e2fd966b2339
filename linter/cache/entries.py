"""Cache entries: what one file's content loads to, encoded without running code on the way
back, and the lazy context objects built from an entry (see kqlint.cache)."""
from __future__ import annotations

import dataclasses
import enum
import io
import pickle
import struct
import sys
import zlib
from array import array
from dataclasses import dataclass
from typing import Any

from kqlint import loader
from kqlint.domain.kinds import POD_GROUPS
from kqlint.domain.kueue import CLUSTER_QUEUE_FIELD, COHORT_FIELDS
from kqlint.domain.objects import INPUT, K8sObject, objects_from_file
from kqlint.domain.workloads import (
    KUBEFLOW_RUN_POLICY_PATH,
    POD_GROUP_MIN_MEMBER_PATH,
    RUNTIME_REF_PATH,
    is_template_facts,
)
from kqlint.domain.workloads.templates import KUBEFLOW_REPLICA_KEYS
from kqlint.loader import LoadProblem, SourceFile

MAGIC = b"KQLC\x00\x0a"  # 10: one pickle of all documents; 9: header and body one compressed stream


_ALLOWED = {("kqlint.loader.nodes", "Map"), ("kqlint.loader.nodes", "Seq"), ("array", "array"),
            ("array", "_array_reconstructor")}


class _DataUnpickler(pickle.Unpickler):
    """Builds only plain data, Map/Seq and arrays: a planted entry runs no code."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in _ALLOWED:
            return super().find_class(module, name)
        if module == "builtins" and name in ("set", "frozenset", "complex"):
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"{module}.{name} is not allowed in a cache entry")


class ModelUnpickler(_DataUnpickler):
    """Also builds kqlint's own value types (reports, findings and whatever fields they gain):
    frozen dataclasses and enums of already imported ``kqlint.`` modules, and
    ApplyTimeNamespace. Nothing else is importable, so a planted file runs no foreign code and
    builds nothing with side effects (no cache, no config loader)."""

    def find_class(self, module: str, name: str) -> Any:
        loaded = sys.modules.get(module) if module.startswith("kqlint.") else None
        found = getattr(loaded, name, None) if loaded is not None else None
        if isinstance(found, type) and (_is_value_type(found) or issubclass(found, enum.Enum)
                                        or (module, name) == ("kqlint.domain.objects", "ApplyTimeNamespace")):
            return found
        return super().find_class(module, name)


def _is_value_type(cls: type) -> bool:
    params = getattr(cls, "__dataclass_params__", None)
    return dataclasses.is_dataclass(cls) and params is not None and bool(params.frozen)


def _unpickle(data: bytes | memoryview) -> Any:
    return _DataUnpickler(io.BytesIO(data)).load()


IDENTITY_PATHS = frozenset({("apiVersion",), ("kind",), ("metadata", "name"), ("metadata", "generateName"),
                            ("metadata", "namespace"), ("metadata", "labels"), ("metadata", "annotations")})
_METADATA_KEYS = ("name", "generateName", "namespace", "labels", "annotations")


# per kind name, the spec fields the identity keeps too: the routes and cohorts of Kueue's
# queues (the cache's scoped reads, kqlint.cache.reads.quota_scope, look them up everywhere),
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


def encode(source: SourceFile, raw: bytes) -> tuple[bytes, list[Skeleton], tuple[str, ...], tuple[str, ...], bytes]:
    """The entry of ``source``, parsed now from ``raw``, and the parts the run needs at once:
    (entry, skeletons, document digests, projection digests, body uncompressed).

    Header: problems, comments, the source's other fields, object skeletons, the documents'
    digests and their projections' (kqlint.cache.digests). Body: the documents, pickled
    together (every run that reads one reads them all). Both are compressed as
    one stream (one compressor per file: for entries of a few kilobytes, setting one up costs
    as much as compressing), the header first, so it is read without inflating the body."""
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
    return framed(head, plain), skeletons, digests, projections, plain


_FRAME = struct.Struct(">III")  # the header's size, its CRC-32, the stream's CRC-32


def framed(head: bytes, body: bytes) -> bytes:
    """An entry's bytes: MAGIC, _FRAME, then the header and the body compressed as one stream."""
    compressor = zlib.compressobj(1)
    stream = compressor.compress(head) + compressor.compress(body) + compressor.flush()
    return MAGIC + _FRAME.pack(len(head), zlib.crc32(head), zlib.crc32(stream)) + stream


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
    """One decoded entry; the documents are decompressed only when asked for."""

    problems: list[dict[str, Any]]
    comment_lines: dict[int, str]
    fields: dict[str, Any]              # SourceFile's other fields (placeholder_hint, ...)
    skeletons: list[Skeleton]
    documents_count: int
    skipped: int
    stream: bytes | memoryview          # header and body, compressed
    head_size: int                      # the header's size in the stream, uncompressed
    document_digests: tuple[str, ...] = ()  # one per document (kqlint.cache.digests)
    projections: tuple[str, ...] = ()       # one per document: its digest with values masked
    made_here: bool = False                 # encoded by this run (a worker): no need to restrict unpickling
    plain: bytes | None = None              # the body uncompressed, sent along by the worker that made it

    def documents(self) -> list[Any]:
        if self.plain is not None:
            raw = memoryview(self.plain)
        else:
            raw = memoryview(zlib.decompress(self.stream))[self.head_size:]
        documents = (pickle.loads if self.made_here else _unpickle)(raw)
        if not isinstance(documents, list) or len(documents) != len(self.document_digests):
            raise ValueError("cache entry body does not hold its documents")
        return documents

    def source(self, display: str) -> SourceFile:
        return known_source(self.make(SourceFile, display, self.documents()), self.skeletons)

    def make(self, kind: type[SourceFile], display: str, documents: list[Any]) -> SourceFile:
        return kind(display, documents, [LoadProblem(display, **fields) for fields in self.problems],
                    dict(self.comment_lines), **self.fields)


def decode_entry(blob: bytes) -> Entry:
    """Raises on anything that is not a complete entry of this format."""
    if not blob.startswith(MAGIC):
        raise ValueError("not a kqlint cache entry")
    size, head_check, stream_check = _FRAME.unpack_from(blob, len(MAGIC))
    stream = memoryview(blob)[len(MAGIC) + _FRAME.size:]
    if zlib.crc32(stream) != stream_check:  # checked now: a context file's body is read much later
        raise ValueError("damaged cache entry")
    head_bytes = zlib.decompressobj().decompress(stream, size)  # the header alone
    if len(head_bytes) != size or zlib.crc32(head_bytes) != head_check:  # a partial inflate checks nothing
        raise ValueError("damaged cache entry")
    head = ModelUnpickler(io.BytesIO(head_bytes)).load()
    problems, comments, fields, skeletons, documents, skipped, digests, projections = head
    for _, _, _, requests, templates in skeletons:  # the per-object facts read unchecked
        if not isinstance(requests, tuple) or not all(isinstance(name, str) for name in requests) \
                or not is_template_facts(templates):
            raise ValueError("damaged cache entry")
    if not isinstance(fields, dict) or not all(isinstance(p, dict) for p in problems):
        raise ValueError("damaged cache entry")
    if not isinstance(digests, tuple) or not all(isinstance(d, str) for d in digests):
        raise ValueError("damaged cache entry")
    if not isinstance(projections, tuple) or len(projections) != len(digests) \
            or not all(isinstance(d, str) for d in projections):
        raise ValueError("damaged cache entry")
    return Entry(list(problems), dict(comments), fields, list(skeletons), int(documents), int(skipped), stream,
                 size, digests, projections)


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


def with_known_requests(obj: K8sObject, requests: tuple[str, ...]) -> K8sObject:
    known = KnownObject.__new__(KnownObject)
    for cls in type(obj).__mro__:
        for name in getattr(cls, "__slots__", ()):
            if hasattr(obj, name):
                setattr(known, name, getattr(obj, name))
    known.known_requests = frozenset(requests)
    return known


# ------------------------------------------------------------------ lazy context objects
