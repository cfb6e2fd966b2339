"""
## What it catches
The same object — API group, kind, namespace and name — defined more than once among
objects applied together. The first definition (by file and position) is the object; each
further copy gets one finding, with the first definition and a few other copies as related
locations. Copies collide:
- in the same file (always applied together);
- in different files of one unit that config `units:` declares (a unit is applied as a
  whole), when their fields differ; copies without `metadata.namespace` only within one
  folder, since the namespace is chosen when each is applied;
- in different files of one folder that define different workloads (the docs apply them one
  after another), when a shared object they each carry (RBAC, a ServiceAccount, a ConfigMap)
  differs and is cluster-scoped or names its namespace: the later copy silently drops what
  the other workload needs.

Not duplicates: objects that set only `generateName`; copies in different files outside a
declared unit that define the same workloads (alternative copies of a sample, variants such as `agg.yaml` and
`agg-logging.yaml` that are applied one at a time); copies under kustomize folders (bases and
overlays; kustomize itself rejects two resources with one id); kustomize patch files, which
are fragments, not objects. The project's other manifests count as copies too, so a file
linted alone and the whole repository give the same answer.

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
different object. To have copies in different files compared, declare the folders that are
applied as a whole as units (`units: ["."]` for a repository that is one platform,
`units: ["clusters/*"]` for one unit per folder) in `.kqlint.yaml`.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Hashable, Iterator
from typing import Any

from kqlint.domain.graph import ObjectGraph, from_manifest
from kqlint.domain.objects import INPUT, ApplyTimeNamespace, K8sObject, content_key
from kqlint.domain.workloads.extract import TEMPLATE_KINDS
from kqlint.engine.rule import RuleContext, RuleMeta
from kqlint.model import Finding, Severity

META = RuleMeta(code="KQ003", slug="duplicate-object", severity=Severity.ERROR,
                summary="the same group/kind/namespace/name is defined twice among objects applied together",
                scope="graph")

MAX_RELATED = 5  # the first definition and a few other copies, however many there are

def check_graph(graph: ObjectGraph, ctx: RuleContext) -> Iterator[Finding]:
    same_key: dict[tuple[str, str, str | None, str], list[K8sObject]] = defaultdict(list)
    for obj in graph.objects:
        same_key[obj.key].append(obj)
    for candidates in same_key.values():  # most objects are alone: only copies are read further
        group = [obj for obj in candidates if len(candidates) > 1 and _named_in_manifest(obj)]
        if len(group) > 1 and any(o.source == INPUT for o in group) and not _kustomize_variants(group, graph):
            yield from _report(sorted(group, key=_order), graph, ctx)


def _named_in_manifest(obj: K8sObject) -> bool:
    """A manifest's object with a ``metadata.name`` (not a generateName, not a declared name)."""
    name = obj.get("metadata", "name")
    return from_manifest(obj) and isinstance(name, str) and bool(name)


def _order(obj: K8sObject) -> tuple[str, int, tuple[Any, ...]]:
    return (obj.file, obj.doc, tuple(str(step) for step in obj.base))


def _folder(file: str) -> str:
    return file.rpartition("/")[0]


def _kustomize_variants(group: list[K8sObject], graph: ObjectGraph) -> bool:
    """Bases and overlays repeat an object's identity on purpose."""
    return len({o.file for o in group}) > 1 and all(graph.under_kustomize(o.file) for o in group)


def _report(group: list[K8sObject], graph: ObjectGraph, ctx: RuleContext) -> Iterator[Finding]:
    """One finding per extra copy that collides with an earlier one, in one pass."""
    first = group[0]
    many_files = len({o.file for o in group}) > 1
    seen: Counter[Hashable] = Counter()
    for index, obj in enumerate(group):
        if obj is not first and obj.source == INPUT and (
                _collides(obj, seen, graph, many_files) or _shared_copy_differs(obj, group[:index], graph)):
            yield _finding(obj, first, group, ctx)
        _remember(obj, seen, graph, many_files)


