"""K8sObject: identity, read-only access to fields, and ``at(path)`` positions."""
from __future__ import annotations

from collections.abc import Hashable, Iterator
from typing import Any

from kqlint.domain.kinds import CLUSTER_SCOPED
from kqlint.loader import Map, SourceFile, is_k8s_object, locate, unpack  # is_k8s_object: re-exported
from kqlint.model import Location, ObjectRef

CLUSTER_SCOPED_KINDS = CLUSTER_SCOPED  # (group, kind) pairs; unknown kinds are namespaced

# Where an object came from; resolution prefers earlier tiers.
INPUT, CONTEXT, EXTERNAL, PROFILE = "input", "context", "external", "profile"
_MISSING = object()


class ApplyTimeNamespace(str):
    """The namespace of an object that sets none: the run's default (``--namespace``) for
    display and lookups, but really chosen when it is applied (rules.md "Applied together").
    ``file`` is the object's file: objects of one folder are applied to one namespace."""

    file: str = ""

    def __new__(cls, value: str, file: str = "") -> ApplyTimeNamespace:
        made = super().__new__(cls, value)
        made.file = file
        return made

    def __reduce__(self) -> tuple[Any, ...]:
        return (ApplyTimeNamespace, (str(self), self.file))


class RenderedNamespaces(ApplyTimeNamespace):
    """The namespace of an object kustomizations render into several namespaces (a base two
    overlays put in two namespaces, or one sets none): no lookup from it is certain."""

    namespaces: tuple[str | None, ...] = ()

    def __new__(cls, value: str, file: str = "", namespaces: tuple[str | None, ...] = ()) -> RenderedNamespaces:
        made = str.__new__(cls, value)
        made.file, made.namespaces = file, namespaces
        return made

    def __reduce__(self) -> tuple[Any, ...]:
        return (RenderedNamespaces, (str(self), self.file, self.namespaces))


def split_api_version(api_version: str) -> tuple[str, str]:
    group, _, version = api_version.rpartition("/")
    return group, version


def is_cluster_scoped(group: str, kind: str) -> bool:
    return (group, kind) in CLUSTER_SCOPED_KINDS


