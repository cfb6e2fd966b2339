"""The admission rules of rules.md "Admission" (KQ212–KQ216) and the KQ209 amendment: severities
that follow the platform's Kueue version, the reason words of Kueue in the messages, positions,
`related` entries and fixes, beyond what the fixture pairs check."""
from __future__ import annotations

from pathlib import Path

import pytest
from kqlint.config import Config
from kqlint.engine.pipeline import lint
from kqlint.fix.model import Applicability
from kqlint.model import Finding, Report, Severity


def run(tmp_path: Path, text: str, code: str, config: str = "") -> Report:
    (tmp_path / "objects.yaml").write_text(text, encoding="utf-8")
    if config:
        (tmp_path / ".kqlint.yaml").write_text(config, encoding="utf-8")
    from helpers import chdir
    from kqlint.config import load_config

    with chdir(tmp_path):
        base = load_config(".kqlint.yaml") if config else Config()
        report = lint(["."], base.with_overrides(select=(code,)), auto_context=False)
    assert not report.internal_errors, report.internal_errors
    return report


def only(report: Report) -> Finding:
    assert len(report.findings) == 1, [f.message for f in report.findings]
    return report.findings[0]


def version(v: str) -> str:
    return f"platform:\n  kueue:\n    version: \"{v}\"\n"


# ------------------------------------------------------------------ KQ212 queue-name-annotation

JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: train
  namespace: ml
  annotations:
    kueue.x-k8s.io/queue-name: {value}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox
"""


@pytest.mark.parametrize("kueue,severity", [("", Severity.ERROR), ("0.15", Severity.ERROR),
                                            ("0.19", Severity.ERROR), ("0.14", Severity.INFO)])
def test_kq212_is_an_info_only_where_kueue_still_reads_the_annotation(
        tmp_path: Path, kueue: str, severity: Severity) -> None:
    finding = only(run(tmp_path, JOB.format(value="training"), "KQ212", version(kueue) if kueue else ""))
    assert finding.severity is severity
    assert (finding.location.line, finding.location.column) == (7, 5)  # the annotation key
    assert ("ignored from 0.15" in finding.message) is (severity is Severity.INFO)
    assert finding.fix is not None and finding.fix.applicability is Applicability.SAFE


def test_kq212_fix_moves_the_annotation_into_the_labels(tmp_path: Path) -> None:
    fix = only(run(tmp_path, JOB.format(value="training"), "KQ212")).fix
    assert fix is not None
    assert [(e.op, e.path, e.key, e.value) for e in fix.edits] == [
        ("remove", ("metadata", "annotations"), None, None),
        ("insert", ("metadata",), "labels", {"kueue.x-k8s.io/queue-name": "training"})]


@pytest.mark.parametrize("value", ["Training", "'12345678901234567890123456789012345678901234567890123456789012345'",
                                   "'4'", "a_b"])
def test_kq212_offers_no_fix_for_a_value_the_webhook_would_refuse_as_a_label(tmp_path: Path, value: str) -> None:
    finding = only(run(tmp_path, JOB.format(value=value), "KQ212"))
    assert finding.fix is None or value == "'4'"


def test_kq212_non_string_annotation_values_never_crash(tmp_path: Path) -> None:
    for value in ("[a, b]", "{a: 1}", "null", "4", "''"):  # kubectl refuses some: then no object at all
        report = run(tmp_path, JOB.format(value=value), "KQ212")
        assert all(f.fix is None for f in report.findings)


def test_kq212_message_says_what_manage_jobs_without_queue_name_does(tmp_path: Path) -> None:
    config_map = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: kueue-manager-config, namespace: kueue-system}
data:
  controller_manager_config.yaml: |
    apiVersion: config.kueue.x-k8s.io/v1beta2
    kind: Configuration
    manageJobsWithoutQueueName: %s
---
"""
    on = only(run(tmp_path, config_map % "true" + JOB.format(value="training"), "KQ212")).message
    off = only(run(tmp_path, config_map % "false" + JOB.format(value="training"), "KQ212")).message
    unknown = only(run(tmp_path, JOB.format(value="training"), "KQ212")).message
    assert "stays suspended and is never admitted" in on and "outside the quota" not in on
    assert "outside the quota" in off and "manageJobsWithoutQueueName" not in off
    assert "outside the quota" in unknown and "manageJobsWithoutQueueName" in unknown


