"""
## What it catches
The same object — API group, kind, namespace and name — defined more than once among
objects applied together (in one file or across files; the project's other manifests count
too, so a file linted alone and the whole repository give the same answer). The first
definition (by file and position) is the object; each further copy gets one finding, with
the first definition and a few other copies as related locations. Not duplicates:
- objects that set only `generateName`;
- copies in different files that all sit under kustomize folders (bases, overlays);
  kustomize patch files are fragments and are not objects at all;
- copies in separate units (kustomization roots, Helm charts, config `units:`), which are
  applied on their own;
- copies without `metadata.namespace` in different folders: the namespace is chosen when
  each is applied, so they need not meet;
- identical copies in different folders (alternative copies of a sample): applying both
  changes nothing.

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
different object. If the folders are independent samples that are never applied together,
declare them as units (`units: ["samples/*"]` in `.kqlint.yaml`).
"""
from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any, Hashable, Iterator

from kqlint.graph import ObjectGraph, from_manifest
from kqlint.model import Finding, Severity
from kqlint.objects import INPUT, ApplyTimeNamespace, K8sObject
from kqlint.rule import RuleContext, RuleMeta

META = RuleMeta(code="KQ003", slug="duplicate-object", severity=Severity.ERROR,
                summary="the same group/kind/namespace/name is defined twice among objects applied together",
                scope="graph")

MAX_RELATED = 5  # the first definition and a few other copies, however many there are

def check_graph(graph: ObjectGraph, ctx: RuleContext) -> Iterator[Finding]:
    copies: dict[tuple[str, str, str | None, str], list[K8sObject]] = defaultdict(list)
    for obj in graph.objects:
        if from_manifest(obj) and isinstance(obj.get("metadata", "name"), str) and obj.get("metadata", "name"):
            copies[obj.key].append(obj)
    for group in copies.values():
        if len(group) > 1 and any(o.source == INPUT for o in group) and not _kustomize_variants(group, graph):
            yield from _report(sorted(group, key=_order), ctx)


def _order(obj: K8sObject) -> tuple[str, int, tuple[Any, ...]]:
    return (obj.file, obj.doc, tuple(str(step) for step in obj.base))


def _folder(file: str) -> str:
    return file.rpartition("/")[0]


def _kustomize_variants(group: list[K8sObject], graph: ObjectGraph) -> bool:
    """Bases and overlays repeat an object's identity on purpose."""
    return len({o.file for o in group}) > 1 and all(graph.under_kustomize(o.file) for o in group)


def _report(group: list[K8sObject], ctx: RuleContext) -> Iterator[Finding]:
    """One finding per extra copy that collides with an earlier one, in one pass: copies in
    the same folder always collide; copies in different folders only when both set their
    namespace (or are cluster-scoped) and differ in content."""
    first = group[0]
    spans_folders = len({_folder(o.file) for o in group}) > 1
    by_folder: Counter[str] = Counter()
    fixed = Counter[Hashable]()  # earlier copies with a fixed namespace: by content, folder, both
    fixed_total = 0
    for obj in group:
        folder = _folder(obj.file)
        content = _content(obj) if spans_folders else None
        is_fixed = not isinstance(obj.namespace, ApplyTimeNamespace)
        elsewhere = fixed_total - fixed[("folder", folder)]
        same_content_elsewhere = fixed[("content", content)] - fixed[("both", folder, content)]
        collides = by_folder[folder] > 0 or (is_fixed and elsewhere - same_content_elsewhere > 0)
        if obj is not first and obj.source == INPUT and collides:
            yield _finding(obj, first, group, ctx)
        by_folder[folder] += 1
        if is_fixed:
            fixed_total += 1
            fixed.update([("folder", folder), ("content", content), ("both", folder, content)])


def _finding(obj: K8sObject, first: K8sObject, group: list[K8sObject], ctx: RuleContext) -> Finding:
    where = first.at_value("metadata", "name")
    others = [o for o in group if o is not obj and o is not first][:MAX_RELATED - 1]
    related = [(where, _related_text("the first definition", first, obj))]
    related += [(o.at_value("metadata", "name"), _related_text("another copy", o, obj)) for o in others]
    return ctx.finding(
        at=obj.at_value("metadata", "name"),
        message=(f"{obj.display()} is defined {len(group)} times among objects applied together (first at "
                 f"{where.file}:{where.line}): kubectl applies the copies in turn and the last one silently "
                 "wins; keep one definition"),
        related=related)


def _related_text(what: str, other: K8sObject, obj: K8sObject) -> str:
    folder = _folder(other.file)
    crossing = f" (in another folder: {folder or '.'})" if folder != _folder(obj.file) else ""
    return f"{what} of the same object{crossing}"


def _content(obj: K8sObject) -> Hashable:
    """The object's fields as a hashable value (positions and comments ignored)."""
    return _frozen(obj.data)


def _frozen(value: Any) -> Hashable:
    if isinstance(value, dict):
        return tuple(sorted(((str(k), _frozen(v)) for k, v in value.items()), key=lambda kv: kv[0]))
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    return (type(value).__name__, str(value)) if not isinstance(value, (str, int, float, bool, type(None))) \
        else value
