"""References as data: one table of every place an object names another one.

Each ``Ref`` row says which field of which source names which target kind, and how the target
is resolved. ``references(obj, graph)`` walks the rows and yields every ``Reference`` written in
``obj`` (the name, where it is written, the target or None). The same walk drives the
unknown-reference rules (KQ202-KQ206, KQ303: each picks its row and adds the cluster effect),
the "did you mean" hints and the edges of ``kqlint graph``.

    relation           source                 field                              target
    queue              Kueue-managed workload kueue.x-k8s.io/queue-name label    LocalQueue (namespaced)
    cluster-queue      LocalQueue             spec.clusterQueue                  ClusterQueue
    cohort             ClusterQueue           spec.cohortName (v1beta1: cohort)  Cohort (implicit when missing)
    parent-cohort      Cohort                 spec.parentName (v1beta1: parent)  Cohort (implicit when missing)
    flavor             ClusterQueue           resourceGroups[].flavors[].name    ResourceFlavor
    workload-priority  Kueue-managed workload kueue.x-k8s.io/priority-class      WorkloadPriorityClass
    priority           PodGroup               spec.priorityClassName             PriorityClass
    priority           pod template           priorityClassName (or the global default)  PriorityClass
    pod-group          pod template           one row per gang.POD_GROUP_REFERENCES row  PodGroup (namespaced)
    runtime            TrainJob               spec.runtimeRef                    (Cluster)TrainingRuntime

A new reference kind is one ``Ref`` row here (a new PodGroup scheduler: one
``POD_GROUP_REFERENCES`` row, which becomes a ``Ref`` below).
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, NamedTuple

from kqlint.domain.fields import text
from kqlint.domain.graph import object_fact
from kqlint.domain.kinds import KUEUE_GROUP, NVIDIA_GROUP, SCHEDULING_GROUP, TRAINER_GROUP, TRAINJOB
from kqlint.domain.kueue import (
    CLUSTER_QUEUE_FIELD,
    COHORT_FIELDS,
    PRIORITY_LABEL,
    QUEUE_LABEL,
    ManagedWorkload,
    flavor_quotas,
    global_default_class,
    local_queue,
    managed_workloads,
    resolve_priority_class,
    resolve_workload_priority_class,
    unqueued_priority_labels,
)
from kqlint.domain.wording import LOOKED_IN, Affixes, close_name, did_you_mean, template_role
from kqlint.domain.workloads import (
    POD_GROUP_REFERENCES,
    RUNTIME_KINDS,
    RUNTIME_REF_PATH,
    PodGroupRef,
    PodGroupReference,
    PodTemplate,
    operator_pod_group_names,
    own_templates,
    pod_group_refs,
    resolve_pod_group,
    training_runtime,
)

if TYPE_CHECKING:
    from kqlint.domain.graph import ObjectGraph
    from kqlint.domain.objects import K8sObject
    from kqlint.model import Location

UNRESOLVED, IMPLICIT, OPERATOR = "unresolved", "implicit", "operator"


@dataclass(frozen=True)
class Site:
    """One written reference, as a row's walker finds it."""

    name: str
    path: tuple[Any, ...]          # where ``owner`` writes the name
    owner: K8sObject               # the object whose file holds it (a TrainJob's runtime!)
    kind: str                      # the target's kind and API group
    group: str
    namespace: str | None          # where the target is looked up (None: cluster-scoped)
    target: K8sObject | None
    label: str                     # the edge label in `kqlint graph`
    status: str = UNRESOLVED       # the status of a missing target
    implied: bool = False          # supplied by a default (LocalQueueDefaulting, the global default class)
    unit: ManagedWorkload | None = None
    template: PodTemplate | None = None
    pod_group: PodGroupRef | None = None


Walker = Callable[["K8sObject", "ObjectGraph"], Iterator[Site]]


@dataclass(frozen=True)
class Ref:
    """One kind of reference: ``field`` of ``source`` names a ``target``."""

    relation: str                  # the edge relation in `kqlint graph`
    source: str
    target: str
    field: str                     # how messages name the field
    sites: Walker
    in_label: bool = False         # a label or annotation: written ``key: name``
    namespaced: bool = False       # resolved in the source's namespace
    affixes: Affixes = ((), ())    # (suffixes, prefixes) a name of the target may carry or drop