def _shared_copy_differs(obj: K8sObject, earlier: list[K8sObject], graph: ObjectGraph) -> bool:
    """A copy of a shared object (RBAC, a ServiceAccount, a ConfigMap) whose content differs from
    an earlier copy in another file of its folder, where the two files define different
    workloads: they are applied one after another, not instead of each other, so the later copy
    replaces the one the other workload needs. Files that define the same workload are
    alternatives (a sample and its variant) and stay silent."""
    if (obj.group, obj.kind) in TEMPLATE_KINDS or isinstance(obj.namespace, ApplyTimeNamespace):
        return False  # a namespace chosen at apply time may keep the copies apart
    folder, unit = _folder(obj.file), graph.applied_together(obj.file)
    mine = _workloads_by_file(graph).get(obj.file, frozenset())
    content = content_key(obj)
    for other in earlier:
        if other.file == obj.file or _folder(other.file) != folder or graph.applied_together(other.file) != unit \
                or isinstance(other.namespace, ApplyTimeNamespace):
            continue
        theirs = _workloads_by_file(graph).get(other.file, frozenset())
        if mine and theirs and not mine & theirs and content_key(other) != content:
            return True
    return False


def _workloads_by_file(graph: ObjectGraph) -> dict[str, frozenset[tuple[str, str, str]]]:
    """File -> the (group, kind, name) of the workloads (objects with pod templates) it defines."""
    def build() -> dict[str, frozenset[tuple[str, str, str]]]:
        found: dict[str, set[tuple[str, str, str]]] = defaultdict(set)
        for obj in graph.objects:
            if from_manifest(obj) and (obj.group, obj.kind) in TEMPLATE_KINDS:
                found[obj.file].add((obj.group, obj.kind, obj.name))
        return {file: frozenset(names) for file, names in found.items()}
    return graph.memo(_workloads_by_file, build)


def _keys(obj: K8sObject, graph: ObjectGraph, many_files: bool) -> tuple[Any, ...]:
    """(file, unit, folder, content, fixed namespace) of a copy."""
    unit = graph.applied_together(obj.file) if many_files else None
    content = content_key(obj) if unit is not None else None
    return obj.file, unit, _folder(obj.file), content, not isinstance(obj.namespace, ApplyTimeNamespace)


def _remember(obj: K8sObject, seen: Counter[Hashable], graph: ObjectGraph, many_files: bool) -> None:
    file, unit, folder, content, fixed = _keys(obj, graph, many_files)
    seen[("file", file)] += 1
    if unit is None:
        return
    seen.update([("uf", unit, folder), ("ufh", unit, folder, content)])
    if fixed:
        seen.update([("ux", unit), ("uxh", unit, content), ("ufx", unit, folder), ("ufxh", unit, folder, content)])


def _collides(obj: K8sObject, seen: Counter[Hashable], graph: ObjectGraph, many_files: bool) -> bool:
    """A copy collides with an earlier one in its own file; or, in another file of the same
    declared unit (applied as a whole), with one of other content in its folder, or anywhere in
    the unit when both set their namespace (copies without one may land in other namespaces)."""
    file, unit, folder, content, fixed = _keys(obj, graph, many_files)
    if seen[("file", file)]:
        return True
    if unit is None:
        return False
    if fixed:
        others = seen[("uf", unit, folder)] + seen[("ux", unit)] - seen[("ufx", unit, folder)]
        same = (seen[("ufh", unit, folder, content)] + seen[("uxh", unit, content)]
                - seen[("ufxh", unit, folder, content)])
    else:
        others, same = seen[("uf", unit, folder)], seen[("ufh", unit, folder, content)]
    return others - same > 0


def _finding(obj: K8sObject, first: K8sObject, group: list[K8sObject], ctx: RuleContext) -> Finding:
    where = first.at_value("metadata", "name")
    others = [o for o in group if o is not obj and o is not first][:MAX_RELATED - 1]
    related = [(where, _related_text("the first definition", first, obj))]
    related += [(o.at_value("metadata", "name"), _related_text("another copy", o, obj)) for o in others]
    return ctx.finding(
        at=obj.at_value("metadata", "name"),
        message=(f"{obj.display()} is defined {len(group)} times among objects applied together (first at "
                 f"{where.file}:{where.line}): kubectl applies the copies in turn and the last one silently "
                 "wins"),
        remedy="Keep one definition",
        related=related)


def _related_text(what: str, other: K8sObject, obj: K8sObject) -> str:
    folder = _folder(other.file)
    crossing = f" (in another folder: {folder or '.'})" if folder != _folder(obj.file) else ""
    return f"{what} of the same object{crossing}"
