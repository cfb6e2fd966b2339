"""
## What it catches
A pod template whose group annotation or label names a PodGroup that cannot be resolved in
the workload's namespace: the annotation `scheduling.k8s.io/group-name` needs a Volcano
PodGroup (`scheduling.volcano.sh`), the annotation `pod-group-name` a KAI PodGroup
(`scheduling.run.ai`), the label `scheduling.x-k8s.io/pod-group` a coscheduling
(scheduler-plugins) PodGroup (`scheduling.x-k8s.io`). PodGroups are looked up in the inputs,
`--context`, and config `external`, including PodGroups wrapped in an AppWrapper
(`spec.components[].template`); an AppWrapper's wrapped workloads are checked too. A name equal to the
PodGroup an operator creates for the workload itself (a Kubeflow job, TrainJob or Volcano
Job named like the group) is accepted.

An envsubst placeholder in the written name or in an object's name (`user-queue-${TOPOLOGY}`,
`$QUEUE`, `${QUEUE:-x}`) stands for any non-empty name: a reference it can render to is
not reported (nor resolved: which object it is would be a guess).

In the files of a chainsaw or kuttl test, which the harness applies into a namespace it
creates beside objects only the system under test makes (an operator's LocalQueue made from
its CR), no name is reported unknown; their assert and error files are never objects.

## Why it breaks on a cluster
The scheduler waits for the named PodGroup before it places the pod. When the group never
appears (typo, other namespace, never applied), the pods stay Pending with no event that
points at the annotation.

## Bad
```yaml
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: ranks
  namespace: ml
spec:
  replicas: 2
  selector: {matchLabels: {app: ranks}}
  template:
    metadata:
      labels: {app: ranks}
      annotations:
        scheduling.k8s.io/group-name: ranks-gang
    spec:
      schedulerName: volcano
      containers:
      - name: rank
        image: trainer:1.0
```

## Good
```yaml
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata:
  name: ranks-gang
  namespace: ml
spec:
  minMember: 2
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: ranks
  namespace: ml
spec:
  replicas: 2
  selector: {matchLabels: {app: ranks}}
  template:
    metadata:
      labels: {app: ranks}
      annotations:
        scheduling.k8s.io/group-name: ranks-gang
    spec:
      schedulerName: volcano
      containers:
      - name: rank
        image: trainer:1.0
```

## How to fix
Create the PodGroup in the workload's namespace (with `minMember` equal to the pods that
join it), fix the name in the annotation, or declare a PodGroup that exists on the cluster
under `external:` in `.kqlint.yaml` (for KAI give its `apiVersion: scheduling.run.ai/v2alpha2`,
for coscheduling `apiVersion: scheduling.x-k8s.io/v1alpha1`).
"""
from __future__ import annotations

from collections.abc import Iterator

from kqlint.domain import kinds as K
from kqlint.domain import reading
from kqlint.domain.objects import K8sObject
from kqlint.domain.refs import OPERATOR, POD_GROUP_REFS, references
from kqlint.domain.workloads import SCHEDULER_TITLES, is_workload
from kqlint.engine.rule import RuleContext, RuleMeta
from kqlint.model import Finding, Location, Severity

# findings cache: reads own_templates; the PodGroups they name and those wrapped in AppWrappers
META = RuleMeta(code="KQ303", slug="unknown-pod-group", severity=Severity.ERROR,
                summary="a group annotation or label names a PodGroup that cannot be resolved",
                reads=reading.RUNTIMES | reading.POD_GROUPS | {K.APPWRAPPER})


def check(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    if not is_workload(obj):
        return
    seen: set[Location] = set()  # LLMInferenceService pod specs share one annotations mapping
    for ref in references(obj, ctx.graph, POD_GROUP_REFS):  # per family, templates in order
        site, pod_group = ref.site, ref.site.pod_group
        at = ref.key_at
        # the group the workload's own operator creates under the workload's name exists at run time
        if pod_group is None or site.template is None or at in seen \
                or site.status == OPERATOR or ref.target is not None or ref.may_exist(ctx.graph):
            continue
        seen.add(at)
        yield ctx.finding(
            at,
            f"{site.template.describe()}: {pod_group.key}: {pod_group.name} names a "
            f"{SCHEDULER_TITLES[pod_group.family]} PodGroup ({pod_group.group}) that does not exist in namespace "
            f"{obj.namespace}: its pods stay Pending waiting for it",
            remedy=(f"Create PodGroup {obj.namespace}/{pod_group.name}, fix the name, or declare it under "
                    "`external:` if it exists on the cluster"))
