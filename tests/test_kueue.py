"""Unit tests for kqlint.domain.kueue: the Kueue / PriorityClass facts rules rely on
(shared/reference/kueue.md A1-A3, B8, B12, B13)."""
from __future__ import annotations

import time

import pytest
from kqlint.domain import kueue
from kqlint.domain.graph import ObjectGraph, declared_object
from kqlint.domain.objects import EXTERNAL, INPUT, K8sObject, objects_from_file
from kqlint.loader import parse_bytes


def objects(text: str, file: str = "test.yaml") -> list[K8sObject]:
    found, _, _ = objects_from_file(parse_bytes(file, text.encode()), "default", INPUT)
    return found


def graph(text: str) -> ObjectGraph:
    return ObjectGraph(objects(text))


def first(g: ObjectGraph, kind: str, name: str | None = None) -> K8sObject:
    return next(o for o in g.objects if o.kind == kind and (name is None or o.name == name))


def pc(name: str, value: object, policy: str | None = None, default: bool | None = None) -> str:
    lines = ["apiVersion: scheduling.k8s.io/v1", "kind: PriorityClass", f"metadata: {{name: {name}}}",
             f"value: {value}"]
    if policy is not None:
        lines.append(f"preemptionPolicy: {policy}")
    if default is not None:
        lines.append(f"globalDefault: {str(default).lower()}")
    return "\n".join(lines) + "\n---\n"


def wpc(name: str, value: int) -> str:
    return (f"apiVersion: kueue.x-k8s.io/v1beta2\nkind: WorkloadPriorityClass\nmetadata: {{name: {name}}}\n"
            f"value: {value}\n---\n")


def job(name: str, labels: str = "", pcn: str | None = None, namespace: str = "ml", parallelism: int = 1) -> str:
    spec_pc = f"      priorityClassName: {pcn}\n" if pcn else ""
    label_block = f"  labels: {{{labels}}}\n" if labels else ""
    return (f"apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: {name}\n  namespace: {namespace}\n{label_block}"
            f"spec:\n  parallelism: {parallelism}\n  template:\n    spec:\n{spec_pc}"
            f"      containers: [{{name: main, image: x}}]\n---\n")


QUEUE = "kueue.x-k8s.io/queue-name"
PRIO = "kueue.x-k8s.io/priority-class"
QUEUES = """
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: gpu}
spec: {namespaceSelector: {}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: training, namespace: ml}
spec: {clusterQueue: gpu}
---
"""


# ---------------------------------------------------------------- PriorityClass facts

def test_effective_preemption_policy_defaults_to_preempt_lower_priority() -> None:
    g = graph(pc("a", 1) + pc("b", 1, "Never") + pc("c", 1, "PreemptLowerPriority"))
    assert kueue.effective_preemption_policy(first(g, "PriorityClass", "a")) == "PreemptLowerPriority"
    assert kueue.effective_preemption_policy(first(g, "PriorityClass", "b")) == "Never"
    assert kueue.effective_preemption_policy(first(g, "PriorityClass", "c")) == "PreemptLowerPriority"


def test_global_default_lowest_value_wins_and_only_boolean_true_counts() -> None:
    g = graph(pc("high", 500, default=True) + pc("low", 5, default=True) + pc("quoted", 1) +
              'apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: s}\nvalue: 0\n'
              'globalDefault: "true"\n')
    default = kueue.global_default_class(g)
    assert default is not None and default.name == "low"
    assert sorted(p.name for p in kueue.global_defaults(g)) == ["high", "low"]


def test_no_global_default_and_builtins_are_not_defaults() -> None:
    g = graph(pc("a", 1))
    assert kueue.global_default_class(g) is None
    assert kueue.resolve_priority_class("system-node-critical", g) is not None


def test_builtin_class_recognised_only_when_exact() -> None:
    g = graph(pc("system-cluster-critical", 2000000000) + pc("system-node-critical", 5))
    assert kueue.is_builtin_class(first(g, "PriorityClass", "system-cluster-critical"))
    assert not kueue.is_builtin_class(next(o for o in g.objects if o.name == "system-node-critical"
                                           and o.source == INPUT))


# ---------------------------------------------------------------- pod priority

