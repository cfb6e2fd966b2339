"""The fixes rules offer (issue 11), as structured Fix/Edit values: where each applies, and
the cases where it must not be offered. End-to-end application is tests/test_rule_fixes_e2e.py."""
from __future__ import annotations

from typing import Any

import pytest
from kqlint.domain.graph import ObjectGraph
from kqlint.domain.kueue import managed_templates
from kqlint.domain.objects import INPUT, K8sObject, objects_from_file
from kqlint.domain.platform import UNKNOWN, Platform
from kqlint.domain.workloads import own_templates, replica_specs
from kqlint.fix.model import Applicability, Fix
from kqlint.loader import parse_bytes
from kqlint.rules.engine import kq002_schema_violation as kq002
from kqlint.rules.engine import kq005_deprecated_api as kq005
from kqlint.rules.gang.kq307_kubeflow_replicas_unset import explicit_replicas_fix
from kqlint.rules.kakaocloud import kq506_kai_enabled_label_missing as kq506
from kqlint.rules.kakaocloud.kq503_kai_queue_not_default import default_queue_fix
from kqlint.rules.kakaocloud.kq507_cross_tenant_reclaim import never_reclaim_fix
from kqlint.rules.kakaocloud.kq508_wrong_scheduler_name import right_name_fix
from kqlint.rules.priority._shared_class import use_class_fix
from kqlint.rules.queues import kq201_missing_within_cluster_queue as kq201
from kqlint.rules.queues import kq208_kueue_label_misplaced as kq208
from kqlint.schema import catalog


def load(text: str, file: str = "test.yaml") -> tuple[list[K8sObject], ObjectGraph]:
    found, _, _ = objects_from_file(parse_bytes(file, text.encode()), "default", INPUT)
    return found, ObjectGraph(found)


def one(text: str) -> K8sObject:
    return load(text)[0][0]


def edits(fix: Fix | None) -> list[tuple[Any, ...]]:
    assert fix is not None
    return [(e.op, e.path, e.key, e.value) for e in fix.edits]


# ------------------------------------------------------------------ KQ005 Kueue v1beta1 -> v1beta2


CQ = """apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: team-a}
spec:
  namespaceSelector: {}
"""


def test_kq005_cluster_queue_migration_renames_moves_and_replaces() -> None:
    obj = one(CQ + "  cohort: research\n  admissionChecks: [prov, multikueue]\n"
                   "  flavorFungibility: {whenCanBorrow: Borrow, whenCanPreempt: Preempt}\n")
    fix = kq005.v1beta2_fix(obj, UNKNOWN)
    assert fix is not None and fix.applicability is Applicability.SAFE
    assert edits(fix) == [
        ("replace", ("apiVersion",), None, "kueue.x-k8s.io/v1beta2"),
        ("rename", ("spec", "cohort"), "cohortName", None),
        ("remove", ("spec", "admissionChecks"), None, None),
        ("insert", ("spec",), "admissionChecksStrategy",
         {"admissionChecks": [{"name": "prov"}, {"name": "multikueue"}]}),
        ("replace", ("spec", "flavorFungibility", "whenCanBorrow"), None, "MayStopSearch"),
        ("replace", ("spec", "flavorFungibility", "whenCanPreempt"), None, "MayStopSearch"),
    ]


def test_kq005_plain_kinds_change_only_api_version() -> None:
    for kind in ("LocalQueue", "ResourceFlavor", "WorkloadPriorityClass", "Cohort", "Topology"):
        obj = one(f"apiVersion: kueue.x-k8s.io/v1beta1\nkind: {kind}\nmetadata: {{name: x}}\n")
        assert edits(kq005.v1beta2_fix(obj, UNKNOWN)) == [("replace", ("apiVersion",), None, "kueue.x-k8s.io/v1beta2")]


def test_kq005_no_fix_when_admission_checks_strategy_is_also_written() -> None:
    obj = one(CQ + "  admissionChecks: [prov]\n  admissionChecksStrategy: {admissionChecks: [{name: x}]}\n")
    assert kq005.v1beta2_fix(obj, UNKNOWN) is None
    assert kq005.kueue_v1beta2(obj).manual  # type: ignore[union-attr]


