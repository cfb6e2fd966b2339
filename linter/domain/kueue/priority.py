"""Priorities: PriorityClass facts (kueue.md A1-A3), the pod priority of a template as
kube-scheduler sees it, the Workload priority by Kueue's chain (B12), and the priority Kueue
compares for a Workload object (its PriorityBoost)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kqlint.domain import kinds as K
from kqlint.domain.fields import go_int, integer, text, text_or
from kqlint.domain.graph import BUILTIN_PRIORITY_CLASSES, graph_fact
from kqlint.domain.kinds import KUEUE_GROUP, SCHEDULING_GROUP
from kqlint.domain.kueue.routing import (
    KUBEFLOW_ROLE_ORDER,
    PRIORITY_LABEL,
    ManagedWorkload,
    managed_workloads,
    object_labels_path,
    ordered_templates,
)
from kqlint.domain.objects import K8sObject
from kqlint.domain.workloads import KUBEFLOW_RUN_POLICY_PATH, PodTemplate, pod_templates

if TYPE_CHECKING:
    from kqlint.domain.graph import ObjectGraph
    from kqlint.model import Location

PREEMPT_LOWER = "PreemptLowerPriority"
NEVER = "Never"
HIGHEST_USER_PRIORITY = 1_000_000_000    # A1
RUN_POLICY_CLASS = (*KUBEFLOW_RUN_POLICY_PATH, "schedulingPolicy", "priorityClass")


@dataclass(frozen=True)
class PodPriority:
    """Pod priority of one template as kube-scheduler sees it (A3)."""

    value: int | None              # None when unresolved
    policy: str | None             # effective preemptionPolicy; None when unresolved
    class_name: str | None         # the class named, or the global default's name
    class_obj: K8sObject | None
    source: str                    # "named" | "global-default" | "none" (priority 0)
    resolved: bool = True

    @property
    def can_preempt(self) -> bool:
        return self.resolved and self.policy == PREEMPT_LOWER


@dataclass(frozen=True)
class WorkloadPriority:
    """The Workload's priority by Kueue's chain (B12)."""

    value: int | None              # None when the chain stops on a missing class
    source: str                    # "workload-priority-class" | "priority-class" | "global-default" | "none"
    class_name: str | None = None
    class_obj: K8sObject | None = None
    at: Location | None = None     # the label or field that chose the class (None: default / 0)
    resolved: bool = True


# ------------------------------------------------------------------ PriorityClass facts

def class_value(pc: K8sObject | None) -> int | None:
    """``value`` of a PriorityClass or WorkloadPriorityClass (top-level field), if an int."""
    return integer(pc.get("value")) if pc is not None else None


def effective_preemption_policy(pc: K8sObject) -> str:
    return text_or(pc.get("preemptionPolicy"), PREEMPT_LOWER)


def is_global_default(pc: K8sObject) -> bool:
    return pc.get("globalDefault") is True


def is_builtin_class(pc: K8sObject) -> bool:
    """A built-in ``system-*`` class: the engine's own, or a manifest that matches it exactly."""
    spec = BUILTIN_PRIORITY_CLASSES.get(pc.name)
    return spec is not None and class_value(pc) == spec["value"] and \
        bool(pc.get("globalDefault") is True) == spec["globalDefault"]


def resolve_priority_class(name: Any, graph: ObjectGraph) -> K8sObject | None:
    return graph.resolve("PriorityClass", name, group=SCHEDULING_GROUP)


def resolve_workload_priority_class(name: Any, graph: ObjectGraph) -> K8sObject | None:
    return graph.resolve("WorkloadPriorityClass", name, group=KUEUE_GROUP)


@graph_fact
def priority_classes(graph: ObjectGraph) -> list[K8sObject]:
    """Every PriorityClass of the cluster, one per name (the best tier)."""
    return _distinct(graph, "PriorityClass", SCHEDULING_GROUP)


