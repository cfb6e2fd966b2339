"""
## What it catches
A Kueue label (`kueue.x-k8s.io/queue-name`, `kueue.x-k8s.io/priority-class`) where that
integration does not read it:
- for every kind Kueue integrates (Job, JobSet, Kubeflow jobs, MPIJob, TrainJob, RayJob,
  RayCluster, RayService, AppWrapper, Deployment, StatefulSet, LeaderWorkerSet) Kueue reads
  the labels only from the object's own `metadata.labels`: a label that sits only on a pod
  template (or on a JobSet's inner Job template) is ignored;
- a DynamoGraphDeployment is not a Kueue integration: its pods go through the pod
  integration, so the labels belong on each component's pod template, and labels only on the
  DGD's own `metadata.labels` have no effect.

One finding per pod template (or Job template, or DGD metadata) that holds misplaced
labels, at the first of them. A label that is also where Kueue reads it is not reported
(Kueue itself copies the labels into Deployment and LeaderWorkerSet pod templates).

## Why it breaks on a cluster
Kueue never sees the label. Without `queue-name` the job is not managed at all: it is not
suspended, gets no Workload and starts at once outside the quota. `queue-name` only on a
JobSet's inner Job templates makes Kueue queue and admit each child Job on its own, so the
JobSet loses gang admission. A `priority-class` Kueue does not read has no effect: the
Workload priority falls back to the pod PriorityClass.

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
```

## How to fix
Move the labels to the object's own `metadata.labels` (for a JobSet: the JobSet's, not the
replicated Jobs'). For a DynamoGraphDeployment, put them on every component's
`podTemplate.metadata.labels` (v1alpha1: `extraPodMetadata.labels`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator

from kqlint.graph import ObjectGraph
from kqlint.kueue import INTEGRATIONS, POD_TEMPLATE_LABELLED, PRIORITY_LABEL, QUEUE_LABEL
from kqlint.model import Finding, Location, Severity
from kqlint.objects import K8sObject
from kqlint.rule import RuleContext, RuleMeta
from kqlint.rules.queues._refs import template_text
from kqlint.workloads import own_templates

META = RuleMeta(code="KQ208", slug="kueue-label-misplaced", severity=Severity.ERROR,
                summary="a Kueue queue-name/priority-class label sits where that integration does not read it")

KUEUE_LABELS = (QUEUE_LABEL, PRIORITY_LABEL)
# Integrations whose pods Kueue admits through the pod-based integrations.
POD_BASED = frozenset({("apps", "Deployment"), ("apps", "StatefulSet"), ("leaderworkerset.x-k8s.io", "LeaderWorkerSet")})
JOBSET = ("jobset.x-k8s.io", "JobSet")
OWN_METADATA = "DynamoGraphDeployment's own metadata.labels"


@dataclass(frozen=True)
class MisplacedLabel:
    key: str                     # the Kueue label
    at: Location                 # the label where it sits
    site: str                    # "pod template <role>", "Job template <name>", OWN_METADATA
    effect: str                  # what happens on the cluster


def misplaced_labels(obj: K8sObject, graph: ObjectGraph) -> list[MisplacedLabel]:
    """Kueue labels of ``obj`` that sit where Kueue does not read them (also used by KQ207)."""
    key = (obj.group, obj.kind)
    if key in POD_TEMPLATE_LABELLED:
        return _dgd_misplaced(obj, graph)
    if key not in INTEGRATIONS or key == ("", "Pod"):
        return []
    own = _present(obj.labels)
    found = []
    for template in own_templates(obj, graph):
        if template.meta_path is not None:
            path = template.meta_path + ("labels",)
            found += _unread(obj, path, own, template_text(template), _effect(obj, template_site=True))
    if key == JOBSET:
        for index, rjob in _replicated_jobs(obj):
            path = ("spec", "replicatedJobs", index, "template", "metadata", "labels")
            found += _unread(obj, path, own, f"Job template {rjob}", _effect(obj, template_site=False))
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


def _effect(obj: K8sObject, template_site: bool) -> dict[str, str]:
    if not template_site:
        queue = "Kueue queues and admits each child Job on its own and the JobSet loses gang admission"
    elif (obj.group, obj.kind) in POD_BASED:
        queue = f"Kueue does not manage the {obj.kind} as one workload"
    else:
        queue = (f"Kueue ignores the {obj.kind}: it is not suspended, gets no Workload and starts at "
                 "once outside the quota")
    return {QUEUE_LABEL: queue,
            PRIORITY_LABEL: "the label has no effect: the Workload priority falls back to the pod "
                            "PriorityClass"}


def _dgd_misplaced(obj: K8sObject, graph: ObjectGraph) -> list[MisplacedLabel]:
    on_templates: set[str] = set()
    for template in own_templates(obj, graph):
        on_templates |= _present(template.labels)
    effect = ("DynamoGraphDeployment is not a Kueue integration: its pods go through the pod "
              "integration, which reads the labels of each pod, so this label has no effect")
    return [MisplacedLabel(k, obj.at("metadata", "labels", k), OWN_METADATA, effect)
            for k in KUEUE_LABELS if k in _present(obj.labels) - on_templates]


def check(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    by_site: dict[str, list[MisplacedLabel]] = {}
    for label in misplaced_labels(obj, ctx.graph):
        by_site.setdefault(label.site, []).append(label)
    for site, labels in by_site.items():  # one finding per template (or per DGD metadata)
        related: list[tuple[Location, str]] = [(label.at, "also not read") for label in labels[1:]]
        if site == OWN_METADATA:
            fix = "put them on every component's podTemplate.metadata.labels"
            related += [(t.at_meta("labels"), f"component {t.role}: the pod integration reads labels here")
                        for t in own_templates(obj, ctx.graph)]
        else:
            fix = f"move them to metadata.labels of the {obj.kind}"
            related.append((obj.at("metadata", "labels"), "Kueue reads the labels here"))
        effects = _effects(labels)
        yield ctx.finding(
            at=labels[0].at,
            message=(f"{obj.display()}: {_keys(labels)} on the {site} {'is' if len(labels) == 1 else 'are'} "
                     f"not read by Kueue: {effects}; {fix}"),
            related=related)


def _effects(labels: list[MisplacedLabel]) -> str:
    if len({label.effect for label in labels}) == 1:
        return labels[0].effect
    return "; ".join(f"`{label.key}`: {label.effect}" for label in labels)


def _keys(labels: list[MisplacedLabel]) -> str:
    return " and ".join(f"`{label.key}`" for label in labels)
