"""kqlint.domain.refs: one table of references drives resolution, the unknown-reference rules and the
edges of `kqlint graph`."""
from __future__ import annotations

from kqlint.domain import refs
from kqlint.domain.graph import ObjectGraph
from kqlint.domain.objects import INPUT, K8sObject, objects_from_file
from kqlint.loader import parse_bytes

MANIFESTS = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: train
  namespace: ml
  labels: {kueue.x-k8s.io/queue-name: team, kueue.x-k8s.io/priority-class: hi}
spec:
  template:
    metadata:
      labels: {scheduling.x-k8s.io/pod-group: gang}
    spec:
      priorityClassName: fast
      containers: [{name: c, image: i}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: team, namespace: ml}
spec: {clusterQueue: cq}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  cohortName: pool
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: default, resources: [{name: cpu, nominalQuota: 4}]}]
---
apiVersion: scheduling.x-k8s.io/v1alpha1
kind: PodGroup
metadata: {name: gang, namespace: ml}
spec: {minMember: 1}
"""


def objects(text: str) -> list[K8sObject]:
    found, _, _ = objects_from_file(parse_bytes("refs.yaml", text.encode()), "default", INPUT)
    return found


def by_relation(graph: ObjectGraph, kind: str) -> dict[str, list[refs.Reference]]:
    obj = next(o for o in graph.objects if o.kind == kind)
    found: dict[str, list[refs.Reference]] = {}
    for reference in refs.references(obj, graph):
        found.setdefault(reference.ref.relation, []).append(reference)
    return found


def test_every_row_is_walked_and_resolved_where_its_target_exists() -> None:
    graph = ObjectGraph(objects(MANIFESTS))
    job = by_relation(graph, "Job")
    assert sorted(job) == ["pod-group", "priority", "queue", "workload-priority"]
    assert job["queue"][0].target is not None and job["queue"][0].target.kind == "LocalQueue"
    assert job["pod-group"][0].target is not None  # the coscheduling row resolves a coscheduling PodGroup
    assert job["pod-group"][0].site.group == "scheduling.x-k8s.io"
    assert [r.target for r in job["priority"] + job["workload-priority"]] == [None, None]
    assert by_relation(graph, "LocalQueue")["cluster-queue"][0].target is not None
    cq = by_relation(graph, "ClusterQueue")
    assert (cq["cohort"][0].site.status, cq["cohort"][0].target) == (refs.IMPLICIT, None)
    assert [r.name for r in cq["flavor"]] == ["default"]


def test_a_reference_knows_where_it_is_written_and_how_messages_quote_it() -> None:
    graph = ObjectGraph(objects(MANIFESTS))
    priority = by_relation(graph, "Job")["workload-priority"][0]
    assert (priority.at.line, priority.at.column) == (6, 76)  # the value `hi`
    assert priority.written == "`kueue.x-k8s.io/priority-class: hi`"
    flavor = by_relation(graph, "ClusterQueue")["flavor"][0]
    assert flavor.written == "flavor `default`"
    message, remedy, rename = refs.unresolved(flavor, graph, "ClusterQueue cq", "nothing is admitted", "fix it")
    assert rename is None
    assert message == "ClusterQueue cq: flavor `default` names no known ResourceFlavor: nothing is admitted"
    assert remedy == "Fix it (looked in the inputs, --context, config `external` or the profile)"


def test_the_table_has_one_pod_group_row_per_gang_scheduler() -> None:
    assert [row.field for row in refs.POD_GROUP_REFS] == [
        "scheduling.k8s.io/group-name", "pod-group-name", "scheduling.x-k8s.io/pod-group"]
    rows = {refs.QUEUE_REF, refs.CLUSTER_QUEUE_REF, refs.FLAVOR_REF, refs.RUNTIME_REF, *refs.POD_GROUP_REFS}
    assert set(refs.REFERENCES) >= rows


PLACEHOLDER_TARGETS = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata:
  name: prio-${TIER}
value: 100
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: $FLAVOR
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: gang-high}
value: 1000
---
apiVersion: scheduling.x-k8s.io/v1alpha1
kind: PodGroup
metadata: {name: gang, namespace: ml}
spec: {minMember: 1}
"""


def test_a_placeholder_name_may_exist_for_every_kind_resolved_by_name() -> None:
    """rules.md: references resolve by name; an envsubst placeholder on either side may match
    what it renders to (non-empty DNS-label-ish text), which is no proof of a missing object
    and no resolution either (the content would be a guess)."""
    graph = ObjectGraph(objects(PLACEHOLDER_TARGETS))
    cases = [("WorkloadPriorityClass", "prio-high", None, True), ("WorkloadPriorityClass", "prio-", None, False),
             ("WorkloadPriorityClass", "other-high", None, False), ("ResourceFlavor", "a100", None, True),
             ("PriorityClass", "gang-${LEVEL}", None, True), ("PriorityClass", "${CLASS:-x}", None, True),
             ("PriorityClass", "solo-${LEVEL}", None, False), ("PodGroup", "${GROUP}", "ml", True),
             ("PodGroup", "${GROUP}", "serving", False), ("PodGroup", "gang", "ml", False)]
    for kind, name, namespace, expected in cases:
        assert graph.may_exist(kind, name, namespace) is expected, (kind, name, namespace)
        assert kind == "PodGroup" and name == "gang" or graph.resolve(kind, name, namespace) is None


def test_what_a_placeholder_name_may_render_to() -> None:
    """Each placeholder stands for one character or more; the literal parts stay in order."""
    from kqlint.loader.placeholders import may_render_alike

    cases = [("user-queue-${T}", "user-queue-a100", True), ("user-queue-${T}", "user-queue-", False),
             ("${A}${B}", "ab", True), ("${A}${B}", "a", False), ("x-${A}-y", "x-1-y", True),
             ("x-${A}-y", "x--y", False), ("${A}-mid-${B}", "a-mid-b", True), ("${A}-mid-${B}", "a-mid-", False),
             ("${A}-${B}", "q", False), ("p-${A:-x}", "p-x", True), ("$A", "", False), ("a-$A", "b-c", False)]
    for template, name, expected in cases:
        assert may_render_alike(template, name) is expected, (template, name)
        assert may_render_alike(name, template) is expected, (name, template)  # either side may be the template


def test_a_hostile_placeholder_name_is_matched_in_linear_time() -> None:
    """Both names come from the repository: forty placeholders in a queue-name label against a
    LocalQueue they cannot render to made kqlint backtrack exponentially (a regular expression;
    14 placeholders already took over a minute)."""
    import subprocess
    import sys
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / ".git").mkdir()
        (Path(folder) / "queue.yaml").write_text(
            "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata:\n  name: " + "a" * 40 + "x-\n"
            "  namespace: ns\nspec:\n  clusterQueue: cq\n---\napiVersion: batch/v1\nkind: Job\nmetadata:\n"
            "  name: j\n  namespace: ns\n  labels:\n    kueue.x-k8s.io/queue-name: \"" + "${A}" * 40 + "\"\n"
            "spec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers: [{name: c, image: x}]\n"
            "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: \"" + "${A:-" * 100_000 + "\"\n")
        done = subprocess.run([sys.executable, "-m", "kqlint", "check", ".", "--no-cache", "-f", "json"], cwd=folder,
                              capture_output=True, text=True, timeout=60)
    assert done.returncode in (0, 1) and "Traceback" not in done.stderr
