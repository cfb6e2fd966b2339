"""``kqlint simulate``: scenarios ported from Kueue's flavor-assigner, scheduler and preemption
unit tests and its documented behaviour (tests/fixtures/simulate/<case>/: ``manifests.yaml``
and ``expected.yaml``, the fields each workload must show in the JSON report; ``preemptedSet``:
its victims in any order), the JSON
schema, ``--workload``, ``--stage`` and the exit status."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from helpers import chdir
from kqlint.cli import main

CASES = Path(__file__).parent / "fixtures" / "simulate"
ISOLATED = ("--context", "manifests.yaml")  # each case is its own cluster, not the repository's context


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def simulate_json(capsys: pytest.CaptureFixture[str], case: str, *more: str) -> tuple[int, dict[str, Any]]:
    with chdir(CASES / case):
        code, out, err = run(capsys, "simulate", "manifests.yaml", "-f", "json", *ISOLATED, *more)
    assert "Traceback" not in err
    return code, json.loads(out)


def _ref(item: dict[str, Any]) -> list[Any]:
    return [item["kind"], item["namespace"], item["name"], item["reason"]]


def observed(workload: dict[str, Any], field: str) -> Any:
    """A workload's field in the shape expected.yaml spells it."""
    if field == "flavors":
        return {p["name"]: p["flavors"] for p in workload.get("podSets", [])}
    if field == "counts":  # the pods admitted per pod set (partial admission)
        return {p["name"]: p["count"] for p in workload.get("podSets", [])}
    if field == "emptyCluster":
        return workload["emptyCluster"]["mode"] if workload["emptyCluster"] else None
    if field == "preempted":
        return [_ref(p) for p in workload["preempted"]]
    if field == "preemptedSet":  # the victims, in no order (Kueue's tests compare them as a set)
        return sorted(_ref(p) for p in workload["preempted"])
    if field == "preemptedBy":
        return _ref(workload["preemptedBy"]) if workload["preemptedBy"] else None
    return workload[field]


SCENARIOS = sorted(p.name for p in CASES.iterdir() if (p / "expected.yaml").exists())


# ids given explicitly: pytest 9.2 names a string parameter over 100 characters `case<N>`, so `-k <case>` missed it
@pytest.mark.parametrize("case", SCENARIOS, ids=SCENARIOS)
def test_scenario(case: str, capsys: pytest.CaptureFixture[str]) -> None:
    expected = yaml.safe_load((CASES / case / "expected.yaml").read_text())
    _, report = simulate_json(capsys, case)
    by_name = {f"{w['namespace']}/{w['name']}": w for w in report["workloads"]}
    for name, fields in expected.items():
        assert name in by_name, f"{case}: {name} not reported"
        for field, value in fields.items():
            assert observed(by_name[name], field) == value, f"{case}: {name}.{field}"


def test_json_schema(capsys: pytest.CaptureFixture[str]) -> None:
    """Every key cli.md documents, in its types; the summary adds up; deterministic."""
    code, report = simulate_json(capsys, "preempt_within_cq")
    assert code == 1
    assert set(report) == {"version", "schemaVersion", "kueueVersion", "assumptions", "workloads",
                           "clusterQueues", "summary"}
    assert report["schemaVersion"] == 1 and report["kueueVersion"] is None
    assert any("Kueue version unknown" in a for a in report["assumptions"])
    for workload in report["workloads"]:
        assert {"kind", "namespace", "name", "file", "line", "localQueue", "clusterQueue", "priority", "status",
                "borrowing", "preempted", "preemptionMessage", "preemptedBy", "waitsFor", "reason", "message",
                "emptyCluster"} <= set(workload)
        assert workload["status"] in ("admitted", "pending", "preempted", "running", "not-simulated")
    positions = [(w["file"], w["line"]) for w in report["workloads"]]
    assert positions == sorted(positions)
    summary = report["summary"]
    assert summary["workloads"] == len(report["workloads"]) == (
        summary["admitted"] + summary["pending"] + summary["neverAdmissible"] + summary["preempted"]
        + summary["notSimulated"])
    queue = report["clusterQueues"][0]
    assert queue == {"name": "team-a", "cohort": None, "queueingStrategy": "BestEffortFIFO",
                     "usage": {"default": {"cpu": "6"}}, "borrowed": {"default": {"cpu": "0"}}}
    assert simulate_json(capsys, "preempt_within_cq")[1] == report


