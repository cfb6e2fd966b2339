"""ObjectGraph: every object of the run, indexed, and reference resolution.

Resolution order (rules.md "Resolution"): objects in the inputs, then ``--context``,
then config ``external``, then the active profile's declared objects. Only input
objects are reported on; the other tiers exist to resolve references.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache, wraps
from typing import Any, TypeVar

from kqlint.domain.kinds import DECLARED_API_VERSIONS
from kqlint.domain.objects import CONTEXT, EXTERNAL, INPUT, PROFILE, ApplyTimeNamespace, K8sObject, RenderedNamespaces
from kqlint.loader import Map

_T = TypeVar("_T")
TIER_ORDER = {INPUT: 0, CONTEXT: 1, EXTERNAL: 2, PROFILE: 3}
MANIFEST_TIERS = (INPUT, CONTEXT)  # objects read from manifests: judged alike, reported only as inputs


def from_manifest(obj: K8sObject) -> bool:
    """The object comes from a manifest (an input or the context), so kqlint knows all of it,
    unlike a bare name declared in config ``external`` or by a profile."""
    return obj.source in MANIFEST_TIERS


def graph_fact(derive: Callable[[ObjectGraph], _T]) -> Callable[[ObjectGraph], _T]:
    """A fact derived from the whole graph (an index), computed once per graph: memoised under
    the decorated function itself, so no two facts can share a key."""
    @wraps(derive)
    def fact(graph: ObjectGraph) -> _T:
        return graph.memo(fact, lambda: derive(graph))
    return fact


def object_fact(derive: Callable[[K8sObject, ObjectGraph], _T]) -> Callable[[K8sObject, ObjectGraph], _T]:
    """A fact about one object of a graph, computed once per object and graph (keyed by the
    decorated function; the object is kept beside its result, so a reused ``id`` never hits)."""
    @wraps(derive)
    def fact(obj: K8sObject, graph: ObjectGraph) -> _T:
        table: dict[int, tuple[K8sObject, _T]] | None = graph.cache.get(fact)  # hot: no memo() call
        if table is None:
            table = graph.cache[fact] = {}
        hit = table.get(id(obj))
        if hit is None or hit[0] is not obj:
            hit = table[id(obj)] = (obj, derive(obj, graph))
        return hit[1]
    return fact


# Built-in PriorityClasses every cluster has (kueue.md A1).
BUILTIN_PRIORITY_CLASSES = {
    "system-node-critical": {"value": 2000001000, "globalDefault": False},
    "system-cluster-critical": {"value": 2000000000, "globalDefault": False},
}


def _no_unit(file: str) -> str | None:
    return None


@dataclass(frozen=True)
class Placement:
    """Where a graph's objects sit among the units of the repository (kqlint.project.scope)."""

    unit: str | None = None  # the unit this graph holds (None: the shared files alone)
    # objects of other units: never resolved to, but a name defined there is not reported
    # unknown either; (kind, name) -> [(unit, obj)]
    elsewhere: dict[tuple[str, str], list[tuple[str | None, K8sObject]]] = field(default_factory=dict)
    kustomize_dirs: frozenset[str] = frozenset()  # folders holding a kustomization
    applied_together: Callable[[str], str | None] = _no_unit  # the config-declared unit of a file
    unit_of: Callable[[str], str | None] = _no_unit  # the unit a file is in
    # a test harness's unit: its objects may name objects only the system under test creates
    open_world: bool = False


