"""The kind table: which extractor reads the pod templates of each workload kind, and the
questions asked of it (``pod_templates``, ``own_templates``, ``total_pods``, ...)."""
from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from kqlint.domain import kinds as K
from kqlint.domain.fields import plain
from kqlint.domain.graph import object_fact
from kqlint.domain.kinds import KUBEFLOW_GROUP, VOLCANO_JOB
from kqlint.domain.workloads import shapes as S
from kqlint.domain.workloads import trainer as T
from kqlint.domain.workloads.templates import (
    KUBEFLOW_REPLICA_KEYS,
    Extractor,
    PodTemplate,
    as_count,
    full_template,
    mappings_at,
)

if TYPE_CHECKING:
    from kqlint.domain.graph import ObjectGraph
    from kqlint.domain.objects import K8sObject

_PATH_TOKEN = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def parse_podset_path(text: Any) -> tuple[Any, ...] | None:
    """``template.spec.replicatedJobs[0].template.spec.template`` -> a path tuple."""
    if not isinstance(text, str) or not text:
        return None
    steps: list[Any] = []
    for match in _PATH_TOKEN.finditer(text):
        steps.append(match.group(1) if match.group(1) is not None else int(match.group(2)))
    return tuple(steps) if steps and steps[0] == "template" else None


def _appwrapper(owner: K8sObject, base: tuple[Any, ...], data: dict[str, Any],
                graph: ObjectGraph | None) -> list[PodTemplate]:
    found = []
    for index, comp in mappings_at(data, ("spec", "components")):
        cbase = base + ("spec", "components", index)
        if isinstance(comp.get("podSets"), list):
            found += _podsets(owner, cbase, comp)
        else:
            found += _inferred(owner, cbase, comp, graph)
    return found


def _podsets(owner: K8sObject, cbase: tuple[Any, ...], comp: dict[str, Any]) -> list[PodTemplate]:
    found = []
    for _, podset in mappings_at(comp, ("podSets",)):
        path = parse_podset_path(podset.get("path"))
        if path is not None:
            found.append(full_template(owner, f"components[{cbase[-1]}].{podset['path']}", cbase + path,
                               as_count(podset.get("replicas"), 1)))
    return found


def _inferred(owner: K8sObject, cbase: tuple[Any, ...], comp: dict[str, Any],
              graph: ObjectGraph | None) -> list[PodTemplate]:
    inner = comp.get("template")
    if not isinstance(inner, dict):
        return []
    group = str(inner.get("apiVersion") or "").rpartition("/")[0]
    extractor = _APPWRAPPER_INFERRED.get((group, str(inner.get("kind") or "")))
    if extractor is None:
        return []
    return [replace(t, role=f"components[{cbase[-1]}].{t.role}")
            for t in extractor(owner, cbase + ("template",), inner, graph)]


# ---------------------------------------------------------------- the kind table
_EXTRACTORS: dict[tuple[str, str], Extractor] = {
    K.POD: S.pod,
    K.JOB: S.job,
    K.CRONJOB: S.cronjob,
    K.DEPLOYMENT: S.replicated,
    K.STATEFULSET: S.replicated,
    K.REPLICASET: S.replicated,
    K.DAEMONSET: S.daemonset,
    K.JOBSET: S.jobset,
    **{(KUBEFLOW_GROUP, kind): S.kubeflow for kind in KUBEFLOW_REPLICA_KEYS},
    K.TRAINJOB: T.trainjob,
    K.TRAINING_RUNTIME: T.runtime,
    K.CLUSTER_TRAINING_RUNTIME: T.runtime,
    K.LWS: S.lws,
    K.LLMISVC: S.llmisvc,
    K.DGD: S.dgd,
    K.RAYCLUSTER: S.raycluster,
    K.RAYJOB: S.rayjob,
    K.RAYSERVICE: S.rayservice,
    VOLCANO_JOB: S.volcano_job,
    K.APPWRAPPER: _appwrapper,
}
# Kinds AppWrapper infers pod sets for when `podSets` is omitted (workloads.md section 11).
_APPWRAPPER_INFERRED: dict[tuple[str, str], Extractor] = {key: _EXTRACTORS[key] for key in (
    K.POD, K.DEPLOYMENT, K.STATEFULSET, K.JOB, K.JOBSET, K.PYTORCHJOB, K.RAYCLUSTER, K.RAYJOB)}