def test_workload_option(capsys: pytest.CaptureFixture[str]) -> None:
    code, report = simulate_json(capsys, "pending_quota", "--workload", "team-a/first")
    assert code == 0  # the one workload shown is admitted
    assert [w["name"] for w in report["workloads"]] == ["first"]
    assert simulate_json(capsys, "pending_quota", "--workload", "Job/team-a/second")[0] == 1
    with chdir(CASES / "pending_quota"):
        code, _, err = run(capsys, "simulate", "manifests.yaml", *ISOLATED, "--workload", "team-a/nope")
    assert code == 2 and "no Kueue-managed workload" in err
    with chdir(CASES / "pending_quota"):
        assert run(capsys, "simulate", "manifests.yaml", *ISOLATED, "--workload", "nope")[0] == 2


def test_exit_status(capsys: pytest.CaptureFixture[str]) -> None:
    assert simulate_json(capsys, "single_flavor_fits")[0] == 0
    assert simulate_json(capsys, "second_flavor")[0] == 1
    with chdir(CASES / "single_flavor_fits"):
        assert run(capsys, "simulate", "manifests.yaml", *ISOLATED, "--format", "sarif")[0] == 2
        assert run(capsys, "simulate", "manifests.yaml", *ISOLATED, "--stage", "3")[0] == 2
        assert run(capsys, "simulate", "missing.yaml")[0] == 2


