"""Where each workload kind keeps its pod templates and how many pods each yields
(workloads.md). Each extractor gets (owner, base, data, graph): ``data`` is the object (or an
object embedded in ``owner`` at ``base``, for AppWrapper components); paths are built on ``base``."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kqlint.domain.objects import dig, mapping_at
from kqlint.domain.workloads.templates import (
    KUBEFLOW_REPLICA_KEYS,
    MAX_INT32,
    REPLICA_DEFAULTS,
    PodTemplate,
    ReplicaSpec,
    as_count,
    bare_template,
    full_template,
    job_pods,
    mappings_at,
    name_of,
)

if TYPE_CHECKING:
    from kqlint.domain.graph import ObjectGraph
    from kqlint.domain.objects import K8sObject

def pod(owner: K8sObject, base: tuple[Any, ...], data: dict[str, Any], graph: ObjectGraph | None) -> list[PodTemplate]:
    return [full_template(owner, "pod", base, 1)]


def job(owner: K8sObject, base: tuple[Any, ...], data: dict[str, Any], graph: ObjectGraph | None) -> list[PodTemplate]:
    return [full_template(owner, "template", base + ("spec", "template"), job_pods(mapping_at(data, ("spec",))))]


def cronjob(owner: K8sObject, base: tuple[Any, ...], data: dict[str, Any],
            graph: ObjectGraph | None) -> list[PodTemplate]:
    job_spec = mapping_at(data, ("spec", "jobTemplate", "spec"))
    return [full_template(owner, "template", base + ("spec", "jobTemplate", "spec", "template"), job_pods(job_spec))]


def replicated(owner: K8sObject, base: tuple[Any, ...], data: dict[str, Any],
               graph: ObjectGraph | None) -> list[PodTemplate]:
    pods = as_count(dig(data, ("spec", "replicas")), 1)
    return [full_template(owner, "template", base + ("spec", "template"), pods)]


def daemonset(owner: K8sObject, base: tuple[Any, ...], data: dict[str, Any],
              graph: ObjectGraph | None) -> list[PodTemplate]:
    return [full_template(owner, "template", base + ("spec", "template"), 1)]


def jobset(owner: K8sObject, base: tuple[Any, ...], data: dict[str, Any],
           graph: ObjectGraph | None) -> list[PodTemplate]:
    return _replicated_jobs(owner, base + ("spec",), mapping_at(data, ("spec",)))


def _replicated_jobs(owner: K8sObject, base: tuple[Any, ...], jobset_spec: dict[str, Any]
                     ) -> list[PodTemplate]:
    """Templates of a JobSet spec at ``base`` (``replicas`` × Job pods per replicatedJob)."""
    found = []
    for index, rjob in mappings_at(jobset_spec, ("replicatedJobs",)):
        pods = as_count(rjob.get("replicas"), 1) * job_pods(mapping_at(rjob, ("template", "spec")))
        path = base + ("replicatedJobs", index, "template", "spec", "template")
        found.append(full_template(owner, f"replicatedJobs[{name_of(rjob, index)}]", path, pods))
    return found


def kubeflow(owner: K8sObject, base: tuple[Any, ...], data: dict[str, Any],
             graph: ObjectGraph | None) -> list[PodTemplate]:
    return [full_template(owner, spec.role, spec.path + ("template",), spec.replicas)
            for spec in kubeflow_replica_specs(str(data.get("kind") or ""), data, base)]


def kubeflow_replica_specs(kind: str, data: dict[str, Any], base: tuple[Any, ...]) -> list[ReplicaSpec]:
    key = KUBEFLOW_REPLICA_KEYS.get(kind)
    specs = mapping_at(data, ("spec", key)) if key else {}
    found = []
    for role, spec in specs.items():
        if not isinstance(spec, dict):
            continue
        raw = spec.get("replicas")
        default = REPLICA_DEFAULTS.get((kind, str(role)), 1)
        found.append(ReplicaSpec(str(role), base + ("spec", key, role), raw, "replicas" in spec,
                                 as_count(raw, default)))
    return found


def lws(owner: K8sObject, base: tuple[Any, ...], data: dict[str, Any], graph: ObjectGraph | None) -> list[PodTemplate]:
    spec = mapping_at(data, ("spec",))
    groups = as_count(spec.get("replicas"), 1)
    size = max(as_count(dig(spec, ("leaderWorkerTemplate", "size")), 1), 1)
    lwt = base + ("spec", "leaderWorkerTemplate")
    if isinstance(dig(spec, ("leaderWorkerTemplate", "leaderTemplate")), dict):
        return [full_template(owner, "leader", lwt + ("leaderTemplate",), groups),
                full_template(owner, "worker", lwt + ("workerTemplate",), groups * (size - 1))]
    return [full_template(owner, "worker", lwt + ("workerTemplate",), groups * size)]


def llm_group_size(parallelism: Any) -> int:
    """LWS size from an LLMInferenceService ``parallelism`` (KServe ``GetSize``)."""
    par = parallelism if isinstance(parallelism, dict) else {}
    data, local = as_count(par.get("data"), 0), as_count(par.get("dataLocal"), 0)
    if data > 0 or local > 0:
        return max(max(data, 1) // max(local, 1), 1)
    pipeline = as_count(par.get("pipeline"), 0)
    return pipeline if pipeline > 0 else 1


def _llm_part(owner: K8sObject, spec_path: tuple[Any, ...], part: dict[str, Any],
              prefix: str) -> list[PodTemplate]:
    """One decode or prefill workload: a Deployment (template) or an LWS (template + worker).
    Its pod labels/annotations are the part's own ``labels``/``annotations`` (meta = the part)."""
    meta = spec_path
    replicas = as_count(part.get("replicas"), 1)
    has_template = isinstance(part.get("template"), dict)
    found = []
    if has_template:
        found.append(bare_template(owner, f"{prefix}template", spec_path + ("template",), meta, replicas))
    if not isinstance(part.get("worker"), dict):
        return found
    size = llm_group_size(part.get("parallelism"))
    worker_pods = replicas * (size - 1) if has_template else replicas * size
    return found + [bare_template(owner, f"{prefix}worker", spec_path + ("worker",), meta, worker_pods)]


