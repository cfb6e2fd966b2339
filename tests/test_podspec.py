"""Requests of one pod (``quantity.pod_requests``), as kube-scheduler computes them:
``PodRequests`` in k8s.io/component-helpers/resource/helpers.go (app containers and sidecars
summed, each other init container beside the sidecars started before it, the larger of the
two; pod-level ``resources`` for cpu, memory and hugepages; ``overhead`` added), after the
API server's defaulting of a request from a limit (``SetDefaults_Pod``)."""
from __future__ import annotations

import textwrap
from fractions import Fraction

from kqlint.domain.graph import ObjectGraph
from kqlint.domain.objects import objects_from_file
from kqlint.domain.podspec import combine, containers, effective_resources, pod_requests
from kqlint.domain.quantity import Requests
from kqlint.domain.workloads import pod_templates
from kqlint.loader import parse_bytes

GI, MI = 2 ** 30, 2 ** 20


def requests_of(manifest: str) -> list[Requests]:
    """Requests of one pod of each pod template of the single object in ``manifest``."""
    source = parse_bytes("test.yaml", textwrap.dedent(manifest).encode())
    assert not source.problems, source.problems
    [obj], _, _ = objects_from_file(source, "default")
    return [pod_requests(template) for template in pod_templates(obj, ObjectGraph([obj]))]


def pod(spec: str) -> str:
    return "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n" + textwrap.indent(textwrap.dedent(spec), "  ")


def test_app_containers_add_up() -> None:
    assert requests_of(pod("""\
        containers:
        - {name: a, resources: {requests: {cpu: "1", memory: 1Gi}}}
        - {name: b, resources: {requests: {cpu: 500m}}}
        - {name: c}
    """)) == [{"cpu": Fraction(3, 2), "memory": GI}]


def test_a_limit_alone_is_the_request_and_an_explicit_request_wins() -> None:
    assert requests_of(pod("""\
        containers:
        - name: a
          resources:
            limits: {cpu: "2", memory: 2Gi, nvidia.com/gpu: 8}
            requests: {cpu: "1"}
    """)) == [{"cpu": 1, "memory": 2 * GI, "nvidia.com/gpu": 8}]


def test_init_containers_run_one_at_a_time_before_the_app() -> None:
    # max(sum of app containers, largest init container), per resource
    assert requests_of(pod("""\
        initContainers:
        - {name: i1, resources: {requests: {cpu: "3", memory: 1Gi}}}
        - {name: i2, resources: {requests: {cpu: "2", nvidia.com/gpu: 1}}}
        containers:
        - {name: a, resources: {requests: {cpu: "1", memory: 4Gi}}}
    """)) == [{"cpu": 3, "memory": 4 * GI, "nvidia.com/gpu": 1}]


def test_sidecars_run_beside_later_init_containers_and_the_app() -> None:
    # KEP-753: InitContainerUse(i) = sidecars started before i + init container i
    # app: 1 + sidecar 1 = 2 cpu; init `late` runs beside the sidecar: 2 + 1 = 3 cpu
    assert requests_of(pod("""\
        initContainers:
        - {name: proxy, restartPolicy: Always, resources: {requests: {cpu: "1", memory: 256Mi}}}
        - {name: late, resources: {requests: {cpu: "2"}}}
        containers:
        - {name: a, resources: {requests: {cpu: "1", memory: 1Gi}}}
    """)) == [{"cpu": 3, "memory": GI + 256 * MI}]


def test_an_init_container_before_a_sidecar_runs_alone() -> None:
    # init `early` (2) runs before the sidecar starts; afterwards app 1 + sidecar 1 = 2
    assert requests_of(pod("""\
        initContainers:
        - {name: early, resources: {requests: {cpu: "2"}}}
        - {name: proxy, restartPolicy: Always, resources: {requests: {cpu: "1"}}}
        containers:
        - {name: a, resources: {requests: {cpu: "1"}}}
    """)) == [{"cpu": 2}]


def test_sidecars_accumulate() -> None:
    # the third init container runs beside both sidecars: 1 + 1 + 3 = 5 > app 1 + 2 sidecars = 3
    assert requests_of(pod("""\
        initContainers:
        - {name: s1, restartPolicy: Always, resources: {requests: {cpu: "1"}}}
        - {name: s2, restartPolicy: Always, resources: {requests: {cpu: "1"}}}
        - {name: job, resources: {requests: {cpu: "3"}}}
        containers:
        - {name: a, resources: {requests: {cpu: "1"}}}
    """)) == [{"cpu": 5}]


def test_an_init_container_with_restart_policy_never_is_no_sidecar() -> None:
    assert requests_of(pod("""\
        initContainers:
        - {name: i, restartPolicy: Never, resources: {requests: {cpu: "1"}}}
        containers:
        - {name: a, resources: {requests: {cpu: "1"}}}
    """)) == [{"cpu": 1}]


