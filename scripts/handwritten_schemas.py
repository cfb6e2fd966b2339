"""Hand-written KQ002 schemas for kinds without a CRD in ../shared/corpus/crds.

- Core workloads (Pod, Job, CronJob, Deployment, StatefulSet, ReplicaSet, DaemonSet) and
  PriorityClass: compact. The objects rules read are closed (every field name of the
  Kubernetes type is listed, so a misspelt name is caught); fields kqlint does not model
  are typed loosely (``{"type": "object"}``) so a valid value is never flagged.
  Field names: Kubernetes API reference up to v1.36 (tests check that every PodSpec,
  Container, Probe and JobSpec field of the copies embedded in the corpus CRDs is listed).
- RayJob / RayCluster (ray.io/v1): field names from ray-project/kuberay
  ``ray-operator/apis/ray/v1/{raycluster,rayjob}_types.go`` (2026 master); nested option
  objects are left open.
- Kubeflow v1 jobs other than PyTorchJob (TFJob, XGBoostJob, PaddleJob, JAXJob, MPIJob v1):
  their ``ReplicaSpec`` and ``RunPolicy`` are the PyTorchJob CRD's (the same Go types in
  kubeflow/training-operator ``pkg/apis/kubeflow.org/v1``); the spec fields come from
  ``{tensorflow,xgboost,paddlepaddle,jax,mpi}_types.go`` at release-1.9.
"""
from __future__ import annotations

import copy
from typing import Any

from kqlint.schema.crd import CONTAINER_ENUMS, INT_OR_STRING, OBJECT_META, POD_SPEC_ENUMS, PORT_ENUMS

Schema = dict[str, Any]
S: Schema = {"type": "string"}
INT: Schema = {"type": "integer"}
N: Schema = {"type": "number"}
B: Schema = {"type": "boolean"}
OBJ: Schema = {"type": "object"}
ANY: Schema = {}
# A core object's Quantity also takes a YAML float (`cpu: 0.5`); a CRD's int-or-string does not.
QUANTITY: Schema = {"type": ["integer", "number", "string"]}
K8S_REFERENCE = "Kubernetes API reference up to v1.36 (hand-written, compact)"


def closed(properties: Schema) -> Schema:
    return {"type": "object", "properties": properties, "additionalProperties": False}


def array_of(item: Schema) -> Schema:
    return {"type": "array", "items": item}


def map_of(value: Schema) -> Schema:
    return {"type": "object", "additionalProperties": value}


def enum(values: list[str]) -> Schema:
    return {"type": "string", "enum": list(values)}


def root(fields: Schema) -> Schema:
    properties = {"apiVersion": S, "kind": S, "metadata": OBJECT_META, "status": ANY}
    properties.update(fields)
    return {"type": "object", "properties": properties, "additionalProperties": False}


# ---------------------------------------------------------------- pod spec

def _probe() -> Schema:
    return closed({
        "exec": closed({"command": array_of(S)}),
        "httpGet": closed({"path": S, "port": INT_OR_STRING, "host": S, "scheme": enum(["HTTP", "HTTPS"]),
                           "httpHeaders": array_of(closed({"name": S, "value": S}))}),
        "tcpSocket": closed({"port": INT_OR_STRING, "host": S}),
        "grpc": closed({"port": INT, "service": S}),
        "initialDelaySeconds": INT, "periodSeconds": INT, "timeoutSeconds": INT,
        "successThreshold": INT, "failureThreshold": INT, "terminationGracePeriodSeconds": INT,
    })


def _resources() -> Schema:
    return closed({"limits": map_of(QUANTITY), "requests": map_of(QUANTITY),
                   "claims": array_of(OBJ)})


def container() -> Schema:
    return closed({
        "name": S, "image": S, "imagePullPolicy": enum(CONTAINER_ENUMS["imagePullPolicy"]),
        "command": array_of(S), "args": array_of(S), "workingDir": S,
        "env": array_of(closed({"name": S, "value": S, "valueFrom": OBJ})), "envFrom": array_of(OBJ),
        "ports": array_of(closed({"containerPort": INT, "hostPort": INT, "hostIP": S, "name": S,
                                  "protocol": enum(PORT_ENUMS["protocol"])})),
        "resources": _resources(), "resizePolicy": array_of(OBJ),
        "livenessProbe": _probe(), "readinessProbe": _probe(), "startupProbe": _probe(),
        "lifecycle": OBJ, "securityContext": OBJ, "volumeMounts": array_of(OBJ),
        "volumeDevices": array_of(OBJ), "restartPolicy": S, "restartPolicyRules": array_of(OBJ),
        "stdin": B, "stdinOnce": B, "tty": B, "terminationMessagePath": S, "terminationMessagePolicy": S,
    })


