"""
## What it catches
(Profile `kakaocloud`.) A pod template with `schedulerName: kai-scheduler` that lacks the
label `kai.scheduler/enabled: "true"`.

## Why it breaks on a cluster
The platform's KAI pod grouper only handles pods carrying `kai.scheduler/enabled: "true"`
(a namespace-selector convention of this install): without it the pods stay
`SchedulingGated` forever.

## Bad
```yaml
apiVersion: batch/v1
kind: Job
metadata:
  name: eval
  namespace: team-a
  labels:
    kueue.x-k8s.io/queue-name: training
spec:
  template:
    spec:
      schedulerName: kai-scheduler
      restartPolicy: Never
      containers:
      - name: main
        image: busybox:1.36
```

## Good
```yaml
apiVersion: batch/v1
kind: Job
metadata:
  name: eval
  namespace: team-a
  labels:
    kueue.x-k8s.io/queue-name: training
    kueue.x-k8s.io/priority-class: normal
spec:
  template:
    metadata:
      labels:
        kai.scheduler/enabled: "true"
    spec:
      schedulerName: kai-scheduler
      restartPolicy: Never
      containers:
      - name: main
        image: busybox:1.36
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  name: training
  namespace: team-a
spec:
  clusterQueue: team-a
```

## How to fix
Add `kai.scheduler/enabled: "true"` to the pod template's labels. `kqlint check --fix` adds it
(safe) when the label is missing; a label set to another value is left for you to decide.
"""
from __future__ import annotations

from collections.abc import Iterator

from kqlint.domain.objects import K8sObject
from kqlint.domain.workloads import PodTemplate, pod_templates
from kqlint.engine.rule import RuleContext, RuleMeta
from kqlint.fix.model import Edit, Fix
from kqlint.model import Finding, Severity

META = RuleMeta(code="KQ506", slug="kai-enabled-label-missing", severity=Severity.ERROR,
                summary="a kai-scheduler pod template lacks the label kai.scheduler/enabled: \"true\"",
                profile="kakaocloud", fix="safe")

LABEL = "kai.scheduler/enabled"


def check(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    for template in pod_templates(obj, ctx.graph):
        if template.owner is not obj or template.generated or template.scheduler_name != "kai-scheduler":
            continue
        if str(template.labels.get(LABEL)).lower() != "true":
            yield ctx.finding(
                at=template.owner.at_value(*template.spec_path, "schedulerName"),
                message=(f"{obj.display()} ({template.role}): schedulerName kai-scheduler without the pod label "
                         f'{LABEL}: "true": the platform\'s KAI pod grouper ignores these pods and they stay '
                         'SchedulingGated'),
                remedy=f'Add {LABEL}: "true" to the template labels',
                fix=_fix(template))


def _fix(template: PodTemplate) -> Fix | None:
    """The label added where the template's labels are (created when missing)."""
    if template.meta_path is None or LABEL in template.labels:
        return None  # a label with another value: someone chose it
    metadata = template.owner.get(*template.meta_path)
    if isinstance(metadata, dict) and isinstance(metadata.get("labels"), dict):
        edit = Edit.insert(template.meta_path + ("labels",), LABEL, "true")
    elif isinstance(metadata, dict) and "labels" not in metadata:
        edit = Edit.insert(template.meta_path, "labels", {LABEL: "true"})
    elif metadata is None and not template.owner.has(*template.meta_path):
        edit = Edit.insert(template.meta_path[:-1], template.meta_path[-1], {"labels": {LABEL: "true"}})
    else:
        return None
    return Fix.safe(f'Add the pod label {LABEL}: "true"', edit)
