"""Gang scheduling: the marker keys of Volcano, KAI and coscheduling, the PodGroups a pod
template names, min-member sites, and the evidence that a workload is meant for one gang
scheduler."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from kqlint.domain import kinds as K
from kqlint.domain.fields import text, text_or
from kqlint.domain.graph import graph_fact
from kqlint.domain.kinds import (
    APPWRAPPER,
    COSCHEDULING_PODGROUP,
    KAI_PODGROUP,
    KUBEFLOW_GROUP,
    VOLCANO_JOB,
    VOLCANO_PODGROUP,
)
from kqlint.domain.objects import mapping_at
from kqlint.domain.workloads.extract import pod_templates
from kqlint.domain.workloads.shapes import kubeflow_replica_specs
from kqlint.domain.workloads.templates import (
    DEFAULT_SCHEDULER,
    KUBEFLOW_REPLICA_KEYS,
    PodTemplate,
    ReplicaSpec,
    job_pods,
    mappings_at,
    name_of,
)

if TYPE_CHECKING:
    from kqlint.domain.graph import ObjectGraph
    from kqlint.domain.objects import K8sObject
    from kqlint.model import Location

# ---------------------------------------------------------------- gang marker keys
VOLCANO_GROUP_ANNOTATION = "scheduling.k8s.io/group-name"          # read by the Volcano scheduler
VOLCANO_LEGACY_GROUP_ANNOTATION = "scheduling.volcano.sh/group-name"  # defined, never read for gangs
VOLCANO_MIN_MEMBER_ANNOTATION = "scheduling.volcano.sh/group-min-member"  # on the pod's owner
VOLCANO_QUEUE_ANNOTATION = "scheduling.volcano.sh/queue-name"
KAI_POD_GROUP_ANNOTATION = "pod-group-name"
KAI_BATCH_MIN_MEMBER_ANNOTATION = "kai.scheduler/batch-min-member"
KAI_SKIP_PODGROUPER_ANNOTATION = "kai.scheduler/skip-podgrouper"
KAI_QUEUE_LABEL = "kai.scheduler/queue"
KUBERAY_VOLCANO_QUEUE_LABEL = "volcano.sh/queue-name"           # KubeRay's Volcano queue label
KAI_SUBGROUP_LABEL = "kai.scheduler/subgroup-name"
COSCHEDULING_POD_GROUP_LABEL = "scheduling.x-k8s.io/pod-group"   # scheduler-plugins coscheduling
# Defaults of the shared options `volcano-scheduler-names` / `kai-scheduler-names` (rules.md).
VOLCANO_SCHEDULER_NAMES: tuple[str, ...] = ("volcano", "volcano-scheduler")
KAI_SCHEDULER_NAMES: tuple[str, ...] = ("kai-scheduler",)
COSCHEDULING_SCHEDULER_NAMES: tuple[str, ...] = ("scheduler-plugins-scheduler",)  # KQ302 option default

KUBEFLOW_RUN_POLICY_PATH = ("spec", "runPolicy")
KUBEFLOW_MIN_AVAILABLE_PATH = (*KUBEFLOW_RUN_POLICY_PATH, "schedulingPolicy", "minAvailable")
POD_GROUP_MIN_MEMBER_PATH = ("spec", "minMember")  # Volcano, KAI and coscheduling PodGroups
VOLCANO_JOB_MIN_AVAILABLE_PATH = ("spec", "minAvailable")


def is_kubeflow_job(obj: K8sObject) -> bool:
    return obj.group == KUBEFLOW_GROUP and obj.kind in KUBEFLOW_REPLICA_KEYS


def replica_specs(obj: K8sObject) -> list[ReplicaSpec]:
    """Kubeflow replica specs by role, with the raw ``replicas`` value; [] for other kinds."""
    if not is_kubeflow_job(obj):
        return []
    return kubeflow_replica_specs(obj.kind, obj.data, ())


def gang_family(scheduler_name: str, volcano_names: tuple[str, ...] = VOLCANO_SCHEDULER_NAMES,
                kai_names: tuple[str, ...] = KAI_SCHEDULER_NAMES) -> str | None:
    """"volcano", "kai" or None for a ``schedulerName``."""
    if scheduler_name in volcano_names:
        return "volcano"
    if scheduler_name in kai_names:
        return "kai"
    return None


@dataclass(frozen=True)
class PodGroupReference:
    """One row of the pod -> PodGroup reference table: a pod label or annotation naming a
    PodGroup of one gang scheduler, resolved by name in the pod's namespace."""

    family: str                   # "volcano", "kai", "coscheduling"
    where: str                    # "annotations" or "labels" of the pod
    key: str
    group: str                    # API group of the PodGroup kind it names