def pod_spec() -> Schema:
    return closed({
        "containers": array_of(container()), "initContainers": array_of(container()),
        "ephemeralContainers": array_of(OBJ),
        "priorityClassName": S, "priority": INT, "schedulerName": S, "terminationGracePeriodSeconds": INT,
        "preemptionPolicy": enum(POD_SPEC_ENUMS["preemptionPolicy"]),
        "restartPolicy": enum(POD_SPEC_ENUMS["restartPolicy"]),
        "dnsPolicy": enum(POD_SPEC_ENUMS["dnsPolicy"]),
        "activeDeadlineSeconds": INT, "nodeSelector": map_of(S), "nodeName": S, "affinity": OBJ,
        "tolerations": array_of(closed({"key": S, "operator": S, "value": S, "effect": S,
                                        "tolerationSeconds": INT})),
        "topologySpreadConstraints": array_of(OBJ), "volumes": array_of(OBJ),
        "serviceAccountName": S, "serviceAccount": S, "automountServiceAccountToken": B,
        "hostNetwork": B, "hostPID": B, "hostIPC": B, "hostUsers": B, "shareProcessNamespace": B,
        "securityContext": OBJ, "imagePullSecrets": array_of(OBJ), "hostname": S, "hostnameOverride": S,
        "subdomain": S, "setHostnameAsFQDN": B, "dnsConfig": OBJ, "hostAliases": array_of(OBJ),
        "runtimeClassName": S, "enableServiceLinks": B, "overhead": map_of(QUANTITY),
        "readinessGates": array_of(OBJ), "os": OBJ, "schedulingGates": array_of(OBJ),
        "resourceClaims": array_of(OBJ), "resources": _resources(), "workloadRef": OBJ,
        "schedulingGroup": OBJ,
    })


def pod_template() -> Schema:
    return closed({"metadata": OBJECT_META, "spec": pod_spec()})


def job_spec() -> Schema:
    return closed({
        "template": pod_template(), "parallelism": INT, "completions": INT, "activeDeadlineSeconds": INT,
        "backoffLimit": INT, "backoffLimitPerIndex": INT, "maxFailedIndexes": INT,
        "completionMode": enum(["NonIndexed", "Indexed"]), "suspend": B, "selector": OBJ,
        "manualSelector": B, "ttlSecondsAfterFinished": INT, "podFailurePolicy": OBJ,
        "podReplacementPolicy": enum(["TerminatingOrFailed", "Failed"]), "successPolicy": OBJ,
        "managedBy": S,
    })


def core_kinds() -> dict[tuple[str, str], Schema]:
    template = pod_template()
    workload = {"replicas": INT, "selector": OBJ, "template": template, "minReadySeconds": INT}
    return {
        ("v1", "Pod"): root({"spec": pod_spec()}),
        ("batch/v1", "Job"): root({"spec": job_spec()}),
        ("batch/v1", "CronJob"): root({"spec": closed({
            "schedule": S, "timeZone": S, "startingDeadlineSeconds": INT, "suspend": B,
            "concurrencyPolicy": enum(["Allow", "Forbid", "Replace"]),
            "jobTemplate": closed({"metadata": OBJECT_META, "spec": job_spec()}),
            "successfulJobsHistoryLimit": INT, "failedJobsHistoryLimit": INT})}),
        ("apps/v1", "Deployment"): root({"spec": closed({
            **workload, "revisionHistoryLimit": INT, "paused": B, "progressDeadlineSeconds": INT,
            "strategy": closed({"type": enum(["Recreate", "RollingUpdate"]), "rollingUpdate": OBJ})})}),
        ("apps/v1", "StatefulSet"): root({"spec": closed({
            **workload, "serviceName": S, "volumeClaimTemplates": array_of(OBJ), "updateStrategy": OBJ,
            "podManagementPolicy": enum(["OrderedReady", "Parallel"]), "revisionHistoryLimit": INT,
            "persistentVolumeClaimRetentionPolicy": OBJ, "ordinals": OBJ})}),
        ("apps/v1", "ReplicaSet"): root({"spec": closed(workload)}),
        ("apps/v1", "DaemonSet"): root({"spec": closed({
            "selector": OBJ, "template": template, "updateStrategy": OBJ, "minReadySeconds": INT,
            "revisionHistoryLimit": INT})}),
        ("scheduling.k8s.io/v1", "PriorityClass"): root({
            "value": INT, "globalDefault": B, "description": S,
            "preemptionPolicy": enum(POD_SPEC_ENUMS["preemptionPolicy"])}),
    }