def test_nothing_managed_is_a_warning(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
    with chdir(tmp_path):
        code, _, err = run(capsys, "simulate", ".")
    assert code == 0 and "nothing Kueue-managed" in err


def test_stage_one_stops_before_the_queue(capsys: pytest.CaptureFixture[str]) -> None:
    """Stage 1 alone: every workload against an empty cluster, nothing admitted."""
    _, report = simulate_json(capsys, "pending_quota", "--stage", "1")
    modes = {w["name"]: (w["status"], w["emptyCluster"]["mode"]) for w in report["workloads"]}
    assert modes == {"first": ("pending", "Fit"), "second": ("pending", "Fit"), "late-but-high": ("pending", "Fit")}


def test_text_report(capsys: pytest.CaptureFixture[str]) -> None:
    with chdir(CASES / "reclaim_within_cohort"):
        code, out, _ = run(capsys, "simulate", "manifests.yaml", *ISOLATED)
    assert code == 1
    assert "ClusterQueue team-a (cohort org, BestEffortFIFO)" in out
    assert "Job/team-a/owner" in out and "Workload/team-b/borrower (InCohortReclamation)" in out
    assert "by Job/team-a/owner (InCohortReclamation)" in out
    assert out.rstrip().splitlines()[-1].startswith("  - ")  # the assumptions close the report


def test_text_report_shows_partial_admission(capsys: pytest.CaptureFixture[str]) -> None:
    """A pod set admitted with fewer pods than it asks for says so; the assumptions say how."""
    with chdir(CASES / "partial_admission_job"):
        _, out, _ = run(capsys, "simulate", "manifests.yaml", *ISOLATED)
    assert "main (4 of 8 pods): nvidia.com/gpu=default" in out
    assert "  - partial admission (job-min-parallelism, minCount) as Kueue's PartialAdmission gate does" in out
    with chdir(CASES / "kueue_sched_partial_admission_disabled_multiple_variable_pod_sets"):
        _, out, _ = run(capsys, "simulate", "manifests.yaml", *ISOLATED)
    assert "  - PartialAdmission gate off: job-min-parallelism and minCount are dropped" in out


def test_partial_admission_search() -> None:
    """Kueue's PodSetReducer: one step index shared by every pod set, the least reduction that fits."""
    from kqlint.domain.kueue.partial import search

    calls: list[list[int]] = []

    def fits(counts: list[int]) -> list[int] | None:
        calls.append(counts)
        return counts if sum(counts) <= 50 else None

    assert search([20, 30, 15], [None, 10, 5], fits) == [20, 20, 10]
    assert all(c[0] == 20 for c in calls)  # a pod set without a minimum keeps its count
    assert search([8], [2], lambda counts: None) is None
    assert search([8], [None], fits) is None and search([8], [8], fits) is None  # nothing to reduce
    assert search([50], [20], lambda counts: counts if counts[0] * 2 <= 50 else None) == [25]


def _cohort_chain(depth: int, loop: bool) -> str:
    docs = [f"apiVersion: kueue.x-k8s.io/v1beta2\nkind: Cohort\nmetadata: {{name: c{i}}}\n"
            f"spec: {{parentName: c{i + 1 if i + 1 < depth or not loop else 0}}}\n" for i in range(depth)]
    return "---\n".join(docs)


QUEUE = """
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: q}
spec:
  namespaceSelector: {}
  cohortName: c0
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: default, resources: [{name: cpu, nominalQuota: 4}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: main, namespace: ns}
spec: {clusterQueue: q}
---
apiVersion: batch/v1
kind: Job
metadata: {name: j, namespace: ns, labels: {kueue.x-k8s.io/queue-name: main}}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
"""


@pytest.mark.parametrize(("cohorts", "status", "message"), [
    (_cohort_chain(3, loop=True), "pending", "ClusterQueue q is inactive: HasCycle"),
    (_cohort_chain(2000, loop=False), "not-simulated", "the Cohort tree of ClusterQueue q is too deep"),
    (_cohort_chain(5, loop=False), "admitted", None),
])
def test_hostile_cohort_trees(tmp_path: Path, capsys: pytest.CaptureFixture[str], cohorts: str, status: str,
                              message: str | None) -> None:
    """A loop of Cohort parents is Kueue's HasCycle; a chain deeper than kqlint follows is
    reported not simulated: neither recurses without bound."""
    (tmp_path / "cohorts.yaml").write_text(cohorts)
    (tmp_path / "queue.yaml").write_text(QUEUE)
    with chdir(tmp_path):
        code, out, err = run(capsys, "simulate", ".", "-f", "json")
    assert "Traceback" not in err and code == (0 if status == "admitted" else 1)
    (job,) = json.loads(out)["workloads"]
    assert (job["status"], job["message"]) == (status, message)


def test_malformed_quotas_never_crash(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Wrong types where quotas, flavors, preemption and admission fields belong: no traceback."""
    (tmp_path / "queue.yaml").write_text(QUEUE.replace("cohortName: c0", "cohortName: [c0]").replace(
        "nominalQuota: 4", "nominalQuota: {a: 1}, borrowingLimit: [2], lendingLimit: x").replace(
        "namespaceSelector: {}", "namespaceSelector: {}\n  preemption: [x]\n  flavorFungibility: oops\n"
        "  queueingStrategy: 7\n  admissionChecksStrategy: {admissionChecks: [1, {name: 2}]}"))
    (tmp_path / "running.yaml").write_text(
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata: {name: w, namespace: ns}\n"
        "spec: {priority: high}\nstatus:\n  admission: {clusterQueue: q, podSetAssignments: [7, {flavors: [x], "
        "resourceUsage: 3}]}\n  conditions: [{type: QuotaReserved, status: 'True'}]\n")
    with chdir(tmp_path):
        code, out, err = run(capsys, "simulate", ".", "-f", "json")
    assert code in (0, 1) and "Traceback" not in err and "internal error" not in err
    assert {w["name"] for w in json.loads(out)["workloads"]} == {"j", "w"}


@pytest.mark.parametrize(("old", "new", "message"), [
    ('requests: {cpu: "1"}', 'requests: {cpu: "${CPU}"}',
     "its resource requests hold an envsubst placeholder (`${CPU}`)"),
    ("nominalQuota: 4", "nominalQuota: \"${CPU_QUOTA}\"",
     "ClusterQueue q's quotas hold an envsubst placeholder (`${CPU_QUOTA}`)"),
    ('requests: {cpu: "1"}', 'requests: {cpu: "1"}, limits: {cpu: "$CPU"}', "its resource requests hold"),
])
def test_a_template_s_amounts_are_not_simulated(old: str, new: str, message: str, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """An envsubst placeholder where an amount belongs is not an amount of zero: the workload is
    not simulated (it was admitted with no flavor, its request dropped as unreadable)."""
    (tmp_path / "queue.yaml").write_text(QUEUE.replace(old, new))
    with chdir(tmp_path):
        code, out, err = run(capsys, "simulate", ".", "-f", "json")
    (workload,) = json.loads(out)["workloads"]
    assert (code, workload["status"]) == (1, "not-simulated")
    assert workload["message"].startswith(message) and workload["message"].endswith("render the template first")
    (tmp_path / "queue.yaml").write_text(QUEUE)
    with chdir(tmp_path):
        code, out, err = run(capsys, "simulate", ".", "-f", "json")
    assert (code, json.loads(out)["workloads"][0]["status"]) == (0, "admitted")


def test_running_file(capsys: pytest.CaptureFixture[str]) -> None:
    """--running: its Kueue-managed objects are admitted first in file order (never by
    preemption) and hold quota; its admitted Workload objects keep their flavors; the file is
    not also an input."""
    with chdir(CASES / "pending_quota"):
        code, out, err = run(capsys, "simulate", "manifests.yaml", *ISOLATED, "-f", "json",
                             "--running", "../running/running.yaml")
    assert "Traceback" not in err
    status = {w["name"]: (w["status"], w["reason"]) for w in json.loads(out)["workloads"]}
    assert status == {"already": ("running", None), "old": ("running", None), "too-big-to-run": ("pending",
                      "WaitingForQuota"), "late-but-high": ("admitted", None), "first": ("pending", "WaitingForQuota"),
                      "second": ("pending", "WaitingForQuota")}
    with chdir(CASES / "pending_quota"):
        assert run(capsys, "simulate", "manifests.yaml", "--running", "missing.yaml")[0] == 2


KQ216_CASES = Path(__file__).parent / "fixtures" / "rules" / "KQ216"


@pytest.mark.parametrize("case", sorted(p.name for p in KQ216_CASES.iterdir() if p.name.startswith("bad-")))
def test_a_cluster_queue_kq216_reports_inactive_is_inactive_in_the_simulation(case: str, tmp_path: Path) -> None:
    """KQ216 and simulate ask the same functions (kqlint.domain.kueue.activity): every
    ClusterQueue a KQ216 finding names is one the simulation holds inactive, for the reason that
    finding gives."""
    import re
    import shutil

    from kqlint.config import Config
    from kqlint.domain.kueue.capacity import build_tree
    from kqlint.domain.kueue.queue_view import inactive_reason
    from kqlint.engine.pipeline import Pipeline, lint

    shutil.copytree(KQ216_CASES / case, tmp_path / "repo")
    (tmp_path / "repo" / ".git").mkdir()
    with chdir(tmp_path / "repo"):
        findings = lint(["."], Config(select=("KQ216",))).findings
        graph, _ = Pipeline(Config()).queue_graph(["."])
    tree = build_tree(graph)
    queues = {cq.name: cq for cq in graph.of_kind("ClusterQueue", "kueue.x-k8s.io")}
    named = [(re.search(r"ClusterQueue ([a-z0-9.-]+)", f.message), f.message) for f in findings]
    assert named and all(match is not None for match, _ in named)
    for match, message in named:
        assert match is not None
        reason = inactive_reason(queues[match.group(1)], tree, graph)
        assert reason is not None and reason in message, (match.group(1), reason, message)


def test_kustomize_simulates_the_rendered_workloads_placed_in_their_sources(tmp_path: Path,
                                                                            capsys: pytest.CaptureFixture[str]) -> None:
    """`simulate --kustomize DIR` (cli.md: as for check): the overlay as kubectl renders it
    (here its patch raises the pod count past the quota), each workload placed in the file it
    came from."""
    import shutil

    if shutil.which("kubectl") is None:
        pytest.skip("kubectl is not installed: --kustomize cannot render")
    (tmp_path / ".git").mkdir()
    base, overlay = tmp_path / "base", tmp_path / "prod"
    base.mkdir()
    overlay.mkdir()
    (base / "all.yaml").write_text((CASES / "single_flavor_fits" / "manifests.yaml").read_text())
    (base / "kustomization.yaml").write_text("resources: [all.yaml]\n")
    (overlay / "kustomization.yaml").write_text(
        "resources: [../base]\npatches:\n- target: {kind: Job, name: train}\n  patch: |\n"
        "    - {op: replace, path: /spec/parallelism, value: 8}\n"
        "    - {op: replace, path: /spec/completions, value: 8}\n")
    with chdir(tmp_path):
        code, out, err = run(capsys, "simulate", "--kustomize", "prod", "-f", "json", "--no-config")
        plain_code, plain_out, _ = run(capsys, "simulate", "base", "-f", "json", "--no-config")
    assert "Traceback" not in err
    (job,) = [w for w in json.loads(out)["workloads"] if w["name"] == "train"]
    assert (code, job["status"], job["emptyCluster"]["mode"]) == (1, "pending", "NoFit"), job
    assert (job["file"], job["line"]) == ("base/all.yaml", job["line"]) and job["line"] > 1
    (plain,) = [w for w in json.loads(plain_out)["workloads"] if w["name"] == "train"]
    assert (plain_code, plain["status"], plain["line"]) == (0, "admitted", job["line"])


@pytest.mark.parametrize("flags,painted", [(("--color", "always"), True), (("--color", "never"), False),
                                           ((), False), (("--no-color", "--color", "always"), True)])
def test_color(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, flags: tuple[str, ...],
               painted: bool) -> None:
    """`--color`/`--no-color` as for check: ANSI only when asked for or on a terminal (tests
    capture stdout: no terminal), never in JSON; the same text once the colour is taken out."""
    import re

    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)
    with chdir(CASES / "preempt_within_cq"):
        _, out, _ = run(capsys, "simulate", "manifests.yaml", *ISOLATED, *flags)
        _, plain, _ = run(capsys, "simulate", "manifests.yaml", *ISOLATED)
        _, as_json, _ = run(capsys, "simulate", "manifests.yaml", "-f", "json", *ISOLATED, *flags)
    assert ("\x1b[" in out) == painted
    assert "\x1b" not in as_json and "\x1b" not in plain
    assert re.sub(r"\x1b\[[0-9;]*m", "", out) == plain


def test_kq210_and_simulate_agree_that_one_resource_group_gets_one_flavor(capsys: pytest.CaptureFixture[str]) -> None:
    """The scenario resource_group_one_flavor: simulate says NoFit (above), and KQ210 reports the
    same workload from the same manifests (issue 32: one model of flavor assignment)."""
    with chdir(CASES / "resource_group_one_flavor"):
        code, out, _ = run(capsys, "check", "manifests.yaml", "--select", "KQ210", "-f", "json", "--no-cache",
                           *ISOLATED)
    (finding,) = json.loads(out)["findings"]
    assert (code, finding["object"]["name"], finding["line"]) == (1, "etl", 59)
    assert "from one flavor of a resource group" in finding["message"]


def _naming_elsewhere() -> str:
    """The scenario single_flavor_fits without its ResourceFlavor: its ClusterQueue's flavor
    renamed `on-demand`, and an AdmissionCheck `prov` named that no manifest holds."""
    text = (CASES / "single_flavor_fits" / "manifests.yaml").read_text()
    documents = [d for d in text.split("---\n") if d.strip() and "kind: ResourceFlavor" not in d]
    text = "---\n".join(documents).replace("- name: default", "- name: on-demand")
    return text.replace("  namespaceSelector: {}\n", "  namespaceSelector: {}\n  admissionChecksStrategy:\n"
                        "    admissionChecks:\n    - name: prov\n", 1)


OTHER_FLAVOR = """\
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: spot
"""


@pytest.mark.parametrize("more,status", [("", "admitted"), (OTHER_FLAVOR, "pending")])
def test_a_flavor_or_check_that_may_exist_elsewhere_is_assumed_and_said(tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str],
                                                                        more: str, status: str) -> None:
    """As KQ216 and KQ206 judge them: a ResourceFlavor or AdmissionCheck the repository does not
    hold, where it holds none of that kind (they live elsewhere), may exist: the ClusterQueue is
    active and the assumption is in the report; where the repository manages ResourceFlavors and
    this one is not among them, it is missing (FlavorNotFound: inactive)."""
    (tmp_path / "all.yaml").write_text(_naming_elsewhere() + more)
    with chdir(tmp_path):
        _, out, err = run(capsys, "simulate", "all.yaml", "-f", "json", "--no-config", "--context", "all.yaml")
    assert "Traceback" not in err
    report = json.loads(out)
    (job,) = report["workloads"]
    assert job["status"] == status, job
    said = " ".join(report["assumptions"])
    assert "AdmissionCheck prov not in the inputs or context: assumed to exist" in said
    if not more:
        assert "ResourceFlavor on-demand not in the inputs or context: assumed to exist" in said
    else:
        assert "FlavorNotFound" in job["message"] and "on-demand" not in said


def test_kq217_and_simulate_spell_an_untolerated_taint_as_kueue_does(capsys: pytest.CaptureFixture[str]) -> None:
    """One spelling from one function (flavors.kueue_taint_text): `%s` of a corev1.Taint value,
    as flavorassigner.go writes it into the Workload's message, in KQ217's related entries and in
    simulate's message alike."""
    with chdir(CASES / "untolerated_taint"):
        _, out, _ = run(capsys, "simulate", "manifests.yaml", "-f", "json", *ISOLATED)
        _, checked, _ = run(capsys, "check", "manifests.yaml", "--select", "KQ217", "-f", "json", "--no-cache",
                            *ISOLATED)
    spelled = [part for w in json.loads(out)["workloads"] for part in (w["message"] or "").split(", ")
               if "untolerated taint" in part]
    related = [r["message"] for f in json.loads(checked)["findings"] for r in f["related"]
               if "untolerated taint" in r["message"]]
    assert spelled and related
    assert all("<nil>}" in text for text in spelled + related)
    assert {text.split("untolerated taint ")[1] for text in related} <= \
        {text.split("untolerated taint ")[1] for text in spelled}


def test_priority_boost_is_said_only_where_the_gate_is_on(capsys: pytest.CaptureFixture[str]) -> None:
    """A boosted priority is never used silently: the assumptions say so with the gate on, and
    not without it (the twin scenario)."""
    _, boosted = simulate_json(capsys, "priority_boost")
    _, plain = simulate_json(capsys, "priority_boost_gate_off")
    assert [a for a in boosted["assumptions"] if a.startswith("PriorityBoost gate on")]
    assert not [a for a in plain["assumptions"] if "PriorityBoost" in a]


def test_reclaimed_usage_is_divided_before_it_is_multiplied_as_kueue_does() -> None:
    """Kueue scales an admitted pod set's int64 usage down to the pods left after reclaim by
    dividing by the admitted count first (``Requests.Divide`` then ``Mul``): 1 CPU over 3 pods,
    2 left, holds 666m, not 667m; memory in bytes, cpu in milli-units."""
    from fractions import Fraction

    from kqlint.domain.kueue.running import _scaled

    assert _scaled("cpu", Fraction(1), 3, 2) == Fraction(666, 1000)
    assert _scaled("memory", Fraction(1024 ** 3), 3, 1) == Fraction(1024 ** 3 // 3)
    assert _scaled("cpu", Fraction(5), 5, 3) == Fraction(3)
