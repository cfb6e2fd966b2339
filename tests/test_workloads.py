"""linter/domain/workloads/: template paths, roles, pod counts and positions for every workload kind
(shared/reference/workloads.md)."""
from __future__ import annotations

import textwrap
from pathlib import Path

from kqlint.domain.graph import ObjectGraph
from kqlint.domain.objects import K8sObject, objects_from_file
from kqlint.domain.workloads import (
    KUBEFLOW_MIN_AVAILABLE_PATH,
    PodTemplate,
    gang_family,
    has_pod_templates,
    is_workload,
    llm_group_size,
    own_templates,
    parse_podset_path,
    pod_group_refs,
    pod_templates,
    replica_specs,
    resources_per_node,
    total_pods,
    training_runtime,
)
from kqlint.loader import parse_bytes


def load(text: str) -> tuple[list[K8sObject], ObjectGraph]:
    source = parse_bytes("test.yaml", textwrap.dedent(text).encode())
    assert not source.problems, source.problems
    objects, _, _ = objects_from_file(source, "default")
    return objects, ObjectGraph(objects)


def one(text: str) -> K8sObject:
    objects, _ = load(text)
    assert len(objects) == 1
    return objects[0]


def line_of(text: str, needle: str, nth: int = 1) -> int:
    """1-based line of the ``nth`` line of ``text`` (dedented) containing ``needle``."""
    hits = [n for n, line in enumerate(textwrap.dedent(text).splitlines(), 1) if needle in line]
    return hits[nth - 1]


def summary(templates: list[PodTemplate]) -> list[tuple[str, int]]:
    return [(t.role, t.pods) for t in templates]


# ------------------------------------------------------------------ core kinds
POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: p
  annotations:
    scheduling.k8s.io/group-name: pg
spec:
  schedulerName: volcano
  containers:
  - name: c
"""


def test_pod() -> None:
    obj = one(POD)
    [tpl] = pod_templates(obj)
    assert (tpl.role, tpl.pods, tpl.path, tpl.spec_path, tpl.meta_path) == ("pod", 1, (), ("spec",), ("metadata",))
    assert tpl.scheduler_name == "volcano"
    assert tpl.annotations == {"scheduling.k8s.io/group-name": "pg"}
    assert tpl.at("containers").line == line_of(POD, "containers:")
    assert tpl.at_meta("annotations").line == line_of(POD, "annotations:")
    assert is_workload(obj) and total_pods(obj) == 1


JOB = """\
apiVersion: batch/v1
kind: Job
metadata: {name: j}
spec:
  parallelism: 8
  completions: 3
  template:
    spec:
      containers: [{name: c}]
"""


def test_job_parallelism_capped_by_completions() -> None:
    obj = one(JOB)
    [tpl] = pod_templates(obj)
    assert tpl.path == ("spec", "template") and tpl.pods == 3
    assert tpl.at("containers").line == line_of(JOB, "containers:")
    assert tpl.scheduler_name == "default-scheduler"


def test_job_defaults() -> None:
    assert total_pods(one("apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec: {template: {}}\n")) == 1
    only_parallelism = "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec: {parallelism: 4}\n"
    assert total_pods(one(only_parallelism)) == 4


def test_cronjob() -> None:
    obj = one("""\
    apiVersion: batch/v1
    kind: CronJob
    metadata: {name: cj}
    spec:
      jobTemplate:
        spec:
          parallelism: 2
          template:
            spec: {containers: [{name: c}]}
    """)
    [tpl] = pod_templates(obj)
    assert tpl.path == ("spec", "jobTemplate", "spec", "template") and tpl.pods == 2


def test_deployment_statefulset_replicaset_daemonset() -> None:
    for kind, replicas, expected in (("Deployment", "3", 3), ("StatefulSet", "", 1),
                                     ("ReplicaSet", "0", 0), ("DaemonSet", "", 1)):
        field = f"  replicas: {replicas}\n" if replicas else ""
        obj = one(f"apiVersion: apps/v1\nkind: {kind}\nmetadata: {{name: d}}\nspec:\n{field}"
                  "  template:\n    spec: {containers: [{name: c}]}\n")
        [tpl] = pod_templates(obj)
        assert (tpl.path, tpl.pods) == (("spec", "template"), expected), kind
        assert tpl.at("containers").line == (7 if replicas else 6)


# ------------------------------------------------------------------ JobSet
JOBSET = """\
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: js}
spec:
  replicatedJobs:
  - name: driver
    template:
      spec:
        template:
          spec: {containers: [{name: d}]}
  - name: workers
    replicas: 2
    template:
      spec:
        parallelism: 4
        completions: 4
        template:
          metadata:
            labels: {a: b}
          spec:
            containers: [{name: w}]
