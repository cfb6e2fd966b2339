"""Kueue pod sets: the pods of one Workload per integration (a Deployment's pod, a
LeaderWorkerSet group, a Job's partial admission), their requests after Kueue's resource
transformations, and where a manifest writes a request or a pod count."""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import cached_property
from typing import TYPE_CHECKING, Any

from kqlint.domain import kinds as K
from kqlint.domain.fields import above_one, go_int, text
from kqlint.domain.kueue.limitranges import defaulted_requests
from kqlint.domain.kueue.routing import POD_GROUP_NAME
from kqlint.domain.kueue_config import kueue_gate
from kqlint.domain.objects import K8sObject
from kqlint.domain.platform import platform_of
from kqlint.domain.podspec import effective_resources
from kqlint.domain.quantity import Requests, parse_quantity, requirement_requests, resource_list
from kqlint.domain.workloads import (
    RESOURCES_PER_NODE_PATH,
    PodTemplate,
    as_count,
    resources_per_node,
    trainer_num_nodes,
)
from kqlint.loader.placeholders import holds_placeholder

if TYPE_CHECKING:
    from kqlint.domain.graph import ObjectGraph
    from kqlint.domain.kueue.routing import ManagedWorkload
    from kqlint.model import Location

# Integrations where every pod becomes its own Workload (kueue.md B13): Deployment pods, plain
# Pods, and the pods of a DynamoGraphDeployment (pod integration).
SINGLE_POD_WORKLOADS = frozenset({K.DEPLOYMENT, K.POD, K.DGD})
JOB_MIN_PARALLELISM = "kueue.x-k8s.io/job-min-parallelism"  # partial admission (workloads.md 1)
ZERO = Fraction(0)


@dataclass(frozen=True)
class PodSet:
    """One pod set: a template, its pods in one Kueue Workload (``count``, which must fit one
    flavor), its pods in the whole object (``replicas``: several Workloads for a Deployment,
    a LeaderWorkerSet's groups), and the requests of one pod."""

    template: PodTemplate
    count: int                    # pods in one Workload
    per_pod: Requests
    all_pods: int                 # pods of the whole object

    def total(self, resource: str) -> Fraction:
        return self._totals[0].get(resource, ZERO)

    def whole(self, resource: str) -> Fraction:
        """What every Workload of the object together asks for."""
        return self._totals[1].get(resource, ZERO)

    @cached_property
    def _totals(self) -> tuple[dict[str, Fraction], dict[str, Fraction]]:
        # asked for per resource, flavor and check (KQ210): multiplied once
        return _times(self.per_pod, self.count), _times(self.per_pod, self.all_pods)


def _times(per_pod: Requests, pods: int) -> dict[str, Fraction]:
    return dict(per_pod) if pods == 1 else {r: amount * pods for r, amount in per_pod.items()}


def pod_sets(unit: ManagedWorkload, graph: ObjectGraph,
             config: ResourceConfig | None = None) -> list[PodSet]:
    """The pod sets of ``unit`` (the smallest admissible shape: a Job's partial admission),
    with the requests per pod after Kueue's resource configuration (``config``). Each pod of a
    Deployment or DynamoGraphDeployment and each LeaderWorkerSet group is a Workload of its
    own (``count``); ``replicas`` keeps the whole object's pods."""
    obj = unit.obj
    kind = (obj.group, obj.kind)
    if kind == K.TRAINJOB and not unit.templates:
        return _trainer_step_only(obj, config)
    found = []
    for template in unit.templates:
        count = replicas = template.pods
        if kind in SINGLE_POD_WORKLOADS:
            count = min(count, 1)
        elif kind == K.LWS:  # one Workload per group (workloads.md 5)
            groups = as_count(obj.get("spec", "replicas"), 1)
            count = count // groups if groups else 0
        elif kind == K.JOB and partial_admission_on(graph):
            count = replicas = job_min_count(obj, count) or count
        per_pod = _requests(template, graph)
        found.append(PodSet(template, count, config.apply(per_pod) if config else per_pod, replicas))
    return found


def _requests(template: PodTemplate, graph: ObjectGraph) -> Requests:
    """The requests Kueue counts for one pod (LimitRange defaults included, kueue.md B31), once
    per template and graph (KQ209 and KQ210 both ask)."""
    cache: dict[PodTemplate, Requests] = graph.memo(_requests, dict)
    found = cache.get(template)
    if found is None:
        found = cache[template] = defaulted_requests(template, graph)
    return found


