"""KQ004: what Kueue's job webhooks refuse on create (kueue.md B30).

``jobframework.ValidateJobOnCreate`` (``validation.go``): the ``queue-name`` label must be a
DNS-1123 subdomain, the ``max-exec-time-seconds`` label an integer > 0; a Job's
``job-min-parallelism`` annotation an integer from 1 to one less than its pods, its
``job-completions-equal-parallelism`` a boolean, true only on an Indexed Job whose completions
equal its parallelism. The TAS annotations of
each pod template (``tas_validation.go``: ``ValidateTASPodSetRequest``,
``ValidateSliceSizeAnnotationUpperBound``, ``ValidatePodSetGroupingTopology``), which every
integration's webhook runs while ``TopologyAwareScheduling`` is on (beta, on by default from
0.14). For a RayCluster, RayJob or RayService that carries a ``queue-name`` label
(``rayjob_webhook.go`` ``validateCreate``, ``raycluster/common.go`` ``ValidateCreate``): a
RayJob with both or neither of ``clusterSelector`` and ``rayClusterSpec``, or with
``shutdownAfterJobFinishes`` false; a worker group named ``head``.
The checks that depend on the platform's Kueue release and feature gates (the TAS gate, the
multi-layer constraints annotation, the ``elastic-job`` annotation) are decided in
kqlint.rules.engine._webhook_kueue_gates."""
from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from kqlint.domain import kinds as K
from kqlint.domain.fields import go_bool, go_int, is_dns1123_subdomain, is_integer, text
from kqlint.domain.kueue import QUEUE_LABEL
from kqlint.domain.kueue.podsets import JOB_MIN_PARALLELISM, job_min_count
from kqlint.domain.objects import K8sObject
from kqlint.domain.workloads import PodTemplate, as_count, job_pods, own_templates
from kqlint.engine.rule import RuleContext
from kqlint.loader.placeholders import holds_placeholder
from kqlint.model import Finding
from kqlint.rules.engine._webhook_kueue_gates import (
    ELASTIC,
    MULTI_LAYER_GATE,
    KueueGates,
    elastic_kind_findings,
    gates_of,
    is_elastic,
    webhook_validates,
)

PREFIX = "kueue.x-k8s.io/"
REQUIRED, PREFERRED, UNCONSTRAINED = (f"{PREFIX}podset-required-topology", f"{PREFIX}podset-preferred-topology",
                                      f"{PREFIX}podset-unconstrained-topology")
SLICE_REQUIRED, SLICE_SIZE = f"{PREFIX}podset-slice-required-topology", f"{PREFIX}podset-slice-size"
CONSTRAINTS = f"{PREFIX}podset-slice-required-topology-constraints"
GROUP_NAME = f"{PREFIX}podset-group-name"
MAX_EXEC_TIME = f"{PREFIX}max-exec-time-seconds"
SYNC_COMPLETIONS = f"{PREFIX}job-completions-equal-parallelism"  # partial admission resizes completions too
# Kinds whose webhook runs these checks on every object (the job integrations on by default)
JOB_KINDS = frozenset({K.JOB, K.JOBSET, *K.KUBEFLOW_JOBS, K.RAYJOB, K.RAYCLUSTER, K.RAYSERVICE, K.APPWRAPPER})
RAY_KINDS = frozenset({K.RAYJOB, K.RAYCLUSTER, K.RAYSERVICE})
_QUALIFIED_NAME = re.compile(r"([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)")


def as_text(value: Any) -> str:
    """An annotation or label value as the API holds it (a string; anything else: empty)."""
    return value if isinstance(value, str) else ""