def test_kq005_no_fix_when_cohort_and_cohort_name_are_both_written() -> None:
    assert kq005.v1beta2_fix(one(CQ + "  cohort: a\n  cohortName: b\n"), UNKNOWN) is None


def test_kq005_empty_admission_checks_are_dropped() -> None:
    obj = one(CQ + "  admissionChecks: []\n")
    assert ("remove", ("spec", "admissionChecks"), None, None) in edits(kq005.v1beta2_fix(obj, UNKNOWN))
    assert not any(e.op == "insert" for e in kq005.v1beta2_fix(obj, UNKNOWN).edits)  # type: ignore[union-attr]


WORKLOAD = """apiVersion: kueue.x-k8s.io/v1beta1
kind: Workload
metadata: {name: w, namespace: ml}
spec:
  queueName: training
"""


@pytest.mark.parametrize("source,group,kind", [
    ("kueue.x-k8s.io/workloadpriorityclass", "kueue.x-k8s.io", "WorkloadPriorityClass"),
    ("scheduling.k8s.io/priorityclass", "scheduling.k8s.io", "PriorityClass"),
])
def test_kq005_workload_priority_class_becomes_a_ref(source: str, group: str, kind: str) -> None:
    obj = one(WORKLOAD + f"  priorityClassName: high\n  priorityClassSource: {source}\n")
    assert edits(kq005.v1beta2_fix(obj, UNKNOWN))[1:] == [
        ("remove", ("spec", "priorityClassName"), None, None),
        ("remove", ("spec", "priorityClassSource"), None, None),
        ("insert", ("spec",), "priorityClassRef", {"group": group, "kind": kind, "name": "high"}),
    ]


def test_kq005_workload_class_without_source_has_no_mechanical_equivalent() -> None:
    obj = one(WORKLOAD + "  priorityClassName: high\n")
    assert kq005.v1beta2_fix(obj, UNKNOWN) is None
    assert "priorityClassRef" in kq005.kueue_v1beta2(obj).manual[0]  # type: ignore[union-attr]


def test_kq005_admission_check_retry_delay_is_removed() -> None:
    obj = one("apiVersion: kueue.x-k8s.io/v1beta1\nkind: AdmissionCheck\nmetadata: {name: prov}\n"
              "spec: {controllerName: x, retryDelayMinutes: 15}\n")
    assert edits(kq005.v1beta2_fix(obj, UNKNOWN))[1:] == [("remove", ("spec", "retryDelayMinutes"), None, None)]


def test_kq005_multikueue_cluster_kubeconfig_moves_under_cluster_source() -> None:
    obj = one("apiVersion: kueue.x-k8s.io/v1beta1\nkind: MultiKueueCluster\nmetadata: {name: w1}\n"
              "spec:\n  kubeConfig: {locationType: Secret, location: w1-secret}\n")
    assert edits(kq005.v1beta2_fix(obj, UNKNOWN))[1:] == [
        ("remove", ("spec", "kubeConfig"), None, None),
        ("insert", ("spec",), "clusterSource", {"kubeConfig": {"locationType": "Secret", "location": "w1-secret"}}),
    ]


def test_kq005_unknown_kueue_kind_gets_no_fix() -> None:
    mystery = one("apiVersion: kueue.x-k8s.io/v1beta1\nkind: Mystery\nmetadata: {name: x}\n")
    assert kq005.v1beta2_fix(mystery, UNKNOWN) is None


def test_kq005_v1alpha1_cohort_renames_parent() -> None:
    obj = one("apiVersion: kueue.x-k8s.io/v1alpha1\nkind: Cohort\nmetadata: {name: c}\nspec: {parent: root}\n")
    assert edits(kq005.v1alpha1_fix(obj, "kueue.x-k8s.io/v1beta1", UNKNOWN)) == [
        ("replace", ("apiVersion",), None, "kueue.x-k8s.io/v1beta1"),
        ("rename", ("spec", "parent"), "parentName", None),
    ]