def pod_set_name(role: str, only: bool) -> str:
    """The pod set name Kueue gives a template: ``main`` for a single-template job, the
    replicatedJob / group name, or the lower-cased replica type."""
    named = re.fullmatch(r"[A-Za-z]+\[(.+)\]", role)
    if named:
        return named.group(1)
    if only or role in ("template", "pod"):
        return "main"
    return role.lower()


def pod_group_of(obj: K8sObject) -> str | None:
    """The Kueue pod group a bare Pod belongs to (its ``pod-group-name`` label): the pod
    integration makes one Workload of all the group's pods, admitted together."""
    return text(obj.labels.get(POD_GROUP_NAME)) if (obj.group, obj.kind) == K.POD else None


def _trainer_step_only(trainjob: K8sObject, config: ResourceConfig | None) -> list[PodSet]:
    """A TrainJob whose runtime cannot be read (a platform's ClusterTrainingRuntime): its
    trainer step is still ``numNodes`` pods whose `node` container gets ``resourcesPerNode``,
    a lower bound on what the Workload asks for."""
    nodes = trainer_num_nodes(trainjob)
    per_node = trainjob.get(*RESOURCES_PER_NODE_PATH)
    if nodes is None or nodes < 1:
        return []
    if not isinstance(per_node, dict):
        return []
    template = PodTemplate(trainjob, "trainer", ("spec", "trainer"), ("spec", "trainer"), None, nodes,
                           generated=True, via=trainjob, trainer_step=True)
    per_pod = requirement_requests(per_node)
    return [PodSet(template, nodes, config.apply(per_pod) if config else per_pod, nodes)]


def partial_admission_on(graph: ObjectGraph) -> bool:
    """Kueue's PartialAdmission gate is or may be on (on by default from 0.5): with it off,
    Kueue drops a Job's minimum and admits it whole."""
    return kueue_gate(platform_of(graph), "PartialAdmission", 5) is not False


def job_min_count(job: K8sObject, pods: int) -> int | None:
    """The fewest pods Kueue may admit a Job with (partial admission): its
    ``job-min-parallelism`` annotation where Kueue's Job webhook accepts it (an integer from 1
    to one less than the Job's pods, ``validatePartialAdmissionCreate``); None otherwise."""
    minimum = go_int(job.annotations.get(JOB_MIN_PARALLELISM))  # strconv.Atoi
    return minimum if minimum is not None and 1 <= minimum < pods else None


FROM_OPTIONS = "the quota rules' options"  # ResourceConfig.source when the rule options mirror the section


@dataclass(frozen=True)
class ResourceConfig:
    """Kueue's ``resources.excludeResourcePrefixes`` and ``resources.transformations``: as the
    user mirrors them in the rule options, else as the Kueue Configuration in the inputs sets
    them (``source``: where they come from; empty when nothing sets them)."""

    exclude_prefixes: tuple[str, ...] = ()
    transformations: tuple[Any, ...] = ()
    source: str = ""
    ignore_undeclared: bool = False  # quotaCheckStrategy IgnoreUndeclared, its gate on (or maybe on)

    def apply(self, per_pod: Requests) -> Requests:
        if not self.exclude_prefixes and not self.transformations:
            return dict(per_pod)
        kept = {r: q for r, q in per_pod.items() if not r.startswith(self.exclude_prefixes)}
        rules = {t.get("input"): t for t in self.transformations if isinstance(t, dict)}
        result: Requests = {}
        for resource, amount in kept.items():
            rule = rules.get(resource)
            if rule is None or rule.get("strategy", "Retain") == "Retain":
                result[resource] = result.get(resource, Fraction(0)) + amount
            if rule is not None:
                result = _transformed(result, rule, amount, kept)
        return result


def _transformed(result: Requests, rule: dict[str, Any], amount: Fraction, per_pod: Requests) -> Requests:
    """Add a transformation's outputs: ``amount`` × output factor (× the ``multiplyBy`` request)."""
    multiply_by = rule.get("multiplyBy")
    if isinstance(multiply_by, str) and multiply_by:
        amount = amount * per_pod.get(multiply_by, Fraction(0))
    outputs = rule.get("outputs")
    for name, factor in (outputs.items() if isinstance(outputs, dict) else ()):
        quantity = parse_quantity(factor)
        if quantity is not None:
            result[str(name)] = result.get(str(name), Fraction(0)) + amount * quantity
    return result


