"""
## What it catches
`kueue.x-k8s.io/queue-name` written as an annotation (on the object's own
`metadata.annotations`, or on a pod template's) of a kind Kueue integrates with, bare Pods
included, while the object's own `metadata.labels` carry no `queue-name` label. Since Kueue
0.15 only the label is read (the deprecated annotation was removed, kueue#7271). One finding
per annotation, at its key; the message says what happens as far as the platform model
knows: the workload runs outside the quota; or, with `manageJobsWithoutQueueName`, it stays
suspended; or, when the namespace has a LocalQueue named `default`, it lands there instead.

Where the platform's Kueue is older than 0.15 the object's own annotation is still read as a
deprecated fallback: the finding is then an info ("ignored from 0.15"). An unknown Kueue
version counts as a maintained release. Silent when the object's own labels carry
`queue-name` (the annotation is then ignored and harmless), for kinds whose integration is
off (without evidence: Kueue's default frameworks, so bare Pods, Deployments, StatefulSets
and LeaderWorkerSets only where the platform model enables them), and when the annotation
names `default` and that LocalQueue exists (the workload lands where it meant to).

## Why it breaks on a cluster
Kueue treats the workload as having no queue name: it is not suspended and never gets a
Workload, so it runs at once outside the quota, with no gang admission and no preemption by
Kueue; or it waits suspended for ever under `manageJobsWithoutQueueName`; or LocalQueue
defaulting sends it to the namespace's `default` queue instead of the one it names.

## Bad
```yaml
apiVersion: batch/v1
kind: Job
metadata:
  name: train
  namespace: team-a
  annotations:
    kueue.x-k8s.io/queue-name: training
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox
```

## Good
```yaml
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  name: training
  namespace: team-a
spec:
  clusterQueue: team-a
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: team-a
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: ["cpu"]
    flavors:
    - name: default
      resources:
      - name: cpu
        nominalQuota: 8
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: default
---
apiVersion: batch/v1
kind: Job
metadata:
  name: train
  namespace: team-a
  labels:
    kueue.x-k8s.io/queue-name: training
  annotations:
    kueue.x-k8s.io/queue-name: training   # ignored: the label is read
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox
```

## How to fix
Move the key and value into the object's own `metadata.labels` (for a CronJob,
`spec.jobTemplate.metadata.labels`); every Kueue version reads it there. `kqlint check
--fix` does it when the annotations agree on one value that is a valid queue name.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from kqlint.domain import kinds as K
from kqlint.domain import reading
from kqlint.domain.fields import is_dns1123_subdomain, is_label_value, text
from kqlint.domain.kueue import CRONJOB, DEFAULT_LOCAL_QUEUE, INTEGRATIONS, QUEUE_LABEL, object_labels_path
from kqlint.domain.kueue.routing import default_local_queue, defaulting_applies
from kqlint.domain.objects import K8sObject
from kqlint.domain.platform import platform_of
from kqlint.domain.wording import fit_message, template_text
from kqlint.domain.workloads import own_templates
from kqlint.engine.rule import RuleContext, RuleMeta
from kqlint.fix.model import Edit, Fix, removals
from kqlint.model import Finding, Location, Severity

# findings cache: reads the platform model (Kueue version, integrations, manageJobsWithoutQueueName), the namespace's
# LocalQueue `default` (defaulting) and own_templates (a TrainJob's runtime is looked up, its templates skipped)
META = RuleMeta(code="KQ212", slug="queue-name-annotation", severity=Severity.ERROR,
                summary="`kueue.x-k8s.io/queue-name` is an annotation: Kueue reads only the label since 0.15",
                kinds=frozenset(INTEGRATIONS | {CRONJOB}), fix="safe",
                reads=reading.RUNTIMES | {K.LOCAL_QUEUE})

LABEL_ONLY_SINCE = (0, 15)  # kueue.md B18: QueueAnnotation removed in v0.15.0


@dataclass(frozen=True)
class QueueAnnotation:
    path: tuple[Any, ...]    # the annotation inside the object
    site: str                # "metadata.annotations", "the pod template main", ...
    value: Any


def check(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    labels_path = object_labels_path(obj)
    if labels_path is None or _has_queue_label(obj.get(*labels_path)) or not defaulting_applies(obj, ctx.graph):
        return
    found = queue_annotations(obj, labels_path, ctx)
    if not found:
        return
    default = default_local_queue(obj.namespace, ctx.graph)
    fix = move_to_label_fix(obj, labels_path, found)
    read_before = platform_of(ctx.graph).kueue_at_least(*LABEL_ONLY_SINCE) is False
    for annotation in found:
        if default is not None and annotation.value == DEFAULT_LOCAL_QUEUE and not read_before:
            continue  # LocalQueue defaulting sends it where the annotation meant
        related: list[tuple[Location, str]] = [(obj.at(*labels_path), "Kueue reads the queue name here")]
        if default is not None and not read_before:
            related.append((default.at("metadata", "name"), "LocalQueue defaulting routes the workload here"))
        yield ctx.finding(
            at=obj.at(*annotation.path),
            message=_message(obj, annotation, ctx, default is not None, read_before),
            severity=Severity.INFO if read_before else None, related=related, fix=fix,
            remedy=f"Move `{QUEUE_LABEL}` to the {obj.kind}'s own {'.'.join(map(str, labels_path))}")


def _has_queue_label(labels: Any) -> bool:
    return isinstance(labels, dict) and text(labels.get(QUEUE_LABEL)) is not None


def queue_annotations(obj: K8sObject, labels_path: tuple[Any, ...], ctx: RuleContext) -> list[QueueAnnotation]:
    """Every ``queue-name`` annotation of ``obj``: its own, then its pod templates'."""
    sites = [(labels_path[:-1] + ("annotations",), ".".join(map(str, labels_path[:-1] + ("annotations",))))]
    sites += [(t.meta_path + ("annotations",), template_text(t))
              for t in own_templates(obj, ctx.graph) if t.meta_path is not None]
    found = []
    for path, site in sites:
        annotations = obj.get(*path)
        if isinstance(annotations, dict) and QUEUE_LABEL in annotations:
            found.append(QueueAnnotation(path + (QUEUE_LABEL,), site, annotations[QUEUE_LABEL]))
    return found


