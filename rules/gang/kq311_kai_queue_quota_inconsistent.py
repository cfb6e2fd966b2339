"""
## What it catches
A KAI Scheduler queue tree (`scheduling.run.ai/v2` Queue) that the scheduler cannot use as
written:
- `spec.parentQueue` names no Queue kqlint knows (and not KAI's own `default-parent-queue`)
  while the inputs, context, `external` objects or profile hold KAI Queues (error);
- a child's `quota` for a resource above its parent's, where the parent's is not -1 (warning);
- a `limit` of 0 or more below a `quota` above 0 (warning);
- unit slips: a `cpu` `quota`/`limit` of 1–99 (KAI reads millicores: less than 0.1 core) or a
  `memory` one of 1–99 (KAI reads megabytes) (warning).
-1 means unlimited and is never compared.

In the files of a chainsaw or kuttl test, which the harness applies beside objects only the
system under test makes, no queue is reported unknown.

## Why it breaks on a cluster
The scheduler drops a queue whose parent it cannot find **and its whole subtree** from its
snapshot as an orphan (`pkg/scheduler/api/cluster_info/queue.go`): nothing submitted to them is
ever scheduled. A child's guaranteed quota above its parent's can never be honoured; a limit
below the quota caps the queue under its own guarantee; `cpu: {quota: 2}` is 0.002 cores.

## Bad
```yaml
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata:
  name: research
spec:
  resources:
    gpu: {quota: 8, limit: -1, overQuotaWeight: 1}
    cpu: {quota: 64000, limit: -1, overQuotaWeight: 1}
    memory: {quota: -1, limit: -1, overQuotaWeight: 1}
---
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata:
  name: research-nlp
spec:
  parentQueue: reserch
  resources:
    gpu: {quota: 16, limit: 8, overQuotaWeight: 1}
    cpu: {quota: -1, limit: -1, overQuotaWeight: 1}
    memory: {quota: -1, limit: -1, overQuotaWeight: 1}
```

## Good
```yaml
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata:
  name: research
spec:
  resources:
    gpu: {quota: 8, limit: -1, overQuotaWeight: 1}
    cpu: {quota: 64000, limit: -1, overQuotaWeight: 1}
    memory: {quota: -1, limit: -1, overQuotaWeight: 1}
---
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata:
  name: research-nlp
spec:
  parentQueue: research
  resources:
    gpu: {quota: 4, limit: 8, overQuotaWeight: 1}
    cpu: {quota: 32000, limit: -1, overQuotaWeight: 1}
    memory: {quota: -1, limit: -1, overQuotaWeight: 1}
```

## How to fix
Name an existing parent queue (or declare it under `external:` in `.kqlint.yaml` if it exists
on the cluster); keep a child's quota within its parent's and each limit at or above its
quota; write `cpu` in millicores (1000 = 1 core) and `memory` in megabytes.
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kqlint.domain.kinds import KAI_QUEUE
from kqlint.domain.objects import K8sObject
from kqlint.engine.rule import RuleContext, RuleMeta
from kqlint.model import Finding, Severity
from kqlint.rules.gang._queues import queues_by_name
from kqlint.spelling import suggest

META = RuleMeta(code="KQ311", slug="kai-queue-quota-inconsistent", severity=Severity.ERROR,
                summary="a KAI queue names a parent that does not exist, or its quota and limits "
                        "cannot be honoured or read as written",
                kinds=frozenset({KAI_QUEUE}))
DEFAULT_PARENT = "default-parent-queue"  # installed by KAI's Helm chart (defaultQueue.parentName)
UNIT_SLIP = range(1, 100)
UNITS = {"cpu": ("millicores", 1000, "cores"), "memory": ("megabytes", 1000, "GB")}


def check(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    if obj.api_version != "scheduling.run.ai/v2":
        return
    queues = queues_by_name(ctx.graph, KAI_QUEUE)
    parent_name = obj.get("spec", "parentQueue")
    parent = queues.get(parent_name) if isinstance(parent_name, str) else None
    if isinstance(parent_name, str) and parent_name and parent is None and parent_name != DEFAULT_PARENT \
            and not ctx.graph.open_world:  # a harness test's system under test may create it
        yield ctx.finding(
            at=obj.at_value("spec", "parentQueue"),
            message=(f"{obj.display()}: parentQueue `{parent_name}` names no KAI Queue kqlint knows"
                     f"{suggest(parent_name, [*queues, DEFAULT_PARENT])}: the scheduler drops this queue and its "
                     "subtree as orphans, and nothing in them is scheduled"),
            remedy="Fix the name, create the parent Queue, or declare it under `external:` if it exists")
    resources = obj.get("spec", "resources")
    for name, entry in (resources.items() if isinstance(resources, dict) else ()):
        if isinstance(entry, dict):
            yield from _resource(obj, ctx, str(name), entry, parent)


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _resource(obj: K8sObject, ctx: RuleContext, name: str, entry: dict[str, Any],
              parent: K8sObject | None) -> Iterator[Finding]:
    base = ("spec", "resources", name)
    quota, limit = _number(entry.get("quota")), _number(entry.get("limit"))
    parent_quota = _number(parent.get(*base, "quota")) if parent is not None else None
    if parent is not None and quota is not None and parent_quota is not None and 0 <= parent_quota < quota:
        yield ctx.finding(
            at=obj.at_value(*base, "quota"), severity=Severity.WARNING,
            related=[(parent.at_value(*base, "quota"), f"{parent.name}'s quota")],
            message=(f"{obj.display()}: {name} quota {entry['quota']} is above its parent `{parent.name}`'s "
                     f"{parent.get(*base, 'quota')}: the guarantee can never be honoured"),
            remedy=f"Lower the {name} quota to at most the parent's, or raise the parent's")
    if quota is not None and limit is not None and quota > 0 and 0 <= limit < quota:
        yield ctx.finding(
            at=obj.at_value(*base, "limit"), severity=Severity.WARNING,
            related=[(obj.at_value(*base, "quota"), "quota")],
            message=(f"{obj.display()}: {name} limit {entry['limit']} is below its quota {entry['quota']}: the "
                     "queue is capped under its own guarantee, which can never be used"),
            remedy="Raise the limit to at least the quota (or -1, unlimited)")
    if name in UNITS:
        yield from _unit_slips(obj, ctx, name, entry)


def _unit_slips(obj: K8sObject, ctx: RuleContext, name: str, entry: dict[str, Any]) -> Iterator[Finding]:
    unit, factor, big = UNITS[name]
    for key in ("quota", "limit"):
        value = entry.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value in UNIT_SLIP:
            yield ctx.finding(
                at=obj.at_value("spec", "resources", name, key), severity=Severity.WARNING,
                message=(f"{obj.display()}: {name} {key} {value} is {value} {unit} ({value / factor:g} {big}): "
                         f"KAI reads {name} in {unit}, so this is almost certainly a unit slip"),
                remedy=f"Write {value * factor} for {value} {big}")