def test_kq005_removed_core_apis_only_where_the_schema_is_the_same() -> None:
    cron = one("apiVersion: batch/v1beta1\nkind: CronJob\nmetadata: {name: c}\n")
    assert edits(kq005.removed_api_fix(cron)) == [("replace", ("apiVersion",), None, "batch/v1")]
    v1beta2 = one("apiVersion: apps/v1beta2\nkind: Deployment\nmetadata: {name: d}\n")
    assert edits(kq005.removed_api_fix(v1beta2)) == [("replace", ("apiVersion",), None, "apps/v1")]
    for version in ("apps/v1beta1", "extensions/v1beta1"):  # selector required, other defaults
        assert kq005.removed_api_fix(one(f"apiVersion: {version}\nkind: Deployment\nmetadata: {{name: d}}\n")) is None


def test_kq005_fungibility_fix_needs_kueue_0_15() -> None:
    obj = one(CQ + "  flavorFungibility: {whenCanBorrow: Borrow}\n")
    assert edits(kq005.fungibility_fix(obj, "whenCanBorrow", UNKNOWN)) == [
        ("replace", ("spec", "flavorFungibility", "whenCanBorrow"), None, "MayStopSearch")]
    assert kq005.fungibility_fix(obj, "whenCanBorrow", Platform(kueue_version=(0, 14))) is None
    assert kq005.fungibility_fix(obj, "whenCanPreempt", Platform(kueue_version=(0, 15))) is None


# ------------------------------------------------------------------ KQ002 spellings



def kq002_fixes(text: str) -> list[Fix | None]:
    obj = one(text)
    validator = catalog().validator(obj.api_version, obj.kind)
    assert validator is not None
    return [kq002.spelling_fix(obj, v) for v in validator.validate(obj.data)]


CQ2 = "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: a}\nspec:\n  namespaceSelector: {}\n"


def test_kq002_enum_case_and_key_typo() -> None:
    [value] = kq002_fixes(CQ2 + "  preemption: {withinClusterQueue: lowerPriority}\n")
    assert edits(value) == [("replace", ("spec", "preemption", "withinClusterQueue"), None, "LowerPriority")]
    [key] = kq002_fixes(CQ2 + "  preemption: {withinClusterQueu: LowerPriority}\n")
    assert edits(key) == [("rename", ("spec", "preemption", "withinClusterQueu"), "withinClusterQueue", None)]
    assert key.applicability is Applicability.SAFE  # type: ignore[union-attr]
    [never] = kq002_fixes("apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: p}\n"
                          "value: 1\npreemptionPolicy: never\n")
    assert edits(never) == [("replace", ("preemptionPolicy",), None, "Never")]


def test_kq002_no_fix_when_the_right_key_is_already_there() -> None:
    assert kq002_fixes(CQ2 + "  preemption: {withinClusterQueu: Never, withinClusterQueue: Never}\n") == [None]


def test_kq002_no_fix_when_far_ambiguous_or_not_a_spelling() -> None:
    assert kq002_fixes(CQ2 + "  preemption: {withinQueue: Never}\n") == [None]  # too far
    assert kq002_fixes(CQ2 + "  cohort: x\n") == [None]  # v1beta1's name, not a typo
    assert kq002_fixes("apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: p}\n"
                       "value: \"1000\"\n") == [None]  # a type error


@pytest.mark.parametrize("word,candidates,expected", [
    ("lowerPriority", ["Never", "LowerPriority", "LowerOrNewerEqualPriority"], "LowerPriority"),
    ("withinClusterQueu", ["withinClusterQueue", "reclaimWithinCohort"], "withinClusterQueue"),
    ("nmae", ["name", "image"], "name"),                 # a swap is one typo
    ("Nver", ["Never", "Any"], "Never"),                 # one typo in four letters
    ("ay", ["Any"], None),                               # under four letters: only a case difference
    ("abc", ["abd"], None),
    ("colour", ["color", "colors"], "color"),            # color 1, colors 2: one nearest
    ("lables", ["labels", "tables"], None),              # labels 1, tables 1: ambiguous
])
def test_closest_spelling(word: str, candidates: list[str], expected: str | None) -> None:
    assert kq002.closest_spelling(word, candidates) == expected


