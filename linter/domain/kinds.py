"""Kind identities: every API group and (group, kind) pair kqlint knows, stated once.

A ``GroupKind`` is a named pair, so it equals and hashes like the plain ``(group, kind)``
tuple: ``(obj.group, obj.kind) in {JOB, JOBSET}`` and dictionaries keyed by pairs keep working.
Rules and domain modules import these names; no module spells a group literal of its own.
"""
from __future__ import annotations

from typing import NamedTuple, Protocol


class _Typed(Protocol):
    @property
    def group(self) -> str: ...
    @property
    def kind(self) -> str: ...


class GroupKind(NamedTuple):
    """An object's identity without its version: ``("kueue.x-k8s.io", "ClusterQueue")``."""

    group: str
    kind: str

    def of(self, obj: _Typed) -> bool:
        """``obj`` is of this kind (same API group and kind name)."""
        return obj.kind == self.kind and obj.group == self.group


def group_kind(obj: _Typed) -> GroupKind:
    return GroupKind(obj.group, obj.kind)


# ------------------------------------------------------------------ API groups
CORE_GROUP = ""
APPS_GROUP = "apps"
BATCH_GROUP = "batch"
SCHEDULING_GROUP = "scheduling.k8s.io"          # PriorityClass; also Volcano's group-name key prefix
KUEUE_GROUP = "kueue.x-k8s.io"
JOBSET_GROUP = "jobset.x-k8s.io"
LWS_GROUP = "leaderworkerset.x-k8s.io"
KUBEFLOW_GROUP = "kubeflow.org"
TRAINER_GROUP = "trainer.kubeflow.org"
RAY_GROUP = "ray.io"
APPWRAPPER_GROUP = "workload.codeflare.dev"
KSERVE_GROUP = "serving.kserve.io"
NVIDIA_GROUP = "nvidia.com"
VOLCANO_GROUP = "scheduling.volcano.sh"
VOLCANO_BATCH_GROUP = "batch.volcano.sh"
VOLCANO_TOPOLOGY_GROUP = "topology.volcano.sh"
KAI_GROUP = "scheduling.run.ai"                 # KAI PodGroup and Queue
KAI_CONFIG_GROUP = "kai.scheduler"
COSCHEDULING_GROUP = "scheduling.x-k8s.io"      # scheduler-plugins coscheduling
APIEXTENSIONS_GROUP = "apiextensions.k8s.io"

# ------------------------------------------------------------------ core and apps
POD = GroupKind(CORE_GROUP, "Pod")
NAMESPACE = GroupKind(CORE_GROUP, "Namespace")
DEPLOYMENT = GroupKind(APPS_GROUP, "Deployment")
STATEFULSET = GroupKind(APPS_GROUP, "StatefulSet")
REPLICASET = GroupKind(APPS_GROUP, "ReplicaSet")
DAEMONSET = GroupKind(APPS_GROUP, "DaemonSet")
JOB = GroupKind(BATCH_GROUP, "Job")
CRONJOB = GroupKind(BATCH_GROUP, "CronJob")
PRIORITY_CLASS = GroupKind(SCHEDULING_GROUP, "PriorityClass")
CRD = GroupKind(APIEXTENSIONS_GROUP, "CustomResourceDefinition")

# ------------------------------------------------------------------ Kueue
LOCAL_QUEUE = GroupKind(KUEUE_GROUP, "LocalQueue")
CLUSTER_QUEUE = GroupKind(KUEUE_GROUP, "ClusterQueue")
RESOURCE_FLAVOR = GroupKind(KUEUE_GROUP, "ResourceFlavor")
COHORT = GroupKind(KUEUE_GROUP, "Cohort")
WORKLOAD_PRIORITY_CLASS = GroupKind(KUEUE_GROUP, "WorkloadPriorityClass")

# ------------------------------------------------------------------ workloads
JOBSET = GroupKind(JOBSET_GROUP, "JobSet")
LWS = GroupKind(LWS_GROUP, "LeaderWorkerSet")
PYTORCHJOB = GroupKind(KUBEFLOW_GROUP, "PyTorchJob")
TFJOB = GroupKind(KUBEFLOW_GROUP, "TFJob")
XGBOOSTJOB = GroupKind(KUBEFLOW_GROUP, "XGBoostJob")
PADDLEJOB = GroupKind(KUBEFLOW_GROUP, "PaddleJob")
JAXJOB = GroupKind(KUBEFLOW_GROUP, "JAXJob")
MPIJOB = GroupKind(KUBEFLOW_GROUP, "MPIJob")
TRAINJOB = GroupKind(TRAINER_GROUP, "TrainJob")
TRAINING_RUNTIME = GroupKind(TRAINER_GROUP, "TrainingRuntime")
CLUSTER_TRAINING_RUNTIME = GroupKind(TRAINER_GROUP, "ClusterTrainingRuntime")
RAYJOB = GroupKind(RAY_GROUP, "RayJob")
RAYCLUSTER = GroupKind(RAY_GROUP, "RayCluster")
RAYSERVICE = GroupKind(RAY_GROUP, "RayService")
APPWRAPPER = GroupKind(APPWRAPPER_GROUP, "AppWrapper")
LLMISVC = GroupKind(KSERVE_GROUP, "LLMInferenceService")
DGD = GroupKind(NVIDIA_GROUP, "DynamoGraphDeployment")
DCD = GroupKind(NVIDIA_GROUP, "DynamoComponentDeployment")

