"""
## What it catches
(Profile `kakaocloud`.) `schedulerName: volcano` in a pod template (or a Volcano Job's
`spec.schedulerName`).

## Why it breaks on a cluster
The platform's Volcano scheduler is named `volcano-scheduler`; no scheduler answers to
`volcano`, so the pods stay `Pending` forever.

## Bad
```yaml
apiVersion: batch/v1
kind: Job
metadata:
  name: eval
  namespace: team-a
spec:
  template:
    spec:
      schedulerName: volcano
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
spec:
  template:
    spec:
      schedulerName: volcano-scheduler
      restartPolicy: Never
      containers:
      - name: main
        image: busybox:1.36
```

## How to fix
Use `schedulerName: volcano-scheduler`.
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kqlint.domain.kinds import VOLCANO_BATCH_GROUP
from kqlint.domain.objects import K8sObject
from kqlint.domain.workloads import pod_templates
from kqlint.engine.rule import RuleContext, RuleMeta
from kqlint.fix.model import Edit, Fix
from kqlint.model import Finding, Severity

META = RuleMeta(code="KQ508", slug="wrong-scheduler-name", severity=Severity.ERROR,
                summary="schedulerName: volcano (the platform's Volcano is volcano-scheduler)",
                profile="kakaocloud", fix="safe")

WRONG, RIGHT = "volcano", "volcano-scheduler"


def check(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    paths = [t.spec_path + ("schedulerName",) for t in pod_templates(obj, ctx.graph)
             if t.owner is obj and not t.generated and t.spec.get("schedulerName") == WRONG]
    if obj.group == VOLCANO_BATCH_GROUP and obj.get("spec", "schedulerName") == WRONG:
        paths.insert(0, ("spec", "schedulerName"))
    for path in paths:
        yield ctx.finding(
            at=obj.at_value(*path),
            message=(f"{obj.display()}: schedulerName `{WRONG}` matches no scheduler on this platform (its "
                     f"Volcano is `{RIGHT}`): the pods stay Pending"),
            remedy=f"Use schedulerName: {RIGHT}",
            fix=right_name_fix(path))


def right_name_fix(path: tuple[Any, ...]) -> Fix:
    return Fix.safe(f"Use schedulerName: {RIGHT}", Edit.replace(path, RIGHT))