POD_GROUP_REFERENCES = (
    PodGroupReference("volcano", "annotations", VOLCANO_GROUP_ANNOTATION, VOLCANO_PODGROUP[0]),
    PodGroupReference("kai", "annotations", KAI_POD_GROUP_ANNOTATION, KAI_PODGROUP[0]),
    PodGroupReference("coscheduling", "labels", COSCHEDULING_POD_GROUP_LABEL, COSCHEDULING_PODGROUP[0]),
)
SCHEDULER_TITLES = {"volcano": "Volcano", "kai": "KAI", "coscheduling": "coscheduling"}


@dataclass(frozen=True)
class PodGroupRef:
    """A template label or annotation that puts its pods into a named PodGroup."""

    family: str                   # "volcano", "kai" or "coscheduling"
    key: str                      # the annotation or label key
    name: str                     # the PodGroup name
    group: str                    # API group of the PodGroup kind it names
    where: str = "annotations"    # "annotations" or "labels"


def pod_group_refs(template: PodTemplate) -> list[PodGroupRef]:
    """The PodGroups a template names (POD_GROUP_REFERENCES: Volcano ``scheduling.k8s.io/group-name``
    and KAI ``pod-group-name`` annotations, coscheduling ``scheduling.x-k8s.io/pod-group`` label)."""
    found = []
    for row in POD_GROUP_REFERENCES:
        section = template.labels if row.where == "labels" else template.annotations
        value = text(section.get(row.key))
        if value is not None:
            found.append(PodGroupRef(row.family, row.key, value, row.group, row.where))
    return found


def is_pod_group(obj: K8sObject) -> bool:
    return (obj.group, obj.kind) in K.POD_GROUPS


def resolve_pod_group(ref: PodGroupRef, namespace: str | None, graph: ObjectGraph) -> K8sObject | None:
    """The PodGroup a pod label/annotation names (``POD_GROUP_REFERENCES``): same API group, same
    namespace, from the first tier that has it; a PodGroup wrapped in an AppWrapper counts."""
    found = graph.resolve("PodGroup", ref.name, namespace, ref.group)
    return found if found is not None else wrapped_pod_groups(graph).get((ref.group, namespace, ref.name))


@graph_fact
def wrapped_pod_groups(graph: ObjectGraph) -> dict[tuple[str, str | None, str], K8sObject]:
    """PodGroups inside AppWrappers (``spec.components[].template``), keyed by (API group,
    namespace, name); built once per graph."""
    index: dict[tuple[str, str | None, str], K8sObject] = {}
    for wrapper in graph.of_kind(APPWRAPPER[1], APPWRAPPER[0]):
        for inner in wrapped_objects(wrapper):
            if is_pod_group(inner):
                index.setdefault((inner.group, inner.namespace, inner.name), inner)
    return index


def wrapped_objects(obj: K8sObject) -> list[K8sObject]:
    """The objects an AppWrapper wraps (``spec.components[].template``), as objects of their own
    in the AppWrapper's namespace and file (positions point into the AppWrapper); [] otherwise."""
    if (obj.group, obj.kind) != APPWRAPPER:
        return []
    from kqlint.domain.objects import K8sObject
    from kqlint.loader import Map, is_k8s_object

    found = []
    for index, comp in mappings_at(obj.data, ("spec", "components")):
        inner = comp.get("template")
        if is_k8s_object(inner):
            found.append(K8sObject(obj.file, obj.doc, obj.root, obj.base + ("spec", "components", index, "template"),
                                   cast(Map, inner), obj.namespace or "default", obj.source))
    return found