"""


def test_jobset() -> None:
    obj = one(JOBSET)
    templates = pod_templates(obj)
    assert summary(templates) == [("replicatedJobs[driver]", 1), ("replicatedJobs[workers]", 8)]
    assert templates[1].path == ("spec", "replicatedJobs", 1, "template", "spec", "template")
    assert templates[1].labels == {"a": "b"}
    assert templates[1].at("containers").line == line_of(JOBSET, "containers: [{name: w}]")
    assert total_pods(obj) == 9


# ------------------------------------------------------------------ Kubeflow
PYTORCH = """\
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: pt, namespace: train}
spec:
  runPolicy:
    schedulingPolicy:
      minAvailable: 5
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec: {containers: [{name: pytorch}]}
    Worker:
      template:
        spec:
          containers: [{name: pytorch}]
"""


def test_pytorchjob_and_replica_specs() -> None:
    obj = one(PYTORCH)
    assert summary(pod_templates(obj)) == [("Master", 1), ("Worker", 1)]
    worker = pod_templates(obj)[1]
    assert worker.path == ("spec", "pytorchReplicaSpecs", "Worker", "template")
    assert worker.at("containers").line == line_of(PYTORCH, "containers: [{name: pytorch}]", 2)
    specs = replica_specs(obj)
    assert [(s.role, s.has_replicas, s.raw_replicas, s.replicas) for s in specs] == [
        ("Master", True, 1, 1), ("Worker", False, None, 1)]
    assert obj.get(*KUBEFLOW_MIN_AVAILABLE_PATH) == 5


def test_other_kubeflow_kinds() -> None:
    for kind, key, roles in (("TFJob", "tfReplicaSpecs", ("Chief", "PS", "Worker")),
                             ("XGBoostJob", "xgbReplicaSpecs", ("Master", "Worker")),
                             ("PaddleJob", "paddleReplicaSpecs", ("Master", "Worker")),
                             ("JAXJob", "jaxReplicaSpecs", ("Worker",))):
        body = "".join(f"    {role}:\n      replicas: 2\n      template: {{spec: {{}}}}\n" for role in roles)
        obj = one(f"apiVersion: kubeflow.org/v1\nkind: {kind}\nmetadata: {{name: x}}\nspec:\n  {key}:\n{body}")
        assert summary(pod_templates(obj)) == [(role, 2) for role in roles], kind
        assert [s.role for s in replica_specs(obj)] == list(roles)


def test_mpijob_worker_defaults_to_zero() -> None:
    for version in ("v1", "v2beta1"):
        obj = one(f"""\
        apiVersion: kubeflow.org/{version}
        kind: MPIJob
        metadata: {{name: mpi}}
        spec:
          mpiReplicaSpecs:
            Launcher:
              template: {{spec: {{}}}}
            Worker:
              template: {{spec: {{}}}}
        """)
        assert summary(pod_templates(obj)) == [("Launcher", 1), ("Worker", 0)], version


def test_replica_specs_only_for_kubeflow() -> None:
    assert replica_specs(one(JOB)) == []
    assert replica_specs(one("apiVersion: example.com/v1\nkind: PyTorchJob\nmetadata: {name: x}\n")) == []


# ------------------------------------------------------------------ Trainer v2
RUNTIME = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata: {name: torch-distributed}
spec:
  mlPolicy:
    numNodes: 2
    torch: {}
  template:
    spec:
      replicatedJobs:
      - name: dataset-initializer
        template:
          spec:
            template:
              spec: {containers: [{name: init}]}
      - name: node
        template:
          metadata:
            labels:
              trainer.kubeflow.org/trainjob-ancestor-step: trainer
          spec:
            template:
              spec:
                schedulerName: kai-scheduler
                containers: [{name: node}]
---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: tj, namespace: ml}
spec:
  runtimeRef: {name: torch-distributed}
  trainer:
    numNodes: 4
    resourcesPerNode:
      limits: {nvidia.com/gpu: 8}
"""