def test_pod_priority_named_default_zero_and_unresolved() -> None:
    text = pc("gang", 10, "Never") + pc("d", 100, default=True)
    text += job("named", pcn="gang") + job("plain") + job("missing", pcn="nope")
    g = graph(text)

    def prio(name: str) -> kueue.PodPriority:
        template = kueue.pod_templates(first(g, "Job", name), g)[0]
        return kueue.pod_priority(template, g)

    assert (prio("named").value, prio("named").policy, prio("named").source) == (10, "Never", "named")
    assert (prio("plain").value, prio("plain").class_name, prio("plain").source) == (100, "d", "global-default")
    missing = prio("missing")
    assert not missing.resolved and missing.value is None and not missing.can_preempt

    g0 = graph(job("plain"))
    template = kueue.pod_templates(first(g0, "Job"), g0)[0]
    zero = kueue.pod_priority(template, g0)
    assert (zero.value, zero.policy, zero.source) == (0, "PreemptLowerPriority", "none")


def test_builtin_system_class_preempts() -> None:
    g = graph(job("critical", pcn="system-cluster-critical"))
    priority = kueue.pod_priority(kueue.pod_templates(first(g, "Job"), g)[0], g)
    assert priority.value == 2000000000 and priority.can_preempt


# ---------------------------------------------------------------- workload priority (B12)

def test_workload_priority_from_label_does_not_fall_back_when_missing() -> None:
    g = graph(wpc("prod", 1000) + pc("pods", 5) + job("a", f"{QUEUE}: q, {PRIO}: prod", "pods")
              + job("b", f"{QUEUE}: q, {PRIO}: ghost", "pods"))
    a = kueue.workload_priority(first(g, "Job", "a"), g)
    assert (a.value, a.source, a.class_name) == (1000, "workload-priority-class", "prod")
    assert a.at is not None and a.at.path == ("metadata", "labels", PRIO)
    b = kueue.workload_priority(first(g, "Job", "b"), g)
    assert not b.resolved and b.value is None and b.source == "workload-priority-class"


def test_workload_priority_empty_label_falls_back_to_pod_class() -> None:
    g = graph(pc("pods", 7) + job("a", f'{QUEUE}: q, {PRIO}: ""', "pods"))
    priority = kueue.workload_priority(first(g, "Job"), g)
    assert (priority.value, priority.source) == (7, "priority-class")


def test_workload_priority_global_default_then_zero() -> None:
    g = graph(pc("d", 42, default=True) + job("a", f"{QUEUE}: q"))
    assert kueue.workload_priority(first(g, "Job"), g).value == 42
    g0 = graph(job("a", f"{QUEUE}: q"))
    zero = kueue.workload_priority(first(g0, "Job"), g0)
    assert (zero.value, zero.source) == (0, "none")


def test_workload_priority_unresolved_pod_class_is_not_guessed() -> None:
    g = graph(pc("d", 42, default=True) + job("a", f"{QUEUE}: q", "nope"))
    priority = kueue.workload_priority(first(g, "Job"), g)
    assert not priority.resolved and priority.class_name == "nope"


KUBEFLOW = """
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: bert, namespace: ml, labels: {kueue.x-k8s.io/queue-name: q}}
spec:
  RUNPOLICY
  pytorchReplicaSpecs:
    Worker:
      replicas: 2
      template: {spec: {priorityClassName: worker-pc, containers: [{name: pytorch}]}}
    Master:
      replicas: 1
      template: {spec: {priorityClassName: master-pc, containers: [{name: pytorch}]}}
"""


def test_kubeflow_uses_operator_replica_order_not_file_order() -> None:
    g = graph(pc("worker-pc", 1) + pc("master-pc", 2) + KUBEFLOW.replace("RUNPOLICY", ""))
    priority = kueue.workload_priority(first(g, "PyTorchJob"), g)
    assert (priority.class_name, priority.value) == ("master-pc", 2)


def test_kubeflow_run_policy_priority_class_comes_first() -> None:
    run_policy = "runPolicy: {schedulingPolicy: {priorityClass: rp}}"
    g = graph(pc("worker-pc", 1) + pc("master-pc", 2) + pc("rp", 3) + KUBEFLOW.replace("RUNPOLICY", run_policy))
    priority = kueue.workload_priority(first(g, "PyTorchJob"), g)
    assert (priority.class_name, priority.value) == ("rp", 3)
    assert priority.at is not None and priority.at.path == ("spec", "runPolicy", "schedulingPolicy", "priorityClass")


def test_mpijob_launcher_before_worker_and_jobset_first_non_empty() -> None:
    text = pc("l", 1) + pc("w", 2) + """
apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata: {name: pi, namespace: ml}
spec:
  mpiReplicaSpecs:
    Worker: {replicas: 2, template: {spec: {priorityClassName: w}}}
    Launcher: {replicas: 1, template: {spec: {priorityClassName: l}}}
---
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: js, namespace: ml}
spec:
  replicatedJobs:
    - name: a
      template: {spec: {template: {spec: {containers: []}}}}
    - name: b
      template: {spec: {template: {spec: {priorityClassName: w}}}}
"""
    g = graph(text)
    assert kueue.workload_priority(first(g, "MPIJob"), g).class_name == "l"
    assert kueue.workload_priority(first(g, "JobSet"), g).class_name == "w"


