"""Pre-commit shape: graph rules read only the workloads their findings on the inputs need
(kqlint.domain.kueue.workloads_routed_to, lazily built indexes), and cached context objects answer
identity, labels and platform evidence without decoding their bodies. Each case has a graph
finding on an input that depends on context objects only: the restricted run must report
exactly what a full run reports for that file, and what ``--no-cache`` reports."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from kqlint.cli import main

QUEUES = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: gpu
spec:
  namespaceSelector: {}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: cpu
spec:
  namespaceSelector: {}
  preemption:
    withinClusterQueue: LowerPriority
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  name: training
  namespace: ml
spec:
  clusterQueue: gpu
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  name: batch
  namespace: ml
spec:
  clusterQueue: cpu
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata:
  name: prod
value: 1000
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata:
  name: dev
value: 100
"""


def _class(name: str, value: int) -> str:
    return f"apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata:\n  name: {name}\nvalue: {value}\n"


def _job(name: str, queue: str, workload_class: str, pod_class: str | None) -> str:
    pod_priority = f"      priorityClassName: {pod_class}\n" if pod_class else ""
    return (f"apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: {name}\n  namespace: ml\n  labels:\n"
            f"    kueue.x-k8s.io/queue-name: {queue}\n    kueue.x-k8s.io/priority-class: {workload_class}\n"
            f"spec:\n  parallelism: 4\n  template:\n    spec:\n{pod_priority}      restartPolicy: Never\n"
            f"      containers:\n        - name: main\n          image: trainer:1\n")


# Two ClusterQueues (gpu without withinClusterQueue), each with a prod Job and a dev Job whose
# pods can preempt the prod Job's.
FILES = {
    "platform/queues.yaml": QUEUES,
    "platform/pods-high.yaml": _class("pods-high", 5000),
    "platform/burst.yaml": _class("burst", 10000),
    "jobs/prod-train.yaml": _job("prod-train", "training", "prod", None),
    "jobs/dev-sweep.yaml": _job("dev-sweep", "training", "dev", "pods-high"),
    "jobs/cpu-prod.yaml": _job("cpu-prod", "batch", "prod", None),
    "jobs/cpu-dev.yaml": _job("cpu-dev", "batch", "dev", "pods-high"),
}

# staged file -> the graph findings on it that need context objects
CASES = {
    "jobs/prod-train.yaml": {"KQ105"},             # vs a context Job in the same ClusterQueue
    "platform/queues.yaml": {"KQ106", "KQ201"},    # an input ClusterQueue, workloads all in context
    "platform/burst.yaml": {"KQ107"},              # an input PriorityClass above context gangs
}


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "project"
    for name, text in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    (root / ".git").mkdir()
    monkeypatch.delenv("KQLINT_CACHE_DIR", raising=False)
    monkeypatch.chdir(root)
    return root


def _json(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    main(["check", *args, "--format", "json"])
    return capsys.readouterr().out


def _findings(text: str, file: str | None = None) -> list[dict]:
    return [f for f in json.loads(text)["findings"] if file is None or f["file"] == file]


@pytest.mark.parametrize("staged", sorted(CASES))
def test_restricted_run_reports_what_the_full_run_reports(project: Path, capsys: pytest.CaptureFixture[str],
                                                           staged: str) -> None:
    _json(capsys, ".")  # every file cached: the context below is served lazily
    with open(staged, "a", encoding="utf-8") as handle:
        handle.write("# edited before the commit\n")
    cached = _json(capsys, staged)
    uncached = _json(capsys, staged, "--no-cache")
    full = _findings(_json(capsys, ".", "--no-cache"), staged)
    assert cached == uncached
    assert _findings(cached) == full
    assert CASES[staged] <= {f["code"] for f in full}


def test_workloads_routed_to_matches_the_whole_index(project: Path) -> None:
    from kqlint.config import Config
    from kqlint.domain.kueue import (
        all_managed_workloads,
        cluster_queue_of,
        queues_of,
        routed_workloads,
        workloads_routed_to,
    )
    from kqlint.domain.objects import CONTEXT, INPUT
    from kqlint.engine.analysis import build_graph
    from kqlint.engine.inputs import load_paths

    inputs, _ = load_paths(["jobs/prod-train.yaml"], Config(), INPUT)
    context, _ = load_paths(["platform", "jobs"], Config(), CONTEXT,
                            skip=frozenset({str(project / "jobs/prod-train.yaml")}))
    graph = build_graph(inputs, context.objects, Config())
    assert queues_of(graph.inputs, graph) == ["gpu"]
    restricted = {name: workloads_routed_to(name, graph) for name in ("gpu", "cpu", "missing")}
    whole = build_graph(inputs, context.objects, Config())
    reference: dict[str, list] = {}  # every workload routed, as before the restriction
    for unit in all_managed_workloads(whole):
        cq = cluster_queue_of(unit, whole)
        if cq is not None:
            reference.setdefault(cq.name, []).append(unit)
    assert sorted(reference) == ["cpu", "gpu"]
    assert list(routed_workloads(whole)) == list(reference)
    for name, units in restricted.items():
        assert [u.obj.key for u in units] == [u.obj.key for u in reference.get(name, [])]
    assert [u.obj.name for u in restricted["gpu"]] == ["prod-train", "dev-sweep"]  # inputs first


def test_cached_context_of_other_queues_is_not_decoded(project: Path, capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from kqlint.cache import entries as cache_entry

    _json(capsys, ".")
    filled: list[str] = []
    original = cache_entry._Body.fill

    def spy(body: cache_entry._Body) -> None:
        filled.append(body.path)
        original(body)

    monkeypatch.setattr(cache_entry._Body, "fill", spy)
    with open("jobs/prod-train.yaml", "a", encoding="utf-8") as handle:
        handle.write("# edited\n")
    assert {f["code"] for f in _findings(_json(capsys, "jobs/prod-train.yaml"))} == {"KQ105"}
    assert not any(path.endswith(("cpu-prod.yaml", "cpu-dev.yaml")) for path in filled)
    assert any(path.endswith("dev-sweep.yaml") for path in filled)  # same ClusterQueue: read