def test_trainjob_uses_runtime_templates() -> None:
    (runtime, trainjob), graph = load(RUNTIME)
    assert training_runtime(trainjob, graph) is runtime
    templates = pod_templates(trainjob, graph)
    assert summary(templates) == [("replicatedJobs[dataset-initializer]", 1), ("replicatedJobs[node]", 4)]
    node = templates[1]
    assert node.owner is runtime and node.workload is trainjob and node.trainer_step
    assert node.scheduler_name == "kai-scheduler"
    assert node.at("containers").line == line_of(RUNTIME, "containers: [{name: node}]")
    assert resources_per_node(node) == {"limits": {"nvidia.com/gpu": 8}}
    assert resources_per_node(templates[0]) == {}
    assert own_templates(trainjob, graph) == []
    assert is_workload(trainjob) and not is_workload(runtime) and has_pod_templates(runtime)


def test_runtime_alone_uses_ml_policy() -> None:
    (runtime, _), graph = load(RUNTIME)
    assert summary(pod_templates(runtime, graph)) == [("replicatedJobs[dataset-initializer]", 1),
                                                      ("replicatedJobs[node]", 2)]
    assert len(own_templates(runtime)) == 2


def test_trainjob_unresolved_runtime_and_mpi_launcher_as_node() -> None:
    trainjob = one("apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: t}\n"
                   "spec: {runtimeRef: {name: missing}}\n")
    assert pod_templates(trainjob, ObjectGraph([trainjob])) == [] and pod_templates(trainjob) == []
    (runtime, trainjob), graph = load(RUNTIME.replace("torch: {}", "mpi: {runLauncherAsNode: true}"))
    assert summary(pod_templates(trainjob, graph))[1] == ("replicatedJobs[node]", 3)


def test_trainjob_namespaced_runtime() -> None:
    text = RUNTIME.replace("kind: ClusterTrainingRuntime\nmetadata: {name: torch-distributed}",
                           "kind: TrainingRuntime\nmetadata: {name: torch-distributed, namespace: ml}")
    text = text.replace("runtimeRef: {name: torch-distributed}",
                        "runtimeRef: {name: torch-distributed, kind: TrainingRuntime}")
    (runtime, trainjob), graph = load(text)
    assert training_runtime(trainjob, graph) is runtime
    (_, other), graph = load(text.replace("namespace: ml}\nspec:\n  runtimeRef", "namespace: x}\nspec:\n  runtimeRef"))
    assert training_runtime(other, graph) is None


# ------------------------------------------------------------------ LeaderWorkerSet
LWS = """\
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: lws}
spec:
  replicas: 3
  leaderWorkerTemplate:
    size: 4
    leaderTemplate:
      spec: {containers: [{name: leader}]}
    workerTemplate:
      spec:
        containers: [{name: worker}]
"""


def test_lws_with_leader_template() -> None:
    obj = one(LWS)
    templates = pod_templates(obj)
    assert summary(templates) == [("leader", 3), ("worker", 9)] and total_pods(obj) == 12
    assert templates[1].path == ("spec", "leaderWorkerTemplate", "workerTemplate")
    assert templates[1].at("containers").line == line_of(LWS, "containers: [{name: worker}]")


def test_lws_without_leader_template() -> None:
    obj = one(LWS.replace("    leaderTemplate:\n      spec: {containers: [{name: leader}]}\n", ""))
    assert summary(pod_templates(obj)) == [("worker", 12)]


# ------------------------------------------------------------------ LLMInferenceService
LLM = """\
apiVersion: serving.kserve.io/v1alpha2
kind: LLMInferenceService
metadata: {name: llm}
spec:
  replicas: 2
  labels: {team: a}
  parallelism: {data: 16, dataLocal: 8, tensor: 8}
  template:
    containers: [{name: main}]
  worker:
    schedulerName: kai-scheduler
    containers: [{name: main}]
  prefill:
    replicas: 1
    annotations: {x: z}
    parallelism: {pipeline: 3}
    worker:
      containers: [{name: main}]
"""