@dataclass(frozen=True)
class Reference:
    """A reference written in an object: the row, the site, and the target (None: unresolved)."""

    ref: Ref
    site: Site

    @property
    def name(self) -> str:
        return self.site.name

    @property
    def target(self) -> K8sObject | None:
        return self.site.target

    @property
    def at(self) -> Location:
        """Where the name is written (its value)."""
        return self.site.owner.at_value(*self.site.path)

    @property
    def key_at(self) -> Location:
        """Where the field holding the name is (its key)."""
        return self.site.owner.at(*self.site.path)

    @property
    def written(self) -> str:
        """The reference as messages quote it: ``spec.clusterQueue `x` `` or `` `key: x` ``."""
        if self.ref.in_label:
            return f"`{self.ref.field}: {self.name}`"
        return f"{self.ref.field} `{self.name}`"

    def may_exist(self, graph: ObjectGraph) -> bool:
        """Unresolved, but no proof of a missing object (``ObjectGraph.may_exist``)."""
        site = self.site
        return graph.may_exist(site.kind, site.name, site.namespace, site.group)

    def close_name(self, graph: ObjectGraph, extra: Iterable[str] = ()) -> str | None:
        """The one known name of the target kind (or of ``extra``) this name is a slip of, or
        None (kqlint.domain.wording.close_name)."""
        site = self.site
        namespace = (site.namespace or "") if self.ref.namespaced else None
        return close_name(site.name, site.kind, graph, site.group, namespace, extra, self.ref.affixes)


def references(obj: K8sObject, graph: ObjectGraph, rows: Iterable[Ref] | None = None) -> Iterator[Reference]:
    """Every reference ``obj`` writes, row by row (``rows``: only those), in document order."""
    for ref in REFERENCES if rows is None else rows:
        for site in ref.sites(obj, graph):
            yield Reference(ref, site)


class Unresolved(NamedTuple):
    """An unknown reference as a finding words it, and the name it is a slip of (if one)."""

    message: str
    remedy: str
    rename: str | None  # the one close name: the unsafe fix writes it in place of the reference


def unresolved(reference: Reference, graph: ObjectGraph, subject: str, effect: str, fix: str, *,
               hint: str | None = None, extra: Iterable[str] = (), note: str = "",
               looked_in: str = LOOKED_IN) -> Unresolved:
    """The one wording of an unknown reference, message and remedy: ``<subject>: <written> names
    no known <Kind>[ in namespace <ns>][ (did you mean ...)]: <effect>`` and ``<Fix> (looked in
    <looked in>)``. ``hint`` replaces the "did you mean" (no rename then); ``extra``: more names
    that exist (the platform model's)."""
    site = reference.site
    where = f" in namespace {site.namespace or ''}" if reference.ref.namespaced else ""
    rename = reference.close_name(graph, extra) if hint is None else None
    hint = did_you_mean(rename) if hint is None else hint
    message = f"{subject}: {reference.written} names no known {site.kind}{where}{hint}{note}: {effect}"
    return Unresolved(message, f"{fix[:1].upper()}{fix[1:]} (looked in {looked_in})", rename)


# ------------------------------------------------------------------ walkers

def _unit_role(unit: ManagedWorkload) -> str:
    """``Worker: `` for a DynamoGraphDeployment component's own Workload, else empty."""
    obj = unit.obj
    return f"{unit.templates[0].role}: " if obj.group == NVIDIA_GROUP and len(unit.templates) == 1 else ""


def _label_path(unit: ManagedWorkload, key: str) -> tuple[Any, ...]:
    return (*unit.labels_path, key) if unit.labels_path is not None else ("metadata", "labels", key)


def _queue_sites(obj: K8sObject, graph: ObjectGraph) -> Iterator[Site]:
    for unit in managed_workloads(obj, graph):
        label = _unit_role(unit) + ("default LocalQueue" if unit.queue_defaulted else "queue-name")
        yield Site(unit.queue, _label_path(unit, QUEUE_LABEL), obj, "LocalQueue", KUEUE_GROUP, obj.namespace,
                   local_queue(unit, graph), label, implied=unit.queue_defaulted, unit=unit)