class ObjectGraph:
    def __init__(self, objects: Iterable[K8sObject] = (), placement: Placement = Placement(),
                 platform: Any = None) -> None:
        """``platform``: what builds the platform model (kqlint.domain.platform) once every
        object is added, called with the graph; None: evidence in the graph alone."""
        self.objects: list[K8sObject] = []
        self._by_kind: dict[str, list[K8sObject]] = defaultdict(list)
        self._by_name: dict[tuple[str, str], list[K8sObject]] = defaultdict(list)
        self.kustomize_dirs: frozenset[str] = placement.kustomize_dirs
        self.cache: dict[Any, Any] = {}  # per-run memo for derived facts (pod templates, ...)
        self._resolved: dict[tuple[str, str, str | None, str | None], K8sObject | None] = {}  # resolve()
        self.unit = placement.unit
        self.applied_together = placement.applied_together
        self.unit_of = placement.unit_of
        self.elsewhere = placement.elsewhere
        self.open_world = placement.open_world
        self.build_platform: Callable[[ObjectGraph], Any] | None = platform
        self.add(objects)
        self.add(_builtin_priority_classes())

    def add(self, objects: Iterable[K8sObject]) -> None:
        self.cache.clear()  # derived facts may depend on the objects just added
        self._resolved.clear()
        for obj in objects:
            self.objects.append(obj)
            self._by_kind[obj.kind].append(obj)
            self._by_name[(obj.kind, obj.name)].append(obj)

    # ------------------------------------------------------------ queries
    @property
    def inputs(self) -> list[K8sObject]:
        return [obj for obj in self.objects if obj.source == INPUT]

    def of_kind(self, kind: str, group: str | None = None, tiers: tuple[str, ...] | None = None
                ) -> list[K8sObject]:
        """Objects of a kind (every tier unless ``tiers`` is given), inputs first."""
        found = [obj for obj in self._by_kind.get(kind, ())
                 if (group is None or obj.group == group) and (tiers is None or obj.source in tiers)]
        return sorted(found, key=lambda o: TIER_ORDER[o.source])

    def resolve(self, kind: str, name: Any, namespace: str | None = None,
                group: str | None = None) -> K8sObject | None:
        """The object a reference names, from the first tier that has it; None when unresolved.

        ``namespace`` is required for namespaced kinds and ignored for cluster-scoped ones."""
        if not isinstance(name, str) or not name:
            return None
        if isinstance(namespace, ApplyTimeNamespace) and self.ambiguous(kind, name, namespace, group):
            return None  # the answer depends on where it is applied
        key = (kind, name, namespace, group)  # asked for every workload by several rules: once each
        if key not in self._resolved:  # (an ApplyTimeNamespace is equal to, and hashed as, its name)
            self._resolved[key] = self._resolve(kind, name, namespace, group)
        return self._resolved[key]

    def _resolve(self, kind: str, name: str, namespace: str | None, group: str | None) -> K8sObject | None:
        best: K8sObject | None = None
        for obj in self._candidates(kind, name, namespace):
            if group is not None and obj.group != group:
                continue
            if best is None or TIER_ORDER[obj.source] < TIER_ORDER[best.source]:
                best = obj
        return best

    def _candidates(self, kind: str, name: str, namespace: str | None) -> list[K8sObject]:
        """Objects named ``name`` that a lookup from ``namespace`` may see, in graph order:
        those in that namespace and the cluster-scoped ones (every one when ``namespace`` is
        None). A name common to many namespaces (a LocalQueue in each) is indexed once."""
        named = self._by_name.get((kind, name), [])
        if namespace is None or len(named) < 8:
            return [obj for obj in named if obj.namespace is None or namespace is None or obj.namespace == namespace]
        by_namespace = self.memo((ObjectGraph._candidates, kind, name), lambda: _by_namespace(named))
        return by_namespace.get(namespace, by_namespace[None])

    def ambiguous(self, kind: str, name: str, namespace: str | None, group: str | None) -> bool:
        """A lookup from an object without ``metadata.namespace`` whose answer depends on where
        it is applied: the name is defined in several namespaces, or only by manifests without
        a namespace in other folders and units (applied who knows where)."""
        if not isinstance(namespace, ApplyTimeNamespace):
            return False
        if isinstance(namespace, RenderedNamespaces):
            return True  # rendered into several namespaces: which one a lookup is from is not one answer
        key = (ObjectGraph.ambiguous, kind, name, str(namespace), self.apply_place(namespace.file), group)
        return self.memo(key, lambda: self._ambiguous(kind, name, namespace, group))

    def apply_place(self, file: str) -> tuple[str, str | None]:
        """What decides where a file without a namespace is applied (one_apply_place): its
        folder and its unit. Lookups from two files alike resolve alike."""
        return file.rpartition("/")[0], self.unit_of(file)

    def _ambiguous(self, kind: str, name: str, namespace: ApplyTimeNamespace, group: str | None) -> bool:
        candidates = [obj for obj in self._by_name.get((kind, name), ())
                      if obj.namespace is not None and (group is None or obj.group == group)]
        if len({obj.namespace for obj in candidates}) > 1:
            return True
        floating = [obj for obj in candidates if isinstance(obj.namespace, ApplyTimeNamespace)]
        if not floating or len(floating) < len(candidates) or not all(from_manifest(obj) for obj in floating):
            return False  # a fixed namespace, or a declared object (config, profile), resolves
        return not any(self.one_apply_place(namespace.file, obj.file) for obj in floating)

    def one_apply_place(self, file: str, other: str) -> bool:
        """Two files without namespaces land in one namespace: one folder (applied with one
        ``kubectl apply -f DIR -n NS``), or one unit. Which objects are applied to one cluster
        is decided by units (kqlint.project.scope.partitions: a graph holds one unit and the shared
        files); which namespace is chosen at apply time is this narrower question."""
        folder, unit = self.apply_place(file)
        if folder == other.rpartition("/")[0]:
            return True
        return unit is not None and unit == self.unit_of(other)

    def may_exist(self, kind: str, name: Any, namespace: str | None = None, group: str | None = None) -> bool:
        """An unresolved name that is still no proof of a missing object: ambiguous by
        namespace, defined in another unit (applied on its own), or named from a test harness's
        unit (the system under test may create it). Rules that report unknown references stay
        silent then."""
        if not isinstance(name, str) or not name:
            return False
        if self.open_world:
            return True
        if self.ambiguous(kind, name, namespace, group) or self.placeholder_match(kind, name, namespace, group):
            return True
        floating = isinstance(namespace, ApplyTimeNamespace)
        for unit, obj in self.elsewhere.get((kind, name), ()):
            if unit == self.unit or (group is not None and obj.group != group):
                continue
            if obj.namespace is None or namespace is None or floating or obj.namespace == namespace \
                    or isinstance(obj.namespace, ApplyTimeNamespace):
                return True
        return False

    def placeholder_match(self, kind: str, name: str, namespace: str | None, group: str | None) -> bool:
        """An envsubst placeholder in the written name or in an object's name (``user-queue-
        ${TOPOLOGY}``), or a placeholder namespace on either side (``${NAMESPACE}``,
        ``<user_namespace>``), may make them the same object once rendered: not proof of a
        missing object, and not a resolution either (which object it is would be a guess)."""
        from kqlint.loader.placeholders import holds_placeholder, may_render_alike

        candidates = self._by_kind.get(kind, ())
        names_open = holds_placeholder(name) or self.memo((ObjectGraph.placeholder_match, kind), lambda: any(
            holds_placeholder(obj.name) for obj in candidates))
        spaces_open = _template_namespace(namespace) or self.memo(
            (ObjectGraph.placeholder_match, kind, "namespace"),
            lambda: any(_template_namespace(obj.namespace) for obj in candidates))
        if not names_open and not spaces_open:
            return False
        return any((name == obj.name or (names_open and may_render_alike(name, obj.name)))
                   and _may_be_one_namespace(namespace, obj.namespace)
                   for obj in candidates if group is None or obj.group == group)

    def memo(self, key: Any, build: Callable[[], _T]) -> _T:
        """Compute a derived fact (an index, a per-object result) once per graph; forgotten
        when objects are added, since it may depend on them. ``key`` is the function that
        derives the fact (see ``graph_fact``/``object_fact``), with its arguments if any."""
        if key not in self.cache:
            self.cache[key] = build()
        return self.cache[key]  # type: ignore[no-any-return]

    def under_kustomize(self, file: str) -> bool:
        """True when ``file`` sits in a folder tree with a kustomization (base or overlay)."""
        folder = file.rpartition("/")[0]
        while True:
            if folder in self.kustomize_dirs:
                return True
            if not folder:
                return False
            folder = folder.rpartition("/")[0]

    def __iter__(self) -> Iterator[K8sObject]:
        return iter(self.objects)

    def __len__(self) -> int:
        return len(self.objects)