# Kinds whose operator fills an empty template `schedulerName` itself (training-operator's gang
# scheduler, KubeRay's batch-scheduler plugins, Dynamo's Grove/KAI or LWS/Volcano paths): an
# unset name there means "the operator decides", not default-scheduler.
OPERATOR_SETS_SCHEDULER = frozenset(
    {(KUBEFLOW_GROUP, kind) for kind in KUBEFLOW_REPLICA_KEYS}
    | {K.RAYCLUSTER, K.RAYJOB, K.RAYSERVICE, K.DGD})


def effective_scheduler_name(template: PodTemplate) -> str | None:
    """The scheduler the template's pods go to; None when the operator decides (see above).
    A Volcano Job fills empty task templates from ``spec.schedulerName`` (default ``volcano``)."""
    written = text(template.spec.get("schedulerName"))
    if written is not None:
        return written
    owner = template.owner
    if (owner.group, owner.kind) == VOLCANO_JOB:
        return text_or(owner.get("spec", "schedulerName"), "volcano")
    if (owner.group, owner.kind) in OPERATOR_SETS_SCHEDULER:
        return None
    return DEFAULT_SCHEDULER


def operator_pod_group_names(obj: K8sObject) -> frozenset[str]:
    """PodGroup names an operator creates for ``obj`` under its own name (training-operator and
    Trainer's volcano plugin name the group after the job; so did older Volcano Job controllers).
    A template annotation naming one of these resolves at run time."""
    if is_kubeflow_job(obj) or (obj.group, obj.kind) in (K.TRAINJOB, VOLCANO_JOB):
        return frozenset({obj.name})
    return frozenset()


def pod_owner_meta_path(obj: K8sObject) -> tuple[Any, ...]:
    """Where the metadata of the pods' direct owner lives (a CronJob's Job: its jobTemplate)."""
    if K.CRONJOB.of(obj):
        return ("spec", "jobTemplate", "metadata")
    return ("metadata",)


def pod_owner_annotations(obj: K8sObject) -> dict[str, Any]:
    value = obj.get(*pod_owner_meta_path(obj), "annotations")
    return value if isinstance(value, dict) else {}


@dataclass(frozen=True)
class MinMemberSite:
    """A ``kai.scheduler/batch-min-member`` annotation and the pods of the Job it governs."""

    path: tuple[Any, ...]         # path to the annotation key
    value: Any
    pods: int
    job: str                      # "" (a Job), " jobTemplate" (CronJob), " replicatedJobs[name]" (JobSet)


def batch_min_member_sites(obj: K8sObject) -> list[MinMemberSite]:
    """Every ``kai.scheduler/batch-min-member`` that sets a Job's gang size: on a Job, a
    CronJob's jobTemplate, or a JobSet replicatedJob's Job template (the JobSet-level one
    counts replicatedJobs, not pods, and is left out)."""
    key = KAI_BATCH_MIN_MEMBER_ANNOTATION
    kind = (obj.group, obj.kind)
    sites: list[tuple[tuple[Any, ...], tuple[Any, ...], str]] = []
    if kind == K.JOB:
        sites = [(("metadata", "annotations"), ("spec",), "")]
    elif kind == K.CRONJOB:
        sites = [(("spec", "jobTemplate", "metadata", "annotations"), ("spec", "jobTemplate", "spec"), " jobTemplate")]
    elif kind == K.JOBSET:
        sites = [(("spec", "replicatedJobs", i, "template", "metadata", "annotations"),
                  ("spec", "replicatedJobs", i, "template", "spec"), f" replicatedJobs[{name_of(rj, i)}]")
                 for i, rj in mappings_at(obj.data, ("spec", "replicatedJobs"))]
    found = []
    for ann, spec, label in sites:
        annotations = obj.get(*ann)  # a Job's: its identity (a cached Job is not decoded for this)
        if isinstance(annotations, dict) and key in annotations:
            found.append(MinMemberSite(ann + (key,), annotations[key], job_pods(obj.get(*spec)), label))
    return found


