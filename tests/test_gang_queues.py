"""Gang schedulers' queues: what a gang needs at its minimum (linter/domain/workloads/gang_needs.py,
KQ309), the scheduler facts of the platform model (linter/domain/schedulers.py), and the cases
the fixture pairs cannot show (releases, orders, profiles, hostile values)."""
from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
from helpers import chdir, lint_files
from kqlint.config import Config, config_from_mapping
from kqlint.domain.platform import platform_of
from kqlint.domain.workloads.gang_needs import VolcanoTask, volcano_job_need
from kqlint.engine.pipeline import Pipeline

GPU = "nvidia.com/gpu"


def _task(replicas: int, gpus: int, minimum: int | None = None, partition: dict[str, int] | None = None,
          priority: int | None = 0) -> VolcanoTask:
    return VolcanoTask(replicas, minimum, partition, priority, {GPU: Fraction(gpus)})


# ------------------------------------------------------------------ Volcano minResources

PARTITIONED = _task(8, 2, partition={"totalPartitions": 4, "partitionSize": 2, "minPartitions": 1})
NO_MIN_PARTITIONS = _task(8, 2, partition={"totalPartitions": 4, "partitionSize": 2})


@pytest.mark.parametrize("task,version,gpus", [
    (PARTITIONED, (1, 13), 16),    # before 1.14: the task's minAvailable stayed unset, its replicas counted
    (PARTITIONED, (1, 14), 4),     # minPartitions × partitionSize
    (PARTITIONED, (1, 16), 4),
    (PARTITIONED, None, 4),        # unknown release: the smallest
    (NO_MIN_PARTITIONS, (1, 15), 0),   # volcano#5401: minPartitions omitted gave minAvailable 0
    (NO_MIN_PARTITIONS, (1, 16), 16),  # e7cc35b31: back to replicas
    (NO_MIN_PARTITIONS, None, 0),
])
def test_a_tasks_unset_min_available_follows_the_release(task: VolcanoTask, version: tuple[int, int] | None,
                                                         gpus: int) -> None:
    need = volcano_job_need([task], None, version)
    assert need is not None and need.resources.get(GPU, 0) == gpus


def test_the_derivation_names_the_release_only_where_releases_differ() -> None:
    assert "every Volcano release" in volcano_job_need([PARTITIONED], None, None).derivation  # type: ignore[union-attr]
    assert "webhook defaults it" in volcano_job_need([_task(2, 1)], None, None).derivation  # type: ignore[union-attr]
    assert "1.13" not in volcano_job_need([PARTITIONED], None, (1, 16)).derivation  # type: ignore[union-attr]
    assert "1.16 or later" in volcano_job_need([PARTITIONED], None, (1, 16)).derivation  # type: ignore[union-attr]


def test_below_the_tasks_minimums_the_first_pods_in_priority_order_count() -> None:
    """CalcFirstCountResources: job minAvailable 2 < 3; the higher PriorityClass value goes first."""
    leader_first = [_task(2, 1, priority=0), _task(1, 8, priority=1000)]
    helpers_first = [_task(2, 1, priority=1000), _task(1, 8, priority=0)]
    assert volcano_job_need(leader_first, 2, None).resources[GPU] == 9  # type: ignore[union-attr]
    assert volcano_job_need(helpers_first, 2, None).resources[GPU] == 2  # type: ignore[union-attr]
    equal = [_task(1, 8), _task(2, 1)]  # equal values: Go's sort keeps the written order
    assert volcano_job_need(equal, 2, None).resources[GPU] == 9  # type: ignore[union-attr]


def test_an_unknown_priority_class_takes_the_cheapest_order() -> None:
    unknown = [_task(1, 8, priority=None), _task(2, 1, priority=0)]
    assert volcano_job_need(unknown, 2, None).resources[GPU] == 2  # type: ignore[union-attr]
    many = [_task(1, 1, priority=None) for _ in range(7)]
    assert volcano_job_need(many, 2, None) is None  # too many orders to try: no finding


def test_above_the_tasks_minimums_remaining_replicas_fill_in_task_order() -> None:
    """CalcPGMinResources: every minimum first (1 + 1), then 2 more from the first task with spares."""
    tasks = [_task(3, 4, minimum=1, priority=10), _task(3, 1, minimum=1, priority=0)]
    assert volcano_job_need(tasks, 4, None).resources[GPU] == 4 + 1 + 2 * 4  # type: ignore[union-attr]


# ------------------------------------------------------------------ through the rule

QUEUE = """\
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata:
  name: small
spec:
  capability:
    nvidia.com/gpu: 4
"""
JOB = """\
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata:
  name: big
spec:
  queue: {queue}
  tasks:
  - name: worker
    replicas: {replicas}
    template:
      spec:
        containers:
        - name: main
          image: trainer:1.0
          resources:
            limits: {{nvidia.com/gpu: 4}}
"""