# ------------------------------------------------------------------ KQ208 labels moved to the object


QUEUE, PRIO = "kueue.x-k8s.io/queue-name", "kueue.x-k8s.io/priority-class"


def kq208_fix(text: str) -> Fix | None:
    [obj], graph = load(text)
    return kq208.move_labels_fix(obj, kq208.misplaced_labels(obj, graph))


def job(own_labels: str, template_labels: str) -> str:
    return (f"apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: t\n  namespace: ml\n{own_labels}"
            f"spec:\n  parallelism: 2\n  template:\n    metadata:\n      labels: {template_labels}\n"
            f"    spec:\n      containers: [{{name: m, image: x}}]\n")


def test_kq208_moves_labels_into_existing_metadata_labels() -> None:
    fix = kq208_fix(job("  labels: {app: t}\n", f"{{{QUEUE}: training, {PRIO}: high}}"))
    assert edits(fix) == [  # the template's metadata held only these labels: it goes as a whole
        ("remove", ("spec", "template", "metadata"), None, None),
        ("insert", ("metadata", "labels"), QUEUE, "training"), ("insert", ("metadata", "labels"), PRIO, "high"),
    ]
    labels = ("spec", "template", "metadata", "labels")
    assert edits(kq208_fix(job("", f"{{{QUEUE}: training, app: t}}")))[0] == ("remove", (*labels, QUEUE), None, None)


def test_kq208_inserts_the_labels_mapping_when_absent() -> None:
    fix = kq208_fix(job("", f"{{{QUEUE}: training}}"))
    assert edits(fix)[-1] == ("insert", ("metadata",), "labels", {QUEUE: "training"})


def test_kq208_no_fix_when_the_object_has_a_conflicting_value() -> None:
    assert kq208_fix(job(f"  labels: {{{QUEUE}: ''}}\n", f"{{{QUEUE}: training}}")) is None


def test_kq208_no_fix_when_templates_disagree() -> None:
    jobset = f"""apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {{name: js, namespace: ml}}
spec:
  replicatedJobs:
  - name: a
    template:
      metadata: {{labels: {{{QUEUE}: one}}}}
      spec: {{template: {{spec: {{containers: [{{name: m, image: x}}]}}}}}}
  - name: b
    template:
      metadata: {{labels: {{{QUEUE}: two}}}}
      spec: {{template: {{spec: {{containers: [{{name: m, image: x}}]}}}}}}
"""
    assert kq208_fix(jobset) is None


# ------------------------------------------------------------------ KQ201 withinClusterQueue



def test_kq201_inserts_within_cluster_queue() -> None:
    fix = kq201.lower_priority_fix(one(CQ2 + "  preemption: {reclaimWithinCohort: Any}\n"))
    assert fix is not None and fix.applicability is Applicability.UNSAFE
    assert edits(fix) == [("insert", ("spec", "preemption"), "withinClusterQueue", "LowerPriority")]
    assert edits(kq201.lower_priority_fix(one(CQ2))) == [
        ("insert", ("spec",), "preemption", {"withinClusterQueue": "LowerPriority"})]
    assert edits(kq201.lower_priority_fix(one(CQ2 + "  preemption:\n    withinClusterQueue:\n"))) == [
        ("replace", ("spec", "preemption", "withinClusterQueue"), None, "LowerPriority")]


def test_kq201_no_fix_when_preemption_is_not_a_mapping() -> None:
    assert kq201.lower_priority_fix(one(CQ2 + "  preemption: Never\n")) is None


# ------------------------------------------------------------------ KQ101/KQ102 shared class


PCS = """apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: gang-pods}
value: 100
preemptionPolicy: Never
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: urgent}
value: 1000
---
"""
KUEUE = """apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec: {namespaceSelector: {}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: training, namespace: ml}
spec: {clusterQueue: cq}
---
"""


