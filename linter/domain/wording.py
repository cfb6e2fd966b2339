"""How findings word domain things: a pod template, a pod set, a priority, a field path, an
unresolved name. One phrasing per thing, so that messages about it agree across rules."""
from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from kqlint.spelling import affix_variants, nearest_spellings

if TYPE_CHECKING:
    from kqlint.domain.graph import ObjectGraph
    from kqlint.domain.kueue import ManagedWorkload, PodPriority, WorkloadPriority
    from kqlint.domain.workloads import PodTemplate

# Where a reference was looked up: every tier of the run (rules.md "Resolution").
LOOKED_IN = "the inputs, --context, config `external` or the profile"
# Roles of the only template of a kind (a Job's `template`, a Pod's own spec): not named.
SINGLE_ROLES = ("template", "pod")
# (suffixes, prefixes) a name may carry or drop and still mean the same object (``ml-cq``, ``ml``)
Affixes = tuple[tuple[str, ...], tuple[str, ...]]
MESSAGE_LIMIT = 240  # a finding's message at most (what breaks; the remedy says how to fix)


def fit_message(message: str) -> str:
    """``message`` cut to the message budget, with ``...`` where it was cut."""
    return message if len(message) <= MESSAGE_LIMIT else message[:MESSAGE_LIMIT - 3] + "..."


def is_single(role: str) -> bool:
    """The template is its kind's only one, so messages do not name its role."""
    return role in SINGLE_ROLES


# ------------------------------------------------------------------ pod templates

def template_text(template: PodTemplate) -> str:
    """``pod template Worker`` (``pod template`` for kinds with a single one)."""
    return "pod template" if is_single(template.role) else f"pod template {template.role}"


def template_label(template: PodTemplate) -> str:
    """``pod template Worker``; ``the pod template`` or ``the pod`` when the kind has one."""
    if template.role == "pod":
        return "the pod"
    if template.role == "template":
        return "the pod template"
    return f"pod template {template.role}"


def role_suffix(template: PodTemplate) -> str:
    """`` Worker`` to append after a noun (empty for a kind's single template)."""
    return "" if is_single(template.role) else f" {template.role}"


def template_role(template: PodTemplate) -> str:
    """A template's role for short labels (graph edges): ``pod template`` when it has none."""
    return "pod template" if is_single(template.role) else template.role


def owner_template(template: PodTemplate) -> str:
    """``PyTorchJob ns/name template Worker`` (``Job ns/name pod template``)."""
    if is_single(template.role):
        return f"{template.owner.display()} pod template"
    return f"{template.owner.display()} template {template.role}"


def describe_template(template: PodTemplate, unit: ManagedWorkload | None = None) -> str:
    """``PyTorchJob ns/x pod template Worker``; a runtime's template also names the TrainJob."""
    owner = template.owner.display()
    if template.role == "pod":
        text = owner
    elif template.role == "template":
        text = f"{owner} pod template"
    else:
        text = f"{owner} pod template {template.role}"
    if unit is not None and unit.obj is not template.owner:
        text += f" (run by {unit.obj.display()})"
    return text


def pod_set_text(template: PodTemplate) -> str:
    """``pod set Worker`` (``the pod set`` for kinds with a single template)."""
    return "the pod set" if is_single(template.role) else f"pod set {template.role}"


# ------------------------------------------------------------------ priorities

def describe_pod_priority(priority: PodPriority) -> str:
    if priority.source == "named":
        return f"PriorityClass {priority.class_name} ({priority.value}, {priority.policy})"
    if priority.source == "global-default":
        return f"the global default PriorityClass {priority.class_name} ({priority.value}, {priority.policy})"
    return "no PriorityClass (priority 0, PreemptLowerPriority)"


def describe_workload_priority(priority: WorkloadPriority) -> str:
    """``1000 (WorkloadPriorityClass prod)``: the value, then where Kueue took it from."""
    if priority.source == "workload-priority-class":
        return f"{priority.value} (WorkloadPriorityClass {priority.class_name})"
    if priority.source == "priority-class":
        return f"{priority.value} (pod PriorityClass {priority.class_name})"
    if priority.source == "global-default":
        return f"{priority.value} (the global default PriorityClass {priority.class_name})"
    return "0 (no priority class anywhere)"


# ------------------------------------------------------------------ names, paths and types

def close_name(name: str, kind: str, graph: ObjectGraph, group: str | None = None, namespace: str | None = None,
               extra: Iterable[str] = (), affixes: Affixes = ((), ())) -> str | None:
    """The one known name of ``kind`` (or of ``extra``: names the platform model knows exist)
    that ``name`` is a slip of: the only one at the smallest edit distance within the shared
    limit (kqlint.spelling), or ``name`` with one of ``affixes`` (suffixes, prefixes) added,
    removed or swapped. None when there is none, or more than one: a guess is never offered.
    A name with an envsubst placeholder stands for many names: never one to suggest."""
    names = {obj.name for obj in graph.of_kind(kind, group)
             if (namespace is None or obj.namespace in (None, namespace)) and "$" not in obj.name} | set(extra)
    near = set(nearest_spellings(name, names)) | set(affix_variants(name, names, *affixes))
    return near.pop() if len(near) == 1 else None


def did_you_mean(close: str | None) -> str:
    """`` (did you mean `x`?)`` for a close name, else ``""``."""
    return f" (did you mean `{close}`?)" if close else ""
