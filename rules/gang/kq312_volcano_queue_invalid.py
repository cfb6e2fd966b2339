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
- a PodGroup, or pods sent to Volcano with `scheduling.volcano.sh/queue-name` (and no PodGroup
  of their own), on a Queue that has child Queues, where the repository's Volcano scheduler
  configuration (`volcano-scheduler.conf` in a ConfigMap) runs the `capacity` plugin with
  `enableHierarchy: true`: that plugin allocates only from leaf queues (`capacity.go`);
- a Queue whose `deserved` is above its `capability`, or whose `guarantee.resource` is above
  (or missing from) its `deserved`, for some resource; a child Queue whose `capability` is
  above that of its nearest ancestor (through `spec.parent`, up to 63 levels) that caps the same resource; the
  children of one parent whose `deserved` (or `guarantee.resource`) add up to more than the
  parent's, for a resource the parent sets (`validateSiblingsSum`; reported at the child whose
  entry tips the sum, in the order the Queues are written).
What it assumes: the Volcano Queues in view (inputs, context, `external` objects, profile) are
the cluster's queues, plus `default` and `root`, which Volcano creates. Without any Volcano Queue
in view, kqlint does not know the cluster's queues and says nothing about unknown or non-leaf
queues. Silent under the `kakaocloud` profile, where KQ502 reports
every Volcano queue reference.

In the files of a chainsaw or kuttl test, which the harness applies beside objects only the
system under test makes, no queue is reported unknown.