# ---------------------------------------------------------------- queue routing (B13)

def test_queue_name_read_only_from_the_objects_own_labels() -> None:
    g = graph(job("own", f"{QUEUE}: a") + """
apiVersion: batch/v1
kind: Job
metadata: {name: tmpl, namespace: ml}
spec: {template: {metadata: {labels: {kueue.x-k8s.io/queue-name: a}}, spec: {}}}
---
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: vc, namespace: ml, labels: {kueue.x-k8s.io/queue-name: a}}
spec: {tasks: [{replicas: 2, template: {spec: {}}}]}
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: cron, namespace: ml}
spec: {jobTemplate: {metadata: {labels: {kueue.x-k8s.io/queue-name: c}}, spec: {template: {spec: {}}}}}
""")
    assert kueue.queue_name(first(g, "Job", "own")) == "a"
    assert kueue.queue_name(first(g, "Job", "tmpl")) is None
    assert not kueue.is_kueue_managed(first(g, "Job", "tmpl"), g)
    assert not kueue.is_kueue_managed(first(g, "Job", "vc"), g)
    assert kueue.queue_name(first(g, "CronJob")) == "c"


def test_dynamo_components_are_managed_per_pod_template() -> None:
    g = graph("""
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata: {name: llm, namespace: ml, labels: {kueue.x-k8s.io/queue-name: ignored}}
spec:
  components:
    - name: Frontend
      podTemplate: {spec: {}}
    - name: Worker
      replicas: 2
      podTemplate:
        metadata: {labels: {kueue.x-k8s.io/queue-name: serving, kueue.x-k8s.io/priority-class: high}}
        spec: {}
""")
    units = kueue.managed_workloads(first(g, "DynamoGraphDeployment"), g)
    assert [(u.queue, u.templates[0].role, u.priority_label()) for u in units] == [("serving", "Worker", "high")]
    assert kueue.is_multi_pod(units[0].obj, g)


def test_llm_inference_service_is_not_an_integration() -> None:
    g = graph("""
apiVersion: serving.kserve.io/v1alpha2
kind: LLMInferenceService
metadata: {name: llm, namespace: ml, labels: {kueue.x-k8s.io/queue-name: serving}}
spec: {template: {containers: []}}
""")
    assert not kueue.is_kueue_managed(first(g, "LLMInferenceService"), g)


def test_local_queue_defaulting_is_namespace_aware() -> None:
    default_lq = ("apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: default, namespace: ml}\n"
                  "spec: {clusterQueue: gpu}\n---\n")
    g = graph(QUEUES + default_lq + job("here") + job("there", namespace="other"))
    units = kueue.managed_workloads(first(g, "Job", "here"), g)
    assert len(units) == 1 and units[0].queue == "default" and units[0].queue_defaulted
    assert kueue.cluster_queue_of(units[0], g) is not None
    assert not kueue.is_kueue_managed(first(g, "Job", "there"), g)


def test_cluster_queue_resolution_needs_every_link() -> None:
    g = graph(QUEUES + job("ok", f"{QUEUE}: training") + job("wrong-ns", f"{QUEUE}: training", namespace="x")
              + job("no-lq", f"{QUEUE}: nope"))
    resolved = {name: kueue.cluster_queue_of(kueue.managed_workloads(first(g, "Job", name), g)[0], g)
                for name in ("ok", "wrong-ns", "no-lq")}
    assert resolved["ok"] is not None and resolved["ok"].name == "gpu"
    assert resolved["wrong-ns"] is None and resolved["no-lq"] is None


def test_within_cluster_queue_default_is_never() -> None:
    g = graph(QUEUES + "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: p}\n"
                       "spec: {preemption: {withinClusterQueue: LowerPriority}}\n")
    assert kueue.within_cluster_queue(first(g, "ClusterQueue", "gpu")) == "Never"
    assert kueue.within_cluster_queue(first(g, "ClusterQueue", "p")) == "LowerPriority"


# ---------------------------------------------------------------- indexes and caching

def test_routed_workloads_is_cached_and_refreshed_when_objects_are_added() -> None:
    g = graph(QUEUES + job("a", f"{QUEUE}: training"))
    first_index = kueue.routed_workloads(g)
    assert kueue.routed_workloads(g) is first_index
    assert [u.obj.name for u in first_index["gpu"]] == ["a"]
    g.add(objects(job("b", f"{QUEUE}: training"), "more.yaml"))
    assert sorted(u.obj.name for u in kueue.routed_workloads(g)["gpu"]) == ["a", "b"]


