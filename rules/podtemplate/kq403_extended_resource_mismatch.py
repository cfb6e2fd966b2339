"""
## What it catches
A container (or init container) in a pod template, or a TrainJob's
`spec.trainer.resourcesPerNode`, that requests an extended resource (a name with a domain
outside `kubernetes.io`, such as `nvidia.com/gpu` or `nvidia.com/mlnxnics`) or a
`hugepages-*` resource and either sets a different limit for it, or sets no limit at all.
Quantities are compared by value: `1`, `"1"` and `"1000m"` are equal. A limit alone is fine.
A request without a limit in Dynamo's main container is not reported: the operator merges
that container onto its default one, which carries the service-level `resources` limits.
One finding per pod template, at the limit of the first offending resource (at `limits`,
or `resources`, when the limit is missing); its request and the other offenders are related.

## Why it breaks on a cluster
Extended resources and hugepages cannot be overcommitted. The API server rejects a
container whose request differs from its limit
(`requests[nvidia.com/gpu]: Invalid value: "2": must be equal to nvidia.com/gpu limit of 4`)
and one with a request but no limit
(`limits: Required value: Limit must be set for non overcommitable resources`).
A Deployment or Job is refused at apply time; for operator-managed workloads every pod the
operator creates is refused, so the workload never starts and a gang never fills.

## Bad
```yaml
apiVersion: batch/v1
kind: Job
metadata:
  name: train
  namespace: ml
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: train
          image: ghcr.io/example/train:1.0
          resources:
            requests:
              nvidia.com/gpu: 8     # request without a limit
```

## Good
```yaml
apiVersion: batch/v1
kind: Job
metadata:
  name: train
  namespace: ml
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: train
          image: ghcr.io/example/train:1.0
          resources:
            requests:
              cpu: "4"              # cpu may differ: it can be overcommitted
              nvidia.com/gpu: "8"
            limits:
              cpu: "8"
              nvidia.com/gpu: 8     # the same quantity as the request
```

## How to fix
Set the limit equal to the request, or write the resource only under `limits` (the request
then defaults to the limit, which is what the Kubernetes docs recommend for GPUs).
`kqlint check --fix` does the first (safe): a limit that differs from its request is set to
the request, and a missing limit is added equal to the request. Requests are never changed:
they are what the scheduler places and Kueue's quota admits, so the fix keeps the footprint
the manifest asks for and never raises how much of a scarce device it takes.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from typing import Any

from kqlint.domain.objects import K8sObject
from kqlint.domain.podspec import (
    containers,
    format_quantity,
    operator_defaulted,
    overcommit_forbidden,
    parse_quantity,
    per_node_resources_path,
    resource_list,
    template_label,
)
from kqlint.domain.workloads import PodTemplate, own_templates
from kqlint.engine.rule import RuleContext, RuleMeta
from kqlint.fix.model import Edit, Fix
from kqlint.model import Finding, Location, Severity

# findings cache: pure, the resources of the pod templates the object owns and its own resourcesPerNode
META = RuleMeta(code="KQ403", slug="extended-resource-mismatch", severity=Severity.ERROR,
                summary="an extended or hugepages resource has requests not equal to limits", fix="safe",
                pure=True)


@dataclass(frozen=True)
class Problem:
    at: Location        # the limit entry (when missing: `limits`, or `resources`)
    request_at: Location
    where: str          # "pod template Worker, container `pytorch`"
    name: str
    request: Any
    limit: Any          # None: no limit

    def describe(self) -> str:
        if self.limit is None:
            return f"{self.where} requests {self.name}: {format_quantity(self.request)} without a limit"
        return (f"{self.where} requests {self.name}: {format_quantity(self.request)} "
                f"but limits it to {format_quantity(self.limit)}")


def check(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    groups = [_template_problems(t) for t in own_templates(obj, ctx.graph)]
    path = per_node_resources_path(obj)
    if path is not None:
        groups.append(_problems(obj.get(*path), partial(obj.at, *path), ".".join(path)))
    for problems in groups:
        if problems:
            yield _finding(obj, problems, ctx)


def _template_problems(template: PodTemplate) -> list[Problem]:
    found: list[Problem] = []
    for container in containers(template.spec):
        where = f"{template_label(template)}, container `{container.name}`"
        problems = _problems(container.resources, partial(template.at, *container.path, "resources"), where)
        if operator_defaulted(template, container):  # the operator may supply the limit
            problems = [p for p in problems if p.limit is not None]
        found += problems
    return found


def _problems(requirements: Any, at: Callable[..., Location], where: str) -> list[Problem]:
    """Requests of non-overcommittable resources that the API server refuses."""
    limits = resource_list(requirements, "limits")
    found = []
    for name, request in resource_list(requirements, "requests").items():
        if not overcommit_forbidden(name) or parse_quantity(request) is None:
            continue
        limit = limits.get(name)
        if limit is None or (parse_quantity(limit) is not None
                             and parse_quantity(limit) != parse_quantity(request)):
            found.append(Problem(at("limits", name), at("requests", name), where, name, request, limit))
    return found


def _finding(obj: K8sObject, problems: list[Problem], ctx: RuleContext) -> Finding:
    first, rest = problems[0], problems[1:]
    also = f" (and {len(rest)} more)" if rest else ""
    message = (f"{obj.display()}: {first.describe()}{also}: the API server rejects the pod, as extended "
               "resources and hugepages cannot be overcommitted")
    related = [(first.request_at, f"the request of {first.name}")]
    related += [(p.at, p.describe()) for p in rest]
    return ctx.finding(at=first.at, message=message, related=related, fix=_fix(obj, problems),
                       remedy=f"Set the limit equal to the request, or write {first.name} only under limits")


def _fix(obj: K8sObject, problems: list[Problem]) -> Fix:
    """Limits set to their requests; missing limits added equal to the requests."""
    edits: list[Edit] = []
    missing: dict[tuple[Any, ...], dict[str, Any]] = {}  # resources path -> limits to add
    for problem in problems:
        if problem.limit is not None:
            edits.append(Edit.replace(problem.at.path, _written_like(problem.request, problem.limit)))
        else:
            missing.setdefault(problem.request_at.path[:-2], {})[problem.name] = problem.request
    for resources, limits in missing.items():
        if isinstance(obj.get(*resources, "limits"), dict) and obj.get(*resources, "limits"):
            edits += [Edit.insert(resources + ("limits",), name, value) for name, value in limits.items()]
        else:
            edits.append(Edit.insert(resources, "limits", limits))
    return Fix.safe("Set extended-resource limits equal to their requests", *edits)


def _written_like(request: Any, limit: Any) -> Any:
    """The request's quantity in the limit's spelling: a quoted limit stays a string, a bare
    integer limit stays an integer when the request is a plain integer."""
    if isinstance(limit, str):
        return str(request)
    if isinstance(request, str) and request.isdigit():
        return int(request)
    return request