class K8sObject:
    """One Kubernetes object from a document (or a List item, or a declared external)."""

    __slots__ = ("file", "doc", "root", "base", "data", "api_version", "group", "version",
                 "kind", "name", "namespace", "source", "facts")

    def __init__(self, file: str, doc: int, root: Any, base: tuple[Any, ...], data: Map,
                 default_namespace: str, source: str = INPUT) -> None:
        self.file, self.doc, self.root, self.base, self.data = file, doc, root, base, data
        self.api_version = str(data.get("apiVersion") or "")
        self.group, self.version = split_api_version(self.api_version)
        self.kind = str(data.get("kind") or "")
        metadata = data.get("metadata")
        metadata = metadata if isinstance(metadata, dict) else {}
        self.name = str(metadata.get("name") or metadata.get("generateName") or "")
        namespace = metadata.get("namespace")
        if is_cluster_scoped(self.group, self.kind):
            self.namespace: str | None = None
        else:
            self.namespace = str(namespace) if namespace else ApplyTimeNamespace(default_namespace, file)
        self.source = source
        self.facts: dict[Any, Any] | None = None  # remember(): what its content alone decides

    def remember(self, key: Any, derive: Any) -> Any:
        """``derive()``, once per object: for what the object's own content decides, asked by
        every graph the object is in (each unit's, each keystroke's in ``kqlint server``)."""
        facts = self.facts
        if facts is None:
            facts = self.facts = {}
        if key not in facts:
            facts[key] = derive()
        return facts[key]

    # ----------------------------------------------------------- identity
    @property
    def key(self) -> tuple[str, str, str | None, str]:
        return (self.group, self.kind, self.namespace, self.name)

    @property
    def ref(self) -> ObjectRef:
        return ObjectRef(self.api_version, self.kind, self.namespace, self.name)

    def display(self) -> str:
        return self.ref.display()

    # ----------------------------------------------------------- access
    def get(self, *path: Any, default: Any = None) -> Any:
        """The value at ``path`` (keys and indexes), or ``default`` when any step is missing."""
        return dig(self.data, path, default)

    def has(self, *path: Any) -> bool:
        return dig(self.data, path, _MISSING) is not _MISSING

    @property
    def metadata(self) -> dict[str, Any]:
        value = self.data.get("metadata")
        return value if isinstance(value, dict) else {}

    @property
    def labels(self) -> dict[str, Any]:
        return mapping_at(self.data, ("metadata", "labels"))

    @property
    def annotations(self) -> dict[str, Any]:
        return mapping_at(self.data, ("metadata", "annotations"))

    # ----------------------------------------------------------- positions
    def at(self, *path: Any) -> Location:
        """Location of the key (or item) at ``path``; the nearest existing ancestor when missing."""
        return self._locate(path, value=False)

    def at_value(self, *path: Any) -> Location:
        """Location of the value at ``path`` (for a scalar: where the scalar starts)."""
        return self._locate(path, value=True)

    def _locate(self, path: tuple[Any, ...], value: bool) -> Location:
        full = self.base + tuple(path)
        if self.root is None:
            return Location(self.file, 1, 1, tuple(path), self.ref)
        start, end, depth = locate(self.root, full, value)
        if depth == 0 and full:  # not even the first key exists: the object's own start, not line 1
            return self._start(tuple(path))
        return self._location(start, end, tuple(path))

    def _location(self, start: int, end: int, path: tuple[Any, ...]) -> Location:
        line, column = unpack(start) if start else (1, 1)
        end_line, end_column = unpack(end) if end else (0, 0)
        return Location(self.file, line, column, path, self.ref, "", end_line, end_column)

    def _start(self, path: tuple[Any, ...]) -> Location:
        first = next(iter(self.data), None)
        if first is None or self.root is None:
            return Location(self.file, 1, 1, path, self.ref)
        start, end, _ = locate(self.root, self.base + (first,))
        return self._location(start, end, path)

    def location(self) -> Location:
        """Where the object starts (its first key, usually ``apiVersion``)."""
        return self._start(())

    def __repr__(self) -> str:
        return f"<K8sObject {self.display()} {self.file}>"


def dig(node: Any, path: tuple[Any, ...] | list[Any], default: Any = None) -> Any:
    for step in path:
        if isinstance(node, dict):
            if step not in node:
                return default
            node = node[step]
        elif isinstance(node, list) and isinstance(step, int) and -len(node) <= step < len(node):
            node = node[step]
        else:
            return default
    return node


def content_key(obj: K8sObject) -> Hashable:
    """The object's fields as a hashable value (positions and comments ignored): equal for two
    copies of one manifest."""
    return _frozen(obj.data)


def _frozen(value: Any) -> Hashable:
    if isinstance(value, dict):
        return tuple(sorted(((str(k), _frozen(v)) for k, v in value.items()), key=lambda kv: kv[0]))
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    return (type(value).__name__, str(value)) if not isinstance(value, (str, int, float, bool, type(None))) \
        else value


def mapping_at(node: Any, path: tuple[Any, ...]) -> dict[str, Any]:
    value = dig(node, path)
    return value if isinstance(value, dict) else {}


def objects_from_file(source: SourceFile, default_namespace: str, tier: str = INPUT
                      ) -> tuple[list[K8sObject], int, int]:
    """Objects of one file, with ``List`` kinds expanded. Returns (objects, documents, skipped)."""
    objects: list[K8sObject] = []
    skipped = 0
    documents = 0
    for index, document in enumerate(source.documents):
        if document is None:
            continue
        documents += 1
        if not is_k8s_object(document):
            skipped += 1
            continue
        for base, data in _expand_lists(document):
            objects.append(K8sObject(source.path, index, document, base, data, default_namespace, tier))
    return objects, documents, skipped


def _expand_lists(document: Map) -> Iterator[tuple[tuple[Any, ...], Map]]:
    kind = document.get("kind", "")
    items = document.get("items")
    if kind.endswith("List") and isinstance(items, list):
        for index, item in enumerate(items):
            if is_k8s_object(item):
                yield ("items", index), item
        return
    yield (), document
