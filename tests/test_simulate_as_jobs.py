"""The scenarios of tests/fixtures/simulate write pending workloads as Workload objects (as
Kueue's own tests do); users write Jobs. Each scenario whose pending Workloads have one pod set
is run again with every such Workload written as the batch/v1 Job Kueue would make it from
(queue-name label, a WorkloadPriorityClass for its priority, parallelism = its count, the same
pod spec and creation time), and simulate must say the same of every workload."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from helpers import chdir
from kqlint.cli import main

CASES = Path(__file__).parent / "fixtures" / "simulate"


def _pending_workloads(documents: list[Any]) -> list[dict[str, Any]]:
    return [d for d in documents if isinstance(d, dict) and d.get("kind") == "Workload"
            and not (d.get("status") or {}).get("admission")]


def _convertible(case: Path) -> bool:
    documents = list(yaml.safe_load_all((case / "manifests.yaml").read_text()))
    pending = _pending_workloads(documents)
    # a Job has no spec.active (a Workload's deactivation), carries a minimum as an annotation, not minCount,
    # and its manifest has no finished pods (a Workload's status.reclaimablePods)
    return bool(pending) and all(len(w["spec"].get("podSets") or []) == 1 and w["spec"]["podSets"][0]["name"] == "main"
                                 and w["spec"].get("active") is not False and "minCount" not in w["spec"]["podSets"][0]
                                 and not (w.get("status") or {}).get("reclaimablePods") for w in pending)


def _class_name(priority: int) -> str:
    return f"priority-{'minus-' if priority < 0 else ''}{abs(priority)}"


def as_job(workload: dict[str, Any]) -> dict[str, Any]:
    spec, (pod_set,) = workload["spec"], workload["spec"]["podSets"]
    labels = {"kueue.x-k8s.io/queue-name": spec["queueName"]}
    if spec.get("priority"):
        labels["kueue.x-k8s.io/priority-class"] = _class_name(spec["priority"])
    metadata = {**workload["metadata"], "labels": labels}
    pod = {"restartPolicy": "Never", **pod_set["template"]["spec"]}
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": metadata,
            "spec": {"parallelism": pod_set["count"], "completions": pod_set["count"], "template": {"spec": pod}}}


def as_jobs(documents: list[Any]) -> list[Any]:
    pending = {id(w) for w in _pending_workloads(documents)}
    priorities = sorted({d["spec"]["priority"] for d in documents if id(d) in pending and d["spec"].get("priority")})
    classes = [{"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "WorkloadPriorityClass",
                "metadata": {"name": _class_name(p)}, "value": p} for p in priorities]
    return classes + [as_job(d) if id(d) in pending else d for d in documents]


def outcome(capsys: pytest.CaptureFixture[str], folder: Path) -> dict[str, Any]:
    with chdir(folder):
        main(["simulate", "manifests.yaml", "-f", "json", "--context", "manifests.yaml", "--no-config"])
    report = json.loads(capsys.readouterr().out)

    def refs(items: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
        return sorted((i["namespace"], i["name"], i["reason"]) for i in items)

    return {f"{w['namespace']}/{w['name']}": (
        w["status"], w["reason"], w["message"], w.get("preemptionMessage"),
        {p["name"]: p["flavors"] for p in w.get("podSets") or []}, refs(w["preempted"]),
        refs([w["preemptedBy"]]) if w["preemptedBy"] else None) for w in report["workloads"]}


CONVERTIBLE = sorted(p.name for p in CASES.iterdir() if (p / "expected.yaml").exists() and _convertible(p))


def test_most_scenarios_are_checked_as_jobs() -> None:
    assert len(CONVERTIBLE) >= 80


@pytest.mark.parametrize("case", CONVERTIBLE, ids=CONVERTIBLE)  # full names: see test_simulate.SCENARIOS
def test_a_scenario_written_with_jobs_simulates_the_same(case: str, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    documents = list(yaml.safe_load_all((CASES / case / "manifests.yaml").read_text()))
    (tmp_path / "manifests.yaml").write_text(yaml.safe_dump_all(as_jobs(documents), sort_keys=False))
    assert outcome(capsys, tmp_path) == outcome(capsys, CASES / case)