def test_llminferenceservice_multinode_and_prefill() -> None:
    obj = one(LLM)
    templates = pod_templates(obj)
    assert summary(templates) == [("template", 2), ("worker", 2), ("prefill.worker", 3)]
    leader, worker, prefill = templates
    assert leader.path == leader.spec_path == ("spec", "template")
    assert worker.scheduler_name == "kai-scheduler"
    assert worker.labels == {"team": "a"} and prefill.annotations == {"x": "z"} and prefill.labels == {}
    assert worker.at("schedulerName").line == line_of(LLM, "schedulerName")
    assert prefill.at("containers").line == line_of(LLM, "containers: [{name: main}]", 3)


def test_llminferenceservice_single_node_and_group_size() -> None:
    obj = one("apiVersion: serving.kserve.io/v1alpha1\nkind: LLMInferenceService\nmetadata: {name: s}\n"
              "spec:\n  template:\n    containers: []\n")
    assert summary(pod_templates(obj)) == [("template", 1)]
    assert llm_group_size({"data": 16, "dataLocal": 8}) == 2
    assert llm_group_size({"data": 4}) == 4 and llm_group_size({"dataLocal": 8}) == 1
    assert llm_group_size({"pipeline": 2, "tensor": 8}) == 2 and llm_group_size(None) == 1


# ------------------------------------------------------------------ Dynamo
DGD_V1ALPHA1 = """\
apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata: {name: dgd}
spec:
  services:
    Frontend:
      replicas: 1
    VllmWorker:
      replicas: 2
      multinode: {}
      extraPodMetadata:
        labels: {kueue.x-k8s.io/queue-name: q}
      extraPodSpec:
        schedulerName: kai-scheduler
        mainContainer: {image: x}
"""


def test_dgd_v1alpha1_services() -> None:
    obj = one(DGD_V1ALPHA1)
    templates = pod_templates(obj)
    assert summary(templates) == [("Frontend", 1), ("VllmWorker", 4)]
    worker = templates[1]
    assert worker.spec_path == ("spec", "services", "VllmWorker", "extraPodSpec")
    assert worker.labels == {"kueue.x-k8s.io/queue-name": "q"} and worker.scheduler_name == "kai-scheduler"
    assert worker.at("schedulerName").line == line_of(DGD_V1ALPHA1, "schedulerName")
    assert templates[0].spec == {} and templates[0].at("schedulerName").line == line_of(DGD_V1ALPHA1, "Frontend:")


def test_dgd_v1beta1_components() -> None:
    obj = one("""\
    apiVersion: nvidia.com/v1beta1
    kind: DynamoGraphDeployment
    metadata: {name: dgd}
    spec:
      components:
      - name: decode
        replicas: 3
        multinode: {nodeCount: 4}
        podTemplate:
          metadata: {annotations: {a: b}}
          spec: {containers: [{name: main}]}
      - name: frontend
    """)
    templates = pod_templates(obj)
    assert summary(templates) == [("decode", 12), ("frontend", 1)]
    assert templates[0].path == ("spec", "components", 0, "podTemplate")
    assert templates[0].annotations == {"a": "b"}


# ------------------------------------------------------------------ Ray
RAYCLUSTER = """\
apiVersion: ray.io/v1
kind: RayCluster
metadata: {name: rc}
spec:
  headGroupSpec:
    template:
      spec: {containers: [{name: head}]}
  workerGroupSpecs:
  - groupName: small
    replicas: 1
    minReplicas: 2
    maxReplicas: 5
    numOfHosts: 2
    template:
      spec: {containers: [{name: w}]}
  - groupName: big
    replicas: 10
    maxReplicas: 3
    template: {spec: {}}
  - groupName: paused
    replicas: 4
    suspend: true
    template: {spec: {}}
  - groupName: unset
    template: {spec: {}}
"""


def test_raycluster_groups() -> None:
    obj = one(RAYCLUSTER)
    templates = pod_templates(obj)
    assert summary(templates) == [("head", 1), ("workerGroupSpecs[small]", 4), ("workerGroupSpecs[big]", 3),
                                  ("workerGroupSpecs[paused]", 0), ("workerGroupSpecs[unset]", 0)]
    assert templates[1].path == ("spec", "workerGroupSpecs", 0, "template")
    assert templates[1].at("containers").line == line_of(RAYCLUSTER, "containers: [{name: w}]")