def test_kq212_silent_where_the_integration_is_off(tmp_path: Path) -> None:
    config = "platform:\n  kueue:\n    integrations: [pod]\n"
    assert not run(tmp_path, JOB.format(value="training"), "KQ212", config).findings


def test_kq212_cronjob_annotation_moves_to_the_job_template_labels(tmp_path: Path) -> None:
    cronjob = """\
apiVersion: batch/v1
kind: CronJob
metadata:
  name: nightly
  namespace: ml
spec:
  schedule: "0 0 * * *"
  jobTemplate:
    metadata:
      labels: {app: nightly}
      annotations:
        kueue.x-k8s.io/queue-name: training
        owner: ml
    spec:
      template:
        spec:
          restartPolicy: Never
          containers:
          - name: main
            image: busybox
"""
    finding = only(run(tmp_path, cronjob, "KQ212"))
    assert (finding.location.line, finding.location.column) == (12, 9)
    assert finding.fix is not None
    assert [(e.op, e.path) for e in finding.fix.edits] == [
        ("remove", ("spec", "jobTemplate", "metadata", "annotations", "kueue.x-k8s.io/queue-name")),
        ("insert", ("spec", "jobTemplate", "metadata", "labels"))]


# ------------------------------------------------------------------ KQ214 too-many-podsets

@pytest.mark.parametrize("kueue,limit", [(None, 18), ((0, 14), 8), ((0, 17), 8), ((0, 18), 10), ((0, 19), 18),
                                         ((0, 20), 18), ((1, 0), 18)])
def test_kq214_limit_follows_the_kueue_release(kueue: tuple[int, int] | None, limit: int) -> None:
    from kqlint.domain.platform import Platform
    from kqlint.rules.queues.kq214_too_many_podsets import pod_set_limit

    assert pod_set_limit(Platform(kueue_version=kueue)) == limit


def _count(text: str) -> int | None:
    from kqlint.domain.objects import INPUT, objects_from_file
    from kqlint.loader import parse_bytes
    from kqlint.rules.queues.kq214_too_many_podsets import pod_set_count

    found, _, _ = objects_from_file(parse_bytes("x.yaml", text.encode()), "default", INPUT)
    counted = pod_set_count(found[0])
    return None if counted is None else counted.total


def test_kq214_counts_pod_sets_as_kueue_builds_them() -> None:
    assert _count("apiVersion: kubeflow.org/v1\nkind: TFJob\nmetadata: {name: t}\nspec:\n  tfReplicaSpecs:\n"
                  "    Chief: {replicas: 1}\n    PS: {replicas: 2}\n    Worker: {replicas: 4}\n") == 3
    components = "".join("  - podSets: [{replicas: 1, path: template.spec.template}, {path: x}]\n"
                         "    template: {}\n" for _ in range(3))
    assert _count("apiVersion: workload.codeflare.dev/v1beta2\nkind: AppWrapper\nmetadata: {name: a}\nspec:\n"
                  "  components:\n" + components + "  - template: {}\n") == 6  # no podSets: not counted
    assert _count("apiVersion: ray.io/v1\nkind: RayJob\nmetadata: {name: r}\nspec:\n  clusterSelector: {a: b}\n"
                  "  rayClusterSpec: {workerGroupSpecs: []}\n") is None  # an existing cluster: not managed
    assert _count("apiVersion: ray.io/v1\nkind: RayService\nmetadata: {name: r}\nspec:\n  rayClusterConfig:\n"
                  "    workerGroupSpecs: [{groupName: a}, {groupName: b}, oops]\n") == 3
    assert _count("apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata: {name: j}\nspec:\n"
                  "  replicatedJobs: {not: a list}\n") == 0


# ------------------------------------------------------------------ KQ216 cluster-queue-inactive

MULTIKUEUE_QUEUE = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: q}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: ["cpu"]
    flavors:
    - {name: a, resources: [{name: cpu, nominalQuota: 1}]}
    - {name: b, resources: [{name: cpu, nominalQuota: 1}]}
  admissionChecksStrategy:
    admissionChecks:
    - name: mk
      onFlavors: %s
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata: {name: mk}
spec:
  controllerName: kueue.x-k8s.io/multikueue
  parameters: {apiGroup: kueue.x-k8s.io, kind: MultiKueueConfig, name: workers}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: MultiKueueConfig