_TEMPLATE_HOLDERS = set(K.RUNTIMES)
TEMPLATE_KINDS: frozenset[tuple[str, str]] = frozenset(_EXTRACTORS)  # every kind with pod templates
# Kinds whose templates are the object's own, read without the graph (not a TrainJob's runtime,
# nor an AppWrapper's components): the cache keeps them with the object (template_facts).
OWN_TEMPLATE_KINDS = TEMPLATE_KINDS - {K.TRAINJOB, K.TRAINING_RUNTIME, K.CLUSTER_TRAINING_RUNTIME, K.APPWRAPPER}
# what the cache keeps of one template: PodTemplate's fields after the owner, then ``known``
TemplateFacts = tuple[str, tuple[Any, ...], tuple[Any, ...], tuple[Any, ...] | None, int, bool, bool,
                      str | None, dict[str, Any]]


def pod_templates(obj: K8sObject, graph: ObjectGraph | None = None) -> list[PodTemplate]:
    extractor = _EXTRACTORS.get((obj.group, obj.kind))
    if extractor is None:
        return []
    if graph is None:
        return _templates_of(obj, extractor, graph)
    return list(_templates_in(obj, graph))  # many rules ask for the same object's templates


@object_fact
def _templates_in(obj: K8sObject, graph: ObjectGraph) -> list[PodTemplate]:
    return _templates_of(obj, _EXTRACTORS[(obj.group, obj.kind)], graph)


def _templates_of(obj: K8sObject, extractor: Extractor, graph: ObjectGraph | None) -> list[PodTemplate]:
    known: tuple[TemplateFacts, ...] | None = getattr(obj, "known_templates", None)
    if known is not None:  # kept by the cache: the body is not decoded for them
        return [PodTemplate(obj, role, path, spec, meta, pods, generated, None, step, (name, metadata))
                for role, path, spec, meta, pods, generated, step, name, metadata in known]
    if not isinstance(obj.data, dict):
        return []
    return extractor(obj, (), obj.data, graph)


def template_facts(obj: K8sObject, templates: list[PodTemplate]) -> tuple[TemplateFacts, ...] | None:
    """What the cache keeps of ``obj``'s templates (all of them, ``pod_templates(obj)``), so that
    ``pod_templates`` answers for its cached object without decoding it; None: not kept (a kind
    whose templates come from elsewhere)."""
    if (obj.group, obj.kind) not in OWN_TEMPLATE_KINDS or not isinstance(obj.data, dict) \
            or any(t.owner is not obj or t.via is not None for t in templates):
        return None
    return tuple((t.role, t.path, t.spec_path, t.meta_path, t.pods, t.generated, t.trainer_step,
                  t.priority_class_name, plain(t.metadata)) for t in templates)  # positions: from the body


def is_template_facts(value: Any) -> bool:
    """``value`` has the shape of ``template_facts``'s answer (a cache entry read back)."""
    return value is None or isinstance(value, tuple) and all(
        isinstance(t, tuple) and len(t) == 9 and isinstance(t[0], str) and isinstance(t[1], tuple)
        and isinstance(t[2], tuple) and (t[3] is None or isinstance(t[3], tuple)) and type(t[4]) is int
        and type(t[5]) is bool and type(t[6]) is bool and (t[7] is None or isinstance(t[7], str))
        and isinstance(t[8], dict) for t in value)


def own_templates(obj: K8sObject, graph: ObjectGraph | None = None) -> list[PodTemplate]:
    return owned(obj, pod_templates(obj, graph))


def owned(obj: K8sObject, templates: list[PodTemplate]) -> list[PodTemplate]:
    """The templates ``obj`` holds itself and that are written (``own_templates`` of these)."""
    return [t for t in templates if t.owner is obj and not t.generated]


def total_pods(obj: K8sObject, graph: ObjectGraph | None = None) -> int:
    return sum(t.pods for t in pod_templates(obj, graph))


def is_workload(obj: K8sObject) -> bool:
    key = (obj.group, obj.kind)
    return key in _EXTRACTORS and key not in _TEMPLATE_HOLDERS


def has_pod_templates(obj: K8sObject) -> bool:
    return (obj.group, obj.kind) in _EXTRACTORS
