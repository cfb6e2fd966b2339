"""Facts about the Kueue manager ``Configuration`` per release (kueue.md B28), extracted from Kueue's
source at the heads of the release-0.9 ... release-0.19 branches and ``main`` (kueue ff69552e):
the keys each API version has (``apis/config/v1beta{1,2}/configuration_types.go``, JSON tags, the
union over releases, so a key is unknown only when no release has it), the framework names
(``FrameworkName`` constants in ``pkg/controller/jobs/**``) and the feature gates
(``pkg/features/kube_features.go``) each minor release knows. Data only; read by
kqlint.domain.kueue_config_checks.

Leaf types: "str", "bool", "int", "num" (int or float), "dur" (a Go duration string), "strs"
and "ints" (lists), "boolmap"/"intmap" (string keys), "any" (a type kqlint does not check:
Kubernetes' own, such as a LabelSelector). A list of one tree is a list of such objects.
"""
from __future__ import annotations

from typing import Any

Tree = dict[str, Any]

V1BETA2: Tree = {
    "apiVersion": "str",
    "kind": "str",
    "namespace": "str",
    "webhook": {"port": "int", "host": "str", "certDir": "str"},
    "leaderElection": "any",
    "metrics": {
        "bindAddress": "str",
        "enableClusterQueueResources": "bool",
        "customLabels": [{
            "name": "str",
            "sourceLabelKey": "str",
            "sourceAnnotationKey": "str",
            "sourceKind": "str",
            "trackedValues": "strs",
        }],
        "localQueueMetrics": {"enable": "bool", "localQueueSelector": "any"},
    },
    "health": {
        "healthProbeBindAddress": "str",
        "readinessEndpointName": "str",
        "livenessEndpointName": "str",
    },
    "pprofBindAddress": "str",
    "controller": {"groupKindConcurrency": "intmap", "cacheSyncTimeout": "any"},
    "manageJobsWithoutQueueName": "bool",
    "managedJobsNamespaceSelector": "any",
    "internalCertManagement": {"enable": "bool", "webhookServiceName": "str", "webhookSecretName": "str"},
    "waitForPodsReady": {
        "timeout": "dur",
        "blockAdmission": "bool",
        "requeuingStrategy": {
            "timestamp": "str",
            "backoffLimitCount": "int",
            "backoffBaseSeconds": "int",
            "backoffMaxSeconds": "int",
        },
        "recoveryTimeout": "dur",
    },
    "clientConnection": {"qps": "num", "burst": "int"},
    "integrations": {
        "frameworks": "strs",
        "externalFrameworks": "strs",
        "labelKeysToCopy": "strs",
    },
    "multiKueue": {
        "gcInterval": "dur",
        "origin": "str",
        "workerLostTimeout": "dur",
        "dispatcherName": "str",
        "externalFrameworks": [{"name": "str"}],
        "clusterProfile": {
            "credentialsProviders": "any",
            "accessProviders": [{"name": "str", "execConfig": "any"}],
        },
        "incrementalDispatcherConfig": {"stepSize": "int"},
    },
    "fairSharing": {"preemptionStrategies": "strs"},
    "admissionFairSharing": {
        "usageHalfLifeTime": "dur",
        "usageSamplingInterval": "dur",
        "resourceWeights": "any",
    },
    "resources": {
        "excludeResourcePrefixes": "strs",
        "transformations": [{"input": "str", "strategy": "str", "outputs": "any", "multiplyBy": "str"}],
        "deviceClassMappings": [{
            "name": "str",
            "deviceClassNames": "strs",
            "sources": [{
                "counter": {"name": "str", "driver": "str", "deviceSelector": "any"},
                "capacity": {"name": "str", "driver": "str", "deviceSelector": "any"},
            }],
        }],
        "quotaCheckStrategy": "str",
    },
    "featureGates": "boolmap",
    "objectRetentionPolicies": {"workloads": {"afterFinished": "dur", "afterDeactivatedByKueue": "dur"}},
    "tls": {"minVersion": "str", "cipherSuites": "strs", "curvePreferences": "ints"},
    "visibilityServer": {"bindAddress": "str", "bindPort": "int"},
}

# v1beta1 is v1beta2 without the keys added after the split, with the keys v1beta2 dropped (B29)
V1BETA2_ONLY = ("metrics.customLabels.sourceKind", "metrics.customLabels.trackedValues", "multiKueue.clusterProfile",
                "multiKueue.incrementalDispatcherConfig", "resources.deviceClassMappings.sources",
                "resources.quotaCheckStrategy", "visibilityServer")
V1BETA1_ONLY: dict[str, Any] = {
    "waitForPodsReady.enable": "bool", "fairSharing.enable": "bool",
    "integrations.podOptions": {"namespaceSelector": "any", "podSelector": "any"},
    "queueVisibility": {"clusterQueues": {"maxCount": "int"}, "updateIntervalSeconds": "int"},
}


