"""KQ004's JobSet and Volcano webhook parity beyond the fixture pairs: the webhooks' corner cases
(defaulted rule names, unknown dependsOn names, refused-but-enumerated events) and odd values
that must never crash."""
from __future__ import annotations

from pathlib import Path

import pytest
from helpers import lint_files

JOBSET = """\
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: js
spec:
{spec}
  replicatedJobs:
  - name: workers
    replicas: 2
    template:
      spec:
        completions: 2
        parallelism: 2
        template:
          spec:
            restartPolicy: Never
            containers:
            - name: main
              image: busybox
"""
VOLCANO_JOB = """\
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata:
  name: vj
spec:
{spec}
  tasks:
  - name: a
    replicas: 1
{task}
    template:
      spec:
        containers:
        - name: main
          image: trainer:1.0
  - name: b
    replicas: 1
    template:
      spec:
        containers:
        - name: main
          image: trainer:1.0
"""


def _messages(tmp_path: Path, text: str, codes: tuple[str, ...] = ("KQ004",)) -> list[str]:
    return [f.message for f in lint_files(tmp_path, {"m.yaml": text}, codes).findings]


def test_an_unnamed_rule_gets_the_defaulters_name(tmp_path: Path) -> None:
    spec = ("  failurePolicy:\n    rules:\n    - action: FailJobSet\n"
            "    - name: failurePolicyRule0\n      action: FailJobSet")
    found = _messages(tmp_path, JOBSET.format(spec=spec))
    assert len(found) == 1 and "rules with indices [0 1] all have the same name 'failurePolicyRule0'" in found[0]


def test_restart_job_within_1024_replicas_and_a_valid_coordinator_pass(tmp_path: Path) -> None:
    spec = ("  coordinator: {replicatedJob: workers, jobIndex: 1, podIndex: 1}\n"
            "  failurePolicy:\n    rules:\n    - action: RestartJob")
    assert _messages(tmp_path, JOBSET.format(spec=spec)) == []


@pytest.mark.parametrize("task,expected", [
    ("    dependsOn: {name: [ghost]}", "directed acyclic graph"),   # an unknown task never sorts
    ("    dependsOn: {name: [a]}", "directed acyclic graph"),       # itself
    ("    dependsOn: {name: []}", None),
])
def test_depends_on_must_name_earlier_tasks_without_loops(tmp_path: Path, task: str, expected: str | None) -> None:
    found = _messages(tmp_path, VOLCANO_JOB.format(spec="  queue: default", task=task))
    assert [m for m in found if "DAG" in m] == ([] if expected is None else [m for m in found if expected in m])
    assert (expected is None) == (not found)


def test_an_event_outside_the_crd_enum_is_kq002s_not_kq004s(tmp_path: Path) -> None:
    spec = "  policies:\n  - event: PodExploded\n    action: RestartJob"
    text = VOLCANO_JOB.format(spec=spec, task="")
    assert _messages(tmp_path, text) == []
    assert _messages(tmp_path, text, ("KQ002",))


@pytest.mark.parametrize("spec,task", [
    ("  policies: {event: PodFailed}", "    dependsOn: {name: a}"),
    ("  policies: [7, {events: [1, null]}, {exitCode: '3'}]", "    dependsOn: []"),
    ("  volumes: [null, {mountPath: 3}]", "    partitionPolicy: {totalPartitions: '4', partitionSize: [2]}"),
    ("  networkTopology: [1]", "    topologyPolicy: restricted\n    partitionPolicy: 7"),
    ("  policies: [{event: '*', action: AbortJob}, {exitCode: 3, action: AbortJob}]",
     "    topologyPolicy: best-effort"),
])
def test_odd_volcano_values_never_crash(tmp_path: Path, spec: str, task: str) -> None:
    _messages(tmp_path, VOLCANO_JOB.format(spec=spec, task=task))


@pytest.mark.parametrize("spec", [
    "  coordinator: {replicatedJob: [x], jobIndex: '1', podIndex: -1}",
    "  coordinator: 7",
    "  failurePolicy: {rules: [null, 3, {name: 7, targetReplicatedJobs: [1], onJobFailureReasons: {}}]}",
    "  managedBy: 42\n  network: {subdomain: 7}",
    "  managedBy: 'a/'\n  network: {subdomain: ''}",
])
def test_odd_jobset_values_never_crash(tmp_path: Path, spec: str) -> None:
    _messages(tmp_path, JOBSET.format(spec=spec))


def test_queue_weights_go_cannot_parse_are_not_judged(tmp_path: Path) -> None:
    queue = ("apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata:\n  name: q\n  annotations:\n"
             "    volcano.sh/hierarchy: root/q\n    volcano.sh/hierarchy-weights: {weights}\n")
    assert _messages(tmp_path, queue.format(weights="1/0x1p-2")) == []   # Go reads hex floats; Python does not
    assert _messages(tmp_path, queue.format(weights="1/-2"))


@pytest.mark.parametrize("policy", ["{event: [PodFailed], action: RestartJob}", "{event: PodFailed, action: [x]}",
                                    "{exitCode: {a: 1}, action: RestartJob}", "{exitCode: [1], action: RestartJob}"])
def test_a_volcano_policy_field_of_another_type_is_the_schemas_not_a_crash(tmp_path: Path, policy: str) -> None:
    """Found by the long fuzz run: a list or mapping where the webhook expects a string or an
    exit code is KQ002's; the webhook checks (KQ004) skip that policy and never crash."""
    job = ("apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: j}\nspec:\n"
           f"  policies: [{policy}]\n  tasks:\n  - name: t\n    replicas: 1\n    template:\n"
           "      spec: {containers: [{name: c, image: busybox}]}\n")
    assert lint_files(tmp_path, {"m.yaml": job}, ("KQ004",)).findings == ()


def test_a_volcano_task_named_by_a_mapping_is_no_crash(tmp_path: Path) -> None:
    """Found by the fuzzer: `- name: {}` made the dependency check hash a mapping. A task name
    that is no string is left to the name checks (and the schema, KQ002)."""
    job = ("apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: sweep}\nspec:\n  tasks:\n"
           "  - name: {}\n    replicas: 2\n    template: {spec: {containers: [{name: main, image: x}]}}\n"
           "  - name: b\n    replicas: 1\n    dependsOn: {name: [a]}\n"
           "    template: {spec: {containers: [{name: main, image: x}]}}\n")
    lint_files(tmp_path, {"m.yaml": job}, ("KQ004",))
