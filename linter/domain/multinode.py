"""Which pods form one job across nodes, and which pods already use another network fabric.

KQ401's two questions (rules.md KQ401; README "Platform model"). Decided per pod template:

One job across nodes (the pods talk to each other over the fabric while they run):
- always, when the workload runs more than one pod: Kubeflow jobs (PyTorchJob, TFJob,
  XGBoostJob, PaddleJob, JAXJob, MPIJob), TrainJob and its (Cluster)TrainingRuntime, JobSet,
  Volcano Job, RayJob and RayCluster (one Ray cluster);
- per group: a LeaderWorkerSet whose group has more than one pod (`size` > 1); the multi-node
  part of an LLMInferenceService (a `worker` with a group of more than one pod); a
  DynamoGraphDeployment component with a `multinode` block;
- Job, CronJob, StatefulSet, ReplicaSet and Pod only when their pods join a gang: a PodGroup
  named by a template annotation or label (Volcano, KAI, coscheduling), or a gang size above 1
  on the owner (`kai.scheduler/batch-min-member`, `scheduling.volcano.sh/group-min-member`);
  otherwise their pods are independent (a Job of work items, replicas of a server);
- never: Deployment (inference replicas), DaemonSet, RayService (serving replicas), the
  single-node parts of LLMInferenceService and DynamoGraphDeployment.
- AppWrapper: each component as the kind it wraps.

Another fabric: a container requests `vpc.amazonaws.com/efa` (AWS EFA), an `rdma/...` device
(RDMA shared device plugin) or a GKE multi-network `networking.gke.io.networks/...` resource,
or the pod carries GKE's multi-network annotations `networking.gke.io/interfaces` /
`networking.gke.io/default-interface`.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kqlint.domain.objects import dig, split_api_version
from kqlint.domain.podspec import effective_resources, resource_list
from kqlint.domain.workloads import (
    KAI_BATCH_MIN_MEMBER_ANNOTATION,
    KUBEFLOW_GROUP,
    KUBEFLOW_REPLICA_KEYS,
    RUNTIME_KINDS,
    TRAINER_GROUP,
    VOLCANO_JOB,
    VOLCANO_MIN_MEMBER_ANNOTATION,
    PodTemplate,
    as_count,
    llm_group_size,
    pod_group_refs,
    pod_owner_annotations,
    total_pods,
)

if TYPE_CHECKING:
    from kqlint.domain.graph import ObjectGraph
    from kqlint.domain.objects import K8sObject

DISTRIBUTED = frozenset({*((KUBEFLOW_GROUP, kind) for kind in KUBEFLOW_REPLICA_KEYS),
                         *((TRAINER_GROUP, kind) for kind in ("TrainJob", *RUNTIME_KINDS)),
                         ("jobset.x-k8s.io", "JobSet"), VOLCANO_JOB, ("ray.io", "RayJob"),
                         ("ray.io", "RayCluster")})
GANG_JOINED = frozenset({("batch", "Job"), ("batch", "CronJob"), ("apps", "StatefulSet"),
                         ("apps", "ReplicaSet"), ("", "Pod")})
LWS = ("leaderworkerset.x-k8s.io", "LeaderWorkerSet")
LLMISVC = ("serving.kserve.io", "LLMInferenceService")
DGD = ("nvidia.com", "DynamoGraphDeployment")
APPWRAPPER = ("workload.codeflare.dev", "AppWrapper")

OTHER_FABRIC_RESOURCES = ("vpc.amazonaws.com/efa",)
OTHER_FABRIC_PREFIXES = ("rdma/", "networking.gke.io.networks/")
GKE_NETWORK_ANNOTATIONS = ("networking.gke.io/interfaces", "networking.gke.io/default-interface")


def spans_nodes(template: PodTemplate, graph: ObjectGraph) -> bool:
    """Whether the template's pods are part of one job across nodes (see the module doc)."""
    owner = template.owner
    kind = (owner.group, owner.kind)
    if kind == APPWRAPPER:
        return _wrapped_spans_nodes(template, graph)
    if kind in DISTRIBUTED:
        return total_pods(template.workload, graph) > 1
    if kind == LWS:
        return as_count(owner.get("spec", "leaderWorkerTemplate", "size"), 1) > 1
    if kind == LLMISVC:
        part = owner.get(*template.path[:-1])
        return isinstance(part, dict) and isinstance(part.get("worker"), dict) \
            and llm_group_size(part.get("parallelism")) > 1
    if kind == DGD:
        component = owner.get(*template.path[:-1])
        return isinstance(component, dict) and isinstance(component.get("multinode"), dict)
    if kind in GANG_JOINED:
        return joins_gang(template, owner)
    return False


def joins_gang(template: PodTemplate, owner: K8sObject) -> bool:
    """The template's pods join a gang of several pods (a named PodGroup, or a gang size > 1)."""
    return bool(pod_group_refs(template)) or _gang_size(pod_owner_annotations(owner)) > 1


def _gang_size(annotations: Any) -> int:
    """The largest gang size an owner annotation asks for (0 when none)."""
    if not isinstance(annotations, dict):
        return 0
    sizes = [str(annotations.get(key)).strip()
             for key in (KAI_BATCH_MIN_MEMBER_ANNOTATION, VOLCANO_MIN_MEMBER_ANNOTATION)]
    return max((int(text) for text in sizes if text.isdigit()), default=0)


def _wrapped_spans_nodes(template: PodTemplate, graph: ObjectGraph) -> bool:
    """An AppWrapper component judged as the kind it wraps (``spec.components[i].template``)."""
    path = template.path
    if len(path) < 4 or path[:2] != ("spec", "components"):
        return False
    inner = template.owner.get(*path[:3], "template")
    if not isinstance(inner, dict):
        return False
    group, _ = split_api_version(str(inner.get("apiVersion") or ""))
    kind = (group, str(inner.get("kind") or ""))
    if kind in DISTRIBUTED:
        return total_pods(template.owner, graph) > 1
    if kind == LWS:
        return as_count(dig(inner, ("spec", "leaderWorkerTemplate", "size")), 1) > 1
    if kind in GANG_JOINED:
        return bool(pod_group_refs(template)) or _gang_size(dig(inner, ("metadata", "annotations"))) > 1
    return False


def other_fabric(template: PodTemplate, nic: str) -> str | None:
    """The other network fabric the pod already uses (a resource or annotation), if any."""
    for _, resources in effective_resources(template):
        for key in ("requests", "limits"):
            for name in resource_list(resources, key):
                if is_other_fabric(name, nic):
                    return str(name)
    annotations = template.annotations
    return next((f"annotation {key}" for key in GKE_NETWORK_ANNOTATIONS if key in annotations), None)


def is_other_fabric(name: Any, nic: str) -> bool:
    return isinstance(name, str) and name != nic and (
        name in OTHER_FABRIC_RESOURCES or name.startswith(OTHER_FABRIC_PREFIXES))