@graph_fact
def workload_priority_classes(graph: ObjectGraph) -> list[K8sObject]:
    return _distinct(graph, "WorkloadPriorityClass", KUEUE_GROUP)


def _distinct(graph: ObjectGraph, kind: str, group: str) -> list[K8sObject]:
    chosen: dict[str, K8sObject] = {}
    for obj in graph.of_kind(kind, group):  # inputs first: the first one per name wins
        if obj.name and obj.name not in chosen:
            chosen[obj.name] = obj
    return list(chosen.values())


def only_non_preempting_class(graph: ObjectGraph) -> str | None:
    """The name of the only PriorityClass with ``preemptionPolicy: Never`` (and a value) of the
    graph: the classes applied with its inputs (kqlint.project.scope: one unit and the shared files, in
    any folder); None when there is none or several (which one is a decision)."""
    names = {pc.name for pc in priority_classes(graph)
             if effective_preemption_policy(pc) == NEVER and class_value(pc) is not None}
    return names.pop() if len(names) == 1 else None


def global_defaults(graph: ObjectGraph) -> list[K8sObject]:
    return [pc for pc in priority_classes(graph) if is_global_default(pc)]


@graph_fact
def global_default_class(graph: ObjectGraph) -> K8sObject | None:
    """The class pods without ``priorityClassName`` get: with several defaults, the lowest value."""
    defaults = [pc for pc in global_defaults(graph) if class_value(pc) is not None]
    return min(defaults, key=lambda pc: class_value(pc) or 0, default=None)


def class_location(pc: K8sObject, field: str = "value") -> Location:
    """Where to point at a class: ``field`` when written, else its name."""
    return pc.at(field) if pc.has(field) else pc.at("metadata", "name")


# ------------------------------------------------------------------ pod priority

def pod_priority(template: PodTemplate, graph: ObjectGraph) -> PodPriority:
    """Pod priority of a template: its class; no class -> the global default, else 0 (A3)."""
    known = _pod_priorities(graph)
    name = template.priority_class_name
    if name not in known:
        known[name] = _pod_priority_of(name, graph)
    return known[name]


@graph_fact
def _pod_priorities(graph: ObjectGraph) -> dict[str | None, PodPriority]:
    """Class name (None: none named) -> its pod priority, filled as templates ask: every
    template of every workload asks, and a repository names a handful of classes."""
    return {}


def _pod_priority_of(name: str | None, graph: ObjectGraph) -> PodPriority:
    if name is not None:
        return _named_pod_priority(name, graph)
    default = global_default_class(graph)
    if default is not None:
        return PodPriority(class_value(default), effective_preemption_policy(default), default.name,
                           default, "global-default")
    return PodPriority(0, PREEMPT_LOWER, None, None, "none")


def _named_pod_priority(name: str, graph: ObjectGraph) -> PodPriority:
    pc = resolve_priority_class(name, graph)
    value = class_value(pc)
    if pc is None or value is None:
        return PodPriority(None, None, name, pc, "named", resolved=False)
    return PodPriority(value, effective_preemption_policy(pc), name, pc, "named")


def resolved_pod_priorities(templates: Any, graph: ObjectGraph) -> list[tuple[PodTemplate, PodPriority]]:
    """(template, priority) for written templates whose priority can be resolved."""
    pairs = [(t, pod_priority(t, graph)) for t in templates if not t.generated]
    return [(t, p) for t, p in pairs if p.resolved]


@dataclass(frozen=True)
class PodProfile:
    """The pod priorities of one managed unit's written templates, summarised."""

    unit: ManagedWorkload
    lowest: tuple[PodTemplate, PodPriority]               # the template with the lowest pod priority
    preemptor: tuple[PodTemplate, PodPriority] | None     # the highest one that can preempt

    @property
    def lowest_value(self) -> int:
        return self.lowest[1].value or 0


