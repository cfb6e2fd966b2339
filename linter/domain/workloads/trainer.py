"""Trainer v2: a TrainJob runs the pod templates of the (Cluster)TrainingRuntime its
``spec.runtimeRef`` names, with ``numNodes`` and ``resourcesPerNode`` from the TrainJob."""
from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from kqlint.domain import kinds as K
from kqlint.domain.fields import integer
from kqlint.domain.kinds import TRAINER_GROUP
from kqlint.domain.objects import dig, mapping_at
from kqlint.domain.workloads.templates import PodTemplate, as_count, job_pods, mappings_at, name_of

if TYPE_CHECKING:
    from kqlint.domain.graph import ObjectGraph
    from kqlint.domain.objects import K8sObject

RUNTIME_KINDS = tuple(runtime.kind for runtime in K.RUNTIMES)
TRAINER_ANCESTOR_LABEL = "trainer.kubeflow.org/trainjob-ancestor-step"
TRAINER_NODE_CONTAINER = "node"          # the container `resourcesPerNode` applies to
RESOURCES_PER_NODE_PATH = ("spec", "trainer", "resourcesPerNode")
RUNTIME_REF_PATH = ("spec", "runtimeRef")
RUNTIME_PATCHES_PATH = ("spec", "runtimePatches")


def training_runtime(trainjob: K8sObject, graph: ObjectGraph | None) -> K8sObject | None:
    """The (Cluster)TrainingRuntime a TrainJob's ``spec.runtimeRef`` names, if resolvable."""
    ref = trainjob.get(*RUNTIME_REF_PATH)
    if graph is None or not isinstance(ref, dict):
        return None
    kind = ref.get("kind") or "ClusterTrainingRuntime"
    group = ref.get("apiGroup") or TRAINER_GROUP
    if kind not in RUNTIME_KINDS:
        return None
    return graph.resolve(kind, ref.get("name"), trainjob.namespace, group)


def _trainer_step_pods(rjob: dict[str, Any], ml_policy: Any, num_nodes: int | None) -> int | None:
    """Pods of a runtime's trainer step, or None when the Job's own parallelism applies."""
    labels = mapping_at(rjob, ("template", "metadata", "labels"))
    if labels.get(TRAINER_ANCESTOR_LABEL) != "trainer":
        return None
    if num_nodes is None:
        if not isinstance(ml_policy, dict):
            return None
        num_nodes = as_count(ml_policy.get("numNodes"), 1)
    if dig(ml_policy, ("mpi", "runLauncherAsNode")) is True:
        return max(num_nodes - 1, 1)
    return num_nodes


def _runtime_templates(runtime: K8sObject, num_nodes: int | None = None,
                       via: K8sObject | None = None) -> list[PodTemplate]:
    ml_policy = runtime.get("spec", "mlPolicy")
    base = ("spec", "template", "spec")
    found = []
    for index, rjob in mappings_at(runtime.data, base + ("replicatedJobs",)):
        step = _trainer_step_pods(rjob, ml_policy, num_nodes)
        pods = step if step is not None else job_pods(mapping_at(rjob, ("template", "spec")))
        path = base + ("replicatedJobs", index, "template", "spec", "template")
        found.append(PodTemplate(runtime, f"replicatedJobs[{name_of(rjob, index)}]", path, path + ("spec",),
                                 path + ("metadata",), pods, via=via, trainer_step=step is not None))
    return found


def runtime(owner: K8sObject, base: tuple[Any, ...], data: dict[str, Any],
            graph: ObjectGraph | None) -> list[PodTemplate]:
    return _runtime_templates(owner) if not base else []


def trainjob(owner: K8sObject, base: tuple[Any, ...], data: dict[str, Any],
             graph: ObjectGraph | None) -> list[PodTemplate]:
    runtime = training_runtime(owner, graph) if not base else None
    if runtime is None:
        return []
    return _runtime_templates(runtime, trainer_num_nodes(owner), via=owner)


def trainer_num_nodes(trainjob: K8sObject) -> int | None:
    """A TrainJob's ``spec.trainer.numNodes``: the trainer step's pod count, overriding the
    runtime's ``mlPolicy.numNodes`` (known even when the runtime is not); None when unset."""
    value = integer(trainjob.get("spec", "trainer", "numNodes"))
    return max(value, 0) if value is not None else None


def resources_per_node(template: PodTemplate) -> dict[str, Any]:
    """The TrainJob ``spec.trainer.resourcesPerNode`` that applies to ``template``'s container
    named ``node`` (empty unless the template is a TrainJob's trainer step)."""
    if not template.trainer_step or template.via is None:
        return {}
    value = template.via.get(*RESOURCES_PER_NODE_PATH)
    return value if isinstance(value, dict) else {}


def runtime_patch_metadata(trainjob: K8sObject) -> Iterator[tuple[tuple[Any, ...], dict[str, Any]]]:
    """(path, mapping) of every metadata a TrainJob's ``spec.runtimePatches`` writes onto its
    runtime (Trainer v2.2 on, workloads.md section 4): the JobSet template's, and per
    replicatedJob its Job template's and its pod template's. Their labels and annotations reach
    the JobSet, the Jobs and the pods as if the runtime carried them."""
    for index, _ in mappings_at(trainjob.data, RUNTIME_PATCHES_PATH):
        template = RUNTIME_PATCHES_PATH + (index, "trainingRuntimeSpec", "template")
        paths: list[tuple[Any, ...]] = [template + ("metadata",)]
        for job, _ in mappings_at(trainjob.data, template + ("spec", "replicatedJobs")):
            job_template = template + ("spec", "replicatedJobs", job, "template")
            paths += [job_template + ("metadata",), job_template + ("spec", "template", "metadata")]
        for path in paths:
            metadata = dig(trainjob.data, path)
            if isinstance(metadata, dict):
                yield path, metadata
