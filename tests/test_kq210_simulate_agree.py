"""KQ210 and ``kqlint simulate`` answer from one model of Kueue's flavor assignment (issue 32):
on random ClusterQueues, cohorts, flavors and Jobs, every workload KQ210 says can never fit is
one simulate's first stage (each workload alone, on an empty cluster) finds no flavor for:
with Kueue's ``ExceedsMaxQuota`` or, as Kueue's ``resolveNoFitReason`` says whenever a flavor of
any resource group did not match the pod set (even a group it found another flavor in),
``NoMatchingFlavor``; then simulate's message names the quota KQ210 reports, or KQ217 reports a
group without a usable flavor. KQ210's capacity (rules.md) is an upper bound of Kueue's
maximum capacity, so the converse does not hold: simulate may find more (pod sets packed
into flavors one after another, a borrowingLimit above what the cohort can lend)."""
from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
import yaml
from helpers import chdir
from kqlint.cli import main

SEEDS = range(40)
LABELS = ("pool", "zone")


def _flavor(rng: random.Random, name: str) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if rng.random() < 0.5:
        spec["nodeLabels"] = {rng.choice(LABELS): rng.choice(("a", "b"))}
    if rng.random() < 0.3:
        spec["nodeTaints"] = [{"key": "dedicated", "value": "x", "effect": "NoSchedule"}]
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": name},
            "spec": spec}


def _quota(rng: random.Random, resource: str, borrowing: bool) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": resource, "nominalQuota": rng.randint(0, 8) * (4 if resource == "memory" else 1)}
    if resource == "memory":
        entry["nominalQuota"] = f"{entry['nominalQuota']}Gi"
    if borrowing and rng.random() < 0.4:
        entry["borrowingLimit"] = rng.randint(0, 6)
    if rng.random() < 0.3:
        entry["lendingLimit"] = rng.randint(0, 4)
    if resource == "memory":
        for limit in ("borrowingLimit", "lendingLimit"):
            if limit in entry:
                entry[limit] = f"{entry[limit] * 4}Gi"
    return entry


def _cluster_queue(rng: random.Random, name: str, flavors: list[str], cohort: str | None) -> dict[str, Any]:
    # cpu and memory in one resource group, or a group each (a flavor is in one group only: Kueue's
    # webhook refuses it in two)
    cut = rng.randint(1, len(flavors) - 1) if len(flavors) > 1 and rng.random() < 0.5 else 0
    groups = [(["cpu"], flavors[:cut]), (["memory"], flavors[cut:])] if cut else [(["cpu", "memory"], flavors)]
    spec: dict[str, Any] = {"namespaceSelector": {}, "resourceGroups": [
        {"coveredResources": covered,
         "flavors": [{"name": f, "resources": [_quota(rng, r, cohort is not None) for r in covered]} for f in names]}
        for covered, names in groups]}
    if cohort is not None:
        spec["cohortName"] = cohort
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": name}, "spec": spec}


def _job(rng: random.Random, name: str) -> dict[str, Any]:
    pod: dict[str, Any] = {"restartPolicy": "Never", "containers": [{
        "name": "main", "image": "busybox",
        "resources": {"requests": {"cpu": str(rng.randint(1, 6)), "memory": f"{rng.randint(1, 8) * 2}Gi"}}}]}
    if rng.random() < 0.3:
        pod["nodeSelector"] = {rng.choice(LABELS): rng.choice(("a", "b"))}
    if rng.random() < 0.3:
        pod["tolerations"] = [{"key": "dedicated", "operator": "Exists"}]
    parallelism = rng.randint(1, 4)
    return {"apiVersion": "batch/v1", "kind": "Job",
            "metadata": {"name": name, "namespace": "team", "labels": {"kueue.x-k8s.io/queue-name": "main"}},
            "spec": {"parallelism": parallelism, "completions": parallelism, "template": {"spec": pod}}}


def scenario(seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    flavors = [f"f{i}" for i in range(rng.randint(1, 3))]
    cohort = "org" if rng.random() < 0.6 else None
    queues = [_cluster_queue(rng, "main", flavors, cohort)]
    if cohort is not None:
        queues += [_cluster_queue(rng, f"peer{i}", flavors, cohort) for i in range(rng.randint(1, 2))]
    local = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue",
             "metadata": {"name": "main", "namespace": "team"}, "spec": {"clusterQueue": "main"}}
    return [_flavor(rng, f) for f in flavors] + queues + [local] + [_job(rng, f"job{i}") for i in range(6)]


def _json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    main(list(args))
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return json.loads(out)  # type: ignore[no-any-return]


@pytest.mark.parametrize("seed", SEEDS)
def test_what_kq210_says_never_fits_simulate_finds_no_flavor_for(seed: int, tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "manifests.yaml").write_text(yaml.safe_dump_all(scenario(seed), sort_keys=False))
    isolated = ("--context", "manifests.yaml", "--no-config")
    with chdir(tmp_path):
        found = _json(capsys, "check", "manifests.yaml", "--select", "KQ210,KQ217", "-f", "json", "--no-cache",
                      *isolated)
        simulated = _json(capsys, "simulate", "manifests.yaml", "-f", "json", "--stage", "1", *isolated)
    alone = {w["name"]: w["emptyCluster"] for w in simulated["workloads"]}
    never = {f["object"]["name"] for f in found["findings"] if f["code"] == "KQ210"}
    unmatched = {f["object"]["name"] for f in found["findings"] if f["code"] == "KQ217"}
    assert never <= set(alone)
    for name in sorted(never):
        verdict = (alone[name]["mode"], alone[name]["reason"])
        quota = "insufficient quota for" in alone[name]["message"]
        assert verdict == ("NoFit", "ExceedsMaxQuota") or (
            verdict == ("NoFit", "NoMatchingFlavor") and (quota or name in unmatched)), (seed, name, verdict)


def test_the_random_scenarios_reach_both_verdicts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The generator is not vacuous: over the seeds KQ210 fires on some workloads and simulate
    admits others alone."""
    fired = fitted = 0
    for seed in SEEDS[:12]:
        folder = tmp_path / str(seed)
        folder.mkdir()
        (folder / "manifests.yaml").write_text(yaml.safe_dump_all(scenario(seed), sort_keys=False))
        with chdir(folder):
            found = _json(capsys, "check", "manifests.yaml", "--select", "KQ210", "-f", "json", "--no-cache",
                          "--context", "manifests.yaml", "--no-config")
            simulated = _json(capsys, "simulate", "manifests.yaml", "-f", "json", "--stage", "1",
                              "--context", "manifests.yaml", "--no-config")
        fired += len(found["findings"])
        fitted += sum(w["emptyCluster"]["mode"] in ("Fit", "Borrow") for w in simulated["workloads"])
    assert fired > 0 and fitted > 0