metadata: {name: workers}
spec: {clusters: [w1]}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: MultiKueueCluster
metadata: {name: w1}
spec: {clusterSource: {kubeConfig: {locationType: Secret, location: w1}}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: a}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: b}
"""


@pytest.mark.parametrize("on_flavors,reported", [("[a, b]", False), ("[b, a]", False), ("[a]", True), ("[]", False)])
def test_kq216_a_multikueue_check_on_every_flavor_is_not_per_flavor(
        tmp_path: Path, on_flavors: str, reported: bool) -> None:
    findings = run(tmp_path, MULTIKUEUE_QUEUE % on_flavors, "KQ216").findings
    assert bool(findings) is reported
    assert all("MultiKueueAdmissionCheckAppliedPerFlavor" in f.message and f.location.line == 13 for f in findings)


def test_kq216_a_check_defined_in_another_unit_is_not_missing(tmp_path: Path) -> None:
    queue = MULTIKUEUE_QUEUE % "[a, b]"
    config = "units: [queues, checks]\n"
    (tmp_path / "queues").mkdir()
    (tmp_path / "checks").mkdir()
    docs = queue.split("---\n")
    (tmp_path / "queues" / "q.yaml").write_text(docs[0] + "---\n" + "---\n".join(docs[4:]), encoding="utf-8")
    (tmp_path / "checks" / "c.yaml").write_text("---\n".join(docs[1:4]), encoding="utf-8")
    assert not run(tmp_path, "", "KQ216", config).findings
    (tmp_path / "checks" / "c.yaml").write_text("---\n".join(docs[2:4]), encoding="utf-8")  # no check at all
    assert not run(tmp_path, "", "KQ216", config).findings  # checks are managed elsewhere
    other = docs[1].replace("metadata: {name: mk}", "metadata: {name: other}")  # the unit manages checks
    (tmp_path / "queues" / "q.yaml").write_text(docs[0] + "---\n" + "---\n".join([other, *docs[4:]]),
                                                encoding="utf-8")
    assert [f.location.line for f in run(tmp_path, "", "KQ216", config).findings] == [13]


# ------------------------------------------------------------------ KQ213 queue-label-conflict

LWS = """\
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata:
  name: serve
  namespace: ml
  labels: {kueue.x-k8s.io/queue-name: serving}
spec:
  leaderWorkerTemplate:
    size: 2
    workerTemplate:
      metadata:
        labels: {kueue.x-k8s.io/queue-name: batch}
      spec:
        containers: [{name: worker, image: vllm}]
"""
LWS_ON = "    integrations: [leaderworkerset.x-k8s.io/leaderworkerset]\n"


@pytest.mark.parametrize("kueue,severity,words", [
    ("0.17", Severity.ERROR, "SchedulingGated"), ("0.18", Severity.WARNING, "overwrites"),
    (None, Severity.WARNING, "overwrites")])
def test_kq213_lws_is_an_error_only_before_kueue_0_18(
        tmp_path: Path, kueue: str | None, severity: Severity, words: str) -> None:
    config = "platform:\n  kueue:\n" + (f"    version: \"{kueue}\"\n" if kueue else "") + LWS_ON
    finding = only(run(tmp_path, LWS, "KQ213", config))
    assert finding.severity is severity and words in finding.message
    assert (finding.location.line, finding.location.column) == (12, 18)  # the template's label
    assert [(r.line, r.column) for r in finding.related] == [(6, 12)]  # the owner's label


def test_kq213_a_job_template_conflict_is_a_warning_whatever_the_version(tmp_path: Path) -> None:
    job = JOB.replace("  annotations:\n    kueue.x-k8s.io/queue-name: {value}\n",
                      "  labels: {kueue.x-k8s.io/queue-name: a}\n").replace(
        "  template:\n", "  template:\n    metadata: {labels: {kueue.x-k8s.io/queue-name: b}}\n")
    finding = only(run(tmp_path, job, "KQ213", version("0.14")))
    assert finding.severity is Severity.WARNING and "ignores the label" in finding.message


# ------------------------------------------------------------------ LimitRange defaults (B31)

def _defaulted(text: str) -> dict[str, str]:
    from kqlint.domain.graph import ObjectGraph
    from kqlint.domain.kueue.limitranges import defaulted_requests
    from kqlint.domain.objects import INPUT, objects_from_file
    from kqlint.domain.quantity import format_amount
    from kqlint.domain.workloads import own_templates
    from kqlint.loader import parse_bytes

    found, _, _ = objects_from_file(parse_bytes("x.yaml", text.encode()), "default", INPUT)
    graph = ObjectGraph(found)
    job = next(obj for obj in found if obj.kind == "Job")
    return {r: format_amount(q) for r, q in defaulted_requests(own_templates(job, graph)[0], graph).items()}


LIMIT_RANGES = """\
apiVersion: v1
kind: LimitRange
metadata: {name: b-later, namespace: ml}
spec:
  limits:
  - type: Container
    defaultRequest: {cpu: "2", memory: 1Gi}