def llmisvc(owner: K8sObject, base: tuple[Any, ...], data: dict[str, Any],
            graph: ObjectGraph | None) -> list[PodTemplate]:
    spec = mapping_at(data, ("spec",))
    found = _llm_part(owner, base + ("spec",), spec, "")
    prefill = spec.get("prefill")
    if isinstance(prefill, dict):
        found += _llm_part(owner, base + ("spec", "prefill"), prefill, "prefill.")
    return found


def _dgd_pods(component: dict[str, Any]) -> int:
    replicas = as_count(component.get("replicas"), 1)
    multinode = component.get("multinode")
    if isinstance(multinode, dict):
        return replicas * max(as_count(multinode.get("nodeCount"), 2), 1)
    return replicas


def dgd(owner: K8sObject, base: tuple[Any, ...], data: dict[str, Any], graph: ObjectGraph | None) -> list[PodTemplate]:
    found = []
    services = dig(data, ("spec", "services"))
    for name, svc in (services.items() if isinstance(services, dict) else ()):
        if isinstance(svc, dict):
            path = base + ("spec", "services", name)
            found.append(bare_template(owner, str(name), path + ("extraPodSpec",), path + ("extraPodMetadata",),
                               _dgd_pods(svc)))
    for index, comp in mappings_at(data, ("spec", "components")):
        found.append(full_template(owner, name_of(comp, index), base + ("spec", "components", index, "podTemplate"),
                           _dgd_pods(comp)))
    return found


def ray_group_pods(group: Any) -> int:
    """Pods of a Ray worker group: replicas held in [minReplicas, maxReplicas] × numOfHosts."""
    if not isinstance(group, dict) or group.get("suspend") is True:
        return 0
    low = as_count(group.get("minReplicas"), 0)
    high = as_count(group.get("maxReplicas"), MAX_INT32)
    replicas = min(max(as_count(group.get("replicas"), 0), low), high)
    return replicas * max(as_count(group.get("numOfHosts"), 1), 1)


def _ray_cluster_spec(owner: K8sObject, base: tuple[Any, ...], spec: dict[str, Any]) -> list[PodTemplate]:
    found = []
    if isinstance(spec.get("headGroupSpec"), dict):
        found.append(full_template(owner, "head", base + ("headGroupSpec", "template"), 1))
    for index, group in mappings_at(spec, ("workerGroupSpecs",)):
        role = f"workerGroupSpecs[{name_of(group, index, 'groupName')}]"
        found.append(full_template(owner, role, base + ("workerGroupSpecs", index, "template"), ray_group_pods(group)))
    return found


def raycluster(owner: K8sObject, base: tuple[Any, ...], data: dict[str, Any],
               graph: ObjectGraph | None) -> list[PodTemplate]:
    return _ray_cluster_spec(owner, base + ("spec",), mapping_at(data, ("spec",)))


def rayservice(owner: K8sObject, base: tuple[Any, ...], data: dict[str, Any],
               graph: ObjectGraph | None) -> list[PodTemplate]:
    return _ray_cluster_spec(owner, base + ("spec", "rayClusterConfig"), mapping_at(data, ("spec", "rayClusterConfig")))


def rayjob(owner: K8sObject, base: tuple[Any, ...], data: dict[str, Any],
           graph: ObjectGraph | None) -> list[PodTemplate]:
    spec = mapping_at(data, ("spec",))
    found: list[PodTemplate] = []
    if not spec.get("clusterSelector"):
        found += _ray_cluster_spec(owner, base + ("spec", "rayClusterSpec"), mapping_at(spec, ("rayClusterSpec",)))
    if (spec.get("submissionMode") or "K8sJobMode") == "K8sJobMode":
        written = isinstance(spec.get("submitterPodTemplate"), dict)
        found.append(full_template(owner, "submitter", base + ("spec", "submitterPodTemplate"), 1, not written))
    return found


def volcano_job(owner: K8sObject, base: tuple[Any, ...], data: dict[str, Any],
                graph: ObjectGraph | None) -> list[PodTemplate]:
    return [full_template(owner, f"tasks[{name_of(task, index)}]", base + ("spec", "tasks", index, "template"),
                  as_count(task.get("replicas"), 0))
            for index, task in mappings_at(data, ("spec", "tasks"))]