def _findings(tmp_path: Path, code: str, files: dict[str, str], config: Config | None = None) -> list[str]:
    return [f"{f.location.line}: {f.message}" for f in lint_files(tmp_path, files, (code,), config).findings]


def test_kakaocloud_leaves_volcano_queues_to_kq502(tmp_path: Path) -> None:
    files = {"q.yaml": QUEUE, "job.yaml": JOB.format(queue="small", replicas=2)}
    assert _findings(tmp_path, "KQ309", files)
    assert _findings(tmp_path, "KQ309", files, Config(profile="kakaocloud")) == []


def test_a_job_without_a_queue_goes_to_default(tmp_path: Path) -> None:
    default = QUEUE.replace("name: small", "name: default")
    found = _findings(tmp_path, "KQ309", {"q.yaml": default, "job.yaml": JOB.replace("  queue: {queue}\n", "")
                                          .format(replicas=2)})
    assert len(found) == 1 and "Queue `default`" in found[0] and found[0].startswith("5:")  # at `spec:`


@pytest.mark.parametrize("values", [
    {"replicas": "'2'"}, {"replicas": "-3"}, {"replicas": "[1]"},
])
def test_odd_values_never_crash(tmp_path: Path, values: dict[str, str]) -> None:
    _findings(tmp_path, "KQ309", {"q.yaml": QUEUE, "job.yaml": JOB.format(queue="small", **values)})


def test_queue_loops_and_odd_limits_never_crash(tmp_path: Path) -> None:
    loop = """\
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata:
  name: a
spec:
  parentQueue: b
  resources: {gpu: {limit: "8"}, cpu: {limit: true}, memory: {limit: [1]}}
---
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata:
  name: b
spec:
  parentQueue: a
  resources: {gpu: {limit: 1}}
---
apiVersion: batch/v1
kind: Job
metadata:
  name: j
  labels: {kai.scheduler/queue: a}
spec:
  template:
    spec:
      schedulerName: kai-scheduler
      restartPolicy: Never
      containers:
      - name: main
        image: x
        resources: {limits: {nvidia.com/gpu: 2}}
"""
    found = _findings(tmp_path, "KQ309", {"q.yaml": loop})
    assert len(found) == 1 and "Queue `b`: gpu 2 > 1" in found[0]


# ------------------------------------------------------------------ platform: schedulers, Volcano version

SCHEDULER_SETUP = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: second-scheduler-config
  namespace: kube-system
data:
  config.yaml: |
    apiVersion: kubescheduler.config.k8s.io/v1
    kind: KubeSchedulerConfiguration
    profiles:
    - schedulerName: gang-scheduler
      plugins:
        multiPoint:
          enabled:
          - name: Coscheduling
    - schedulerName: plain-scheduler
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: volcano-admission-configmap
  namespace: volcano-system
data:
  volcano-admission.conf: |
    resourceGroups:
    - resourceGroup: gpu
      object: {key: namespace, value: [ml]}
      schedulerName: volcano
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: volcano-scheduler
  namespace: volcano-system
spec:
  selector: {matchLabels: {app: vc}}
  template:
    metadata:
      labels: {app: vc}
    spec:
      containers:
      - name: scheduler
        image: docker.io/volcanosh/vc-scheduler:v1.13.1
        args: ["--scheduler-name=volcano-gpu", "--scheduler-name", "volcano-cpu"]
"""


def _model(tmp_path: Path, files: dict[str, str], config: Config | None = None):  # type: ignore[no-untyped-def]
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    with chdir(tmp_path):
        graph, _ = Pipeline(config or Config()).queue_graph(["."])
    return platform_of(graph)


def test_the_repository_establishes_schedulers_and_says_where(tmp_path: Path) -> None:
    model = _model(tmp_path, {"setup.yaml": SCHEDULER_SETUP})
    assert model.schedulers == {"gang-scheduler", "plain-scheduler", "volcano", "volcano-gpu", "volcano-cpu"}
    assert model.coscheduling_profiles == {"gang-scheduler"} and model.plain_profiles == {"plain-scheduler"}
    assert model.scheduler_webhook and model.volcano_version == (1, 13)
    lines = "\n".join(model.lines())
    assert "scheduler names: gang-scheduler, plain-scheduler, volcano, volcano-cpu, volcano-gpu (from " in lines
    assert "--scheduler-name of Deployment volcano-system/volcano-scheduler" in lines
    assert "volcano version: 1.13 (from image of Deployment volcano-system/volcano-scheduler" in lines
    assert "plain-scheduler (no Coscheduling)" in lines and "schedulerName assigned by a webhook: yes" in lines
    described = model.describe()
    assert described["volcano"]["version"] == "1.13" and described["schedulerWebhook"] is True


def test_a_hierarchical_capacity_plugin_is_platform_evidence(tmp_path: Path) -> None:
    conf = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: volcano-scheduler-configmap
data:
  volcano-scheduler.conf: |
    tiers:
    - plugins:
      - name: capacity
        enableHierarchy: {value}
"""
    assert not _model(tmp_path, {"conf.yaml": conf.format(value="false")}).volcano_hierarchy
    model = _model(tmp_path, {"conf.yaml": conf.format(value="true")})
    assert model.volcano_hierarchy and model.describe()["volcano"]["capacityHierarchy"] is True
    assert any(line.startswith("Volcano capacity plugin hierarchy: on") and "volcano-scheduler-configmap" in line
               for line in model.lines())


