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
```

## How to fix
Add `kai.scheduler/enabled: "true"` to the pod template's labels.
"""
from __future__ import annotations

from collections.abc import Iterator

from kqlint.fixes import Edit, Fix
from kqlint.model import Finding, Severity
from kqlint.objects import K8sObject
from kqlint.rule import RuleContext, RuleMeta
from kqlint.workloads import PodTemplate, pod_templates

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
                         f'{LABEL}: "true"; the platform\'s KAI pod grouper ignores these pods and they stay '
                         f'SchedulingGated: add {LABEL}: "true" to the template labels'))


def enabled_label_fix(obj: K8sObject, template: PodTemplate) -> Fix | None:
    """The label added to the template's labels (creating ``labels``, or ``metadata``, when
    absent). A label written with another value (``"false"``) is a decision: not offered."""
    meta = template.meta_path
    if meta is None or template.owner is not obj or obj.has(*meta, "labels", LABEL):
        return None
    title = f'Add the pod label {LABEL}: "true"'
    if isinstance(obj.get(*meta, "labels"), dict):
        return Fix.safe(title, Edit.insert((*meta, "labels"), LABEL, "true"))
    if isinstance(obj.get(*meta), dict) and not obj.has(*meta, "labels"):
        return Fix.safe(title, Edit.insert(meta, "labels", {LABEL: "true"}))
    if meta[-1:] == ("metadata",) and not obj.has(*meta) and isinstance(obj.get(*meta[:-1]), dict):
        return Fix.safe(title, Edit.insert(meta[:-1], "metadata", {"labels": {LABEL: "true"}}))
    return None
