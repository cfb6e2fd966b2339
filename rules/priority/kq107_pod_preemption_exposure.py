"""
## What it catches
A user PriorityClass (not a built-in `system-*` class) whose effective `preemptionPolicy`
is `PreemptLowerPriority` and whose value is above the pod priority of some pod template
of a Kueue-managed multi-pod workload. Reported on the class, at its `value`; `related`
lists the exposed workloads (their lowest-priority template, up to ten). Only gangs
applied with the class count (README "What is applied together"): the class and the gang in
one unit, or either of them in the shared files (in no unit, any folder); a class of another
unit (a sample applied on its own, declared with `units:`) never meets the gang.
`preemptionPolicy: Never` on the gang's own class does not protect it: `Never` only
stops the gang's pods from preempting others.

## Why it breaks on a cluster
kube-scheduler picks preemption victims by pod priority alone: any pod of this class
that does not fit may evict single pods of the gang. The gang then runs with a missing
worker, the others idle on their GPUs, and Kueue (which admitted it as a whole) does not
know. PodDisruptionBudgets are honoured only on a best-effort basis.

## Bad
```yaml
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: online-serving
value: 100000                 # preemptionPolicy unset: PreemptLowerPriority
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: gang-pods
value: 0
preemptionPolicy: Never       # does not protect the gang from being preempted
---
apiVersion: batch/v1
kind: Job
metadata:
  name: train
  namespace: ml
  labels:
    kueue.x-k8s.io/queue-name: training
spec:
  parallelism: 8
  template:
    spec:
      priorityClassName: gang-pods
      restartPolicy: Never
      containers:
        - name: main
          image: trainer:1
```

## Good
```yaml
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: online-serving
value: 100000
preemptionPolicy: Never       # waits for room instead of evicting gang pods
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: gang-pods
value: 0
preemptionPolicy: Never
---
apiVersion: batch/v1
kind: Job
metadata:
  name: train
  namespace: ml
  labels:
    kueue.x-k8s.io/queue-name: training
spec:
  parallelism: 8
  template:
    spec:
      priorityClassName: gang-pods
      restartPolicy: Never
      containers:
        - name: main
          image: trainer:1
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  name: training
  namespace: ml
spec:
  clusterQueue: gpu
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: gpu
spec:
  namespaceSelector: {}
```

## How to fix
Give the higher class `preemptionPolicy: Never` (create a new class: the policy cannot be
changed in place), or keep its pods off the gangs' nodes (separate node pools, taints),
or raise the gangs' pod priority to at least this value. A node agent (a DaemonSet, named
under `related`) has to preempt to reach every node: give it Kubernetes' built-in class
`system-node-critical`, made for pods a node cannot run without, instead of `Never`.
"""
from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator

from kqlint.domain import kinds as K
from kqlint.domain import reading
from kqlint.domain.graph import ObjectGraph
from kqlint.domain.kueue import (
    PREEMPT_LOWER,
    SCHEDULING_GROUP,
    PodProfile,
    all_managed_workloads,
    class_value,
    defaulted_route,
    describe_pod_priority,
    describe_template,
    effective_preemption_policy,
    is_builtin_class,
    is_multi_pod,
    pod_profile,
)
from kqlint.domain.objects import INPUT, K8sObject
from kqlint.domain.workloads import own_templates
from kqlint.engine.rule import RuleContext, RuleMeta
from kqlint.model import Finding, Location, Severity

# findings cache: reads graph rule: the input PriorityClasses, every managed multi-pod workload and its pods'
# PriorityClasses
# for the advice, the DaemonSets (node agents) whose templates name a reported class
META = RuleMeta(code="KQ107", slug="pod-preemption-exposure", severity=Severity.WARNING,
                summary="a preempting PriorityClass ranks above the pods of a Kueue-managed gang", scope="graph",
                reads=reading.ROUTED | {K.DAEMONSET})

MAX_RELATED = 10


def check_graph(graph: ObjectGraph, ctx: RuleContext) -> Iterator[Finding]:
    gangs: list[PodProfile] | None = None  # every workload read only when an input class may preempt
    for pc in graph.of_kind("PriorityClass", SCHEDULING_GROUP, tiers=(INPUT,)):
        value = class_value(pc)
        if value is None or is_builtin_class(pc) or effective_preemption_policy(pc) != PREEMPT_LOWER:
            continue
        if gangs is None:
            gangs = _gangs_by_lowest_pod_priority(graph)
            lowest = [profile.lowest_value for profile in gangs]
        exposed = gangs[:bisect_left(lowest, value)]  # lowest pod priority below; applied together
        if exposed:
            yield _finding(pc, value, exposed, ctx)


def _gangs_by_lowest_pod_priority(graph: ObjectGraph) -> list[PodProfile]:
    gangs = [unit for unit in all_managed_workloads(graph) if is_multi_pod(unit.obj, graph)]
    profiles = [profile for profile in (pod_profile(unit, graph) for unit in gangs) if profile is not None]
    return sorted(profiles, key=lambda p: p.lowest_value)


def _finding(pc: K8sObject, value: int, exposed: list[PodProfile], ctx: RuleContext) -> Finding:
    names = ", ".join(p.unit.display() for p in exposed[:3])
    if len(exposed) > 3:
        names += f" and {len(exposed) - 3} more"
    message = (f"PriorityClass {pc.name} ({value}, PreemptLowerPriority) ranks above the pods of "
               f"{len(exposed)} Kueue-managed gang(s) ({names}): its pods may make kube-scheduler evict single "
               "gang pods, leaving the rest idle")
    agents = _node_agents(pc, ctx.graph)
    shown = exposed[:MAX_RELATED]
    related = [*map(_related, shown), *defaulted_route([p.unit for p in shown], ctx.graph),
               *((agent.at("metadata", "name"), f"node agent {agent.display()} runs at this class")
                 for agent in agents[:MAX_RELATED])]
    return ctx.finding(at=pc.at("value"), message=message, related=related, remedy=_remedy(pc, agents))


def _node_agents(pc: K8sObject, graph: ObjectGraph) -> list[K8sObject]:
    """DaemonSets (one pod per node: node agents) whose pod template names ``pc``."""
    return [ds for ds in graph.of_kind("DaemonSet", "apps")
            if any(t.priority_class_name == pc.name for t in own_templates(ds, graph))]


def _remedy(pc: K8sObject, agents: list[K8sObject]) -> str:
    if not agents:
        return ("Give this class preemptionPolicy: Never, or keep its pods off the gangs' nodes "
                "(preemptionPolicy: Never on the gangs' own class does not protect them)")
    # A node agent must preempt to reach every node, so `Never` is no advice for it; Kubernetes'
    # own class for pods a node cannot do without is built in (and not judged here).
    names = ", ".join(agent.display() for agent in agents[:3])
    return (f"For a node-critical agent ({names}) use Kubernetes' built-in PriorityClass "
            f"`system-node-critical`, meant for pods a node cannot run without; give {pc.name} "
            f"preemptionPolicy: Never for its other pods, or keep them off the gangs' nodes")


def _related(profile: PodProfile) -> tuple[Location, str]:
    template, priority = profile.lowest
    return (template.at("priorityClassName"),
            f"{describe_template(template, profile.unit)} runs at {describe_pod_priority(priority)}")