---
apiVersion: v1
kind: LimitRange
metadata: {name: a-first, namespace: ml}
spec:
  limits:
  - type: Container
    defaultRequest: {cpu: "1"}
    default: {ephemeral-storage: 1Gi, memory: 4Gi}
  - type: Pod
    defaultRequest: {memory: 8Gi}
---
apiVersion: v1
kind: LimitRange
metadata: {name: other, namespace: elsewhere}
spec:
  limits:
  - type: Container
    defaultRequest: {nvidia.com/gpu: "1"}
---
"""
POD_JOB = """\
apiVersion: batch/v1
kind: Job
metadata: {name: j, namespace: ml}
spec:
  template:
    spec:
      containers:
      - name: main
        image: busybox
        resources: %s
"""


def test_limit_range_defaults_merge_as_kueue_summarizes_them() -> None:
    # the first LimitRange by name wins per resource; defaultRequest before the default limit;
    # a LimitRange of another namespace counts for nothing
    assert _defaulted(LIMIT_RANGES + POD_JOB % "{}") == {"cpu": "1", "memory": "1Gi", "ephemeral-storage": "1Gi"}
    # the container's own values stay first; a request default wins over the container's own limit
    assert _defaulted(LIMIT_RANGES + POD_JOB % "{requests: {cpu: 500m}, limits: {memory: 2Gi}}") == {
        "cpu": "500m", "memory": "1Gi", "ephemeral-storage": "1Gi"}
    assert _defaulted(POD_JOB % "{}") == {}


def test_kq215_counts_a_default_limit_as_a_request(tmp_path: Path) -> None:
    queues = (Path(__file__).parent / "fixtures/rules/KQ215/good-flavors-without-placement/queues.yaml")
    flavored = queues.read_text(encoding="utf-8").replace(
        "spec: {}   # a flavor that places nothing: nothing to inject", "spec: {nodeLabels: {a: b}}").replace(
        "q215", "ml")
    job = POD_JOB.replace("metadata: {name: j, namespace: ml}",
                          "metadata: {name: j, namespace: ml, labels: {kueue.x-k8s.io/queue-name: batch}}")
    assert len(run(tmp_path, flavored + "---\n" + job % "{}", "KQ215").findings) == 1
    limit_only = "apiVersion: v1\nkind: LimitRange\nmetadata: {name: l, namespace: ml}\nspec:\n  limits:\n" \
                 "  - {type: Container, default: {cpu: '1'}}\n---\n"
    assert not run(tmp_path, limit_only + flavored + "---\n" + job % "{}", "KQ215").findings
    pod_only = limit_only.replace("Container", "Pod")  # type Pod reaches only pod-level resources that are set
    assert len(run(tmp_path, pod_only + flavored + "---\n" + job % "{}", "KQ215").findings) == 1


# ------------------------------------------------------------------ KQ209 amendment: LimitRange defaults

KQ209_CASE = Path(__file__).parent / "fixtures/rules/KQ209/bad-limitrange-default/objects.yaml"


def test_kq209_limit_range_of_the_context_is_named_at_the_workload(tmp_path: Path) -> None:
    from helpers import chdir

    docs = KQ209_CASE.read_text(encoding="utf-8").split("---\n")
    (tmp_path / "platform").mkdir()
    (tmp_path / "platform" / "limitrange.yaml").write_text(docs[0], encoding="utf-8")
    (tmp_path / "objects.yaml").write_text("---\n".join(docs[1:]), encoding="utf-8")
    with chdir(tmp_path):
        report = lint(["objects.yaml"], Config(select=("KQ209",), context=("platform",)), auto_context=False)
    finding = only(report)
    assert finding.location.file == "objects.yaml" and finding.location.line == 36  # the queue-name label
    assert "LimitRange q209-lr/defaults adds ephemeral-storage" in finding.message
    assert ("platform/limitrange.yaml", 13) in [(r.file, r.line) for r in finding.related], finding.related


def test_kq209_without_the_limit_range_the_job_fits(tmp_path: Path) -> None:
    docs = KQ209_CASE.read_text(encoding="utf-8").split("---\n")
    assert not run(tmp_path, "---\n".join(docs[1:]), "KQ209").findings


def test_kq210_counts_limit_range_defaults_as_requests(tmp_path: Path) -> None:
    docs = KQ209_CASE.read_text(encoding="utf-8").split("---\n")
    limit_range = docs[0].replace('      cpu: "1"\n      ephemeral-storage: 2Gi   # expect: KQ209:7\n',
                                  '      cpu: "1"\n').replace("cpu: 500m", "cpu: \"100\"")
    job = docs[-1].replace('          requests:\n            cpu: "1"\n', "          limits: {memory: 1Gi}\n")
    findings = run(tmp_path, "---\n".join([limit_range, *docs[1:-1], job]), "KQ210").findings
    assert len(findings) == 1 and "cpu" in findings[0].message  # 100 cores from the default > 64


# ------------------------------------------------------------------ KQ004: Kueue's job webhooks

@pytest.mark.parametrize("raw,problem", [
    ('[{"topology": "block", "size": 8}, {"topology": "rack", "size": 4}]', None),
    ('[{"topology": "block", "size": 8}, {"topology": "rack", "size": 3}]', "evenly divide"),
    ('[{"topology": "rack", "size": 2}, {"topology": "rack", "size": 1}]', "Duplicate"),
    ('[]', "between 1 and 3"),
    ('[{"topology": "a", "size": 1}, {"topology": "b", "size": 1}, {"topology": "c", "size": 1},'
     ' {"topology": "d", "size": 1}]', "between 1 and 3"),
    ('[{"topology": "rack", "size": 0}]', "greater than or equal to 1"),
    ('[{"topology": "bad label!", "size": 1}]', "label name"),
    ('{"topology": "rack"}', "JSON array"),
    ('not json', "JSON array"),
    ("[" * 100_000 + "]" * 100_000, "JSON array"),  # hostile nesting: no RecursionError escapes
])
def test_kq004_multi_layer_constraints_as_kueue_validates_them(raw: str, problem: str | None) -> None:
    from kqlint.rules.engine._webhook_kueue import _constraints_problem

    found = _constraints_problem(raw)
    assert (found is None) if problem is None else (found is not None and problem in found)


@pytest.mark.parametrize("value,valid", [("kubernetes.io/hostname", True), ("rack", True), ("cloud.google.com/x", True),
                                         ("Bad/Prefix", False), ("a" * 64, False), ("", False), ("x/", False)])
def test_kq004_topology_levels_are_label_names(value: str, valid: bool) -> None:
    from kqlint.rules.engine._webhook_kueue import _label_name

    assert _label_name(value) is valid


@pytest.mark.parametrize(("queue", "rejected"), [("Team_Queue", True), ("${QUEUE:-team-queue}", False),
                                                 ("team-$ENV", False)])
def test_kq004_a_queue_name_with_an_envsubst_placeholder_is_a_template_not_a_rejection(
        tmp_path: Path, queue: str, rejected: bool) -> None:
    """An envsubst template's queue name is rendered before it is applied (KQ203 treats it so)."""
    job = ("apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\n  labels:\n"
           f"    kueue.x-k8s.io/queue-name: \"{queue}\"\nspec:\n  template:\n    spec:\n"
           "      restartPolicy: Never\n      containers: [{name: c, image: busybox}]\n")
    findings = run(tmp_path, job, "KQ004").findings
    assert [f.location.line for f in findings if "queue-name" in f.message] == ([6] if rejected else [])


