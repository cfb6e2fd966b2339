"""
## What it catches
Volcano queue references and Queue bounds that Volcano's admission webhook refuses on create
(volcano-sh/volcano `pkg/webhooks/admission/jobs/validate/admit_job.go` `validateJobCreate`,
`podgroups/validate/validate_podgroup.go` `checkQueueState`, `queues/validate/validate_queue.go`
`validateResourceQuantityOfQueue`):
- a Volcano Job whose `spec.queue` is `root`, or a Queue that has child Queues (`spec.parent`)
  among the Queues kqlint knows;
- a Volcano Job's or PodGroup's `spec.queue` naming no Queue, when the inputs, context,
  `external` objects or profile hold at least one Volcano Queue (`default` and `root` always
  exist: Volcano creates them);
- a Queue whose `deserved` is above its `capability`, or whose `guarantee.resource` is above
  (or missing from) its `deserved`, for some resource; a child Queue whose `capability` is
  above that of its nearest ancestor (through `spec.parent`) that caps the same resource.
What it assumes: the Volcano Queues in view (inputs, context, `external` objects, profile) are
the cluster's queues, plus `default` and `root`, which Volcano creates. Without any Volcano Queue
in view, kqlint does not know the cluster's queues and says nothing about unknown or non-leaf
queues. Silent under the `kakaocloud` profile, where KQ502 reports
every Volcano queue reference.

## Why it breaks on a cluster
`kubectl apply` fails with the webhook's message (`can not submit job to root queue`, `can only
submit job to leaf queue`, `unable to find job queue`, `deserved[cpu]=… must be <=
capability[cpu]=…`): the job or queue never exists.

## Bad
```yaml
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata:
  name: research
spec:
  capability: {cpu: "64"}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata:
  name: research-nlp
spec:
  parent: research
  deserved: {cpu: "32"}
  guarantee:
    resource: {cpu: "48"}
---
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata:
  name: pretrain
spec:
  queue: research
  tasks:
  - name: worker
    replicas: 2
    template:
      spec:
        containers:
        - name: main
          image: trainer:1.0
```

## Good
```yaml
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata:
  name: research-nlp
spec:
  parent: research
  deserved: {cpu: "32"}
  guarantee:
    resource: {cpu: "16"}
---
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata:
  name: pretrain
spec:
  queue: research-nlp
  tasks:
  - name: worker
    replicas: 2
    template:
      spec:
        containers:
        - name: main
          image: trainer:1.0
```

## How to fix
Submit jobs to a leaf queue (one that no other Queue names as `parent`), never to `root`; fix
the queue name or create the Queue (or declare it under `external:` in `.kqlint.yaml` if it
exists on the cluster); keep `guarantee ≤ deserved ≤ capability` for every resource.
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kqlint.domain.kinds import VOLCANO_JOB, VOLCANO_PODGROUP, VOLCANO_QUEUE
from kqlint.domain.objects import K8sObject
from kqlint.domain.quantity import parse_quantity
from kqlint.engine.rule import RuleContext, RuleMeta, Run
from kqlint.model import Finding, Severity
from kqlint.rules.gang._queues import child_queue_notes, children_of, queues_by_name
from kqlint.spelling import suggest

META = RuleMeta(code="KQ312", slug="volcano-queue-invalid", severity=Severity.ERROR,
                summary="Volcano's webhook refuses a job on the root, a parent or an unknown queue, "
                        "or a Queue whose guarantee, deserved and capability are out of order",
                kinds=frozenset({VOLCANO_JOB, VOLCANO_PODGROUP, VOLCANO_QUEUE}))
BUILT_IN_QUEUES = ("default", "root")  # created by Volcano itself


def prepare(run: Run) -> bool:
    """Whether the rule speaks: under the kakaocloud profile KQ502 owns Volcano queue references."""
    return run.config.profile != "kakaocloud"


def check(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    if VOLCANO_QUEUE.of(obj):
        yield from _bounds(obj, ctx)
        yield from _above_ancestor(obj, ctx)
        return
    if not ctx.state:
        return
    queue = obj.get("spec", "queue")
    if not isinstance(queue, str) or not queue:
        return  # unset: the mutating webhook sends it to `default`
    queues = queues_by_name(ctx.graph, VOLCANO_QUEUE)
    if VOLCANO_JOB.of(obj):
        yield from _job_queue(obj, ctx, queue, queues)
    elif queues and queue not in queues and queue not in BUILT_IN_QUEUES:
        yield _unknown(obj, ctx, queue, queues, "`unable to find queue`")


def _job_queue(obj: K8sObject, ctx: RuleContext, queue: str, queues: dict[str, K8sObject]) -> Iterator[Finding]:
    at = obj.at_value("spec", "queue")
    if queue == "root":
        yield ctx.finding(at=at, message=f"{obj.display()}: spec.queue is `root`: Volcano's webhook rejects the job "
                                         "(`can not submit job to root queue`)",
                          remedy="Submit it to a leaf queue")
        return
    children = children_of(queue, queues, "parent")
    if children:
        related, names = child_queue_notes(children, "parent")
        yield ctx.finding(
            at=at, related=related, remedy=f"Submit it to one of its leaf queues ({names})",
            message=(f"{obj.display()}: Queue `{queue}` has {len(children)} child queues: Volcano's webhook rejects "
                     "the job (`can only submit job to leaf queue`)"))
    elif queues and queue not in queues and queue not in BUILT_IN_QUEUES:
        yield _unknown(obj, ctx, queue, queues, "`unable to find job queue`")


def _unknown(obj: K8sObject, ctx: RuleContext, queue: str, queues: dict[str, K8sObject], server: str) -> Finding:
    return ctx.finding(
        at=obj.at_value("spec", "queue"),
        message=(f"{obj.display()}: spec.queue `{queue}` names no Volcano Queue kqlint knows"
                 f"{suggest(queue, [*queues, *BUILT_IN_QUEUES])}: Volcano's webhook rejects it ({server})"),
        remedy="Fix the name, create the Queue, or declare it under `external:` if it exists on the cluster")


def _bounds(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    capability, deserved = _resources(obj.get("spec", "capability")), _resources(obj.get("spec", "deserved"))
    guarantee = _resources(obj.get("spec", "guarantee", "resource"))
    for name, wanted in guarantee.items():
        have = deserved.get(name)
        if have is None or have < wanted:
            relation = "is set while deserved lacks it" if have is None else \
                f"is above deserved[{name}] {obj.get('spec', 'deserved', name)}"
            yield ctx.finding(
                at=obj.at_value("spec", "guarantee", "resource", name),
                message=(f"{obj.display()}: guarantee.resource[{name}] {obj.get('spec', 'guarantee', 'resource', name)}"
                         f" {relation}: Volcano's webhook rejects the Queue "
                         f"(`deserved[{name}] must be >= guarantee[{name}]`)"),
                remedy=f"Set deserved[{name}] at least as high as the guarantee, or lower the guarantee")
    for name, share in deserved.items():
        cap = capability.get(name)
        if cap is not None and share > cap:
            yield ctx.finding(
                at=obj.at_value("spec", "deserved", name), related=[(obj.at_value("spec", "capability", name),
                                                                     f"capability[{name}]")],
                message=(f"{obj.display()}: deserved[{name}] {obj.get('spec', 'deserved', name)} is above "
                         f"capability[{name}] {obj.get('spec', 'capability', name)}: Volcano's webhook rejects the "
                         f"Queue (`deserved[{name}] must be <= capability[{name}]`)"),
                remedy=f"Lower deserved[{name}] to at most the capability, or raise the capability")


def _above_ancestor(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    """``capability[r]`` above that of the nearest ancestor (through ``spec.parent``) that sets ``r``
    (``validateChildAgainstAncestor``)."""
    queues = queues_by_name(ctx.graph, VOLCANO_QUEUE)
    for name, cap in _resources(obj.get("spec", "capability")).items():
        ancestor = _nearest_setting(obj, queues, name)
        if ancestor is None:
            continue
        limit = parse_quantity(ancestor.get("spec", "capability", name))
        if limit is not None and cap > limit:
            yield ctx.finding(
                at=obj.at_value("spec", "capability", name),
                related=[(ancestor.at_value("spec", "capability", name), f"{ancestor.name}'s capability[{name}]")],
                message=(f"{obj.display()}: capability[{name}] {obj.get('spec', 'capability', name)} is above its "
                         f"ancestor `{ancestor.name}`'s {ancestor.get('spec', 'capability', name)}: Volcano's webhook "
                         "rejects the Queue (`exceeds its ancestor's capability`)"),
                remedy=f"Lower capability[{name}] to at most the ancestor's")


def _nearest_setting(obj: K8sObject, queues: dict[str, K8sObject], resource: str) -> K8sObject | None:
    seen = {obj.name}
    parent = obj.get("spec", "parent")
    while isinstance(parent, str) and parent not in seen and parent in queues:
        seen.add(parent)
        ancestor = queues[parent]
        if parse_quantity(ancestor.get("spec", "capability", resource)) is not None:
            return ancestor
        parent = ancestor.get("spec", "parent")
    return None


def _resources(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        return {}
    parsed = {str(name): parse_quantity(quantity) for name, quantity in value.items()}
    return {name: quantity for name, quantity in parsed.items() if quantity is not None}