def resource_config(options: Any, graph: ObjectGraph | None = None) -> ResourceConfig:
    """The ResourceConfig of a rule's Options (``exclude_resource_prefixes``, ``transformations``);
    where they set neither, that of the Kueue manager's Configuration in ``graph``'s inputs
    (the platform model's ``kueue_resources``)."""
    prefixes = getattr(options, "exclude_resource_prefixes", ())
    transformations = getattr(options, "transformations", ())
    if not isinstance(prefixes, (list, tuple)):
        prefixes = ()
    if not isinstance(transformations, (list, tuple)):
        transformations = ()
    mirrored = tuple(p for p in prefixes if isinstance(p, str)), tuple(transformations)
    found = ResourceConfig(*mirrored, FROM_OPTIONS) if any(mirrored) else ResourceConfig()
    if graph is None:
        return found
    platform = platform_of(graph)
    written = platform.kueue_resources
    # IgnoreUndeclaredResources: the strategy and its gate (beta, on from 0.19); a gate that may be on counts
    ignore = written is not None and written.ignore_undeclared \
        and kueue_gate(platform, "QuotaCheckStrategy", 19) is not False
    if found.source or written is None:
        return replace(found, ignore_undeclared=ignore)
    return ResourceConfig(written.exclude_prefixes, written.transformations,
                          platform.sources.get("kueue.resources", ""), ignore)


def request_location(obj: K8sObject, pod_set: PodSet, resource: str) -> Location | None:
    """Where ``obj`` writes the request (or limit) of ``resource`` for this pod set, if it does."""
    template = pod_set.template
    per_node = resources_per_node(template)
    if template.generated and template.via is obj and per_node:  # the trainer step of a TrainJob alone
        for key in ("requests", "limits"):
            if resource in resource_list(per_node, key):
                return obj.at(*RESOURCES_PER_NODE_PATH, key, resource)
    for container, resources in effective_resources(template):
        for key in ("requests", "limits"):
            if resource not in resource_list(resources, key):
                continue
            if per_node and resources is per_node and template.via is obj:
                return obj.at(*RESOURCES_PER_NODE_PATH, key, resource)
            if template.owner is obj:
                return obj.at(*template.spec_path, *container.path, "resources", key, resource)
    return None


COUNT_KEYS = ("parallelism", "replicas", "size", "numNodes")


def count_location(obj: K8sObject, pod_set: PodSet, whole: bool = False) -> Location | None:
    """Where ``obj`` writes the pod count of this pod set (Job parallelism, replica-spec
    replicas, LeaderWorkerSet size, TrainJob numNodes, ...), when it is above 1; with
    ``whole``, the count of the whole object (a Deployment's or LeaderWorkerSet's replicas)."""
    template = pod_set.template
    if (pod_set.all_pods if whole else pod_set.count) <= 1:
        return None
    if whole and pod_set.all_pods != pod_set.count and above_one(obj.get("spec", "replicas")):
        return obj.at("spec", "replicas")
    if template.via is obj and above_one(obj.get("spec", "trainer", "numNodes")):
        return obj.at("spec", "trainer", "numNodes")
    if template.owner is not obj:
        return None
    for depth in range(1, 4):  # the template's parent, then the enclosing specs
        parent = template.path[:-depth]
        for key in COUNT_KEYS:
            if above_one(obj.get(*parent, key)):
                return obj.at(*parent, key)
    return None


def unrendered_request(unit: ManagedWorkload) -> str | None:
    """The first request or limit of ``unit``'s pods that holds an envsubst placeholder (``cpu:
    ${CPU}``): a template's, whose amount is known once it is rendered. None when there is none.
    Read where the pods' requests are (``effective_resources``, pod-level ``resources`` and
    ``overhead``; a TrainJob without a readable runtime: its ``resourcesPerNode``)."""
    places: list[Any] = []
    for template in unit.templates:
        places += [resources for _, resources in effective_resources(template)]
        places += [template.spec.get("resources"), {"requests": template.spec.get("overhead")}]
    if not unit.templates:
        places.append(unit.obj.get(*RESOURCES_PER_NODE_PATH))
    for resources in places:
        for key in ("requests", "limits"):
            for amount in resource_list(resources, key).values():
                if holds_placeholder(amount):
                    return str(amount)
    return None
