"""The one non-preempting PriorityClass KQ101/KQ102 fixes move gang pods to: not a rule module."""
from __future__ import annotations

from kqlint.domain.graph import ObjectGraph
from kqlint.domain.kueue.priority import only_non_preempting_class
from kqlint.domain.objects import K8sObject
from kqlint.domain.workloads import PodTemplate
from kqlint.fix.model import Edit, Fix

# the remedy of KQ101, KQ105 and KQ106: pod priority stops mattering between gangs
SHARED_CLASS_REMEDY = ("Use one PriorityClass with preemptionPolicy: Never for all gang pods and rank "
                       "workloads with WorkloadPriorityClasses")


def use_class_fix(obj: K8sObject, template: PodTemplate, graph: ObjectGraph) -> Fix | None:
    """``priorityClassName`` of ``template`` (written in ``obj``) set to the shared
    non-preempting class. Unsafe: the pods' priority value changes."""
    name = only_non_preempting_class(graph)
    if name is None or template.owner is not obj or not isinstance(obj.get(*template.spec_path), dict):
        return None
    title = f"Set priorityClassName: {name}"
    if obj.has(*template.spec_path, "priorityClassName"):
        return Fix.unsafe(title, Edit.replace((*template.spec_path, "priorityClassName"), name))
    return Fix.unsafe(title, Edit.insert(template.spec_path, "priorityClassName", name))
