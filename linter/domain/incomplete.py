"""Documents missing fields the API requires (rules.md "Applied together": where a
kustomization sits in the same folder or above, such a document is a patch the
kustomization may name wrongly, not an object: the API server would refuse it as a whole).

Only fields every cluster requires: a workload controller's ``selector`` and ``template``
(apps/v1), a Job's ``template``, a CronJob's ``schedule`` and ``jobTemplate``, the
``containers`` of their pods, and a written container's ``image`` (except where the operator merges its
own container onto the written one, as Dynamo does)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from kqlint.domain.podspec import containers, operator_defaulted
from kqlint.domain.workloads import own_templates

if TYPE_CHECKING:
    from kqlint.domain.objects import K8sObject

_REQUIRED_SPEC: dict[tuple[str, str], tuple[str, ...]] = {
    ("apps", "Deployment"): ("selector", "template"),
    ("apps", "ReplicaSet"): ("selector", "template"),
    ("apps", "StatefulSet"): ("selector", "template"),
    ("apps", "DaemonSet"): ("selector", "template"),
    ("batch", "Job"): ("template",),
    ("batch", "CronJob"): ("schedule", "jobTemplate"),
    ("", "Pod"): ("containers",),
}


def lacks_required_fields(obj: K8sObject) -> bool:
    """``obj`` misses a field the API server requires of every such object."""
    required = _REQUIRED_SPEC.get((obj.group, obj.kind))
    data = obj.data if isinstance(obj.data, dict) else {}
    spec = data.get("spec")
    if required is not None and (not isinstance(spec, dict) or any(spec.get(key) is None for key in required)):
        return True
    for template in own_templates(obj):
        if required is not None and not template.spec.get("containers"):
            return True  # a core workload's pods need containers (CRDs may fill them in)
        if any(container.data.get("image") is None and not operator_defaulted(template, container)
               for container in containers(template.spec)):
            return True
    return False