# ------------------------------------------------------------------ KQ221: inputs against their context

POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: {name}
  namespace: ml
  labels:
    {label}
  annotations:
    kueue.x-k8s.io/pod-group-total-count: "{count}"
spec:
  containers:
  - name: main
    image: busybox
"""


def test_kq221_judges_an_input_member_against_members_in_the_context(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A group is judged when one of its members is an input; a run whose inputs hold no
    member reads no context object's templates (an editor's keystroke stays cheap)."""
    from helpers import chdir
    from kqlint.rules.queues import kq221_pod_group_count_mismatch as kq221

    group = "kueue.x-k8s.io/pod-group-name: sweep"
    (tmp_path / "edited.yaml").write_text(POD.format(name="w0", label=group, count=3), encoding="utf-8")
    (tmp_path / "plain.yaml").write_text(POD.format(name="solo", label="app: x", count=1), encoding="utf-8")
    (tmp_path / "context.yaml").write_text(POD.format(name="w1", label=group, count=2) + "---\n"
                                           + POD.format(name="w2", label=group, count=2), encoding="utf-8")
    read: list[str] = []
    real = kq221.pod_templates

    def counted(obj, graph=None):  # type: ignore[no-untyped-def]
        read.append(obj.name)
        return real(obj, graph)

    monkeypatch.setattr(kq221, "pod_templates", counted)
    config = Config().with_overrides(select=("KQ221",))
    with chdir(tmp_path):
        report = lint(["edited.yaml"], config, context=["context.yaml"], auto_context=False)
        finding = only(report)
        assert (finding.location.file, finding.location.line, finding.location.column) == ("edited.yaml", 9, 5)
        assert "total count 3 in pod group sweep, whose other members say 2" in finding.message
        assert sorted((r.file, r.line) for r in finding.related) == [("context.yaml", 9), ("context.yaml", 23)]
        read.clear()
        assert not lint(["plain.yaml"], config, context=["context.yaml"], auto_context=False).findings
    assert read == ["solo"]


