"""
## What it catches
A Kueue label (`kueue.x-k8s.io/queue-name`, `kueue.x-k8s.io/priority-class`) where Kueue, with
the integrations the platform model says are enabled, does not read it or reads it with other
gang semantics (verified in Kueue's source, kueue.md B13):
- on the pod template of a Job, JobSet, Kubeflow job, MPIJob, RayJob, RayCluster, RayService
  or AppWrapper (Kueue reads these kinds' labels only from their own `metadata.labels`);
- on the pod template of a StatefulSet or LeaderWorkerSet (each pod becomes its own Workload);
- on a JobSet's inner Job templates (each child Job is queued on its own);
- on a Deployment's pod template only where the platform model says the `pod` integration is
  off or only implicitly on (enabled by `deployment`, `statefulset` or `leaderworkerset`):
  wherever `pod` is enabled it reads each pod's own labels, the same outcome as the
  `deployment` integration, and when the model does not say, the rule is silent;
- on a DynamoGraphDeployment's own `metadata.labels` (not a Kueue integration: its pods go
  through the pod integration, so the labels belong on each component's pod template).
Under the `kakaocloud` profile (or `platform.kueue.pod-template-labels`), pod-template labels
on Deployment, LeaderWorkerSet and DynamoGraphDeployment are the platform's documented
placement and are not reported.

The message says what happens on this platform: with the `pod` integration the pods are queued
one by one as plain pods (no all-or-nothing admission), without it the labels are ignored and
the workload runs outside the quota; when the model does not say which integrations are on,
it names both. The integrations come from `platform.kueue.integrations`, the profile, or a
Kueue Configuration in the `kueue-manager-config` ConfigMap among the inputs or context.

One finding per pod template (or Job template, or DGD metadata) that holds misplaced
labels, at the first of them. A label that is also where Kueue reads it is not reported
(Kueue itself copies the labels into Deployment and LeaderWorkerSet pod templates).

## Why it breaks on a cluster
Without `queue-name` where Kueue reads it, the job is not managed as one workload: it is not
suspended and gets no Workload; its pods are then either queued one by one by the `pod`
integration (so there is no all-or-nothing admission: some pods hold GPUs while the others
wait) or, without that integration, start at once outside the quota. `queue-name` only on a
JobSet's inner Job templates makes Kueue queue and admit each child Job on its own, so the
JobSet loses gang admission. A `priority-class` Kueue does not read has no effect on the
workload's Workload: its priority falls back to the pod PriorityClass.

## Bad
```yaml
apiVersion: batch/v1
kind: Job
metadata:
  name: train
  namespace: team-a
spec:
  parallelism: 4
  template:
    metadata:
      labels:
        kueue.x-k8s.io/queue-name: training     # ignored here
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox
```

## Good
```yaml
apiVersion: batch/v1
kind: Job
metadata:
  name: train
  namespace: team-a
  labels:
    kueue.x-k8s.io/queue-name: training
spec:
  parallelism: 4
  template:
    metadata:
      labels:
        kueue.x-k8s.io/queue-name: training     # a copy is harmless
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  name: training
  namespace: team-a
spec:
  clusterQueue: gpu
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: gpu
spec:
  namespaceSelector: {}
```

## How to fix
Move the labels to the object's own `metadata.labels` (for a JobSet: the JobSet's, not the
replicated Jobs'). For a DynamoGraphDeployment, put them on every component's
`podTemplate.metadata.labels` (v1alpha1: `extraPodMetadata.labels`).
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from kqlint.domain import reading
from kqlint.domain.graph import ObjectGraph
from kqlint.domain.kinds import DEPLOYMENT, JOBSET, LWS, POD, STATEFULSET
from kqlint.domain.kueue import INTEGRATIONS, POD_TEMPLATE_LABELLED, PRIORITY_LABEL, QUEUE_LABEL
from kqlint.domain.objects import K8sObject
from kqlint.domain.platform import Platform, platform_of
from kqlint.domain.wording import template_text
from kqlint.domain.workloads import own_templates
from kqlint.engine.rule import RuleContext, RuleMeta
from kqlint.fix.model import Edit, Fix, removals
from kqlint.model import Finding, Location, Severity

# findings cache: reads the platform model's template labels and integrations; own_templates
META = RuleMeta(code="KQ208", slug="kueue-label-misplaced", severity=Severity.ERROR,
                summary="a Kueue queue-name/priority-class label sits where that integration does not read it",
                fix="safe",
                reads=reading.RUNTIMES)

KUEUE_LABELS = (QUEUE_LABEL, PRIORITY_LABEL)
# Each pod of these becomes its own Workload when the pod integration reads template labels.
GROUPED = frozenset({STATEFULSET, LWS})
OWN_METADATA = "DynamoGraphDeployment's own metadata.labels"
_POD_OFF = {"off": "the `pod` integration is not enabled",
            "implicit": "the `pod` integration, only implicitly on, skips pods of an unmanaged owner"}


@dataclass(frozen=True)
class MisplacedLabel:
    key: str                     # the Kueue label
    at: Location                 # the label where it sits
    site: str                    # "pod template <role>", "Job template <name>", OWN_METADATA
    effect: str                  # what happens on the cluster


def misplaced_labels(obj: K8sObject, graph: ObjectGraph) -> list[MisplacedLabel]:
    """Kueue labels of ``obj`` that sit where Kueue, with the integrations the platform model
    says are enabled, does not read them or reads them with other gang semantics (also used
    by KQ207)."""
    key = (obj.group, obj.kind)
    if key in POD_TEMPLATE_LABELLED:
        return _dgd_misplaced(obj, graph)
    platform = platform_of(graph)
    if key not in INTEGRATIONS or key == POD or key in platform.template_labels:
        return []  # a bare Pod's labels are its own; the platform documents template labels
    own = _present(obj.labels)
    found = []
    effect = _template_effect(obj, platform)
    for template in own_templates(obj, graph) if effect is not None else ():
        if template.meta_path is not None and effect is not None:
            path = template.meta_path + ("labels",)
            found += _unread(obj, path, own, template_text(template), effect)
    if key == JOBSET:
        for index, rjob in _replicated_jobs(obj):
            path = ("spec", "replicatedJobs", index, "template", "metadata", "labels")
            found += _unread(obj, path, own, f"Job template {rjob}", _inner_job_effect(platform))
    return found


def _present(labels: Any) -> set[str]:
    if not isinstance(labels, dict):
        return set()
    return {k for k in KUEUE_LABELS if isinstance(labels.get(k), str) and labels[k]}


def _unread(obj: K8sObject, path: tuple[Any, ...], own: set[str], site: str,
            effect: dict[str, str]) -> list[MisplacedLabel]:
    present = _present(obj.get(*path)) - own
    return [MisplacedLabel(k, obj.at(*path, k), site, effect[k]) for k in KUEUE_LABELS if k in present]


def _replicated_jobs(obj: K8sObject) -> Iterator[tuple[int, str]]:
    items = obj.get("spec", "replicatedJobs")
    for index, item in enumerate(items if isinstance(items, list) else ()):
        if isinstance(item, dict):
            yield index, str(item.get("name") or index)


# ------------------------------------------------------------------ what happens (kueue.md B13)

def _template_effect(obj: K8sObject, platform: Platform) -> dict[str, str] | None:
    """What pod-template labels do on this platform; None when they are read as intended or
    the platform model does not say (a Deployment: the pod integration reads its pods' labels
    wherever it is on, the same outcome as the deployment integration)."""
    pod = platform.pod_integration()
    kind = (obj.group, obj.kind)
    if kind == DEPLOYMENT:
        if pod not in _POD_OFF:
            return None
        queue = f"{_POD_OFF[pod]}, so the Deployment runs outside the quota"
    elif kind in GROUPED:
        queue = _grouped_effect(obj.kind, pod)
    else:
        queue = _job_effect(obj.kind, pod)
    priority = (f"the {obj.kind}'s Workload does not read it (its priority falls back to the pod PriorityClass)"
                if kind not in (DEPLOYMENT, *GROUPED) or pod == "explicit" else "the label has no effect")
    return {QUEUE_LABEL: queue, PRIORITY_LABEL: priority}


def _job_effect(kind: str, pod: str | None) -> str:
    # FindAncestorJobManagedByKueue finds no managed owner: the pod integration takes each pod
    unmanaged = f"Kueue does not manage the {kind}"
    queued_alone = "queues each pod alone (no all-or-nothing admission)"
    ignored = "it runs at once outside the quota"
    if pod == "explicit":
        return f"{unmanaged}: the `pod` integration {queued_alone}"
    if pod in _POD_OFF:
        return f"{unmanaged}, and {_POD_OFF[pod]}: {ignored}"
    return f"{unmanaged}: with the `pod` integration on, it {queued_alone}; otherwise {ignored}"


def _grouped_effect(kind: str, pod: str | None) -> str:
    alone = "makes each pod its own Workload (no all-or-nothing admission)"
    ignored = f"the {kind} runs outside the quota"
    if pod == "explicit":
        return f"the `pod` integration {alone}"
    if pod in _POD_OFF:
        return f"{_POD_OFF[pod]}: {ignored}"
    return f"with the `pod` integration on, it {alone}; otherwise {ignored}"


def _inner_job_effect(platform: Platform) -> dict[str, str]:
    enabled = platform.integration("batch/job")
    separately = "each child Job is admitted on its own (no gang admission)"
    ignored = "the JobSet runs outside the quota"
    if enabled:
        queue = separately
    elif enabled is False:
        queue = f"the `batch/job` integration is not enabled: {ignored}"
    else:
        queue = f"with the `batch/job` integration on, {separately}; otherwise {ignored}"
    return {QUEUE_LABEL: queue,
            PRIORITY_LABEL: "the JobSet's Workload does not read it (its priority falls back to the pod PriorityClass)"}


def _dgd_misplaced(obj: K8sObject, graph: ObjectGraph) -> list[MisplacedLabel]:
    on_templates: set[str] = set()
    for template in own_templates(obj, graph):
        on_templates |= _present(template.labels)
    effect = "Kueue reads only each pod's own labels here (no DynamoGraphDeployment integration): no effect"
    return [MisplacedLabel(k, obj.at("metadata", "labels", k), OWN_METADATA, effect)
            for k in KUEUE_LABELS if k in _present(obj.labels) - on_templates]


def check(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    by_site: dict[str, list[MisplacedLabel]] = {}
    misplaced = misplaced_labels(obj, ctx.graph)
    for label in misplaced:
        by_site.setdefault(label.site, []).append(label)
    move = move_labels_fix(obj, misplaced)  # the whole object at once: each finding offers it
    for site, labels in by_site.items():  # one finding per template (or per DGD metadata)
        # the first label's effect is the message; another label's, when it differs, is its related note
        related: list[tuple[Location, str]] = [
            (label.at, f"`{label.key}` misplaced too"
             + ("" if label.effect == labels[0].effect else f": {label.effect}"))
            for label in labels[1:]]
        them = "them" if len(labels) > 1 else "it"
        if site == OWN_METADATA:
            remedy = f"Put {them} on every component's podTemplate.metadata.labels (Kueue reads labels from each pod)"
            related += [(t.at_meta("labels"), f"component {t.role}: the pod integration reads labels here")
                        for t in own_templates(obj, ctx.graph)]
        else:
            remedy = f"Move {them} to metadata.labels of the {obj.kind} (Kueue reads a {obj.kind}'s labels there)"
            related.append((obj.at("metadata", "labels"), "Kueue reads the labels here"))
        yield ctx.finding(
            at=labels[0].at,
            message=f"{obj.display()}: `{labels[0].key}` on the {site}: {labels[0].effect}",
            related=related, fix=move, remedy=remedy)


def _keys(labels: list[MisplacedLabel]) -> str:
    return " and ".join(f"`{label.key}`" for label in labels)


def move_labels_fix(obj: K8sObject, labels: list[MisplacedLabel]) -> Fix | None:
    """Every misplaced Kueue label of ``obj`` moved to its own ``metadata.labels`` (the one
    place the integration reads), when each label has one value wherever it sits and the
    object's labels hold no other value for it. DynamoGraphDeployment labels go the other way
    (onto each component): not offered."""
    if not labels or any(label.site == OWN_METADATA for label in labels) or not isinstance(obj.get("metadata"), dict):
        return None
    values: dict[str, str] = {}
    for label in labels:
        value = obj.get(*label.at.path)
        if values.setdefault(label.key, value) != value:
            return None  # templates disagree: which queue was meant is a decision
    own = obj.get("metadata", "labels")
    if obj.has("metadata", "labels") and not isinstance(own, dict):
        return None
    if isinstance(own, dict) and any(key in own for key in values):
        return None  # an empty or non-string value already there: the user's to resolve
    removed = removals(obj.get, [label.at.path for label in labels])
    if isinstance(own, dict):
        inserts = [Edit.insert(("metadata", "labels"), key, value) for key, value in values.items()]
    else:
        inserts = [Edit.insert(("metadata",), "labels", values)]
    names = " and ".join(f"`{key}`" for key in values)
    return Fix.safe(f"Move {names} to the {obj.kind}'s metadata.labels", *removed, *inserts)