def test_rayservice() -> None:
    obj = one("apiVersion: ray.io/v1\nkind: RayService\nmetadata: {name: rs}\nspec:\n  rayClusterConfig:\n"
              "    headGroupSpec: {template: {spec: {}}}\n    workerGroupSpecs:\n"
              "    - {groupName: g, replicas: 2, template: {spec: {}}}\n")
    assert summary(pod_templates(obj)) == [("head", 1), ("workerGroupSpecs[g]", 2)]
    assert pod_templates(obj)[0].path == ("spec", "rayClusterConfig", "headGroupSpec", "template")


def test_rayjob_default_submitter_is_generated() -> None:
    obj = one("apiVersion: ray.io/v1\nkind: RayJob\nmetadata: {name: rj}\nspec:\n  rayClusterSpec:\n"
              "    headGroupSpec: {template: {spec: {}}}\n    workerGroupSpecs:\n"
              "    - {groupName: g, replicas: 2, template: {spec: {}}}\n")
    templates = pod_templates(obj)
    assert summary(templates) == [("head", 1), ("workerGroupSpecs[g]", 2), ("submitter", 1)]
    assert templates[2].generated and total_pods(obj) == 4
    assert [t.role for t in own_templates(obj)] == ["head", "workerGroupSpecs[g]"]


def test_rayjob_cluster_selector_and_modes() -> None:
    base = "apiVersion: ray.io/v1\nkind: RayJob\nmetadata: {name: rj}\nspec:\n"
    selector = one(base + "  clusterSelector: {ray.io/cluster: c}\n  submitterPodTemplate: {spec: {}}\n"
                   "  rayClusterSpec: {headGroupSpec: {template: {spec: {}}}}\n")
    [submitter] = pod_templates(selector)
    assert submitter.role == "submitter" and not submitter.generated
    assert submitter.path == ("spec", "submitterPodTemplate")
    http = one(base + "  submissionMode: HTTPMode\n  rayClusterSpec: {headGroupSpec: {template: {spec: {}}}}\n")
    assert summary(pod_templates(http)) == [("head", 1)]


# ------------------------------------------------------------------ Volcano Job
VCJOB = """\
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: vj}
spec:
  minAvailable: 3
  tasks:
  - name: ps
    replicas: 1
    template:
      spec: {containers: [{name: ps}]}
  - replicas: 2
    template:
      spec:
        containers: [{name: w}]
  - name: none
    template: {spec: {}}
"""


def test_volcano_job() -> None:
    obj = one(VCJOB)
    templates = pod_templates(obj)
    assert summary(templates) == [("tasks[ps]", 1), ("tasks[1]", 2), ("tasks[none]", 0)]
    assert templates[1].path == ("spec", "tasks", 1, "template")
    assert templates[1].at("containers").line == line_of(VCJOB, "containers: [{name: w}]")


def test_batch_job_and_volcano_job_are_distinct() -> None:
    assert summary(pod_templates(one(JOB))) == [("template", 3)]


# ------------------------------------------------------------------ AppWrapper
APPWRAPPER = """\
apiVersion: workload.codeflare.dev/v1beta2
kind: AppWrapper
metadata: {name: aw}
spec:
  components:
  - podSets:
    - replicas: 2
      path: template.spec.replicatedJobs[0].template.spec.template
    template:
      apiVersion: jobset.x-k8s.io/v1alpha2
      kind: JobSet
      metadata: {name: js}
      spec:
        replicatedJobs:
        - name: w
          template:
            spec:
              template:
                spec:
                  containers: [{name: w}]
  - template:
      apiVersion: batch/v1
      kind: Job
      metadata: {name: j}
      spec:
        parallelism: 3
        template:
          spec:
            containers: [{name: j}]
  - template:
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: cm}
"""


def test_appwrapper_podsets_and_inference() -> None:
    obj = one(APPWRAPPER)
    templates = pod_templates(obj)
    assert summary(templates) == [
        ("components[0].template.spec.replicatedJobs[0].template.spec.template", 2),
        ("components[1].template", 3)]
    assert templates[0].path == ("spec", "components", 0, "template", "spec", "replicatedJobs", 0,
                                 "template", "spec", "template")
    assert templates[0].at("containers").line == line_of(APPWRAPPER, "containers: [{name: w}]")
    assert templates[1].at("containers").line == line_of(APPWRAPPER, "containers: [{name: j}]")
    assert parse_podset_path("template.spec.template") == ("template", "spec", "template")
    assert parse_podset_path("spec.template") is None and parse_podset_path(7) is None