def _workload_priority_sites(obj: K8sObject, graph: ObjectGraph) -> Iterator[Site]:
    for unit in managed_workloads(obj, graph):
        name = unit.priority_label()
        if name is not None:
            yield Site(name, _label_path(unit, PRIORITY_LABEL), obj, "WorkloadPriorityClass", KUEUE_GROUP, None,
                       resolve_workload_priority_class(name, graph), _unit_role(unit) + "priority-class", unit=unit)


def _unqueued_priority_sites(obj: K8sObject, graph: ObjectGraph) -> Iterator[Site]:
    """The ``priority-class`` label of a workload Kueue ignores for want of a queue name (KQ207):
    still a reference, which the queue name the user adds next will make Kueue read."""
    for path, _ in unqueued_priority_labels(obj, graph):
        name = text(obj.get(*path, PRIORITY_LABEL))
        if name is not None:
            yield Site(name, (*path, PRIORITY_LABEL), obj, "WorkloadPriorityClass", KUEUE_GROUP, None,
                       resolve_workload_priority_class(name, graph), "priority-class")


def _kueue_field(kind: str, target: str, keys: tuple[str, ...], status: str,
                 obj: K8sObject, graph: ObjectGraph) -> Iterator[Site]:
    """A Kueue object's ``spec.<key>`` naming a cluster-scoped Kueue object."""
    if obj.kind != kind or obj.group != KUEUE_GROUP:
        return
    for key in keys:
        name = text(obj.get("spec", key))
        if name is not None:
            yield Site(name, ("spec", key), obj, target, KUEUE_GROUP, None,
                       graph.resolve(target, name, group=KUEUE_GROUP), f"spec.{key}", status)


def _flavor_sites(obj: K8sObject, graph: ObjectGraph) -> Iterator[Site]:
    if obj.kind != "ClusterQueue" or obj.group != KUEUE_GROUP:
        return
    for entry in flavor_quotas(obj):
        name = text(entry.name)
        if name is not None:
            yield Site(name, (*entry.path, "name"), obj, "ResourceFlavor", KUEUE_GROUP, None,
                       graph.resolve("ResourceFlavor", name, group=KUEUE_GROUP), "flavor")


def _pod_group_priority_sites(obj: K8sObject, graph: ObjectGraph) -> Iterator[Site]:
    name = text(obj.get("spec", "priorityClassName")) if obj.kind == "PodGroup" else None
    if name is not None:
        yield Site(name, ("spec", "priorityClassName"), obj, "PriorityClass", SCHEDULING_GROUP, None,
                   resolve_priority_class(name, graph), "spec.priorityClassName")


def _template_priority_sites(obj: K8sObject, graph: ObjectGraph) -> Iterator[Site]:
    """Each template's priorityClassName; without one, the global default class it gets."""
    for template in own_templates(obj, graph):
        role, path = template_role(template), (*template.spec_path, "priorityClassName")
        name = template.priority_class_name
        if name is not None:
            yield Site(name, path, obj, "PriorityClass", SCHEDULING_GROUP, None,
                       resolve_priority_class(name, graph), role, template=template)
            continue
        default = global_default_class(graph)
        if default is not None:
            yield Site(default.name, path, obj, "PriorityClass", SCHEDULING_GROUP, None, default,
                       f"{role} (global default)", implied=True, template=template)


def _pod_group_sites(row: PodGroupReference, obj: K8sObject, graph: ObjectGraph) -> Iterator[Site]:
    """A pod template's label or annotation naming a PodGroup of one gang scheduler."""
    return (site for site in _pod_group_references(obj, graph)
            if site.pod_group is not None and site.pod_group.key == row.key)


@object_fact
def _pod_group_references(obj: K8sObject, graph: ObjectGraph) -> list[Site]:
    """Every PodGroup the templates written in ``obj`` name, read once for all the rows."""
    templates = own_templates(obj, graph)
    operator_names = operator_pod_group_names(obj) if templates else frozenset()
    found = []
    for template in templates:
        for ref in pod_group_refs(template):
            if template.meta_path is None:
                continue
            status = OPERATOR if ref.name in operator_names else UNRESOLVED
            found.append(Site(ref.name, (*template.meta_path, ref.where, ref.key), obj, "PodGroup", ref.group,
                              obj.namespace, resolve_pod_group(ref, obj.namespace, graph),
                              f"{template_role(template)}: {ref.key}", status, template=template, pod_group=ref))
    return found


