"""
## What it catches
(Profile `kakaocloud`.) A CustomWorkloadPriorityClass (`kakaocloud.io`) whose name is not
`<namespace>-<suffix>`, or whose name equals a resolvable WorkloadPriorityClass with a
different value (the platform reports `NameConflict`). The platform-generated twin with the
same value is not a conflict.

## Why it breaks on a cluster
The platform creates a WorkloadPriorityClass of the same name for every valid custom
class. A badly named class, or one that clashes with an existing class, stays
`READY=False`: workloads labelled with it are never admitted (`WorkloadPriorityClassNotFound`)
or silently get the other class's value.

## Bad
```yaml
apiVersion: kakaocloud.io/v1alpha1
kind: CustomWorkloadPriorityClass
metadata:
  name: urgent
  namespace: team-a
spec:
  value: 1200
```

## Good
```yaml
apiVersion: kakaocloud.io/v1alpha1
kind: CustomWorkloadPriorityClass
metadata:
  name: team-a-urgent
  namespace: team-a
spec:
  value: 1200
```

## How to fix
Name it `<namespace>-<name>` (for example `team-a-urgent`) and choose a name no other
WorkloadPriorityClass uses; put the same name in the workload's
`kueue.x-k8s.io/priority-class` label.
"""
from __future__ import annotations

from collections.abc import Iterator

from kqlint.domain.kinds import KUEUE_GROUP
from kqlint.domain.objects import K8sObject
from kqlint.engine.rule import RuleContext, RuleMeta
from kqlint.model import Finding, Severity
from kqlint.rules.kakaocloud import CUSTOM_WPC

META = RuleMeta(code="KQ505", slug="custom-priority-class-name", severity=Severity.ERROR,
                summary="a CustomWorkloadPriorityClass name is not <namespace>-<suffix> or conflicts",
                kinds=frozenset({CUSTOM_WPC}), profile="kakaocloud")


def check(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    if not obj.name:
        return
    prefix = f"{obj.namespace}-"
    if not obj.name.startswith(prefix) or obj.name == prefix:
        yield ctx.finding(
            at=obj.at_value("metadata", "name"),
            message=(f"{obj.display()}: the name must be `{prefix}<suffix>`: the platform creates no "
                     "WorkloadPriorityClass for it and workloads using it are never admitted"),
            remedy=f"Rename it to {prefix}{obj.name}")
        return
    yield from _conflict(obj, ctx)


def _conflict(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    value = obj.get("spec", "value")
    for wpc in ctx.graph.of_kind("WorkloadPriorityClass", KUEUE_GROUP):
        if wpc.name == obj.name and wpc.get("value") != value:
            yield ctx.finding(
                at=obj.at_value("metadata", "name"),
                message=(f"{obj.display()}: WorkloadPriorityClass `{obj.name}` already exists with value "
                         f"{wpc.get('value')} (this class says {value}): the platform reports NameConflict and "
                         "workloads get the other class's value"),
                remedy="Choose another name",
                related=[(wpc.at("metadata", "name"), "the existing WorkloadPriorityClass")])
            return
