"""What a graph-reading built-in rule reads, and digests of it (kqlint.cache.findings).

A rule that declares ``RuleMeta.reads`` reads, besides its own object, only objects of those kinds (and,
through the graph, the platform model, the partition and the folder/unit layout). Its stored
findings are reused when the digest of what it reads is unchanged:

- kind digest: over every manifest object of that kind name (any API group: a superset of the
  declared GroupKinds) in the run, inputs and context of every unit, in load order, each as
  (display path, document index, path inside the document, its document's projection digest,
  tier, unit): its document with the values no rule reads of another object masked (plain
  label values, container images, ClusterQueue quotas: kqlint.cache.masks). An object added,
  removed, moved, or changed in (unmasked) data or in node positions changes it; an object
  without a document digest (stdin, a file outside the project, not cached) makes it
  unknown, and the rule is run;
- scoped reads (``RuleMeta.scoped_reads``): a rule that reads masked values of some objects of a kind
  (KQ210: the quotas of the ClusterQueues a workload's namespace may route to, and of their
  cohorts) keeps, per object, the digest of those objects' documents whole;
- graph key: the partition (its unit), the platform model (every field), the declared objects
  (config ``external``, the profile's, the built-in classes: their data), the folders holding
  a kustomization, the patch fragments. Every reused rule's digest includes it, whether or not
  the rule asks the platform or the layout: cheap, and nothing is missed.

Everything else (the configuration, the selected rules, kqlint's code, ``--crd`` files) is in
the results key (kqlint.cache.findings.results_key).
"""
from __future__ import annotations

import hashlib
import pickle
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kqlint.domain.graph import ObjectGraph
    from kqlint.domain.objects import K8sObject
    from kqlint.engine.rule import RuleMeta

def read_kinds(meta: RuleMeta) -> frozenset[str]:
    """The kind names whose objects a rule declares it reads (digests are kept per kind name)."""
    return frozenset(kind for _, kind in meta.reads or ())


class RunObjects:
    """The manifest objects of one run, grouped by kind name, and the digests of those groups."""

    def __init__(self, objects: Iterable[Any], documents: dict[str, tuple[str, ...]], scope: Any,
                 projections: dict[str, tuple[str, ...]] | None = None) -> None:
        self.documents = documents
        self.projections = projections or {}
        self.by_kind: dict[str, list[Any]] = {}
        for obj in objects:
            self.by_kind.setdefault(obj.kind, []).append(obj)
        self.scope = scope
        self._digests: dict[tuple[str, bool], str | None] = {}
        self._scoped: dict[tuple[str, Any], str | None] = {}
        self.layout = _digest_of([sorted(scope.kustomize_dirs()), sorted(scope.fragments),
                                  sorted(scope.variant_folders)])

    def document_digest(self, obj: K8sObject, projected: bool = False) -> str | None:
        found = (self.projections if projected else self.documents).get(obj.file)
        return found[obj.doc] if found is not None and 0 <= obj.doc < len(found) else None

    def kind_digest(self, kind: str, projected: bool = False) -> str | None:
        if (kind, projected) not in self._digests:
            self._digests[(kind, projected)] = self._kind_digest(kind, projected)
        return self._digests[(kind, projected)]

    def _kind_digest(self, kind: str, projected: bool) -> str | None:
        return self._objects_digest(self.by_kind.get(kind, ()), projected)

    def _objects_digest(self, objects: Iterable[Any], projected: bool) -> str | None:
        digest = hashlib.blake2b(digest_size=16)
        for obj in objects:
            document = self.document_digest(obj, projected)
            if document is None:
                return None
            digest.update(repr((obj.file, obj.doc, obj.base, document, obj.source, self.scope.unit_of(obj.file),
                                object_namespace(obj))).encode("utf-8", "surrogateescape"))
        return digest.hexdigest()

    def scoped_digest(self, code: str, scope: Callable[[Any, dict[str, list[Any]]], list[Any]],
                      obj: K8sObject) -> str | None:
        """The digest of the objects rule ``code`` reads whole judging ``obj`` (``scope``: its
        ``RuleMeta.scoped_reads``), the same for every object of one namespace; None: unknown."""
        key = (code, obj.namespace)
        if key not in self._scoped:
            try:
                self._scoped[key] = self._objects_digest(scope(obj, self.by_kind), projected=False)
            except Exception:
                self._scoped[key] = None
        return self._scoped[key]

    def reads_digest(self, graph_key: str | None, kinds: Iterable[str]) -> str | None:
        """The digest of what a rule reading ``kinds`` (their projections) reads in a graph;
        None: unknown."""
        parts: list[Any] = [graph_key, self.layout]
        for kind in sorted(kinds):
            parts.append((kind, self.kind_digest(kind, projected=True)))
        if graph_key is None or any(part[1] is None for part in parts[2:]):
            return None
        return _digest_of(parts)


def graph_key(graph: ObjectGraph) -> str | None:
    """What a graph adds to its objects: its unit, the platform model, the declared objects,
    the kustomization folders; None when a part cannot be keyed."""
    from kqlint.domain.graph import from_manifest
    from kqlint.domain.platform import platform_of

    try:
        declared = [(obj.source, obj.file, obj.group, obj.kind, obj.name, obj.namespace,
                     getattr(obj.namespace, "file", None), pickle.dumps(obj.data, protocol=5))
                    for obj in graph.objects if not from_manifest(obj)]
        return _digest_of([graph.unit, _platform(platform_of(graph)), sorted(graph.kustomize_dirs), declared])
    except Exception:
        return None


def _platform(model: Any) -> list[Any]:
    """Every field of the platform model, sets sorted (their order varies between processes)."""
    import dataclasses

    return [(f.name, sorted(value) if isinstance(value := getattr(model, f.name), frozenset) else value)
            for f in dataclasses.fields(model)]


def _digest_of(parts: Any) -> str:
    return hashlib.blake2b(repr(parts).encode("utf-8", "surrogateescape"), digest_size=16).hexdigest()


def object_namespace(obj: K8sObject) -> str:
    """The namespace an object is applied in, as its stored findings are keyed: the same content
    may be applied elsewhere (a kustomization's ``namespace:`` changed, the file is the same)."""
    namespace = obj.namespace
    return repr((type(namespace).__name__, str(namespace) if namespace is not None else None,
                 getattr(namespace, "namespaces", None)))
