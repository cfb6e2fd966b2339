"""The one non-preempting PriorityClass KQ101/KQ102 fixes move gang pods to: not a rule module."""
from __future__ import annotations

from kqlint.fixes import Edit, Fix
from kqlint.graph import ObjectGraph
from kqlint.kueue import NEVER, SCHEDULING_GROUP, class_value, effective_preemption_policy
from kqlint.objects import K8sObject
from kqlint.workloads import PodTemplate


def shared_non_preempting_class(obj: K8sObject, graph: ObjectGraph) -> str | None:
    """The name of the only PriorityClass with ``preemptionPolicy: Never`` applied with ``obj``;
    None when there is none or several (which one is a decision)."""
    names = {pc.name for pc in graph.of_kind("PriorityClass", SCHEDULING_GROUP)
             if pc.name and effective_preemption_policy(pc) == NEVER and class_value(pc) is not None
             and graph.applied_with(obj, pc)}
    return names.pop() if len(names) == 1 else None


def use_class_fix(obj: K8sObject, template: PodTemplate, graph: ObjectGraph) -> Fix | None:
    """``priorityClassName`` of ``template`` (written in ``obj``) set to the shared
    non-preempting class. Unsafe: the pods' priority value changes."""
    name = shared_non_preempting_class(obj, graph)
    if name is None or template.owner is not obj or not isinstance(obj.get(*template.spec_path), dict):
        return None
    title = f"Set priorityClassName: {name}"
    if obj.has(*template.spec_path, "priorityClassName"):
        return Fix.unsafe(title, Edit.replace((*template.spec_path, "priorityClassName"), name))
    return Fix.unsafe(title, Edit.insert(template.spec_path, "priorityClassName", name))