def test_configured_schedulers_add_to_the_evidence_and_the_version_wins(tmp_path: Path) -> None:
    config = config_from_mapping({"platform": {"schedulers": ["yunikorn"], "volcano": {"version": "1.16"}}}, "cfg.yaml")
    model = _model(tmp_path, {"setup.yaml": SCHEDULER_SETUP}, config)
    assert "yunikorn" in model.schedulers and "volcano-gpu" in model.schedulers
    assert model.volcano_version == (1, 16)
    assert "configuration `platform:`" in model.sources["schedulers"]
    assert model.sources["volcano.version"] == "configuration `platform:`"


def test_without_evidence_the_model_says_what_it_assumes(tmp_path: Path) -> None:
    model = _model(tmp_path, {"job.yaml": JOB.format(queue="small", replicas=1)})
    assert model.volcano_version is None and not model.schedulers
    assert "volcano version: unknown" in model.lines()
    assert "scheduler names: default-scheduler and the gang-scheduler options only" in model.lines()


# ------------------------------------------------------------------ KQ308: what counts as known

TYPO_JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: j
spec:
  template:
    spec:
      schedulerName: volcano2
      restartPolicy: Never
      containers:
      - name: main
        image: x
"""
RUNNER = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
spec:
  selector: {{matchLabels: {{app: r}}}}
  template:
    metadata:
      labels: {{app: r}}
    spec:
      containers:
      - name: main
        image: x
        args: ["--scheduler-name=volcano2"]
"""


def test_a_name_the_platform_knows_is_no_typo(tmp_path: Path) -> None:
    assert _findings(tmp_path, "KQ308", {"job.yaml": TYPO_JOB})
    configured = config_from_mapping({"platform": {"schedulers": ["volcano2"]}}, "cfg.yaml")
    assert _findings(tmp_path, "KQ308", {}, configured) == []


@pytest.mark.parametrize("host", ["volcano-scheduler-2", "batch-runner"])
def test_a_scheduler_the_repository_runs_is_no_typo(tmp_path: Path, host: str) -> None:
    """Scheduler-named hosts are platform evidence; any other container is searched only for a candidate typo."""
    assert _findings(tmp_path, "KQ308", {"job.yaml": TYPO_JOB, "runner.yaml": RUNNER.format(name=host)}) == []
    assert ("volcano2" in _model(tmp_path, {}).schedulers) == ("sched" in host)


def test_explain_says_what_kq308_kq309_and_kq312_assume() -> None:
    from kqlint.engine.registry import builtin_rules

    docs = {rule.code: rule.module.__doc__ or "" for rule in builtin_rules()}
    assert "What it assumes" in docs["KQ308"] and "platform.schedulers" in docs["KQ308"]
    assert "What it assumes" in docs["KQ309"] and "platform.volcano.version" in docs["KQ309"]
    assert "What it assumes" in docs["KQ312"]


def test_a_hostile_scheduler_configmap_is_read_bounded(tmp_path: Path) -> None:
    """An alias bomb and a huge value in a ConfigMap the scheduler evidence parses: no crash,
    no blow-up, and no fact taken from them."""
    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n"
        for i in range(12)) + "tiers: [{plugins: [{name: capacity, enableHierarchy: true}]}]\nschedulerName: x\n"
    indented = "".join(f"    {line}\n" for line in bomb.splitlines())
    huge = "schedulerName: y\n" + "#" * 2_000_000
    config_map = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: volcano-scheduler-configmap\ndata:\n"
                  f"  volcano-scheduler.conf: |\n{indented}  big: {huge!r}\n")
    import time

    started = time.process_time()
    model = _model(tmp_path, {"cm.yaml": config_map})
    assert time.process_time() - started < 20
    assert not model.volcano_hierarchy and "x" not in model.schedulers