# ------------------------------------------------------------------ gang helpers and robustness
def test_pod_group_refs_and_gang_family() -> None:
    obj = one(POD.replace("    scheduling.k8s.io/group-name: pg\n",
                          "    scheduling.k8s.io/group-name: pg\n    pod-group-name: kai-pg\n"))
    refs = pod_group_refs(pod_templates(obj)[0])
    assert [(r.family, r.name) for r in refs] == [("volcano", "pg"), ("kai", "kai-pg")]
    assert gang_family("volcano-scheduler") == "volcano" and gang_family("kai-scheduler") == "kai"
    assert gang_family("default-scheduler") is None
    assert gang_family("my-volcano", volcano_names=("my-volcano",)) == "volcano"


def test_non_workloads() -> None:
    obj = one("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: b}\n")
    assert pod_templates(obj) == [] and not is_workload(obj) and total_pods(obj) == 0
    fake_job = one("apiVersion: example.com/v1\nkind: Job\nmetadata: {name: j}\nspec: {template: {}}\n")
    assert pod_templates(fake_job) == []


WRONG_TYPES = [
    "apiVersion: batch/v1\nkind: Job\nmetadata: {name: a}\nspec: {parallelism: '4', completions: true, template: 3}\n",
    "apiVersion: batch/v1\nkind: Job\nmetadata: {name: a}\nspec: [1, 2]\n",
    "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a}\nspec: {replicas: -2, template: []}\n",
    "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata: {name: a}\n"
    "spec: {replicatedJobs: [1, {replicas: x}]}\n",
    "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: a}\nspec: {pytorchReplicaSpecs: [1]}\n",
    "apiVersion: kubeflow.org/v1\nkind: TFJob\nmetadata: {name: a}\n"
    "spec: {tfReplicaSpecs: {Worker: 3, PS: {replicas: x}}}\n",
    "apiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\nmetadata: {name: a}\n"
    "spec: {leaderWorkerTemplate: 5}\n",
    "apiVersion: serving.kserve.io/v1alpha2\nkind: LLMInferenceService\nmetadata: {name: a}\n"
    "spec: {worker: {}, parallelism: [], prefill: 3}\n",
    "apiVersion: nvidia.com/v1alpha1\nkind: DynamoGraphDeployment\nmetadata: {name: a}\n"
    "spec: {services: [1], components: {a: b}}\n",
    "apiVersion: nvidia.com/v1beta1\nkind: DynamoGraphDeployment\nmetadata: {name: a}\n"
    "spec: {services: {x: 1, y: {multinode: 3}}, components: [1, {multinode: {nodeCount: x}}]}\n",
    "apiVersion: ray.io/v1\nkind: RayJob\nmetadata: {name: a}\n"
    "spec: {rayClusterSpec: {workerGroupSpecs: 3}, submissionMode: 5}\n",
    "apiVersion: ray.io/v1\nkind: RayCluster\nmetadata: {name: a}\n"
    "spec: {workerGroupSpecs: [{replicas: x, numOfHosts: 0}]}\n",
    "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: a}\nspec: {tasks: {a: 1}}\n",
    "apiVersion: workload.codeflare.dev/v1beta2\nkind: AppWrapper\nmetadata: {name: a}\n"
    "spec: {components: [{podSets: [{path: 3}, 4]}, {template: {apiVersion: 3, kind: []}}]}\n",
    "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: a}\nspec: {runtimeRef: [x]}\n",
    "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: ClusterTrainingRuntime\nmetadata: {name: a}\n"
    "spec: {mlPolicy: 3, template: {spec: {replicatedJobs: [{template: {metadata: {labels: 4}}}]}}}\n",
]


def test_wrong_types_never_crash() -> None:
    for text in WRONG_TYPES:
        objects, graph = load(text)
        for obj in objects:
            for tpl in pod_templates(obj, graph):
                assert tpl.pods >= 0
                assert isinstance(tpl.spec, dict) and isinstance(tpl.labels, dict)
                assert isinstance(tpl.annotations, dict) and isinstance(tpl.containers, list)
                tpl.at("containers")
                tpl.at_meta("annotations")
                pod_group_refs(tpl)
            replica_specs(obj)