def gang(pcn: str | None) -> str:
    spec_pc = f"      priorityClassName: {pcn}\n" if pcn else ""
    return (f"apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: g\n  namespace: ml\n"
            f"  labels: {{{QUEUE}: training}}\nspec:\n  parallelism: 4\n  template:\n    spec:\n{spec_pc}"
            f"      containers: [{{name: m, image: x}}]\n")


def class_fix(text: str) -> Fix | None:
    objects, graph = load(text)
    job_obj = next(o for o in objects if o.kind == "Job")
    [(template, _)] = managed_templates(job_obj, graph)
    return use_class_fix(job_obj, template, graph)


def test_kq101_kq102_use_the_one_non_preempting_class() -> None:
    fix = class_fix(PCS + KUEUE + gang("urgent"))
    assert fix is not None and fix.applicability is Applicability.UNSAFE
    assert edits(fix) == [("replace", ("spec", "template", "spec", "priorityClassName"), None, "gang-pods")]
    assert edits(class_fix(PCS + KUEUE + gang(None))) == [
        ("insert", ("spec", "template", "spec"), "priorityClassName", "gang-pods")]


def test_kq101_no_fix_with_none_or_several_non_preempting_classes() -> None:
    assert class_fix(PCS.split("---\n", 1)[1] + KUEUE + gang("urgent")) is None
    other = PCS.replace("gang-pods", "batch-pods").replace("value: 100", "value: 50")
    assert class_fix(PCS + other + KUEUE + gang("urgent")) is None


# ------------------------------------------------------------------ kakaocloud and KQ307



def kai_fix(metadata: str) -> Fix | None:
    [obj], graph = load("apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  template:\n"
                        f"{metadata}    spec:\n      schedulerName: kai-scheduler\n"
                        "      containers: [{name: m, image: x}]\n")
    [template] = own_templates(obj, graph)
    return kq506._fix(template)


def test_kq506_adds_the_label_where_the_template_has_room() -> None:
    meta = ("spec", "template", "metadata")
    assert edits(kai_fix("    metadata:\n      labels: {app: j}\n")) == [
        ("insert", (*meta, "labels"), kq506.LABEL, "true")]
    assert edits(kai_fix("    metadata:\n      annotations: {a: b}\n")) == [
        ("insert", meta, "labels", {kq506.LABEL: "true"})]
    assert edits(kai_fix("")) == [("insert", meta[:-1], "metadata", {"labels": {kq506.LABEL: "true"}})]
    assert kai_fix(f"    metadata:\n      labels: {{{kq506.LABEL}: 'false'}}\n") is None


def test_kakaocloud_value_fixes() -> None:
    assert edits(right_name_fix(("spec", "schedulerName"))) == [
        ("replace", ("spec", "schedulerName"), None, "volcano-scheduler")]
    path = ("metadata", "labels", "kai.scheduler/queue")
    assert edits(default_queue_fix(path)) == [("replace", path, None, "default-queue")]
    reclaim = one(CQ2 + "  preemption: {reclaimWithinCohort: Any}\n")
    assert never_reclaim_fix(reclaim).applicability is Applicability.UNSAFE  # type: ignore[union-attr]
    blocked = one(CQ2 + "  preemption: {reclaimWithinCohort: Any, borrowWithinCohort: {policy: LowerPriority}}\n")
    assert never_reclaim_fix(blocked) is None  # Kueue rejects Never with a borrowing policy


def test_kq307_writes_the_operator_default() -> None:
    obj = one("apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: p}\nspec:\n  pytorchReplicaSpecs:\n"
              "    Master: {template: {spec: {containers: [{name: m, image: x}]}}}\n"
              "    Worker: {replicas: 0, template: {spec: {containers: [{name: m, image: x}]}}}\n")
    master, worker = sorted(replica_specs(obj), key=lambda s: s.role)
    assert edits(explicit_replicas_fix(obj, master)) == [("insert", master.path, "replicas", 1)]
    assert explicit_replicas_fix(obj, worker) is None