# ---------------------------------------------------------------- gang markers
@dataclass(frozen=True)
class GangMarker:
    """Evidence that a workload is meant for one gang scheduler."""

    family: str                   # "volcano" or "kai"
    what: str                     # "schedulerName: volcano", "annotation scheduling.k8s.io/group-name", ...
    at: Location
    in_object: bool               # written in the workload itself (not in a referenced runtime)

    @property
    def is_scheduler_name(self) -> bool:
        """A template's ``schedulerName`` (not a label or annotation)."""
        return self.what.startswith(SCHEDULER_NAME_MARKER)


SCHEDULER_NAME_MARKER = "schedulerName:"
# (family, where, key): template or workload metadata keys that mean one scheduler.
_MARKER_KEYS = (
    ("volcano", "annotations", VOLCANO_GROUP_ANNOTATION),
    ("volcano", "annotations", VOLCANO_LEGACY_GROUP_ANNOTATION),
    ("volcano", "annotations", VOLCANO_QUEUE_ANNOTATION),
    ("volcano", "annotations", VOLCANO_MIN_MEMBER_ANNOTATION),
    ("volcano", "labels", KUBERAY_VOLCANO_QUEUE_LABEL),
    ("kai", "annotations", KAI_POD_GROUP_ANNOTATION),
    ("kai", "annotations", KAI_BATCH_MIN_MEMBER_ANNOTATION),
    ("kai", "annotations", KAI_SKIP_PODGROUPER_ANNOTATION),
    ("kai", "labels", KAI_QUEUE_LABEL),
    ("kai", "labels", KAI_SUBGROUP_LABEL),
    ("kai", "labels", "runai/queue"),                          # KAI's queue label before v0.6.0
)


def _meta_markers(meta: dict[str, Any], at: Callable[..., Location], in_object: bool) -> list[GangMarker]:
    found = []
    for family, where, key in _MARKER_KEYS:
        section = meta.get(where)
        if isinstance(section, dict) and key in section:
            found.append(GangMarker(family, f"{where[:-1]} {key}", at(where, key), in_object))
    return found


def gang_markers(obj: K8sObject, graph: ObjectGraph | None = None,
                 volcano_names: tuple[str, ...] = VOLCANO_SCHEDULER_NAMES,
                 kai_names: tuple[str, ...] = KAI_SCHEDULER_NAMES) -> list[GangMarker]:
    """Every Volcano or KAI marker of a workload: the workload's own labels/annotations (and a
    CronJob's jobTemplate), then per written template its ``schedulerName`` and its
    labels/annotations. A TrainJob includes its runtime's templates (``in_object`` False)."""
    found = _meta_markers(obj.metadata, lambda *p: obj.at("metadata", *p), True)
    owner_meta = pod_owner_meta_path(obj)
    if owner_meta != ("metadata",):
        found += _meta_markers(mapping_at(obj.data, owner_meta), lambda *p: obj.at(*owner_meta, *p), True)
    for tpl in pod_templates(obj, graph):
        if tpl.generated:
            continue
        family = gang_family(tpl.scheduler_name, volcano_names, kai_names)
        if family is not None:
            found.append(GangMarker(family, f"{SCHEDULER_NAME_MARKER} {tpl.scheduler_name}",
                                    tpl.at("schedulerName"), tpl.owner is obj))
        found += _meta_markers(tpl.metadata, tpl.at_meta, tpl.owner is obj)
    unique: dict[tuple[str, Any], GangMarker] = {}
    for marker in found:  # a Pod's metadata is both the object's and the template's
        unique.setdefault((marker.what, marker.at), marker)
    return list(unique.values())


def volcano_tasks(obj: K8sObject) -> list[tuple[int, dict[str, Any]]]:
    """(index, task) for every mapping in a Volcano Job's ``spec.tasks``; [] for other kinds."""
    if (obj.group, obj.kind) != VOLCANO_JOB:
        return []
    return list(mappings_at(obj.data, ("spec", "tasks")))
