"""Per workload kind: where pod templates live, how many pods each yields, and where the
gang-scheduling markers are. The one place that knows workload shapes
(shared/reference/workloads.md); rules ask here instead of walking kinds themselves.

INTERFACE (stable; rules depend on it):

    pod_templates(obj, graph=None) -> list[PodTemplate]
        Every pod template written in (or, for TrainJob, referenced by) ``obj``, in
        document order; [] for objects that are not workloads. Operator-generated pods
        (a RayJob's default submitter) come as ``generated=True`` templates: count them,
        do not judge them.
    own_templates(obj, graph=None) -> list[PodTemplate]
        The templates written in ``obj`` itself (owner is obj, not generated): what
        template-level rules judge, so that a runtime's template is reported once, on the
        runtime, not again on every TrainJob that uses it.
    total_pods(obj, graph=None) -> int
        All pods the workload runs at once, including operator-generated ones.
    is_workload(obj) -> bool
        The object creates pods (TrainingRuntimes only hold templates: False).
    has_pod_templates(obj) -> bool
        ``pod_templates`` knows the kind (workloads plus TrainingRuntimes).

Gang helpers: ``replica_specs`` (Kubeflow replica specs with their raw ``replicas``),
``KUBEFLOW_MIN_AVAILABLE_PATH``, ``VOLCANO_JOB_MIN_AVAILABLE_PATH``, ``pod_group_refs``,
``gang_family``, ``training_runtime``, ``resources_per_node`` and the marker-key constants.

Decisions where the reference leaves room (documented here, tested in test_workloads.py):
- LLMInferenceService templates are bare PodSpecs. Their pod labels/annotations come from
  the workload part's ``labels``/``annotations`` (``spec.labels`` for decode/main,
  ``spec.prefill.labels`` for prefill; reference section 6 and the CRD), so ``meta_path``
  is ``("spec",)`` or ``("spec", "prefill")``: ``template.labels`` reads ``spec.labels``.
  The ``metadata`` property then returns that whole mapping; read ``labels``/``annotations``.
- DynamoGraphDeployment: a service/component yields pods even without an
  ``extraPodSpec``/``podTemplate``; its template is then empty (``spec == {}``) and
  positions fall back to the service key.
- DaemonSet: one pod per eligible node, unknown statically; counted as 1.
- AppWrapper components without ``podSets`` are inferred with kqlint's own per-kind rules
  (so a wrapped RayCluster counts ``numOfHosts``, as KubeRay does).
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from kqlint import kinds as K
from kqlint.fields import count, indexed_mappings, integer, text, text_or
from kqlint.kinds import (  # re-exported: rules import these names from here
    APPWRAPPER as APPWRAPPER,
)
from kqlint.kinds import (
    COSCHEDULING_PODGROUP as COSCHEDULING_PODGROUP,
)
from kqlint.kinds import (
    KAI_PODGROUP as KAI_PODGROUP,
)
from kqlint.kinds import (
    KUBEFLOW_GROUP as KUBEFLOW_GROUP,
)
from kqlint.kinds import (
    TRAINER_GROUP as TRAINER_GROUP,
)
from kqlint.kinds import (
    VOLCANO_JOB as VOLCANO_JOB,
)
from kqlint.kinds import (
    VOLCANO_PODGROUP as VOLCANO_PODGROUP,
)
from kqlint.objects import dig, mapping_at
from kqlint.wording import owner_template

if TYPE_CHECKING:
    from kqlint.graph import ObjectGraph
    from kqlint.objects import K8sObject

DEFAULT_SCHEDULER = "default-scheduler"

# ---------------------------------------------------------------- gang marker keys
VOLCANO_GROUP_ANNOTATION = "scheduling.k8s.io/group-name"          # read by the Volcano scheduler
VOLCANO_LEGACY_GROUP_ANNOTATION = "scheduling.volcano.sh/group-name"  # defined, never read for gangs
VOLCANO_MIN_MEMBER_ANNOTATION = "scheduling.volcano.sh/group-min-member"  # on the pod's owner
VOLCANO_QUEUE_ANNOTATION = "scheduling.volcano.sh/queue-name"
VOLCANO_TASK_SPEC_ANNOTATION = "volcano.sh/task-spec"
KAI_POD_GROUP_ANNOTATION = "pod-group-name"
KAI_BATCH_MIN_MEMBER_ANNOTATION = "kai.scheduler/batch-min-member"
KAI_SKIP_PODGROUPER_ANNOTATION = "kai.scheduler/skip-podgrouper"
KAI_QUEUE_LABEL = "kai.scheduler/queue"
KAI_SUBGROUP_LABEL = "kai.scheduler/subgroup-name"
COSCHEDULING_POD_GROUP_LABEL = "scheduling.x-k8s.io/pod-group"   # scheduler-plugins coscheduling
# Keys whose presence marks a template (or its owner) as meant for one gang scheduler.
VOLCANO_MARKERS = (VOLCANO_GROUP_ANNOTATION, VOLCANO_LEGACY_GROUP_ANNOTATION,
                   VOLCANO_MIN_MEMBER_ANNOTATION, VOLCANO_QUEUE_ANNOTATION)
KAI_MARKERS = (KAI_POD_GROUP_ANNOTATION, KAI_BATCH_MIN_MEMBER_ANNOTATION,
               KAI_SKIP_PODGROUPER_ANNOTATION, KAI_QUEUE_LABEL, KAI_SUBGROUP_LABEL)

# Defaults of the shared options `volcano-scheduler-names` / `kai-scheduler-names` (rules.md).
VOLCANO_SCHEDULER_NAMES: tuple[str, ...] = ("volcano", "volcano-scheduler")
KAI_SCHEDULER_NAMES: tuple[str, ...] = ("kai-scheduler",)
COSCHEDULING_SCHEDULER_NAMES: tuple[str, ...] = ("scheduler-plugins-scheduler",)  # KQ302 option default

RUNTIME_KINDS = tuple(runtime.kind for runtime in K.RUNTIMES)
TRAINER_ANCESTOR_LABEL = "trainer.kubeflow.org/trainjob-ancestor-step"
TRAINER_NODE_CONTAINER = "node"          # the container `resourcesPerNode` applies to
RESOURCES_PER_NODE_PATH = ("spec", "trainer", "resourcesPerNode")

KUBEFLOW_MIN_AVAILABLE_PATH = ("spec", "runPolicy", "schedulingPolicy", "minAvailable")
VOLCANO_JOB_MIN_AVAILABLE_PATH = ("spec", "minAvailable")
# Kubeflow kinds and the spec key that holds their replica specs (workloads.md section 3).
KUBEFLOW_REPLICA_KEYS = {
    "PyTorchJob": "pytorchReplicaSpecs", "TFJob": "tfReplicaSpecs",
    "XGBoostJob": "xgbReplicaSpecs", "PaddleJob": "paddleReplicaSpecs",
    "JAXJob": "jaxReplicaSpecs", "MPIJob": "mpiReplicaSpecs",
}
# Replica types whose `replicas` defaults to something other than 1 (MPIJob Worker: 0).
_REPLICA_DEFAULTS = {("MPIJob", "Worker"): 0}
MAX_INT32 = 2147483647
as_count = count  # the name callers use


@dataclass(frozen=True)
class PodTemplate:
    owner: K8sObject            # the object whose file holds the template (a TrainJob's runtime!)
    role: str                     # "Master", "Worker", "replicatedJobs[workers]", "leader", "worker", ...
    path: tuple[Any, ...]         # path in ``owner`` to the PodTemplateSpec (or the bare PodSpec)
    spec_path: tuple[Any, ...]    # path in ``owner`` to the PodSpec
    meta_path: tuple[Any, ...] | None  # path in ``owner`` to pod metadata (labels/annotations), None if none
    pods: int                     # pods this template yields at once (replicas etc. applied)
    generated: bool = False       # operator-generated (not written in the manifest): counts only
    via: K8sObject | None = None  # the workload running the pods when it is not the owner (TrainJob)
    trainer_step: bool = False    # a TrainJob runtime's trainer step (`resourcesPerNode` applies)

    @property
    def workload(self) -> K8sObject:
        """The object whose pods these are (the TrainJob for a runtime's template)."""
        return self.via if self.via is not None else self.owner

    @property
    def spec(self) -> dict[str, Any]:
        value = self.owner.get(*self.spec_path)
        return value if isinstance(value, dict) else {}

    @property
    def metadata(self) -> dict[str, Any]:
        if self.meta_path is None:
            return {}
        value = self.owner.get(*self.meta_path)
        return value if isinstance(value, dict) else {}

    @property
    def labels(self) -> dict[str, Any]:
        value = self.metadata.get("labels")
        return value if isinstance(value, dict) else {}

    @property
    def annotations(self) -> dict[str, Any]:
        value = self.metadata.get("annotations")
        return value if isinstance(value, dict) else {}

    @property
    def priority_class_name(self) -> str | None:
        return text(self.spec.get("priorityClassName"))

    @property
    def scheduler_name(self) -> str:
        return text_or(self.spec.get("schedulerName"), DEFAULT_SCHEDULER)

    @property
    def containers(self) -> list[tuple[int, dict[str, Any]]]:
        """(index, container) for every mapping in ``spec.containers``."""
        return list(_items(self.spec, ("containers",)))

    def at(self, *path: Any) -> Any:
        """Location of ``path`` relative to the PodSpec (``at("priorityClassName")``)."""
        return self.owner.at(*self.spec_path, *path)

    def at_meta(self, *path: Any) -> Any:
        """Location of ``path`` relative to the pod metadata (``at_meta("annotations", key)``);
        the template itself when the template has no metadata of its own."""
        if self.meta_path is None:
            return self.owner.at(*self.path)
        return self.owner.at(*self.meta_path, *path)

    def describe(self) -> str:
        """``PyTorchJob ns/name template Worker`` (``Job ns/name pod template``) for messages."""
        return owner_template(self)


@dataclass(frozen=True)
class ReplicaSpec:
    """One Kubeflow replica spec (``spec.<kind>ReplicaSpecs.<role>``)."""

    role: str
    path: tuple[Any, ...]         # path to the replica spec mapping
    raw_replicas: Any             # the written value, None when unset
    has_replicas: bool            # the `replicas` key is present
    replicas: int                 # effective count (API default applied)


# ---------------------------------------------------------------- small readers
def _items(node: Any, path: tuple[Any, ...]) -> Iterator[tuple[int, dict[str, Any]]]:
    return indexed_mappings(dig(node, path))


def _name(item: dict[str, Any], fallback: Any, key: str = "name") -> str:
    return text_or(item.get(key), str(fallback))


def job_pods(job_spec: Any) -> int:
    """Pods a Job runs at once: parallelism (1), lowered to completions when smaller."""
    spec = job_spec if isinstance(job_spec, dict) else {}
    parallelism = as_count(spec.get("parallelism"), 1)
    completions = integer(spec.get("completions"))
    if completions is not None:
        return min(parallelism, max(completions, 0))
    return parallelism


def _full(owner: K8sObject, role: str, path: tuple[Any, ...], pods: int,
          generated: bool = False) -> PodTemplate:
    """A PodTemplateSpec (metadata + spec) at ``path``."""
    return PodTemplate(owner, role, path, path + ("spec",), path + ("metadata",), pods, generated)


def _bare(owner: K8sObject, role: str, path: tuple[Any, ...], meta: tuple[Any, ...] | None,
          pods: int) -> PodTemplate:
    """A bare PodSpec at ``path`` with its pod metadata (if any) at ``meta``."""
    return PodTemplate(owner, role, path, path, meta, pods)


# ---------------------------------------------------------------- extractors per kind
# Each extractor gets (owner, base, data, graph): ``data`` is the object (or an object
# embedded in ``owner`` at ``base``, for AppWrapper components) and paths are built on ``base``.
Extractor = Callable[["K8sObject", tuple[Any, ...], dict[str, Any], "ObjectGraph | None"],
                     list[PodTemplate]]


def _pod(owner: K8sObject, base: tuple[Any, ...], data: dict[str, Any], graph: Any) -> list[PodTemplate]:
    return [_full(owner, "pod", base, 1)]


def _job(owner: K8sObject, base: tuple[Any, ...], data: dict[str, Any], graph: Any) -> list[PodTemplate]:
    return [_full(owner, "template", base + ("spec", "template"), job_pods(mapping_at(data, ("spec",))))]


def _cronjob(owner: K8sObject, base: tuple[Any, ...], data: dict[str, Any], graph: Any) -> list[PodTemplate]:
    job_spec = mapping_at(data, ("spec", "jobTemplate", "spec"))
    return [_full(owner, "template", base + ("spec", "jobTemplate", "spec", "template"), job_pods(job_spec))]


def _replicated(owner: K8sObject, base: tuple[Any, ...], data: dict[str, Any], graph: Any) -> list[PodTemplate]:
    pods = as_count(dig(data, ("spec", "replicas")), 1)
    return [_full(owner, "template", base + ("spec", "template"), pods)]


def _daemonset(owner: K8sObject, base: tuple[Any, ...], data: dict[str, Any], graph: Any) -> list[PodTemplate]:
    return [_full(owner, "template", base + ("spec", "template"), 1)]


def _jobset(owner: K8sObject, base: tuple[Any, ...], data: dict[str, Any], graph: Any) -> list[PodTemplate]:
    return _replicated_jobs(owner, base + ("spec",), mapping_at(data, ("spec",)))


def _replicated_jobs(owner: K8sObject, base: tuple[Any, ...], jobset_spec: dict[str, Any]
                     ) -> list[PodTemplate]:
    """Templates of a JobSet spec at ``base`` (``replicas`` × Job pods per replicatedJob)."""
    found = []
    for index, rjob in _items(jobset_spec, ("replicatedJobs",)):
        pods = as_count(rjob.get("replicas"), 1) * job_pods(mapping_at(rjob, ("template", "spec")))
        path = base + ("replicatedJobs", index, "template", "spec", "template")
        found.append(_full(owner, f"replicatedJobs[{_name(rjob, index)}]", path, pods))
    return found


def _kubeflow(owner: K8sObject, base: tuple[Any, ...], data: dict[str, Any], graph: Any) -> list[PodTemplate]:
    return [_full(owner, spec.role, spec.path + ("template",), spec.replicas)
            for spec in _replica_specs(str(data.get("kind") or ""), data, base)]


def _replica_specs(kind: str, data: dict[str, Any], base: tuple[Any, ...]) -> list[ReplicaSpec]:
    key = KUBEFLOW_REPLICA_KEYS.get(kind)
    specs = mapping_at(data, ("spec", key)) if key else {}
    found = []
    for role, spec in specs.items():
        if not isinstance(spec, dict):
            continue
        raw = spec.get("replicas")
        default = _REPLICA_DEFAULTS.get((kind, str(role)), 1)
        found.append(ReplicaSpec(str(role), base + ("spec", key, role), raw, "replicas" in spec,
                                 as_count(raw, default)))
    return found


def _lws(owner: K8sObject, base: tuple[Any, ...], data: dict[str, Any], graph: Any) -> list[PodTemplate]:
    spec = mapping_at(data, ("spec",))
    groups = as_count(spec.get("replicas"), 1)
    size = max(as_count(dig(spec, ("leaderWorkerTemplate", "size")), 1), 1)
    lwt = base + ("spec", "leaderWorkerTemplate")
    if isinstance(dig(spec, ("leaderWorkerTemplate", "leaderTemplate")), dict):
        return [_full(owner, "leader", lwt + ("leaderTemplate",), groups),
                _full(owner, "worker", lwt + ("workerTemplate",), groups * (size - 1))]
    return [_full(owner, "worker", lwt + ("workerTemplate",), groups * size)]


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
    if not isinstance(part.get("worker"), dict):
        return [_bare(owner, f"{prefix}template", spec_path + ("template",), meta, replicas)] if has_template else []
    size = llm_group_size(part.get("parallelism"))
    worker_pods = replicas * (size - 1) if has_template else replicas * size
    found = [_bare(owner, f"{prefix}template", spec_path + ("template",), meta, replicas)] if has_template else []
    return found + [_bare(owner, f"{prefix}worker", spec_path + ("worker",), meta, worker_pods)]


def _llmisvc(owner: K8sObject, base: tuple[Any, ...], data: dict[str, Any], graph: Any) -> list[PodTemplate]:
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


def _dgd(owner: K8sObject, base: tuple[Any, ...], data: dict[str, Any], graph: Any) -> list[PodTemplate]:
    found = []
    services = dig(data, ("spec", "services"))
    for name, svc in (services.items() if isinstance(services, dict) else ()):
        if isinstance(svc, dict):
            path = base + ("spec", "services", name)
            found.append(_bare(owner, str(name), path + ("extraPodSpec",), path + ("extraPodMetadata",),
                               _dgd_pods(svc)))
    for index, comp in _items(data, ("spec", "components")):
        found.append(_full(owner, _name(comp, index), base + ("spec", "components", index, "podTemplate"),
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
        found.append(_full(owner, "head", base + ("headGroupSpec", "template"), 1))
    for index, group in _items(spec, ("workerGroupSpecs",)):
        role = f"workerGroupSpecs[{_name(group, index, 'groupName')}]"
        found.append(_full(owner, role, base + ("workerGroupSpecs", index, "template"), ray_group_pods(group)))
    return found


def _raycluster(owner: K8sObject, base: tuple[Any, ...], data: dict[str, Any], graph: Any) -> list[PodTemplate]:
    return _ray_cluster_spec(owner, base + ("spec",), mapping_at(data, ("spec",)))


def _rayservice(owner: K8sObject, base: tuple[Any, ...], data: dict[str, Any], graph: Any) -> list[PodTemplate]:
    return _ray_cluster_spec(owner, base + ("spec", "rayClusterConfig"), mapping_at(data, ("spec", "rayClusterConfig")))


def _rayjob(owner: K8sObject, base: tuple[Any, ...], data: dict[str, Any], graph: Any) -> list[PodTemplate]:
    spec = mapping_at(data, ("spec",))
    found: list[PodTemplate] = []
    if not spec.get("clusterSelector"):
        found += _ray_cluster_spec(owner, base + ("spec", "rayClusterSpec"), mapping_at(spec, ("rayClusterSpec",)))
    if (spec.get("submissionMode") or "K8sJobMode") == "K8sJobMode":
        written = isinstance(spec.get("submitterPodTemplate"), dict)
        found.append(_full(owner, "submitter", base + ("spec", "submitterPodTemplate"), 1, not written))
    return found


def _volcano_job(owner: K8sObject, base: tuple[Any, ...], data: dict[str, Any], graph: Any) -> list[PodTemplate]:
    return [_full(owner, f"tasks[{_name(task, index)}]", base + ("spec", "tasks", index, "template"),
                  as_count(task.get("replicas"), 0))
            for index, task in _items(data, ("spec", "tasks"))]


_PATH_TOKEN = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def parse_podset_path(text: Any) -> tuple[Any, ...] | None:
    """``template.spec.replicatedJobs[0].template.spec.template`` -> a path tuple."""
    if not isinstance(text, str) or not text:
        return None
    steps: list[Any] = []
    for match in _PATH_TOKEN.finditer(text):
        steps.append(match.group(1) if match.group(1) is not None else int(match.group(2)))
    return tuple(steps) if steps and steps[0] == "template" else None


def _appwrapper(owner: K8sObject, base: tuple[Any, ...], data: dict[str, Any], graph: Any) -> list[PodTemplate]:
    found = []
    for index, comp in _items(data, ("spec", "components")):
        cbase = base + ("spec", "components", index)
        if isinstance(comp.get("podSets"), list):
            found += _podsets(owner, cbase, comp)
        else:
            found += _inferred(owner, cbase, comp, graph)
    return found


def _podsets(owner: K8sObject, cbase: tuple[Any, ...], comp: dict[str, Any]) -> list[PodTemplate]:
    found = []
    for index, podset in _items(comp, ("podSets",)):
        path = parse_podset_path(podset.get("path"))
        if path is not None:
            found.append(_full(owner, f"components[{cbase[-1]}].{podset['path']}", cbase + path,
                               as_count(podset.get("replicas"), 1)))
    return found


def _inferred(owner: K8sObject, cbase: tuple[Any, ...], comp: dict[str, Any], graph: Any) -> list[PodTemplate]:
    inner = comp.get("template")
    if not isinstance(inner, dict):
        return []
    group = str(inner.get("apiVersion") or "").rpartition("/")[0]
    extractor = _APPWRAPPER_INFERRED.get((group, str(inner.get("kind") or "")))
    if extractor is None:
        return []
    return [replace(t, role=f"components[{cbase[-1]}].{t.role}")
            for t in extractor(owner, cbase + ("template",), inner, graph)]


# ---------------------------------------------------------------- Trainer v2
def training_runtime(trainjob: K8sObject, graph: ObjectGraph | None) -> K8sObject | None:
    """The (Cluster)TrainingRuntime a TrainJob's ``spec.runtimeRef`` names, if resolvable."""
    ref = trainjob.get("spec", "runtimeRef")
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
    for index, rjob in _items(runtime.data, base + ("replicatedJobs",)):
        step = _trainer_step_pods(rjob, ml_policy, num_nodes)
        pods = step if step is not None else job_pods(mapping_at(rjob, ("template", "spec")))
        path = base + ("replicatedJobs", index, "template", "spec", "template")
        found.append(PodTemplate(runtime, f"replicatedJobs[{_name(rjob, index)}]", path, path + ("spec",),
                                 path + ("metadata",), pods, via=via, trainer_step=step is not None))
    return found


def _runtime(owner: K8sObject, base: tuple[Any, ...], data: dict[str, Any], graph: Any) -> list[PodTemplate]:
    return _runtime_templates(owner) if not base else []


def _trainjob(owner: K8sObject, base: tuple[Any, ...], data: dict[str, Any], graph: Any) -> list[PodTemplate]:
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


# ---------------------------------------------------------------- the kind table
_EXTRACTORS: dict[tuple[str, str], Extractor] = {
    K.POD: _pod,
    K.JOB: _job,
    K.CRONJOB: _cronjob,
    K.DEPLOYMENT: _replicated,
    K.STATEFULSET: _replicated,
    K.REPLICASET: _replicated,
    K.DAEMONSET: _daemonset,
    K.JOBSET: _jobset,
    **{(KUBEFLOW_GROUP, kind): _kubeflow for kind in KUBEFLOW_REPLICA_KEYS},
    K.TRAINJOB: _trainjob,
    K.TRAINING_RUNTIME: _runtime,
    K.CLUSTER_TRAINING_RUNTIME: _runtime,
    K.LWS: _lws,
    K.LLMISVC: _llmisvc,
    K.DGD: _dgd,
    K.RAYCLUSTER: _raycluster,
    K.RAYJOB: _rayjob,
    K.RAYSERVICE: _rayservice,
    VOLCANO_JOB: _volcano_job,
    K.APPWRAPPER: _appwrapper,
}
# Kinds AppWrapper infers pod sets for when `podSets` is omitted (workloads.md section 11).
_APPWRAPPER_INFERRED: dict[tuple[str, str], Extractor] = {key: _EXTRACTORS[key] for key in (
    K.POD, K.DEPLOYMENT, K.STATEFULSET, K.JOB, K.JOBSET, K.PYTORCHJOB, K.RAYCLUSTER, K.RAYJOB)}
_TEMPLATE_HOLDERS = set(K.RUNTIMES)


def pod_templates(obj: K8sObject, graph: ObjectGraph | None = None) -> list[PodTemplate]:
    extractor = _EXTRACTORS.get((obj.group, obj.kind))
    if extractor is None or not isinstance(obj.data, dict):
        return []
    if graph is None:
        return extractor(obj, (), obj.data, graph)
    key = ("pod_templates", id(obj))  # many rules ask for the same object's templates
    cached = graph.cache.get(key)
    if cached is None:
        cached = graph.cache[key] = extractor(obj, (), obj.data, graph)
    return list(cached)


def own_templates(obj: K8sObject, graph: ObjectGraph | None = None) -> list[PodTemplate]:
    return [t for t in pod_templates(obj, graph) if t.owner is obj and not t.generated]


def total_pods(obj: K8sObject, graph: ObjectGraph | None = None) -> int:
    return sum(t.pods for t in pod_templates(obj, graph))


def is_workload(obj: K8sObject) -> bool:
    key = (obj.group, obj.kind)
    return key in _EXTRACTORS and key not in _TEMPLATE_HOLDERS


def has_pod_templates(obj: K8sObject) -> bool:
    return (obj.group, obj.kind) in _EXTRACTORS


# ---------------------------------------------------------------- gang helpers
def is_kubeflow_job(obj: K8sObject) -> bool:
    return obj.group == KUBEFLOW_GROUP and obj.kind in KUBEFLOW_REPLICA_KEYS


def replica_specs(obj: K8sObject) -> list[ReplicaSpec]:
    """Kubeflow replica specs by role, with the raw ``replicas`` value; [] for other kinds."""
    if not is_kubeflow_job(obj):
        return []
    return _replica_specs(obj.kind, obj.data, ())


def gang_family(scheduler_name: str, volcano_names: tuple[str, ...] = VOLCANO_SCHEDULER_NAMES,
                kai_names: tuple[str, ...] = KAI_SCHEDULER_NAMES) -> str | None:
    """"volcano", "kai" or None for a ``schedulerName``."""
    if scheduler_name in volcano_names:
        return "volcano"
    if scheduler_name in kai_names:
        return "kai"
    return None


@dataclass(frozen=True)
class PodGroupReference:
    """One row of the pod -> PodGroup reference table: a pod label or annotation naming a
    PodGroup of one gang scheduler, resolved by name in the pod's namespace."""

    family: str                   # "volcano", "kai", "coscheduling"
    where: str                    # "annotations" or "labels" of the pod
    key: str
    group: str                    # API group of the PodGroup kind it names


POD_GROUP_REFERENCES = (
    PodGroupReference("volcano", "annotations", VOLCANO_GROUP_ANNOTATION, VOLCANO_PODGROUP[0]),
    PodGroupReference("kai", "annotations", KAI_POD_GROUP_ANNOTATION, KAI_PODGROUP[0]),
    PodGroupReference("coscheduling", "labels", COSCHEDULING_POD_GROUP_LABEL, COSCHEDULING_PODGROUP[0]),
)
SCHEDULER_TITLES = {"volcano": "Volcano", "kai": "KAI", "coscheduling": "coscheduling"}


@dataclass(frozen=True)
class PodGroupRef:
    """A template label or annotation that puts its pods into a named PodGroup."""

    family: str                   # "volcano", "kai" or "coscheduling"
    key: str                      # the annotation or label key
    name: str                     # the PodGroup name
    group: str                    # API group of the PodGroup kind it names
    where: str = "annotations"    # "annotations" or "labels"


def pod_group_refs(template: PodTemplate) -> list[PodGroupRef]:
    """The PodGroups a template names (POD_GROUP_REFERENCES: Volcano ``scheduling.k8s.io/group-name``
    and KAI ``pod-group-name`` annotations, coscheduling ``scheduling.x-k8s.io/pod-group`` label)."""
    found = []
    for row in POD_GROUP_REFERENCES:
        section = template.labels if row.where == "labels" else template.annotations
        value = text(section.get(row.key))
        if value is not None:
            found.append(PodGroupRef(row.family, row.key, value, row.group, row.where))
    return found


def is_pod_group(obj: K8sObject) -> bool:
    return (obj.group, obj.kind) in K.POD_GROUPS


def wrapped_objects(obj: K8sObject) -> list[K8sObject]:
    """The objects an AppWrapper wraps (``spec.components[].template``), as objects of their own
    in the AppWrapper's namespace and file (positions point into the AppWrapper); [] otherwise."""
    if (obj.group, obj.kind) != APPWRAPPER:
        return []
    from kqlint.objects import K8sObject, is_k8s_object

    found = []
    for index, comp in _items(obj.data, ("spec", "components")):
        inner = comp.get("template")
        if is_k8s_object(inner):
            found.append(K8sObject(obj.file, obj.doc, obj.root, obj.base + ("spec", "components", index, "template"),
                                   inner, obj.namespace or "default", obj.source))
    return found


# Kinds whose operator fills an empty template `schedulerName` itself (training-operator's gang
# scheduler, KubeRay's batch-scheduler plugins, Dynamo's Grove/KAI or LWS/Volcano paths): an
# unset name there means "the operator decides", not default-scheduler.
OPERATOR_SETS_SCHEDULER = frozenset(
    {(KUBEFLOW_GROUP, kind) for kind in KUBEFLOW_REPLICA_KEYS}
    | {K.RAYCLUSTER, K.RAYJOB, K.RAYSERVICE, K.DGD})


def effective_scheduler_name(template: PodTemplate) -> str | None:
    """The scheduler the template's pods go to; None when the operator decides (see above).
    A Volcano Job fills empty task templates from ``spec.schedulerName`` (default ``volcano``)."""
    written = text(template.spec.get("schedulerName"))
    if written is not None:
        return written
    owner = template.owner
    if (owner.group, owner.kind) == VOLCANO_JOB:
        return text_or(owner.get("spec", "schedulerName"), "volcano")
    if (owner.group, owner.kind) in OPERATOR_SETS_SCHEDULER:
        return None
    return DEFAULT_SCHEDULER


def operator_pod_group_names(obj: K8sObject) -> frozenset[str]:
    """PodGroup names an operator creates for ``obj`` under its own name (training-operator and
    Trainer's volcano plugin name the group after the job; so did older Volcano Job controllers).
    A template annotation naming one of these resolves at run time."""
    if is_kubeflow_job(obj) or (obj.group, obj.kind) in (K.TRAINJOB, VOLCANO_JOB):
        return frozenset({obj.name})
    return frozenset()


def pod_owner_meta_path(obj: K8sObject) -> tuple[Any, ...]:
    """Where the metadata of the pods' direct owner lives (a CronJob's Job: its jobTemplate)."""
    if K.CRONJOB.of(obj):
        return ("spec", "jobTemplate", "metadata")
    return ("metadata",)


def pod_owner_annotations(obj: K8sObject) -> dict[str, Any]:
    value = obj.get(*pod_owner_meta_path(obj), "annotations")
    return value if isinstance(value, dict) else {}


@dataclass(frozen=True)
class MinMemberSite:
    """A ``kai.scheduler/batch-min-member`` annotation and the pods of the Job it governs."""

    path: tuple[Any, ...]         # path to the annotation key
    value: Any
    pods: int
    job: str                      # "" (a Job), " jobTemplate" (CronJob), " replicatedJobs[name]" (JobSet)


def batch_min_member_sites(obj: K8sObject) -> list[MinMemberSite]:
    """Every ``kai.scheduler/batch-min-member`` that sets a Job's gang size: on a Job, a
    CronJob's jobTemplate, or a JobSet replicatedJob's Job template (the JobSet-level one
    counts replicatedJobs, not pods, and is left out)."""
    key = KAI_BATCH_MIN_MEMBER_ANNOTATION
    kind = (obj.group, obj.kind)
    sites: list[tuple[tuple[Any, ...], tuple[Any, ...], str]] = []
    if kind == K.JOB:
        sites = [(("metadata", "annotations"), ("spec",), "")]
    elif kind == K.CRONJOB:
        sites = [(("spec", "jobTemplate", "metadata", "annotations"), ("spec", "jobTemplate", "spec"), " jobTemplate")]
    elif kind == K.JOBSET:
        sites = [(("spec", "replicatedJobs", i, "template", "metadata", "annotations"),
                  ("spec", "replicatedJobs", i, "template", "spec"), f" replicatedJobs[{_name(rj, i)}]")
                 for i, rj in _items(obj.data, ("spec", "replicatedJobs"))]
    return [MinMemberSite(ann + (key,), mapping_at(obj.data, ann)[key], job_pods(mapping_at(obj.data, spec)), label)
            for ann, spec, label in sites if key in mapping_at(obj.data, ann)]


# ---------------------------------------------------------------- gang markers
@dataclass(frozen=True)
class GangMarker:
    """Evidence that a workload is meant for one gang scheduler."""

    family: str                   # "volcano" or "kai"
    what: str                     # "schedulerName: volcano", "annotation scheduling.k8s.io/group-name", ...
    at: Any                       # Location
    in_object: bool               # written in the workload itself (not in a referenced runtime)


# (family, where, key): template or workload metadata keys that mean one scheduler.
_MARKER_KEYS = (
    ("volcano", "annotations", VOLCANO_GROUP_ANNOTATION),
    ("volcano", "annotations", VOLCANO_LEGACY_GROUP_ANNOTATION),
    ("volcano", "annotations", VOLCANO_QUEUE_ANNOTATION),
    ("volcano", "annotations", VOLCANO_MIN_MEMBER_ANNOTATION),
    ("volcano", "labels", "volcano.sh/queue-name"),            # KubeRay's Volcano queue label
    ("kai", "annotations", KAI_POD_GROUP_ANNOTATION),
    ("kai", "annotations", KAI_BATCH_MIN_MEMBER_ANNOTATION),
    ("kai", "annotations", KAI_SKIP_PODGROUPER_ANNOTATION),
    ("kai", "labels", KAI_QUEUE_LABEL),
    ("kai", "labels", KAI_SUBGROUP_LABEL),
    ("kai", "labels", "runai/queue"),                          # KAI's queue label before v0.6.0
)


def _meta_markers(meta: dict[str, Any], at: Callable[..., Any], in_object: bool) -> list[GangMarker]:
    found = []
    for family, where, key in _MARKER_KEYS:
        section = meta.get(where)
        if isinstance(section, dict) and key in section:
            found.append(GangMarker(family, f"{where[:-1]} {key}", at(where, key), in_object))
    return found


def gang_markers(obj: K8sObject, graph: ObjectGraph | None = None,
                 volcano_names: tuple[str, ...] = VOLCANO_SCHEDULER_NAMES,
                 kai_names: tuple[str, ...] = KAI_SCHEDULER_NAMES) -> list[GangMarker]:
    """Every Volcano or KAI marker of a workload: the workload's own labels/annotations (and a
    CronJob's jobTemplate), then per written template its ``schedulerName`` and its
    labels/annotations. A TrainJob includes its runtime's templates (``in_object`` False)."""
    found = _meta_markers(obj.metadata, lambda *p: obj.at("metadata", *p), True)
    owner_meta = pod_owner_meta_path(obj)
    if owner_meta != ("metadata",):
        found += _meta_markers(mapping_at(obj.data, owner_meta), lambda *p: obj.at(*owner_meta, *p), True)
    for tpl in pod_templates(obj, graph):
        if tpl.generated:
            continue
        family = gang_family(tpl.scheduler_name, volcano_names, kai_names)
        if family is not None:
            found.append(GangMarker(family, f"schedulerName: {tpl.scheduler_name}",
                                    tpl.at("schedulerName"), tpl.owner is obj))
        found += _meta_markers(tpl.metadata, tpl.at_meta, tpl.owner is obj)
    unique: dict[tuple[str, Any], GangMarker] = {}
    for marker in found:  # a Pod's metadata is both the object's and the template's
        unique.setdefault((marker.what, marker.at), marker)
    return list(unique.values())


def volcano_tasks(obj: K8sObject) -> list[tuple[int, dict[str, Any]]]:
    """(index, task) for every mapping in a Volcano Job's ``spec.tasks``; [] for other kinds."""
    if (obj.group, obj.kind) != VOLCANO_JOB:
        return []
    return list(_items(obj.data, ("spec", "tasks")))