def _runtime_sites(obj: K8sObject, graph: ObjectGraph) -> Iterator[Site]:
    ref = obj.get(*RUNTIME_REF_PATH) if TRAINJOB.of(obj) else None
    name = text(ref.get("name")) if isinstance(ref, dict) else None
    if not isinstance(ref, dict) or name is None:
        return
    kind = text(ref.get("kind")) or "ClusterTrainingRuntime"
    group = text(ref.get("apiGroup")) or TRAINER_GROUP
    namespace = obj.namespace if kind == "TrainingRuntime" else None
    target = training_runtime(obj, graph) if kind in RUNTIME_KINDS else None
    yield Site(name, (*RUNTIME_REF_PATH, "name"), obj, kind, group, namespace, target, RUNTIME_REF_PATH[-1])


# ------------------------------------------------------------------ the table

# A ClusterQueue is often named after its team with a marker (`ml` / `ml-cq`): one that differs
# from the written name by such a marker alone is "did you mean" (KQ204).
CLUSTER_QUEUE_AFFIXES: Affixes = (("-cq", "-clusterqueue", "-cluster-queue", "-queue"),
                                  ("cq-", "clusterqueue-", "cluster-queue-", "queue-"))
CLUSTER_QUEUE_REF = Ref("cluster-queue", "LocalQueue", "ClusterQueue", f"spec.{CLUSTER_QUEUE_FIELD}",
                        partial(_kueue_field, "LocalQueue", "ClusterQueue", (CLUSTER_QUEUE_FIELD,), UNRESOLVED),
                        affixes=CLUSTER_QUEUE_AFFIXES)
COHORT_REF = Ref("cohort", "ClusterQueue", "Cohort", f"spec.{COHORT_FIELDS[0]}",
                 partial(_kueue_field, "ClusterQueue", "Cohort", COHORT_FIELDS, IMPLICIT))
PARENT_COHORT_REF = Ref("parent-cohort", "Cohort", "Cohort", "spec.parentName",
                        partial(_kueue_field, "Cohort", "Cohort", ("parentName", "parent"), IMPLICIT))
FLAVOR_REF = Ref("flavor", "ClusterQueue", "ResourceFlavor", "flavor", _flavor_sites)
POD_GROUP_PRIORITY_REF = Ref("priority", "PodGroup", "PriorityClass", "priorityClassName",
                             _pod_group_priority_sites)
RUNTIME_REF = Ref("runtime", "TrainJob", "(Cluster)TrainingRuntime", ".".join(RUNTIME_REF_PATH), _runtime_sites)
QUEUE_REF = Ref("queue", "Kueue-managed workload", "LocalQueue", QUEUE_LABEL, _queue_sites,
                in_label=True, namespaced=True)
WORKLOAD_PRIORITY_REF = Ref("workload-priority", "Kueue-managed workload", "WorkloadPriorityClass",
                            PRIORITY_LABEL, _workload_priority_sites, in_label=True)
# Not a `kqlint graph` edge: Kueue does not read the label until the workload has a queue name.
UNQUEUED_PRIORITY_REF = Ref("workload-priority", "workload without a queue name", "WorkloadPriorityClass",
                            PRIORITY_LABEL, _unqueued_priority_sites, in_label=True)
TEMPLATE_PRIORITY_REF = Ref("priority", "pod template", "PriorityClass", "priorityClassName",
                            _template_priority_sites)
# One row per gang scheduler's pod -> PodGroup key (gang.POD_GROUP_REFERENCES).
POD_GROUP_REFS = tuple(Ref("pod-group", "pod template", "PodGroup", row.key, partial(_pod_group_sites, row),
                           in_label=True, namespaced=True) for row in POD_GROUP_REFERENCES)

# Walk order = edge order of `kqlint graph`.
REFERENCES: tuple[Ref, ...] = (CLUSTER_QUEUE_REF, COHORT_REF, PARENT_COHORT_REF, FLAVOR_REF, POD_GROUP_PRIORITY_REF,
                               RUNTIME_REF, QUEUE_REF, WORKLOAD_PRIORITY_REF, TEMPLATE_PRIORITY_REF, *POD_GROUP_REFS)