def pod_profile(unit: ManagedWorkload, graph: ObjectGraph) -> PodProfile | None:
    """None when the unit has no written template, or one whose class cannot be resolved
    (its pods are never created: nothing to compare)."""
    pairs = [(t, pod_priority(t, graph)) for t in unit.written_templates]
    if not pairs or not all(p.resolved for _, p in pairs):
        return None
    lowest = min(pairs, key=lambda pair: pair[1].value or 0)
    preempting = [pair for pair in pairs if pair[1].can_preempt]
    preemptor = max(preempting, key=lambda pair: pair[1].value or 0) if preempting else None
    return PodProfile(unit, lowest, preemptor)


# ------------------------------------------------------------------ workload priority

def workload_priority(target: K8sObject | ManagedWorkload, graph: ObjectGraph) -> WorkloadPriority:
    """B12: the WorkloadPriorityClass label; else the pod PriorityClass (Kubeflow: runPolicy
    first); else the global default; else 0. A class that cannot be resolved stops the chain
    (Kueue creates no Workload), so the result is unresolved rather than a guess."""
    unit = target if isinstance(target, ManagedWorkload) else _whole_object_unit(target, graph)
    label = unit.priority_label()
    if label is not None:
        return _wpc_priority(unit, label, graph)
    named = _pod_class_choice(unit)
    if named is not None:
        name, at = named
        pc = resolve_priority_class(name, graph)
        value = class_value(pc)
        return WorkloadPriority(value, "priority-class", name, pc, at, resolved=value is not None)
    default = global_default_class(graph)
    if default is not None:
        return WorkloadPriority(class_value(default), "global-default", default.name, default)
    return WorkloadPriority(0, "none")


def _whole_object_unit(obj: K8sObject, graph: ObjectGraph) -> ManagedWorkload:
    units = managed_workloads(obj, graph)
    if len(units) == 1:
        return units[0]
    templates = tuple(ordered_templates(obj, pod_templates(obj, graph)))
    return ManagedWorkload(obj, templates, object_labels_path(obj), "", False)


def _wpc_priority(unit: ManagedWorkload, name: str, graph: ObjectGraph) -> WorkloadPriority:
    wpc = resolve_workload_priority_class(name, graph)
    value = class_value(wpc)
    return WorkloadPriority(value, "workload-priority-class", name, wpc, unit.label_at(PRIORITY_LABEL),
                            resolved=value is not None)


def _pod_class_choice(unit: ManagedWorkload) -> tuple[str, Location] | None:
    """The PriorityClass name Kueue takes for the Workload, and where it is written."""
    obj = unit.obj
    if obj.group == K.KUBEFLOW_GROUP and obj.kind in KUBEFLOW_ROLE_ORDER:
        value = text(obj.get(*RUN_POLICY_CLASS))
        if value is not None:
            return value, obj.at(*RUN_POLICY_CLASS)
    for template in unit.templates:
        name = template.priority_class_name
        if name is not None:
            return name, template.at("priorityClassName")
    return None


# ------------------------------------------------------------------ a Workload object's priority

PRIORITY_BOOST = "kueue.x-k8s.io/priority-boost"


def priority_boost_on(graph: ObjectGraph) -> bool:
    """Kueue's PriorityBoost gate (alpha from 0.17, off by default, ``kube_features.go``) is on
    only where the manager is started with it on."""
    from kqlint.domain.kueue_config import kueue_gate
    from kqlint.domain.platform import platform_of

    return kueue_gate(platform_of(graph), "PriorityBoost", None) is True


def object_priority(obj: K8sObject, boosted: bool) -> int:
    """A Workload object's priority as Kueue compares it (``EffectivePriority``,
    ``pkg/util/priority``): ``spec.priority`` (0 when unset) plus, where the PriorityBoost gate
    is on (``boosted``), its priority-boost annotation as ``strconv.ParseInt(v, 10, 32)`` reads
    it, which counts as 0 when missing, empty or not such a number."""
    boost = go_int(obj.annotations.get(PRIORITY_BOOST), 32) if boosted else None
    return (integer(obj.get("spec", "priority")) or 0) + (boost or 0)
