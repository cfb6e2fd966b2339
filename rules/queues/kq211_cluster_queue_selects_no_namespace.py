"""
## What it catches
A ClusterQueue that LocalQueues point to, but that admits none of their namespaces:
- it has no `spec.namespaceSelector` (unset or `null` admits **no** namespace; `{}` admits
  all), or
- its selector does not match the labels of a LocalQueue's Namespace object found in the
  inputs. Every Namespace implicitly carries `kubernetes.io/metadata.name: <name>`, so
  selecting on that label works without declaring it.

Reported on the ClusterQueue (a missing selector at the nearest existing ancestor, a
mismatching one at `spec.namespaceSelector`); `related` lists the LocalQueues affected.

## Why it breaks on a cluster
Kueue checks the workload's namespace against the ClusterQueue's selector before admitting
it. Without a match the workload stays inadmissible for ever, with
`workload namespace doesn't match ClusterQueue selector`; nothing in the LocalQueue or the
job hints at the cause.

## Bad
```yaml
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: research
spec:                       # no namespaceSelector: admits no namespace
  resourceGroups:
  - coveredResources: ["cpu"]
    flavors:
    - name: default
      resources:
      - name: cpu
        nominalQuota: 64
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  name: research
  namespace: research
spec:
  clusterQueue: research
```

## Good
```yaml
apiVersion: v1
kind: Namespace
metadata:
  name: research
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: research
spec:
  namespaceSelector:
    matchLabels:
      kubernetes.io/metadata.name: research   # set on every Namespace by the API server
  resourceGroups:
  - coveredResources: ["cpu"]
    flavors:
    - name: default
      resources:
      - name: cpu
        nominalQuota: 64
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  name: research
  namespace: research
spec:
  clusterQueue: research
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: default
```

## How to fix
Set `spec.namespaceSelector`: `{}` to admit every namespace, or a selector that matches the
namespaces of the LocalQueues (for one namespace,
`matchLabels: {kubernetes.io/metadata.name: <namespace>}`), or add the selected label to the
Namespace objects.
"""
from __future__ import annotations

from collections.abc import Iterator

from kqlint.domain import kinds as K
from kqlint.domain.fields import label_text, selector_matches
from kqlint.domain.graph import ObjectGraph
from kqlint.domain.kinds import KUEUE_GROUP
from kqlint.domain.objects import INPUT, K8sObject
from kqlint.engine.rule import RuleContext, RuleMeta
from kqlint.model import Finding, Severity

# findings cache: reads graph rule: the ClusterQueues' namespaceSelector, the LocalQueues pointing at each, the
# Namespaces' labels
META = RuleMeta(code="KQ211", slug="cluster-queue-selects-no-namespace", severity=Severity.ERROR,
                summary="a ClusterQueue's namespaceSelector admits none of the namespaces of its LocalQueues",
                scope="graph",
                reads=frozenset({K.CLUSTER_QUEUE, K.LOCAL_QUEUE, K.NAMESPACE}))

NAME_LABEL = "kubernetes.io/metadata.name"


def check_graph(graph: ObjectGraph, ctx: RuleContext) -> Iterator[Finding]:
    queues = _local_queues_by_cluster_queue(graph)
    for cq in graph.of_kind("ClusterQueue", KUEUE_GROUP, tiers=(INPUT,)):
        local_queues = queues.get(cq.name, [])
        if local_queues:
            yield from _check_cluster_queue(cq, local_queues, graph, ctx)


def _local_queues_by_cluster_queue(graph: ObjectGraph) -> dict[str, list[K8sObject]]:
    found: dict[str, list[K8sObject]] = {}
    for lq in graph.of_kind("LocalQueue", KUEUE_GROUP):
        target = lq.get("spec", "clusterQueue")
        if isinstance(target, str) and target:
            found.setdefault(target, []).append(lq)
    return found


def _check_cluster_queue(cq: K8sObject, local_queues: list[K8sObject], graph: ObjectGraph,
                         ctx: RuleContext) -> Iterator[Finding]:
    selector = cq.get("spec", "namespaceSelector")
    if selector is None:
        yield ctx.finding(
            at=cq.at("spec", "namespaceSelector"),
            message=(f"{cq.display()}: {_missing_text(cq)}, which admits no namespace: "
                     f"workloads from {_names(local_queues)} stay inadmissible for ever"),
            related=[(lq.at("spec", "clusterQueue"), f"{lq.display()} points here") for lq in local_queues],
            remedy="Set `namespaceSelector: {}` to admit all namespaces, or a selector for theirs")
        return
    namespaces = {ns.name: ns for ns in graph.of_kind("Namespace", "", tiers=(INPUT,))}
    affected = []
    for lq in local_queues:
        namespace = namespaces.get(lq.namespace or "")
        if namespace is not None and selector_matches(selector, namespace_labels(namespace)) is False:
            affected.append((lq, namespace))
    if affected:
        yield ctx.finding(
            at=cq.at("spec", "namespaceSelector"),
            message=(f"{cq.display()}: spec.namespaceSelector does not match "
                     f"{'; '.join(sorted({_namespace_text(ns) for _, ns in affected}))}, so workloads from "
                     f"{_names([lq for lq, _ in affected])} stay inadmissible for ever"),
            remedy=("Fix the selector or label the Namespace "
                    f"(every Namespace carries `{NAME_LABEL}: <name>`)"),
            related=[item for lq, ns in affected for item in (
                (lq.at("spec", "clusterQueue"), f"{lq.display()} points here"),
                (ns.at("metadata", "name"), f"Namespace {ns.name}: its labels do not match"))])


def _missing_text(cq: K8sObject) -> str:
    return "spec.namespaceSelector is null" if cq.has("spec", "namespaceSelector") else "no spec.namespaceSelector"


def _namespace_text(namespace: K8sObject) -> str:
    labels = ", ".join(f"{k}={v}" for k, v in sorted(namespace_labels(namespace).items()))
    return f"Namespace {namespace.name} (labels {labels})"


def _names(local_queues: list[K8sObject]) -> str:
    return ", ".join(f"LocalQueue {lq.namespace}/{lq.name}" for lq in local_queues)


def namespace_labels(namespace: K8sObject) -> dict[str, str]:
    labels = {str(k): label_text(v) for k, v in namespace.labels.items()}
    labels[NAME_LABEL] = namespace.name  # set by the API server on every Namespace
    return labels