def _v1beta1() -> Tree:
    import copy

    tree: Tree = copy.deepcopy(V1BETA2)
    for dotted in V1BETA2_ONLY:
        *parents, last = dotted.split(".")
        _node(tree, parents).pop(last)
    for dotted, leaf in V1BETA1_ONLY.items():
        *parents, last = dotted.split(".")
        _node(tree, parents)[last] = leaf
    return tree


def _node(tree: Tree, path: list[str]) -> Tree:
    node: Any = tree
    for key in path:
        node = node[key]
        node = node[0] if isinstance(node, list) else node
    return node  # type: ignore[no-any-return]


V1BETA1: Tree = _v1beta1()

# (first minor, last minor or None while current): a release-0.X branch counts from its first patch
FRAMEWORKS: dict[str, tuple[int, int | None]] = {
    **dict.fromkeys(("batch/job", "deployment", "statefulset", "pod", "jobset.x-k8s.io/jobset",
                     "kubeflow.org/mpijob", "kubeflow.org/paddlejob", "kubeflow.org/pytorchjob", "kubeflow.org/tfjob",
                     "kubeflow.org/xgboostjob", "ray.io/raycluster", "ray.io/rayjob"), (9, None)),
    "kubeflow.org/mxjob": (9, 10),
    "leaderworkerset.x-k8s.io/leaderworkerset": (11, None), "workload.codeflare.dev/appwrapper": (11, None),
    "kubeflow.org/jaxjob": (12, None), "trainer.kubeflow.org/trainjob": (14, None),
    "ray.io/rayservice": (17, None), "sparkoperator.k8s.io/sparkapplication": (17, None),
}
# Built-in frameworks whose job type is the same Kind.version.group on every release (an
# ``externalFrameworks`` entry naming one duplicates it)
STABLE_FRAMEWORK_KINDS: dict[str, str] = {
    "batch/job": "Job.v1.batch", "deployment": "Deployment.v1.apps", "statefulset": "StatefulSet.v1.apps",
    **{f"kubeflow.org/{kind.lower()}": f"{kind}.v1.kubeflow.org"
       for kind in ("PyTorchJob", "TFJob", "XGBoostJob", "PaddleJob", "JAXJob")},
    **{f"ray.io/{kind.lower()}": f"{kind}.v1.ray.io" for kind in ("RayJob", "RayCluster", "RayService")},
    "leaderworkerset.x-k8s.io/leaderworkerset": "LeaderWorkerSet.v1.leaderworkerset.x-k8s.io"}