def _group(names: list[str], group: str, count: int) -> str:
    """Bare Pods (POD above) of one Kueue pod group, as one file."""
    return "---\n".join(POD.format(name=name, label=f"kueue.x-k8s.io/pod-group-name: {group}", count=count)
                         for name in names)


def _copies(root: Path, text: str, folders: list[str]) -> None:
    for folder in folders:
        (root / folder).mkdir(parents=True)
        (root / folder / "kueue-pod-group.yaml").write_text(text, encoding="utf-8")


def test_kq221_counts_a_docs_sites_versioned_copies_of_a_sample_once(tmp_path: Path) -> None:
    """Kueue's own site keeps examples/, v0.18/examples/ and v0.19/examples/ byte for byte
    alike: the group of two Pods is not six Pods (a false 'excess' before)."""
    from helpers import chdir

    (tmp_path / ".git").mkdir()
    sample = _group(["leader", "worker"], "sample-group", 2)
    _copies(tmp_path, sample, ["examples", "v0.18/examples", "v0.19/examples"])
    with chdir(tmp_path):
        assert not lint(["."], Config().with_overrides(select=("KQ221",))).findings
        assert not lint(["v0.18/examples/kueue-pod-group.yaml"], Config().with_overrides(select=("KQ221",))).findings


def test_kq221_still_reports_copies_whose_sample_is_wrong_and_not_what_copies_make_ambiguous(tmp_path: Path) -> None:
    from helpers import chdir

    (tmp_path / ".git").mkdir()
    wrong = _group(["leader", "worker"], "sample-group", 3)
    _copies(tmp_path / "a", wrong, ["examples", "v0.18/examples"])
    # two files that each hold the same Pod: two Pods, or one Pod in two places; count 2 fits the first reading
    _copies(tmp_path / "b", _group(["worker"], "pair", 2), ["one", "two"])
    with chdir(tmp_path):
        report = lint(["."], Config().with_overrides(select=("KQ221",)))
    assert [(f.location.file, f.location.line) for f in report.findings] == [("a/examples/kueue-pod-group.yaml", 9)]
    finding = report.findings[0]
    assert "has total count 3, but only 2 Pod(s) carry it" in finding.message
    assert [(r.file, r.line) for r in finding.related] == [("a/examples/kueue-pod-group.yaml", 21)]
