"""
## What it catches
Kueue pod groups (`kueue.x-k8s.io/pod-group-name`, within one namespace, among the bare Pods
and pod templates applied together) whose members cannot be composed into one Workload:
(a) members carry different `kueue.x-k8s.io/pod-group-total-count` values, or different
`kueue.x-k8s.io/queue-name` values (error): one finding on each member whose value differs from
the most common one, at the annotation or label, with `related` the members that agree;
(b) a group made only of bare Pods (no pod template carries the name), none with
`kueue.x-k8s.io/pod-group-fast-admission: "true"`, whose number of Pods differs from the total
count they agree on (warning, at the total-count annotation of the first member).

Identical copies of one manifest in other files (a docs site's versioned `v0.18/examples/`
beside `examples/`) are alternatives, as KQ003 treats them: (b) counts each Pod once however
many files copy it, and stays silent when counting every copy would fit the total count (two
files that each hold the same Pod may also be meant to make two Pods).

Silent when the platform's pod integration is known to be off. A member without a queue-name
label is not compared on it; a count that is missing or not an integer of at least 1 is KQ004's.

## Why it breaks on a cluster
(a) Kueue's pod reconciler refuses to build the Workload (`pods 'a' and 'b' has different
'kueue.x-k8s.io/pod-group-total-count' values`, or `... different queue names`, an unretryable
error): the group is never admitted. (b) With fewer Pods, Kueue waits (`group has fewer runnable
pods than expected`) until the rest appear, so unless they are created elsewhere the group is
never admitted; with more, Kueue deletes the excess Pods (`ExcessPodDeleted`).

## Bad
```yaml
apiVersion: v1
kind: Pod
metadata:
  name: worker-0
  namespace: ml
  labels:
    kueue.x-k8s.io/pod-group-name: sweep
  annotations:
    kueue.x-k8s.io/pod-group-total-count: "3"   # only two Pods make up the group
spec:
  containers:
  - name: main
    image: busybox
---
apiVersion: v1
kind: Pod
metadata:
  name: worker-1
  namespace: ml
  labels:
    kueue.x-k8s.io/pod-group-name: sweep
  annotations:
    kueue.x-k8s.io/pod-group-total-count: "3"
spec:
  containers:
  - name: main
    image: busybox
```

## Good
The count is the number of Pods in the group:
```yaml
apiVersion: v1
kind: Pod
metadata:
  name: worker-0
  namespace: ml
  labels:
    kueue.x-k8s.io/pod-group-name: sweep
  annotations:
    kueue.x-k8s.io/pod-group-total-count: "2"   # two Pods make up the group
spec:
  containers:
  - name: main
    image: busybox
---
apiVersion: v1
kind: Pod
metadata:
  name: worker-1
  namespace: ml
  labels:
    kueue.x-k8s.io/pod-group-name: sweep
  annotations:
    kueue.x-k8s.io/pod-group-total-count: "2"
spec:
  containers:
  - name: main
    image: busybox
```

## How to fix
Give every member the same total count and queue name, and make the count the number of Pods
the group really has (or add the missing members, or mark the group for fast admission).
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from kqlint.domain import reading
from kqlint.domain.graph import ObjectGraph
from kqlint.domain.kinds import POD
from kqlint.domain.kueue import POD_GROUP_NAME, POD_GROUP_TOTAL, QUEUE_LABEL
from kqlint.domain.objects import INPUT, K8sObject, content_key
from kqlint.domain.platform import platform_of
from kqlint.domain.workloads import OWN_TEMPLATE_KINDS, PodTemplate, pod_templates
from kqlint.engine.rule import RuleContext, RuleMeta
from kqlint.model import Finding, Location, Severity

FAST_ADMISSION = "kueue.x-k8s.io/pod-group-fast-admission"

# findings cache: reads every bare Pod and pod template of the unit (pod-group labels and annotations),
# TrainJob runtimes for their templates, and the platform's pod integration (the platform model is in
# every graph key)
META = RuleMeta(code="KQ221", slug="pod-group-count-mismatch", severity=Severity.ERROR,
                summary="members of a Kueue pod group disagree on its total count or queue, or miss the count",
                scope="graph",
                reads=reading.TEMPLATES | reading.RUNTIMES)


@dataclass(frozen=True)
class Member:
    obj: K8sObject
    meta: tuple[Any, ...]          # path to the pod metadata in ``obj``
    labels: dict[str, Any]
    annotations: dict[str, Any]
    bare: bool                     # a Pod, not a pod template
    name: str                      # the group's

    def count(self) -> int | None:
        try:
            value = int(str(self.annotations.get(POD_GROUP_TOTAL)))
        except ValueError:
            return None
        return value if value >= 1 else None

    def queue(self) -> str | None:
        value = self.labels.get(QUEUE_LABEL)
        return str(value) if value is not None else None

    def at(self, where: str, key: str) -> Location:
        return self.obj.at(*self.meta, where, key)


def check_graph(graph: ObjectGraph, ctx: RuleContext) -> Iterator[Finding]:
    if platform_of(graph).pod_integration() == "off":
        return
    for (_, name), members in sorted(_groups(graph).items()):
        disagreeing = list(_disagreements(name, members, ctx))
        yield from disagreeing
        if not disagreeing:
            yield from _wrong_size(name, members, ctx)


def _groups(graph: ObjectGraph) -> dict[tuple[str, str], list[Member]]:
    """The pod groups with a member among the inputs (only those can have a finding), with all
    their members. An editor's keystroke reads the context's members once per object, not
    once per graph."""
    inputs = [obj for obj in graph.objects if obj.source == INPUT]
    wanted = {(str(obj.namespace), m.name) for obj in inputs for m in _members(obj, graph)}
    groups: dict[tuple[str, str], list[Member]] = {}
    if not wanted:
        return groups
    for obj in graph.objects:
        if obj.source not in (INPUT, "context"):
            continue
        for member in _members(obj, graph):
            if (key := (str(obj.namespace), member.name)) in wanted:
                groups.setdefault(key, []).append(member)
    return groups


def _members(obj: K8sObject, graph: ObjectGraph) -> list[Member]:
    if (obj.group, obj.kind) in OWN_TEMPLATE_KINDS:  # what the object alone decides
        return obj.remember(_members, lambda: _members_among(obj, pod_templates(obj)))  # type: ignore[no-any-return]
    return _members_among(obj, pod_templates(obj, graph))


def _members_among(obj: K8sObject, templates: list[PodTemplate]) -> list[Member]:
    members = []
    for template in templates:
        if template.owner is not obj or template.generated or template.meta_path is None:
            continue
        labels, annotations = template.labels, template.annotations
        name = labels.get(POD_GROUP_NAME)
        if isinstance(name, str) and name:
            members.append(Member(obj, template.meta_path, labels, annotations, POD.of(obj), name))
    return members


def _disagreements(name: str, members: list[Member], ctx: RuleContext) -> Iterator[Finding]:
    for what, where, key, value_of in (("total count", "annotations", POD_GROUP_TOTAL, Member.count),
                                       ("queue name", "labels", QUEUE_LABEL, Member.queue)):
        valued = [(m, value_of(m)) for m in members if value_of(m) is not None]
        tally = Counter(value for _, value in valued)
        if len(tally) < 2:
            continue
        first_seen = {value: i for i, (_, value) in reversed(list(enumerate(valued)))}
        agreed = max(tally, key=lambda v: (tally[v], -first_seen[v]))
        agreeing = [m for m, value in valued if value == agreed]
        for member, value in valued:
            if value == agreed or member.obj.source != INPUT:
                continue
            kueue_text = ("has different 'kueue.x-k8s.io/pod-group-total-count' values" if key == POD_GROUP_TOTAL
                          else "has different queue names")
            message = (f"{member.obj.display()}: {what} {value} in pod group {name}, whose other members say "
                       f"{agreed}: Kueue's pod reconciler refuses the group ({kueue_text}), so it is never admitted")
            yield ctx.finding(
                at=member.at(where, key), message=message if len(message) <= 240 else message[:237] + "...",
                related=[(m.at(where, key), f"{m.obj.display()}: {agreed}") for m in agreeing[:5]],
                remedy=f"Set {key} to {agreed} on every member of pod group {name}")


def _wrong_size(name: str, members: list[Member], ctx: RuleContext) -> Iterator[Finding]:
    if not all(m.bare for m in members) or any(str(m.annotations.get(FAST_ADMISSION)) == "true" for m in members):
        return
    counts = {m.count() for m in members}
    expected = counts.pop() if len(counts) == 1 else None
    if expected is None:
        return
    first = next((m for m in members if m.obj.source == INPUT), None)
    counted = _without_copies(members)
    if first is None or expected in (len(members), len(counted)):  # either reading fits: no finding
        return
    if len(counted) < expected:
        what = (f"only {len(counted)} Pod(s) carry it: Kueue waits (group has fewer runnable pods than expected) "
                "and never admits the group unless the rest are created elsewhere")
    else:
        what = (f"{len(counted)} Pods carry it: Kueue deletes the {len(counted) - expected} excess Pod(s) "
                "(ExcessPodDeleted)")
    yield ctx.finding(
        at=first.at("annotations", POD_GROUP_TOTAL), severity=Severity.WARNING,
        message=f"pod group {name} has total count {expected}, but {what}",
        related=[(m.at("labels", POD_GROUP_NAME), f"{m.obj.display()} is a member")
                 for m in counted if m is not first][:5],
        remedy=f"Set {POD_GROUP_TOTAL} to {len(counted)} on every member, or add the missing Pods")


def _without_copies(members: list[Member]) -> list[Member]:
    """The members, where a Pod that other files copy field for field counts once per copy in
    its own file: of each content, the most any one file holds, from the first such file."""
    by_content: dict[Any, dict[str, list[Member]]] = {}
    for member in members:
        by_content.setdefault(content_key(member.obj), {}).setdefault(member.obj.file, []).append(member)
    kept = {id(m) for files in by_content.values() for m in max(files.values(), key=len)}
    return [m for m in members if id(m) in kept]