_GATES: tuple[tuple[tuple[int, int | None], str], ...] = (
    ((9, 11), "AdmissionCheckValidationRules KeepQuotaForProvReqRetry"),
    ((9, 12), "MultiplePreemptions WorkloadResourceRequestsSummary"),
    ((9, 13), "QueueVisibility"),
    ((9, 14), "ExposeFlavorsInLocalQueue ProvisioningACC"),
    ((9, 15), "ConfigurableResourceTransformations"),
    ((9, 18), "LendingLimit MultiKueueBatchJobWithManagedBy"),
    ((9, None), "FlavorFungibility MultiKueue PartialAdmission PrioritySortingWithinCohort "
               "TopologyAwareScheduling VisibilityOnDemand"),
    ((10, 14), "ManagedJobsNamespaceSelector"),
    ((10, 18), "LocalQueueDefaulting"),
    ((10, None), "LocalQueueMetrics"),
    ((11, 12), "TASProfileMostFreeCapacity"),
    ((11, 16), "TASProfileLeastFreeCapacity"),
    ((11, 19), "HierarchicalCohorts"),
    ((11, None), "TASProfileMixed"),
    ((12, 19), "ObjectRetentionPolicies"),
    ((12, None), "AdmissionFairSharing TASFailedNodeReplacement"),
    ((13, 16), "FlavorFungibilityImplicitPreferenceDefault"),
    ((13, 18), "SanitizePodSets"),
    ((13, 19), "MultiKueueAllowInsecureKubeconfigs PropagateBatchJobLabelsToWorkload"),
    ((13, None), "ElasticJobsViaWorkloadSlices ManagedJobsNamespaceSelectorAlwaysRespected "
               "ReclaimablePods TASFailedNodeReplacementFailFast TASReplaceNodeOnPodTermination"),
    ((14, 18), "DynamicResourceAllocation"),
    ((14, 19), "MultiKueueWaitForWorkloadAdmitted SkipFinalizersForPodsSuspendedByParent"),
    ((14, None), "MultiKueueAdaptersForCustomJobs WorkloadRequestUseMergePatch"),
    ((15, 19), "SchedulerLongRequeueInterval SchedulerTimestampPreemptionBuffer"),
    ((15, None), "FailureRecoveryPolicy FairSharingPreemptWithinNominal "
               "FairSharingPrioritizeNonBorrowing MultiKueueClusterProfile "
               "RemoveFinalizersWithStrictPatch SchedulingEquivalenceHashing ShortWorkloadNames "
               "TASBalancedPlacement TASReplaceNodeOnNodeTaints"),
    ((16, 19), "MultiKueueRedoAdmissionOnEvictionInWorker"),
    ((16, None), "FinishOrphanedWorkloads RejectUpdatesToCQWithInvalidOnFlavors "
               "TASHandleOverlappingFlavors TLSOptions"),
    ((17, 18), "DRAExtendedResources"),
    ((17, None), "AdmissionGatedBy AssignQueueLabelsForPods CleanupProvisioningRequestsOnEviction "
               "CustomMetricLabels DeferRayServiceFinalizationForRedisCleanup "
               "ElasticJobsViaWorkloadSlicesWithTAS FastQuotaReleaseInPodIntegration "
               "MultiKueueOrchestratedPreemption PriorityBoost "
               "SkipReassignmentForPodOwnedWorkloads SparkApplicationIntegration "
               "TASCacheNodeMatchResults TASCachingRemainingResources TASMultiLayerTopology "
               "TASRecomputeAssignmentWithinSchedulingCycle "
               "TASReplaceNodeDueToNotReadyOverFixedTime VectorizedResourceRequests "
               "WorkloadIdentifierAnnotations"),
    ((18, None), "ConcurrentAdmission FlavorFungibilityPreserveScanProgress KueueDRAIntegration "
               "KueueDRAIntegrationExtendedResource KueueDRAIntegrationPartitionableDevices "
               "KueueDRARejectWorkloadsWhenDRADisabled LWSImmutableGroupSize "
               "MetricForWorkloadCreationLatency MetricsForCohorts "
               "MultiKueueManagerQuotaAutomation MultiKueueRemoteSpecSync "
               "PodIntegrationValidateGroupOwner PrioritizePreemptorWorkloads QuotaCheckStrategy "
               "RecomputeAssignmentUponPreemptionTargetsOverlap "
               "SkipAncestorCheckForDeletedWorkloads TASCacheTopologyTree "
               "TASRespectNodeAffinityPreferred TASValidateWorkloadSliceSize "
               "UnadmittedWorkloadsExplicitStatus UnadmittedWorkloadsObservability "
               "ValidateRayAndSparkJobUpdates WorkloadPriorityClassDefaulting "
               "WorkloadValidateResourcesAreNonNegative WorkloadValidationForPodSetMetadata"),
    ((19, None), "DisableWaitForPodsReady KueueDRAIntegrationConsumableCapacity "
               "MultiKueueIncrementalDispatcherConfig "
               "MultiKueueIncrementalDispatcherRespectConfigOrder "
               "MultiKueueKubeConfigPathValidation SchedulerLibraryIntegration "
               "TASAssignmentsEncodingByHostnamePrefix"),
)
FEATURE_GATES: dict[str, tuple[int, int | None]] = {
    name: span for span, names in _GATES for name in names.split()}

POD = "pod"
# Kueue's Configuration framework name of each integrated kind (config/components/manager/
# controller_manager_config.yaml at kueue ff69552e).
KIND_FRAMEWORKS: dict[tuple[str, str], str] = {
    ("batch", "Job"): "batch/job", ("", "Pod"): POD,
    ("apps", "Deployment"): "deployment", ("apps", "StatefulSet"): "statefulset",
    ("jobset.x-k8s.io", "JobSet"): "jobset.x-k8s.io/jobset",
    ("kubeflow.org", "MPIJob"): "kubeflow.org/mpijob", ("kubeflow.org", "PyTorchJob"): "kubeflow.org/pytorchjob",
    ("kubeflow.org", "TFJob"): "kubeflow.org/tfjob", ("kubeflow.org", "XGBoostJob"): "kubeflow.org/xgboostjob",
    ("kubeflow.org", "PaddleJob"): "kubeflow.org/paddlejob", ("kubeflow.org", "JAXJob"): "kubeflow.org/jaxjob",
    ("trainer.kubeflow.org", "TrainJob"): "trainer.kubeflow.org/trainjob",
    ("ray.io", "RayJob"): "ray.io/rayjob", ("ray.io", "RayCluster"): "ray.io/raycluster",
    ("ray.io", "RayService"): "ray.io/rayservice",
    ("workload.codeflare.dev", "AppWrapper"): "workload.codeflare.dev/appwrapper",
    ("leaderworkerset.x-k8s.io", "LeaderWorkerSet"): "leaderworkerset.x-k8s.io/leaderworkerset",
}
# Frameworks a cluster enables only when its Configuration lists them (rules.md "Kueue-managed"):
# without evidence, every other integration counts as one of Kueue's default frameworks.
OPT_IN_FRAMEWORKS = frozenset({POD, "deployment", "statefulset", "leaderworkerset.x-k8s.io/leaderworkerset"})
# Integrations that turn the pod integration on implicitly, only for their own pods (kueue
# `ImplicitlyEnabledFrameworkNames`; pod_controller.go `Skip` ignores other pods then).
IMPLIES_POD = frozenset({"deployment", "statefulset", "leaderworkerset.x-k8s.io/leaderworkerset"})