# ---------------------------------------------------------------- KubeRay

def ray_cluster_spec() -> Schema:
    head = closed({"template": pod_template(), "headService": OBJ, "enableIngress": B,
                   "ingressOptions": OBJ, "resources": map_of(S), "labels": map_of(S),
                   "rayStartParams": map_of(S), "serviceType": S})
    worker = closed({"suspend": B, "groupName": S, "replicas": INT, "minReplicas": INT, "maxReplicas": INT,
                     "idleTimeoutSeconds": INT, "priority": INT, "resources": map_of(S), "labels": map_of(S),
                     "rayStartParams": map_of(S), "template": pod_template(), "scaleStrategy": OBJ,
                     "numOfHosts": INT})
    return closed({
        "headGroupSpec": head, "workerGroupSpecs": array_of(worker), "rayVersion": S,
        "enableInTreeAutoscaling": B, "autoscalerOptions": OBJ, "headServiceAnnotations": map_of(S),
        "suspend": B, "managedBy": S, "gcsFaultToleranceOptions": OBJ, "upgradeStrategy": OBJ,
        "authOptions": OBJ, "historyServerOptions": OBJ, "networkPolicy": OBJ, "tlsOptions": OBJ,
    })


def ray_kinds() -> dict[tuple[str, str], Schema]:
    job = closed({
        "activeDeadlineSeconds": INT, "backoffLimit": INT, "rayClusterSpec": ray_cluster_spec(),
        "submitterPodTemplate": pod_template(), "metadata": map_of(S), "clusterSelector": map_of(S),
        "submitterConfig": OBJ, "managedBy": S, "deletionPolicy": ANY, "deletionStrategy": OBJ,
        "submitterFinishedTimeoutSeconds": INT, "runtimeEnvYAML": S, "jobId": S, "submissionMode": S,
        "entrypointResources": S, "entrypoint": S, "entrypointNumCpus": N, "entrypointNumGpus": N,
        "ttlSecondsAfterFinished": INT, "shutdownAfterJobFinishes": B,
        "suspend": B, "schedule": S,
    })
    return {("ray.io/v1", "RayCluster"): root({"spec": ray_cluster_spec()}),
            ("ray.io/v1", "RayJob"): root({"spec": job})}


# ---------------------------------------------------------------- Kubeflow v1

def kubeflow_v1_kinds(pytorchjob: Schema) -> dict[tuple[str, str], Schema]:
    """TFJob & co., built from the PyTorchJob CRD's ReplicaSpec and RunPolicy (converted)."""
    spec = pytorchjob["properties"]["spec"]["properties"]
    run_policy = copy.deepcopy(spec["runPolicy"])
    replicas = map_of(copy.deepcopy(spec["pytorchReplicaSpecs"]["additionalProperties"]))
    elastic = closed({"minReplicas": INT, "maxReplicas": INT, "maxRestarts": INT, "metrics": array_of(OBJ)})
    specs = {
        "TFJob": {"tfReplicaSpecs": replicas, "successPolicy": S, "enableDynamicWorker": B},
        "XGBoostJob": {"xgbReplicaSpecs": replicas},
        "PaddleJob": {"paddleReplicaSpecs": replicas, "elasticPolicy": elastic},
        "JAXJob": {"jaxReplicaSpecs": replicas},
        "MPIJob": {"mpiReplicaSpecs": replicas, "slotsPerWorker": INT, "cleanPodPolicy": S, "mainContainer": S},
    }
    return {("kubeflow.org/v1", kind): root({"spec": closed({"runPolicy": run_policy, **fields})})
            for kind, fields in specs.items()}
