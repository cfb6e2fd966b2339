"""What a graph-reading built-in rule reads, and digests of it (kqlint.cache_results).

A rule in READS reads, besides its own object, only objects of the kinds it declares (and,
through the graph, the platform model, the partition and the folder/unit layout). Its stored
findings are reused when the digest of what it reads is unchanged:

- kind digest: over every manifest object of that kind name (any API group: a superset of the
  declared GroupKinds) in the run, inputs and context of every unit, in load order, each as
  (display path, document index, path inside the document, its document's digest, tier, unit).
  An object added, removed, moved, or changed in data or in node positions changes it; an
  object without a document digest (stdin, a file outside the project, not cached) makes it
  unknown, and the rule is run;
- graph key: the partition (its unit), the platform model (every field), the declared objects
  (config ``external``, the profile's, the built-in classes: their data), the folders holding
  a kustomization, the patch fragments. Every reused rule's digest includes it, whether or not
  the rule asks the platform or the layout: cheap, and nothing is missed.

Everything else (the configuration, the selected rules, kqlint's code, ``--crd`` files) is in
the results key (kqlint.cache_results.results_key).
"""
from __future__ import annotations

import hashlib
import pickle
from collections.abc import Iterable
from typing import Any

from kqlint import kinds as K

_WORKLOAD_BASE = frozenset({K.LOCAL_QUEUE, K.TRAINING_RUNTIME, K.CLUSTER_TRAINING_RUNTIME})
_WORKLOAD_WHY = ("managed_workloads: its own queue-name label or a LocalQueue `default` in its namespace; "
                 "a TrainJob's templates from its (Cluster)TrainingRuntime")

# code -> (the kinds it reads besides its own object, why): checked by tests/test_cache_reads.py
READS: dict[str, tuple[frozenset[K.GroupKind], str]] = {
    "KQ209": (_WORKLOAD_BASE | {K.CLUSTER_QUEUE},
              f"{_WORKLOAD_WHY}; cluster_queue_candidates: LocalQueue -> ClusterQueue; pod sets from the "
              "object's own templates; the ClusterQueue's resource groups"),
    "KQ210": (_WORKLOAD_BASE | {K.CLUSTER_QUEUE, K.COHORT},
              f"{_WORKLOAD_WHY}; LocalQueue -> ClusterQueue, the other ClusterQueues of its cohort and the "
              "Cohort objects (cohort_peers, cohort_tree_open)"),
}


def read_kinds(code: str) -> frozenset[str]:
    """The kind names whose objects ``code`` reads (digests are kept per kind name)."""
    return frozenset(kind for _, kind in READS[code][0])


class RunObjects:
    """The manifest objects of one run, grouped by kind name, and the digests of those groups."""

    def __init__(self, objects: Iterable[Any], documents: dict[str, tuple[str, ...]], scope: Any) -> None:
        self.documents = documents
        self.by_kind: dict[str, list[Any]] = {}
        for obj in objects:
            self.by_kind.setdefault(obj.kind, []).append(obj)
        self.scope = scope
        self._digests: dict[str, str | None] = {}
        self.layout = _digest_of([sorted(scope.kustomize_dirs()), sorted(scope.fragments)])

    def document_digest(self, obj: Any) -> str | None:
        found = self.documents.get(obj.file)
        return found[obj.doc] if found is not None and 0 <= obj.doc < len(found) else None

    def kind_digest(self, kind: str) -> str | None:
        if kind not in self._digests:
            self._digests[kind] = self._kind_digest(kind)
        return self._digests[kind]

    def _kind_digest(self, kind: str) -> str | None:
        digest = hashlib.blake2b(digest_size=16)
        for obj in self.by_kind.get(kind, ()):
            document = self.document_digest(obj)
            if document is None:
                return None
            digest.update(repr((obj.file, obj.doc, obj.base, document, obj.source,
                                self.scope.unit_of(obj.file))).encode("utf-8", "surrogateescape"))
        return digest.hexdigest()

    def reads_digest(self, graph_key: str | None, kinds: Iterable[str]) -> str | None:
        """The digest of what a rule reading ``kinds`` reads in a graph; None: unknown."""
        parts: list[Any] = [graph_key, self.layout]
        for kind in sorted(kinds):
            parts.append((kind, self.kind_digest(kind)))
        if graph_key is None or any(part[1] is None for part in parts[2:]):
            return None
        return _digest_of(parts)


def graph_key(graph: Any) -> str | None:
    """What a graph adds to its objects: its unit, the platform model, the declared objects,
    the kustomization folders; None when a part cannot be keyed."""
    from kqlint.graph import from_manifest
    from kqlint.platform import platform_of

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