def test_workload_priority_classes_resolve_in_every_tier() -> None:
    g = graph(wpc("a", 1))
    g.add([declared_object("WorkloadPriorityClass", {"name": "b", "value": 2}, EXTERNAL, "<config>", "default")])
    assert sorted(c.name for c in kueue.workload_priority_classes(g)) == ["a", "b"]


def test_runtime_templates_judged_once_for_several_trainjobs() -> None:
    trainjob = ("apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata:\n  name: {name}\n"
                "  namespace: ml\n  labels: {{kueue.x-k8s.io/queue-name: q}}\n"
                "spec: {{runtimeRef: {{name: rt}}}}\n---\n")
    g = graph(trainjob.format(name="a") + trainjob.format(name="b") + """
apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata: {name: rt}
spec:
  template:
    spec:
      replicatedJobs:
        - name: node
          template: {spec: {template: {spec: {containers: []}}}}
""")
    runtime = first(g, "ClusterTrainingRuntime")
    judged = kueue.managed_templates(runtime, g)
    assert len(judged) == 1 and judged[0][1].obj.kind == "TrainJob"
    assert kueue.managed_templates(first(g, "TrainJob", "a"), g) == []


def test_multi_pod_counts_pods_and_pod_groups() -> None:
    g = graph(job("one") + job("four", parallelism=4) + """
apiVersion: v1
kind: Pod
metadata:
  name: member
  namespace: ml
  annotations: {kueue.x-k8s.io/pod-group-total-count: "3"}
spec: {containers: []}
""")
    assert not kueue.is_multi_pod(first(g, "Job", "one"), g)
    assert kueue.is_multi_pod(first(g, "Job", "four"), g)
    assert kueue.is_multi_pod(first(g, "Pod"), g)


def test_pod_profile_lowest_and_strongest_preemptor() -> None:
    g = graph(pc("hi", 100) + pc("lo", 1, "Never") + """
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: lws, namespace: ml, labels: {kueue.x-k8s.io/queue-name: q}}
spec:
  leaderWorkerTemplate:
    size: 3
    leaderTemplate: {spec: {priorityClassName: hi}}
    workerTemplate: {spec: {priorityClassName: lo}}
""")
    unit = kueue.managed_workloads(first(g, "LeaderWorkerSet"), g)[0]
    profile = kueue.pod_profile(unit, g)
    assert profile is not None and profile.lowest_value == 1
    assert profile.preemptor is not None and profile.preemptor[1].value == 100


# ---------------------------------------------------------------- robustness and scale

def test_malformed_values_never_crash(monkeypatch: pytest.MonkeyPatch) -> None:
    # kubectl refuses the malformed metadata below (the loader's KQ001); the helpers must still
    # not crash on such objects from other sources, so the loader's check is bypassed here
    monkeypatch.setattr("kqlint.loader.documents.metadata_problem", lambda document: None)
    g = graph("""
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: weird}
value: "high"
preemptionPolicy: [1]
globalDefault: true
---
apiVersion: batch/v1
kind: Job
metadata: {name: j, namespace: ml, labels: [not, a, map]}
spec: {template: {spec: {priorityClassName: weird}}}
---
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: p, namespace: ml, labels: {kueue.x-k8s.io/queue-name: 7}}
spec: {runPolicy: {schedulingPolicy: {priorityClass: 5}}, pytorchReplicaSpecs: [1, 2]}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: default, namespace: ml}
spec: {clusterQueue: [x]}
""")
    assert kueue.global_default_class(g) is None  # a default without an int value cannot be applied
    for obj in g.objects:
        for unit in kueue.managed_workloads(obj, g):
            kueue.workload_priority(unit, g)
            kueue.cluster_queue_of(unit, g)
            kueue.pod_profile(unit, g)
    assert kueue.effective_preemption_policy(first(g, "PriorityClass", "weird")) == "PreemptLowerPriority"
    template = kueue.pod_templates(first(g, "Job"), g)[0]
    assert not kueue.pod_priority(template, g).resolved
    kueue.routed_workloads(g)


def test_routing_index_scales_linearly() -> None:
    text = QUEUES + "".join(job(f"j{i}", f"{QUEUE}: training, {PRIO}: p{i % 7}") for i in range(3000))
    g = graph(text + "".join(wpc(f"p{i}", i) for i in range(7)))
    start = time.perf_counter()
    routed = kueue.routed_workloads(g)
    for unit in routed["gpu"]:
        kueue.workload_priority(unit, g)
    assert len(routed["gpu"]) == 3000
    assert time.perf_counter() - start < 5.0