def kueue_job_findings(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    yield from elastic_kind_findings(obj, ctx)
    if (obj.group, obj.kind) not in JOB_KINDS or not webhook_validates(obj, ctx):
        return
    yield from _labels(obj, ctx)
    if (obj.group, obj.kind) == K.JOB:
        yield from _min_parallelism(obj, ctx)
        yield from _completions_sync(obj, ctx)
    templates = [t for t in own_templates(obj, ctx.graph)
                 if t.meta_path is not None and any(str(key).startswith(PREFIX) for key in t.annotations)]
    gates = gates_of(ctx) if templates else None
    if gates is not None and gates.tas:
        for template in templates:
            rejected = list(_tas_annotations(obj, template, gates, ctx))
            # validateTopologyRequest returns the first errors it finds: the request's, the elastic
            # Job's topology, then ValidateSliceSizeAnnotationUpperBound (job_webhook.go)
            rejected = rejected or list(_elastic_topology(obj, template, gates, ctx))
            yield from rejected or _upper_bounds(obj, template, gates, ctx)
        yield from _groups(obj, templates, ctx)
    if (obj.group, obj.kind) in RAY_KINDS and text(obj.labels.get(QUEUE_LABEL)) is not None:
        yield from _ray(obj, ctx)


def _reject(ctx: RuleContext, obj: K8sObject, path: tuple[Any, ...], text_: str, remedy: str,
            value: bool = False) -> Finding:
    return ctx.finding(at=obj.at_value(*path) if value else obj.at(*path),
                       message=f"{obj.display()}: Kueue's webhook rejects it (`{text_}`)", remedy=remedy)


def _labels(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    labels = obj.labels
    queue = labels.get(QUEUE_LABEL)
    if QUEUE_LABEL in labels and isinstance(queue, str) and queue and not is_dns1123_subdomain(queue) \
            and not holds_placeholder(queue):  # an envsubst template's name: rendered before it is applied
        yield _reject(ctx, obj, ("metadata", "labels", QUEUE_LABEL), f"{QUEUE_LABEL}: a lowercase RFC 1123 "
                      "subdomain must consist of lower case alphanumeric characters, '-' or '.'",
                      "Name the LocalQueue with lowercase letters, digits, '-' and '.'", value=True)
    if MAX_EXEC_TIME in labels and not holds_placeholder(labels[MAX_EXEC_TIME]):
        value = as_text(labels[MAX_EXEC_TIME])
        number = go_int(value)  # strconv.Atoi (validation.go)
        if number is None or number <= 0:
            yield _reject(ctx, obj, ("metadata", "labels", MAX_EXEC_TIME),
                          f"{MAX_EXEC_TIME}: Invalid value: {value!r}: should be greater than 0" if number is not None
                          else f"{MAX_EXEC_TIME}: Invalid value: {value!r}: not an integer",
                          "Set the maximum execution time as a whole number of seconds above 0", value=True)


def _min_parallelism(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    """``validatePartialAdmissionCreate`` (job_webhook.go): the Job's minimum for partial
    admission is an integer from 1 to one less than its pods (parallelism, or completions
    when fewer)."""
    raw = obj.annotations.get(JOB_MIN_PARALLELISM)
    if raw is None or holds_placeholder(raw):
        return
    value, path = as_text(raw), ("metadata", "annotations", JOB_MIN_PARALLELISM)
    key, quoted = f"metadata.annotations[{JOB_MIN_PARALLELISM}]", json.dumps(as_text(raw))
    pods = job_pods(obj.get("spec"))
    if job_min_count(obj, pods) is None:  # the minimum the webhook accepts, as simulate reads it
        number = go_int(value)
        detail = f"Invalid value: {number}: should be between 0 and {pods - 1}" if number is not None \
            else f"Invalid value: {quoted}: strconv.Atoi: parsing {quoted}: invalid syntax"
        remedy = (f"Set the fewest pods the Job may start with (partial admission) to a whole number from 1 to "
                  f"{pods - 1}, below its pod count, or remove the annotation to admit it whole") if pods > 1 \
            else "Remove the annotation: a Job of one pod cannot be admitted with fewer (partial admission)"
        yield _reject(ctx, obj, path, f"{key}: {detail}", remedy, value=True)
    if is_elastic(obj) and gates_of(ctx).slicing:
        yield _reject(ctx, obj, path, f"{key}: Invalid value: {quoted}: partial admission and elastic job cannot "
                      "be used together", f"Remove {JOB_MIN_PARALLELISM} or {ELASTIC}: an elastic Job is resized "
                      "by Kueue itself", value=True)


def _completions_sync(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    """``validateSyncCompletionCreate`` (job_webhook.go): ``job-completions-equal-parallelism`` is a
    Go boolean, and a true one needs an Indexed Job whose completions equal its parallelism
    (after the API server's defaults: 1 each when unset)."""
    raw = obj.annotations.get(SYNC_COMPLETIONS)
    if raw is None or holds_placeholder(raw):
        return
    path, quoted = ("metadata", "annotations", SYNC_COMPLETIONS), json.dumps(as_text(raw))
    key = f"metadata.annotations[{SYNC_COMPLETIONS}]"
    enabled = go_bool(as_text(raw))
    if enabled is None:
        yield _reject(ctx, obj, path, f"{key}: Invalid value: {quoted}: strconv.ParseBool: parsing {quoted}: "
                      "invalid syntax", f'Write "true" or "false" for {SYNC_COMPLETIONS}', value=True)
    if not enabled:
        return
    if obj.get("spec", "completionMode") != "Indexed":
        yield _reject(ctx, obj, path, f"{key}: Invalid value: {quoted}: should not be enabled for NonIndexed jobs",
                      f"Set spec.completionMode: Indexed, or remove {SYNC_COMPLETIONS}", value=True)
    parallelism, completions = obj.get("spec", "parallelism"), obj.get("spec", "completions")
    if as_count(parallelism, 1) != as_count(completions, 1) and is_integer(completions):
        yield _reject(ctx, obj, ("spec", "completions"), f"spec.completions: Invalid value: {completions}: should be "
                      f"equal to parallelism when {SYNC_COMPLETIONS} annotation is true",
                      f"Set completions equal to parallelism ({as_count(parallelism, 1)}), or remove "
                      f"{SYNC_COMPLETIONS}", value=True)


def _tas_annotations(obj: K8sObject, template: PodTemplate, gates: KueueGates,
                     ctx: RuleContext) -> Iterator[Finding]:
    annotations = template.annotations
    assert template.meta_path is not None
    base = template.meta_path + ("annotations",)

    def at(key: str) -> tuple[Any, ...]:
        return base + (key,)

    def value(key: str) -> str:
        return as_text(annotations.get(key))
    found = {key for key in (REQUIRED, PREFERRED, UNCONSTRAINED, SLICE_REQUIRED, SLICE_SIZE, GROUP_NAME)
             if key in annotations}
    if CONSTRAINTS in annotations and gates.multi_layer is not None:  # a release before 0.17 ignores it
        found.add(CONSTRAINTS)
    modes = [key for key in (REQUIRED, PREFERRED, UNCONSTRAINED) if key in found]
    if len(modes) > 1:
        yield _reject(ctx, obj, at(modes[1]), "must not contain more than one topology annotation",
                      "Keep one of podset-required-topology, podset-preferred-topology, podset-unconstrained-topology")
    for key in (REQUIRED, PREFERRED, SLICE_REQUIRED):
        if key in found and not _label_name(value(key)) and not holds_placeholder(value(key)):
            yield _reject(ctx, obj, at(key), f"{key}: Invalid value: {value(key)!r}: name part must consist of "
                          "alphanumeric characters, '-', '_' or '.'", "Name a node label of the Topology's levels",
                          value=True)
    if GROUP_NAME in found:
        if go_int(value(GROUP_NAME), signed=False) is not None:  # strconv.ParseUint(v, 10, 64) succeeds
            yield _reject(ctx, obj, at(GROUP_NAME), f"{GROUP_NAME}: must not be a number",
                          "Give the pod-set group a name that is not a number", value=True)
        for other in (SLICE_SIZE, SLICE_REQUIRED):
            if other in found:
                yield _reject(ctx, obj, at(GROUP_NAME), f"{GROUP_NAME}: may not be set when '{other}' is specified",
                              "Drop the group name or the slice annotations")
        if REQUIRED not in found and PREFERRED not in found:
            yield _reject(ctx, obj, at(GROUP_NAME), f"{GROUP_NAME}: may not be set when neither '{PREFERRED}' nor "
                          f"'{REQUIRED}' is specified", "Add a required or preferred topology to the grouped pod sets")
    if UNCONSTRAINED in found and go_bool(value(UNCONSTRAINED)) is None:
        yield _reject(ctx, obj, at(UNCONSTRAINED), f"{UNCONSTRAINED}: must be a boolean value",
                      "Write \"true\" or \"false\"", value=True)
    yield from _slice_size(obj, at(SLICE_SIZE), value(SLICE_SIZE), found, ctx)
    if SLICE_REQUIRED in found and SLICE_SIZE not in found:
        yield _reject(ctx, obj, at(SLICE_REQUIRED), f"{SLICE_SIZE}: must be set when '{SLICE_REQUIRED}' is specified",
                      "Add podset-slice-size (pods per slice)")
    if CONSTRAINTS in found and not gates.multi_layer:
        yield _reject(ctx, obj, at(CONSTRAINTS), f"{CONSTRAINTS}: Forbidden: the {MULTI_LAYER_GATE} feature gate "
                      "must be enabled to use this annotation",
                      f"The gate is off by default before Kueue 0.19: use podset-slice-required-topology with "
                      f"podset-slice-size, or turn {MULTI_LAYER_GATE} on in the manager's featureGates")
    elif CONSTRAINTS in found:
        yield from _constraints(obj, base, value(CONSTRAINTS), found, ctx)


def _slice_size(obj: K8sObject, path: tuple[Any, ...], raw: str, found: set[str],
                ctx: RuleContext) -> Iterator[Finding]:
    if SLICE_SIZE not in found:
        return
    if SLICE_REQUIRED not in found:
        yield _reject(ctx, obj, path, f"{SLICE_SIZE}: may not be set when '{SLICE_REQUIRED}' is not specified",
                      "Add podset-slice-required-topology or drop podset-slice-size")
    size = go_int(raw, 32)  # strconv.ParseInt(v, 10, 32) (tas_validation.go)
    if size is None:
        if not holds_placeholder(raw):
            yield _reject(ctx, obj, path, f"{SLICE_SIZE}: must be a numeric value", "Write a whole number",
                          value=True)
    elif size < 1:
        yield _reject(ctx, obj, path, f"{SLICE_SIZE}: must be greater than or equal to 1", "Write a number >= 1",
                      value=True)


def _elastic_topology(obj: K8sObject, template: PodTemplate, gates: KueueGates,
                      ctx: RuleContext) -> Iterator[Finding]:
    """An elastic Job supports only an unconstrained topology (``validateTopologyRequest``)."""
    if not K.JOB.of(obj) or not gates.elastic_topology or not is_elastic(obj) or template.meta_path is None:
        return
    for key, mode in ((REQUIRED, "required"), (PREFERRED, "preferred")):
        if key in template.annotations:
            yield ctx.finding(
                at=obj.at(*template.meta_path, "annotations", key),
                message=(f"{obj.display()}: Kueue's webhook rejects it (`{key}: Forbidden: {mode} topology is not "
                         "supported with elastic jobs`)"),
                remedy=f"An elastic Job takes only {UNCONSTRAINED}: \"true\"; use it, or remove {ELASTIC}",
                related=[(obj.at("metadata", "annotations", ELASTIC), "the elastic-job annotation")])
            return


def _upper_bounds(obj: K8sObject, template: PodTemplate, gates: KueueGates, ctx: RuleContext) -> Iterator[Finding]:
    """A slice (or the first constraint layer) larger than the pod set's count."""
    count = _pod_set_count(obj, template)
    base = template.meta_path + ("annotations",) if template.meta_path is not None else ()
    raw = as_text(template.annotations.get(SLICE_SIZE))
    if SLICE_SIZE in template.annotations and (size := go_int(raw, 32)) is not None and size > count:
        yield _reject(ctx, obj, (*base, SLICE_SIZE), f"{SLICE_SIZE}: must not be greater than pod set count {count}",
                      f"Use a slice size of at most {count}", value=True)
    layers = _layers(as_text(template.annotations.get(CONSTRAINTS))) if gates.multi_layer else None
    if layers and (layers[0].get("size") or 0) > count:  # valid layers: no rejection came before
        yield _reject(ctx, obj, (*base, CONSTRAINTS), f"{CONSTRAINTS}: must not be greater than pod set count "
                      f"{count}", f"Use a first layer of at most {count} pods", value=True)


def _constraints(obj: K8sObject, base: tuple[Any, ...], raw: str, found: set[str],
                 ctx: RuleContext) -> Iterator[Finding]:
    path = base + (CONSTRAINTS,)
    for other in (SLICE_REQUIRED, SLICE_SIZE):
        if other in found:
            yield _reject(ctx, obj, path, f"{CONSTRAINTS}: may not be set when '{other}' is specified",
                          "Use either the multi-layer constraints or the two-level slice annotations")
    if GROUP_NAME in found:  # reported at the group name (validateSliceRequiredTopologyConstraintsAnnotation)
        yield _reject(ctx, obj, base + (GROUP_NAME,), f"{GROUP_NAME}: may not be set when '{CONSTRAINTS}' is "
                      "specified", "Use either the multi-layer constraints or a pod-set group")
    problem = None if holds_placeholder(raw) else _constraints_problem(raw)
    if problem is not None:
        yield _reject(ctx, obj, path, f"{CONSTRAINTS}: {problem}",
                      "Write a JSON list of 1 to 3 {\"topology\": <node label>, \"size\": <n>} entries, coarsest "
                      "first, each size dividing the one above", value=True)


def _layers(raw: str) -> list[dict[str, Any]] | None:
    """The JSON list of layers as Go's decoder fills ``[]PodsetSliceRequiredTopologyConstraint``
    (field names match case-insensitively, the last of two spellings wins); None when it fails."""
    try:
        entries = json.loads(raw)
    except (ValueError, RecursionError):  # a hostile annotation may nest deeply
        return None
    if entries is None:
        return []
    if not isinstance(entries, list) or not all(isinstance(e, dict) or e is None for e in entries):
        return None
    layers = [{str(key).lower(): value for key, value in (entry or {}).items()} for entry in entries]
    for layer in layers:
        size, topology = layer.get("size"), layer.get("topology")
        if size is not None and (not is_integer(size) or not -2 ** 31 <= size < 2 ** 31) \
                or topology is not None and not isinstance(topology, str):
            return None  # json.Unmarshal fails on a wrong type or an int32 overflow
    return layers


def _constraints_problem(raw: str) -> str | None:
    entries = _layers(raw)
    if entries is None:
        return "must be a valid JSON array"
    if not 1 <= len(entries) <= 3:
        return "must have between 1 and 3 layers"
    sizes: list[int] = [e.get("size") or 0 for e in entries]  # a JSON null leaves Go's zero value
    topologies = [e.get("topology") for e in entries]
    if any(size < 1 for size in sizes):
        return "size: must be greater than or equal to 1"
    if any(not _label_name(topology or "") for topology in topologies):
        return "topology: not a valid label name"
    if len(set(topologies)) != len(topologies):
        return "topology: Duplicate value"
    if any(above % below for above, below in zip(sizes, sizes[1:], strict=False)):
        return "size: must evenly divide the parent layer size"
    return None


def _groups(obj: K8sObject, templates: list[PodTemplate], ctx: RuleContext) -> Iterator[Finding]:
    """``ValidatePodSetGroupingTopology``: a group of exactly 2 pod sets, one with a count of
    1, with the same required or preferred topology."""
    groups: dict[str, list[PodTemplate]] = {}
    for template in templates:
        name = template.annotations.get(GROUP_NAME)
        if isinstance(name, str):
            groups.setdefault(name, []).append(template)
    for name, members in groups.items():
        at = [m.meta_path + ("annotations", GROUP_NAME) for m in members if m.meta_path is not None]
        if len(members) != 2:
            for path in at:
                yield _reject(ctx, obj, path, f"{GROUP_NAME}: can only define groups of exactly 2 pod sets, got: "
                              f"{len(members)} pod set(s)", "Group exactly two pod sets (a leader and its workers)",
                              value=True)
            continue
        counts = [_pod_set_count(obj, m) for m in members]
        if 1 not in counts:
            yield _reject(ctx, obj, at[0], f"{GROUP_NAME}: can only define groups where at least one pod set has "
                          f"only 1 replica, got: {counts[0]} replica(s) and {counts[1]} replica(s) in the group",
                          "Group a single-pod set (a leader) with its workers", value=True)
        first, second = (m.annotations for m in members)
        if any(first.get(key) != second.get(key) for key in (REQUIRED, PREFERRED)):
            yield _reject(ctx, obj, at[1], f"must specify '{REQUIRED}' or '{PREFERRED}' topology consistent with "
                          f"the other pod set in group '{name}'", "Give both pod sets the same topology annotation",
                          value=True)


def _pod_set_count(obj: K8sObject, template: PodTemplate) -> int:
    """The pod set's count as Kueue builds it (a LeaderWorkerSet's per group)."""
    if K.LWS.of(obj):
        return template.pods // max(as_count(obj.get("spec", "replicas"), 1), 1)
    return template.pods


def _label_name(value: str) -> bool:
    """``ValidateLabelName``: an optional DNS-1123 subdomain prefix and a name of at most 63."""
    prefix, _, name = value.rpartition("/")
    if prefix and not is_dns1123_subdomain(prefix):
        return False
    return 0 < len(name) <= 63 and _QUALIFIED_NAME.fullmatch(name) is not None


def _ray(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    spec_path: tuple[Any, ...] = ("spec",)
    if K.RAYJOB.of(obj):
        has_selector = bool(obj.get("spec", "clusterSelector"))
        has_cluster = isinstance(obj.get("spec", "rayClusterSpec"), dict)
        if has_selector and has_cluster:
            yield _reject(ctx, obj, ("spec", "clusterSelector"), "spec.clusterSelector: a kueue managed job should "
                          "not use an existing cluster", "Drop clusterSelector or rayClusterSpec")
            return
        if has_selector:
            return  # an existing cluster: not managed by Kueue
        if not has_cluster:
            yield _reject(ctx, obj, ("spec",), "spec.rayClusterSpec: rayClusterSpec is required for Kueue-managed "
                          "jobs that don't use clusterSelector", "Add spec.rayClusterSpec")
            return
        if obj.get("spec", "shutdownAfterJobFinishes") is not True:
            yield _reject(ctx, obj, ("spec", "shutdownAfterJobFinishes"), "spec.shutdownAfterJobFinishes: a kueue "
                          "managed job should delete the cluster after finishing", "Set shutdownAfterJobFinishes: true")
        spec_path = ("spec", "rayClusterSpec")
    elif K.RAYSERVICE.of(obj):
        spec_path = ("spec", "rayClusterConfig")
    groups = obj.get(*spec_path, "workerGroupSpecs")
    for index, group in enumerate(groups if isinstance(groups, list) else []):
        if isinstance(group, dict) and group.get("groupName") == "head":
            yield _reject(ctx, obj, (*spec_path, "workerGroupSpecs", index, "groupName"),
                          "groupName: \"head\" is reserved for the head group", "Rename the worker group", value=True)