def test_corpus_never_crashes() -> None:
    from conftest import shared_dir

    corpus = shared_dir("corpus")
    count = 0
    for path in sorted(Path(corpus).rglob("*.y*ml")):
        objects, _, _ = objects_from_file(parse_bytes(str(path), path.read_bytes()), "default")
        graph = ObjectGraph(objects)
        for obj in objects:
            for tpl in pod_templates(obj, graph):
                tpl.at("containers")
                count += 1
    assert count > 100


# ------------------------------------------------------------------ helpers for the gang rules
def test_effective_scheduler_name() -> None:
    from kqlint.domain.workloads import effective_scheduler_name

    assert [effective_scheduler_name(t) for t in pod_templates(one(VCJOB))] == ["volcano"] * 3
    vcjob = one(VCJOB.replace("  minAvailable: 3\n", "  minAvailable: 3\n  schedulerName: vc\n"))
    assert effective_scheduler_name(pod_templates(vcjob)[0]) == "vc"
    assert [effective_scheduler_name(t) for t in pod_templates(one(PYTORCH))] == [None, None]
    assert effective_scheduler_name(pod_templates(one(JOB))[0]) == "default-scheduler"
    assert effective_scheduler_name(pod_templates(one(POD))[0]) == "volcano"


def test_operator_pod_group_names_and_owner_annotations() -> None:
    from kqlint.domain.workloads import operator_pod_group_names, pod_owner_annotations

    assert operator_pod_group_names(one(PYTORCH)) == frozenset({"pt"})
    assert operator_pod_group_names(one(VCJOB)) == frozenset({"vj"})
    assert operator_pod_group_names(one(JOB)) == frozenset()
    cron = one("apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: c, annotations: {a: outer}}\n"
               "spec: {jobTemplate: {metadata: {annotations: {a: inner}}}}\n")
    assert pod_owner_annotations(cron) == {"a": "inner"}
    assert pod_owner_annotations(one(POD)) == {"scheduling.k8s.io/group-name": "pg"}


def test_batch_min_member_sites() -> None:
    from kqlint.domain.workloads import batch_min_member_sites

    job = one(JOB.replace("metadata: {name: j}", "metadata: {name: j, annotations: "
                                                  "{kai.scheduler/batch-min-member: '5'}}"))
    [site] = batch_min_member_sites(job)
    assert (site.path, site.value, site.pods, site.job) == (
        ("metadata", "annotations", "kai.scheduler/batch-min-member"), "5", 3, "")
    jobset = one(JOBSET.replace("        parallelism: 4\n", "        parallelism: 4\n")
                 .replace("  - name: workers\n    replicas: 2\n    template:\n",
                          "  - name: workers\n    replicas: 2\n    template:\n      metadata:\n"
                          "        annotations: {kai.scheduler/batch-min-member: '2'}\n"))
    [site] = batch_min_member_sites(jobset)
    assert site.path[:2] == ("spec", "replicatedJobs") and site.pods == 4 and site.job == " replicatedJobs[workers]"
    assert batch_min_member_sites(one(POD)) == []


def test_gang_markers() -> None:
    from kqlint.domain.workloads import gang_markers

    obj = one(POD.replace("metadata:\n  name: p\n", "metadata:\n  name: p\n  labels: {kai.scheduler/queue: q}\n"))
    markers = gang_markers(obj)
    assert [(m.family, m.what) for m in markers] == [
        ("volcano", "annotation scheduling.k8s.io/group-name"), ("kai", "label kai.scheduler/queue"),
        ("volcano", "schedulerName: volcano")]
    assert all(m.in_object for m in markers)
    assert markers[2].at.line == line_of(POD, "schedulerName") + 1
    (runtime, trainjob), graph = load(RUNTIME.replace("metadata: {name: tj, namespace: ml}",
                                                      "metadata: {name: tj, namespace: ml, labels: {x: z}}"))
    [kai] = gang_markers(trainjob, graph)
    assert kai.what == "schedulerName: kai-scheduler" and not kai.in_object


def test_volcano_tasks() -> None:
    from kqlint.domain.workloads import volcano_tasks

    assert [i for i, _ in volcano_tasks(one(VCJOB))] == [0, 1, 2]
    assert volcano_tasks(one(JOB)) == []