def test_overhead_is_added() -> None:
    assert requests_of(pod("""\
        overhead: {cpu: 250m, memory: 120Mi}
        containers:
        - {name: a, resources: {requests: {cpu: "1", memory: 1Gi}}}
    """)) == [{"cpu": Fraction(5, 4), "memory": GI + 120 * MI}]


def test_pod_level_requests_replace_cpu_memory_and_hugepages_only() -> None:
    # IsSupportedPodLevelResource: cpu, memory and hugepages-*; other pod-level names are ignored
    assert requests_of(pod("""\
        resources:
          requests: {cpu: "4", hugepages-2Mi: 1Gi, nvidia.com/gpu: 2}
        overhead: {cpu: 100m}
        containers:
        - {name: a, resources: {requests: {cpu: "1", memory: 1Gi, nvidia.com/gpu: 1}}}
        - {name: b, resources: {requests: {cpu: "1"}}}
    """)) == [{"cpu": Fraction(41, 10), "memory": GI, "hugepages-2Mi": GI, "nvidia.com/gpu": 1}]


def test_pod_level_limit_alone_defaults_to_the_containers_requests() -> None:
    # defaultPodRequests (pkg/apis/core/v1/defaults.go): without a pod-level request, a resource
    # the containers request takes their total; one they do not request takes the pod limit;
    # hugepages always take the pod limit.
    assert requests_of(pod("""\
        resources:
          limits: {cpu: "4", memory: 8Gi, hugepages-2Mi: 1Gi}
        containers:
        - {name: a, resources: {requests: {cpu: "1", hugepages-2Mi: 2Mi}}}
    """)) == [{"cpu": 1, "memory": 8 * GI, "hugepages-2Mi": GI}]


def test_unparseable_quantities_are_left_out() -> None:
    assert requests_of(pod("""\
        containers:
        - {name: a, resources: {requests: {cpu: "{{ .Values.cpu }}", memory: 1Gi}}}
        - {name: b, resources: {requests: {cpu: "2"}}}
    """)) == [{"cpu": 2, "memory": GI}]


def test_each_pod_template_of_a_workload_has_its_own_requests() -> None:
    jobset = """\
    apiVersion: jobset.x-k8s.io/v1alpha2
    kind: JobSet
    metadata: {name: js}
    spec:
      replicatedJobs:
      - name: leader
        template:
          spec:
            template:
              spec:
                containers: [{name: l, resources: {requests: {cpu: "2"}}}]
      - name: workers
        replicas: 4
        template:
          spec:
            parallelism: 2
            template:
              spec:
                containers: [{name: w, resources: {limits: {nvidia.com/gpu: 8}}}]
    """
    assert requests_of(jobset) == [{"cpu": 2}, {"nvidia.com/gpu": 8}]  # per pod, not per template


def test_trainjob_resources_per_node_replace_the_node_container() -> None:
    # kubeflow/trainer: resourcesPerNode replaces the runtime's `node` container resources
    source = parse_bytes("t.yaml", textwrap.dedent("""\
    apiVersion: trainer.kubeflow.org/v1alpha1
    kind: ClusterTrainingRuntime
    metadata: {name: rt}
    spec:
      mlPolicy: {numNodes: 2}
      template:
        spec:
          replicatedJobs:
          - name: node
            template:
              metadata:
                labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}
              spec:
                template:
                  spec:
                    containers:
                    - {name: node, resources: {requests: {cpu: "1", nvidia.com/gpu: 1}}}
                    - {name: sidecar, resources: {requests: {cpu: 500m}}}
    ---
    apiVersion: trainer.kubeflow.org/v1alpha1
    kind: TrainJob
    metadata: {name: tj, namespace: default}
    spec:
      runtimeRef: {name: rt}
      trainer: {resourcesPerNode: {limits: {nvidia.com/gpu: 8}}}
    """).encode())
    objects, _, _ = objects_from_file(source, "default")
    graph = ObjectGraph(objects)
    [template] = pod_templates(objects[1], graph)
    assert pod_requests(template) == {"cpu": Fraction(1, 2), "nvidia.com/gpu": 8}
    assert [c.name for c, _ in effective_resources(template)] == ["node", "sidecar"]


def test_combine_takes_the_containers_it_is_given() -> None:
    spec = {"containers": [{"name": "a", "resources": {"requests": {"cpu": "1"}}}],
            "initContainers": [{"name": "i", "resources": {"requests": {"cpu": "3"}}}]}
    found = containers(spec)
    assert [c.path for c in found] == [("initContainers", 0), ("containers", 0)]
    assert combine(spec, [(c, c.resources) for c in found]) == {"cpu": 3}
    assert combine(spec, [(c, {"requests": {"cpu": "5"}}) for c in found if c.path[0] == "containers"]) == {"cpu": 5}