# ------------------------------------------------------------------ gang schedulers
VOLCANO_PODGROUP = GroupKind(VOLCANO_GROUP, "PodGroup")
VOLCANO_QUEUE = GroupKind(VOLCANO_GROUP, "Queue")
VOLCANO_JOB = GroupKind(VOLCANO_BATCH_GROUP, "Job")
KAI_PODGROUP = GroupKind(KAI_GROUP, "PodGroup")
KAI_QUEUE = GroupKind(KAI_GROUP, "Queue")
COSCHEDULING_PODGROUP = GroupKind(COSCHEDULING_GROUP, "PodGroup")   # v1alpha1, spec.minMember
POD_GROUPS = frozenset({VOLCANO_PODGROUP, KAI_PODGROUP, COSCHEDULING_PODGROUP})

KUBEFLOW_JOBS = (PYTORCHJOB, TFJOB, XGBOOSTJOB, PADDLEJOB, JAXJOB, MPIJOB)
RUNTIMES = (CLUSTER_TRAINING_RUNTIME, TRAINING_RUNTIME)

# Kinds whose objects live outside namespaces. Unknown kinds are namespaced.
CLUSTER_SCOPED: frozenset[GroupKind] = frozenset({
    NAMESPACE, GroupKind(CORE_GROUP, "Node"), GroupKind(CORE_GROUP, "PersistentVolume"),
    PRIORITY_CLASS, CLUSTER_QUEUE, RESOURCE_FLAVOR, WORKLOAD_PRIORITY_CLASS, COHORT,
    *(GroupKind(KUEUE_GROUP, kind) for kind in (
        "AdmissionCheck", "Topology", "MultiKueueCluster", "MultiKueueConfig", "ProvisioningRequestConfig")),
    CLUSTER_TRAINING_RUNTIME, VOLCANO_QUEUE, KAI_QUEUE,
    GroupKind(VOLCANO_TOPOLOGY_GROUP, "HyperNode"),
    *(GroupKind(KAI_CONFIG_GROUP, kind) for kind in ("Topology", "SchedulingShard", "Config")),
    CRD,
    GroupKind("rbac.authorization.k8s.io", "ClusterRole"), GroupKind("rbac.authorization.k8s.io", "ClusterRoleBinding"),
    GroupKind("storage.k8s.io", "StorageClass"), GroupKind("storage.k8s.io", "CSIDriver"),
    GroupKind("storage.k8s.io", "VolumeAttachment"), GroupKind("node.k8s.io", "RuntimeClass"),
    GroupKind("networking.k8s.io", "IngressClass"), GroupKind("apiregistration.k8s.io", "APIService"),
    *(GroupKind("admissionregistration.k8s.io", kind) for kind in (
        "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration",
        "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding")),
    GroupKind("cert-manager.io", "ClusterIssuer"),
})

# Default apiVersion for objects declared by kind name only (config `external`, profiles).
DECLARED_API_VERSIONS: dict[str, str] = {
    "PriorityClass": f"{SCHEDULING_GROUP}/v1",
    "WorkloadPriorityClass": f"{KUEUE_GROUP}/v1beta2",
    "ClusterQueue": f"{KUEUE_GROUP}/v1beta2",
    "LocalQueue": f"{KUEUE_GROUP}/v1beta2",
    "ResourceFlavor": f"{KUEUE_GROUP}/v1beta2",
    "Cohort": f"{KUEUE_GROUP}/v1beta2",
    **{kind: f"{KUEUE_GROUP}/v1beta2" for kind in (
        "AdmissionCheck", "Topology", "ProvisioningRequestConfig", "MultiKueueConfig", "MultiKueueCluster")},
    "Namespace": "v1",
    "PodGroup": f"{VOLCANO_GROUP}/v1beta1",
    "ClusterTrainingRuntime": f"{TRAINER_GROUP}/v1alpha1",
    "TrainingRuntime": f"{TRAINER_GROUP}/v1alpha1",
}