## Why it breaks on a cluster
`kubectl apply` fails with the webhook's message (`can not submit job to root queue`, `can only
submit job to leaf queue`, `unable to find job queue`, `deserved[cpu]=… must be <=
capability[cpu]=…`, `sum of children's deserved … exceeds parent's deserved limit`): the job
or queue never exists. Under a hierarchical capacity plugin, a PodGroup on a parent queue is
accepted but never allocated (`The Queue … is not leaf queue`): its pods stay Pending.

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
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from kqlint.domain import kinds as K
from kqlint.domain.kinds import VOLCANO_JOB, VOLCANO_PODGROUP, VOLCANO_QUEUE
from kqlint.domain.objects import K8sObject
from kqlint.domain.platform import platform_of
from kqlint.domain.quantity import format_amount, parse_quantity
from kqlint.domain.workloads import VOLCANO_GROUP_ANNOTATION, VOLCANO_QUEUE_ANNOTATION, VOLCANO_SCHEDULER_NAMES
from kqlint.domain.workloads.gang import effective_scheduler_name
from kqlint.engine.rule import RuleContext, RuleMeta, Run
from kqlint.model import Finding, Location, Severity
from kqlint.rules.gang._queues import child_queue_notes, children_of, queue_chain, queues_by_name
from kqlint.spelling import suggest

# findings cache: reads the Volcano Queues (parents, children, siblings, ancestors); whether the capacity plugin runs
# hierarchically is a platform-model fact
META = RuleMeta(code="KQ312", slug="volcano-queue-invalid", severity=Severity.ERROR,
                summary="Volcano's webhook refuses a job on the root, a parent or an unknown queue, "
                        "or a Queue whose guarantee, deserved and capability are out of order",
                kinds=frozenset({VOLCANO_JOB, VOLCANO_PODGROUP, VOLCANO_QUEUE, K.POD, K.DEPLOYMENT, K.STATEFULSET,
                                 K.REPLICASET, K.DAEMONSET, K.JOB, K.CRONJOB}),
                reads=frozenset({VOLCANO_QUEUE}))
BUILT_IN_QUEUES = ("default", "root")  # created by Volcano itself
NOT_LEAF = "never allocated: the capacity plugin runs with enableHierarchy and allocates only from leaf queues"


@dataclass(frozen=True)
class Options:
    volcano_scheduler_names: tuple[str, ...] = VOLCANO_SCHEDULER_NAMES


def prepare(run: Run) -> bool:
    """Whether the rule speaks: under the kakaocloud profile KQ502 owns Volcano queue references."""
    return run.config.profile != "kakaocloud"


def check(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    if VOLCANO_QUEUE.of(obj):
        yield from _bounds(obj, ctx)
        yield from _above_ancestor(obj, ctx)
        yield from _siblings_sum(obj, ctx)
        return
    if not ctx.state:
        return
    if not (VOLCANO_JOB.of(obj) or VOLCANO_PODGROUP.of(obj)):
        yield from _pods_on_parent(obj, ctx)
        return
    queue = obj.get("spec", "queue")
    if not isinstance(queue, str) or not queue:
        return  # unset: the mutating webhook sends it to `default`
    queues = queues_by_name(ctx.graph, VOLCANO_QUEUE)
    if VOLCANO_JOB.of(obj):
        yield from _job_queue(obj, ctx, queue, queues)
    elif _unknown_name(queue, queues, ctx):
        yield _unknown(obj, ctx, queue, queues, "`unable to find queue`")
    else:
        yield from _on_parent(obj, ctx, queue, obj.at_value("spec", "queue"))


def _pods_on_parent(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    """(c) pods the podgroup controller groups (Volcano scheduler, a queue annotation, no
    PodGroup of their own): their PodGroup's queue is the annotation's."""
    from kqlint.domain.workloads import own_templates

    if not platform_of(ctx.graph).volcano_hierarchy:
        return
    for template in own_templates(obj):
        queue = template.annotations.get(VOLCANO_QUEUE_ANNOTATION)
        if isinstance(queue, str) and VOLCANO_GROUP_ANNOTATION not in template.annotations \
                and effective_scheduler_name(template) in ctx.options.volcano_scheduler_names:
            at = template.owner.at_value(*(template.meta_path or ()), "annotations", VOLCANO_QUEUE_ANNOTATION)
            yield from _on_parent(obj, ctx, queue, at)


def _on_parent(obj: K8sObject, ctx: RuleContext, queue: str, at: Location) -> Iterator[Finding]:
    hierarchy = platform_of(ctx.graph).volcano_hierarchy
    children = children_of(ctx.graph, VOLCANO_QUEUE, queue, "parent") if hierarchy else []
    if children:
        related, names = child_queue_notes(children, "parent")
        yield ctx.finding(at=at, related=related, remedy=f"Use one of its leaf queues ({names})",
                          message=f"{obj.display()}: Queue `{queue}` has {len(children)} child queues: {NOT_LEAF}")


def _job_queue(obj: K8sObject, ctx: RuleContext, queue: str, queues: dict[str, K8sObject]) -> Iterator[Finding]:
    at = obj.at_value("spec", "queue")
    if queue == "root":
        yield ctx.finding(at=at, message=f"{obj.display()}: spec.queue is `root`: Volcano's webhook rejects the job "
                                         "(`can not submit job to root queue`)",
                          remedy="Submit it to a leaf queue")
        return
    children = children_of(ctx.graph, VOLCANO_QUEUE, queue, "parent")
    if children:
        related, names = child_queue_notes(children, "parent")
        yield ctx.finding(
            at=at, related=related, remedy=f"Submit it to one of its leaf queues ({names})",
            message=(f"{obj.display()}: Queue `{queue}` has {len(children)} child queues: Volcano's webhook rejects "
                     "the job (`can only submit job to leaf queue`)"))
    elif _unknown_name(queue, queues, ctx):
        yield _unknown(obj, ctx, queue, queues, "`unable to find job queue`")


def _unknown_name(queue: str, queues: dict[str, K8sObject], ctx: RuleContext) -> bool:
    """Queues are established and none is named ``queue`` (a harness test's system under test
    may create any)."""
    return bool(queues) and queue not in queues and queue not in BUILT_IN_QUEUES and not ctx.graph.open_world


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
    """The nearest ancestor whose capability sets ``resource`` (``chains.MAX_ANCESTRY`` levels up)."""
    return next((ancestor for ancestor in queue_chain(obj, queues, "parent")[1:]
                 if parse_quantity(ancestor.get("spec", "capability", resource)) is not None), None)


def _resources(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        return {}
    parsed = {str(name): parse_quantity(quantity) for name, quantity in value.items()}
    return {name: quantity for name, quantity in parsed.items() if quantity is not None}


def _siblings_sum(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    """Children of one parent whose ``deserved`` (``guarantee.resource``) add up to more than the
    parent's, for a resource the parent sets (``validateSiblingsSum``): reported at the child
    whose entry tips the sum, siblings taken in the order they are written."""
    parent_name = obj.get("spec", "parent")
    queues = queues_by_name(ctx.graph, VOLCANO_QUEUE)
    parent = queues.get(parent_name) if isinstance(parent_name, str) and parent_name != "root" else None
    if parent is None:
        return
    siblings = children_of(ctx.graph, VOLCANO_QUEUE, parent_name, "parent")
    for field in (("deserved",), ("guarantee", "resource")):
        for name, limit in _resources(parent.get("spec", *field)).items():
            tipping = _tipping(siblings, field, name, limit)
            if tipping is obj:
                yield _sum_finding(obj, ctx, parent, siblings, field, name)


def _tipping(siblings: list[K8sObject], field: tuple[str, ...], name: str, limit: Fraction) -> K8sObject | None:
    total = Fraction(0)
    for sibling in siblings:
        amount = _resources(sibling.get("spec", *field)).get(name)
        total += amount or 0
        if amount is not None and total > limit:
            return sibling
    return None


def _sum_finding(obj: K8sObject, ctx: RuleContext, parent: K8sObject, siblings: list[K8sObject],
                 field: tuple[str, ...], name: str) -> Finding:
    label = ".".join(field)
    written = siblings[:siblings.index(obj) + 1]
    total = sum((_resources(s.get("spec", *field)).get(name) or Fraction(0) for s in written), Fraction(0))
    related = [(parent.at_value("spec", *field, name), f"parent {parent.name}'s {label}[{name}]")]
    related += [(s.at_value("spec", *field, name), f"sibling {s.name}'s {label}[{name}]")
                for s in siblings if s is not obj and s.has("spec", *field, name)][:5]
    word = field[0]
    return ctx.finding(
        at=obj.at_value("spec", *field, name), related=related,
        message=(f"{obj.display()}: the {label}[{name}] of `{parent.name}`'s children adds up to "
                 f"{format_amount(total)}, above the parent's {parent.get('spec', *field, name)}: Volcano's webhook "
                 f"rejects the Queue (`sum of children's {word} ... exceeds parent's {word} limit`)"),
        remedy=f"Lower the children's {label}[{name}] or raise the parent's")