def _by_namespace(named: list[K8sObject]) -> dict[str | None, list[K8sObject]]:
    """namespace -> the objects a lookup from it may see (ObjectGraph._candidates), in graph
    order; None -> the cluster-scoped ones alone, for a namespace no object is in."""
    cluster_scoped = [obj for obj in named if obj.namespace is None]
    index: dict[str | None, list[K8sObject]] = {None: cluster_scoped}
    for obj in named:
        if obj.namespace is not None:
            index.setdefault(str(obj.namespace), []).append(obj)
    if cluster_scoped:
        order = {id(obj): position for position, obj in enumerate(named)}
        for namespace, objects in index.items():
            if namespace is not None:
                index[namespace] = sorted(objects + cluster_scoped, key=lambda obj: order[id(obj)])
    return index


def declared_object(kind: str, entry: dict[str, Any], tier: str, file: str,
                    default_namespace: str, api_version: str | None = None) -> K8sObject:
    """An object declared in config ``external`` or by a profile (no manifest of its own).

    ``name``/``namespace``/``labels`` go to metadata; ``spec`` stays ``spec``; other keys are
    top-level fields (PriorityClass ``value``/``preemptionPolicy``/``globalDefault``,
    WorkloadPriorityClass ``value``)."""
    data = Map()
    data["apiVersion"] = entry.get("apiVersion") or api_version or DECLARED_API_VERSIONS.get(kind, "v1")
    data["kind"] = kind
    metadata = Map()
    metadata["name"] = entry.get("name", "")
    if entry.get("namespace"):
        metadata["namespace"] = entry["namespace"]
    if entry.get("labels"):
        metadata["labels"] = dict(entry["labels"])
    metadata.pos = ()
    data["metadata"] = metadata
    for key, value in entry.items():
        if key not in ("name", "namespace", "labels", "apiVersion"):
            data[key] = value
    data.pos = ()
    return K8sObject(file, 0, None, (), data, default_namespace, tier)


@cache
def _builtin_priority_classes() -> tuple[K8sObject, ...]:
    """Made once: every graph holds the same read-only objects (a run makes a graph per unit)."""
    return tuple(declared_object("PriorityClass", {"name": name, **fields}, PROFILE, "<built-in>", "default")
                 for name, fields in BUILTIN_PRIORITY_CLASSES.items())


def _template_namespace(namespace: str | None) -> bool:
    """A namespace written as a placeholder: envsubst (``${NAMESPACE}``) or a document's
    ``<your-namespace>``, which the API server refuses until it is replaced."""
    from kqlint.loader.placeholders import holds_placeholder

    if namespace is None or isinstance(namespace, ApplyTimeNamespace):
        return False
    text = str(namespace)
    return holds_placeholder(text) or (text.startswith("<") and text.endswith(">") and len(text) > 2)


def _may_be_one_namespace(lookup: str | None, other: str | None) -> bool:
    if lookup is None or other is None or lookup == other:
        return True
    return _template_namespace(lookup) or _template_namespace(other)


__all__ = ["ObjectGraph", "declared_object", "INPUT", "CONTEXT", "EXTERNAL", "PROFILE"]
