"""
## What it catches
The same object — API group, kind, namespace and name — defined more than once in the
linted files (in one file or across files). Objects that set only `generateName` are not
compared. Every copy is reported, with the other copies as related locations. Copies in
different files that all sit under kustomize folders (a `kustomization.yaml` in their
folder or above: bases and overlays, patches) are expected and not reported.

## Why it breaks on a cluster
`kubectl apply` applies the copies one after another: the last one silently wins, so the
object on the cluster is not the one you reviewed (a PriorityClass value, a ClusterQueue
quota or a Job's parallelism can differ between the copies). With `kubectl create` the
second copy fails with `AlreadyExists`.

## Bad
```yaml
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: gang-no-preempt
value: 1000
preemptionPolicy: Never
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: gang-no-preempt
value: 100000
```

## Good
```yaml
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: gang-no-preempt
value: 1000
preemptionPolicy: Never
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata:
  name: gang-no-preempt     # same name, different kind: a different object
value: 1000
```

## How to fix
Keep one definition and delete the others, or rename the copy that is meant to be a
different object.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Iterator

from kqlint.graph import ObjectGraph
from kqlint.model import Finding, Severity
from kqlint.objects import K8sObject
from kqlint.rule import RuleContext, RuleMeta

META = RuleMeta(code="KQ003", slug="duplicate-object", severity=Severity.ERROR,
                summary="the same group/kind/namespace/name is defined twice in the inputs",
                scope="graph")


def check_graph(graph: ObjectGraph, ctx: RuleContext) -> Iterator[Finding]:
    copies: dict[tuple[str, str, str | None, str], list[K8sObject]] = defaultdict(list)
    for obj in graph.inputs:
        if isinstance(obj.get("metadata", "name"), str) and obj.get("metadata", "name"):
            copies[obj.key].append(obj)
    for group in copies.values():
        if len(group) > 1 and not _kustomize_variants(group, graph):
            yield from _report(group, ctx)


def _kustomize_variants(group: list[K8sObject], graph: ObjectGraph) -> bool:
    """Bases, overlays and patches repeat an object's identity on purpose."""
    return len({o.file for o in group}) > 1 and all(graph.under_kustomize(o.file) for o in group)


def _report(group: list[K8sObject], ctx: RuleContext) -> Iterator[Finding]:
    for obj in group:
        others = [o for o in group if o is not obj]
        where = ", ".join(f"{o.file}:{o.at('metadata', 'name').line}" for o in others)
        yield ctx.finding(
            at=obj.at_value("metadata", "name"),
            message=(f"{obj.display()} is defined {len(group)} times (also at {where}): kubectl "
                     "applies the copies in turn and the last one silently wins; keep one definition"),
            related=[(o.at_value("metadata", "name"), "another definition of the same object") for o in others])