def _message(obj: K8sObject, annotation: QueueAnnotation, ctx: RuleContext, defaulted: bool,
             read_before: bool) -> str:
    site = "" if annotation.site.endswith("annotations") else f" on the {annotation.site}"
    where = f"{obj.display()}: `{QUEUE_LABEL}` is an annotation{site}"
    if read_before:
        message = f"{where}; this Kueue still reads it as a deprecated fallback, but it is ignored from 0.15"
    elif defaulted:
        message = f"{where}; Kueue reads only the label since 0.15: LocalQueue defaulting sends it to `default`"
    else:
        manage = platform_of(ctx.graph).manage_jobs_without_queue_name
        if manage is None:
            outcome = "it runs at once outside the quota (never admitted under manageJobsWithoutQueueName)"
        elif manage:
            outcome = "with manageJobsWithoutQueueName it stays suspended and is never admitted"
        else:
            outcome = "it is not managed and runs at once outside the quota"
        message = f"{where}; Kueue reads only the label since 0.15: {outcome}"
    return fit_message(message)


def move_to_label_fix(obj: K8sObject, labels_path: tuple[Any, ...], found: list[QueueAnnotation]) -> Fix | None:
    """The annotations removed and their one value written as the object's own label: only when
    they agree on a value that is a valid label value and queue name, and the labels mapping
    is a mapping (or absent under a mapping)."""
    values = {a.value for a in found if isinstance(a.value, str)}
    if len(values) != 1 or len(found) != sum(isinstance(a.value, str) for a in found):
        return None
    value = values.pop()
    if not (is_label_value(value) and is_dns1123_subdomain(value)):
        return None  # the webhook would reject it as a label
    labels = obj.get(*labels_path)
    if not isinstance(labels, dict) and (obj.has(*labels_path) or not isinstance(obj.get(*labels_path[:-1]), dict)):
        return None  # `labels:` that is not a mapping (or null): replacing it is the user's call
    if isinstance(labels, dict) and QUEUE_LABEL in labels:
        return None  # an empty label already there: the user's to resolve
    removed = removals(obj.get, [a.path for a in found])
    if any(edit.path == labels_path[:len(edit.path)] for edit in removed):
        return None  # the metadata the label goes into would be removed with the annotation
    insert = (Edit.insert(labels_path, QUEUE_LABEL, value) if isinstance(labels, dict)
              else Edit.insert(labels_path[:-1], labels_path[-1], {QUEUE_LABEL: value}))
    return Fix.safe(f"Move `{QUEUE_LABEL}` to the {obj.kind}'s labels", *removed, insert)
