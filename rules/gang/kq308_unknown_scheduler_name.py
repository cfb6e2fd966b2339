"""
## What it catches
A pod template (or bare Pod, or a Volcano Job's `spec.schedulerName`) whose `schedulerName` is
no scheduler kqlint knows **and** is within two edits (Damerau–Levenshtein, ignoring case; names
of 4 or more characters) of one that it knows: `vocalno` for `volcano`, `kai-schduler` for
`kai-scheduler`, `defualt-scheduler`. Known names: `default-scheduler`; the options
`volcano-scheduler-names`, `kai-scheduler-names`, `coscheduling-scheduler-names` and
`scheduler-names`; and names the repository sets up: `profiles[].schedulerName` of a
`KubeSchedulerConfiguration` (a file, or text in a ConfigMap), `--scheduler-name` in the
arguments of a Deployment's, StatefulSet's, DaemonSet's or Pod's container, and
`schedulerName:` in a Volcano admission ConfigMap. A name far from every known one (`yunikorn`,
`volcano-gpu`) is not reported: clusters run custom schedulers.

## Why it breaks on a cluster
No scheduler claims pods whose `schedulerName` it does not own: they stay Pending forever with
no event explaining why (volcano-sh/volcano#604).

## Bad
```yaml
apiVersion: batch/v1
kind: Job
metadata:
  name: pretrain
spec:
  template:
    spec:
      schedulerName: vocalno
      restartPolicy: Never
      containers:
      - name: main
        image: trainer:1.0
```

## Good
```yaml
apiVersion: batch/v1
kind: Job
metadata:
  name: pretrain
spec:
  template:
    spec:
      schedulerName: volcano
      restartPolicy: Never
      containers:
      - name: main
        image: trainer:1.0
```

## How to fix
Correct the name (`kqlint check --fix` does when exactly one known name is closest). If the
cluster runs a scheduler of that name, list it in the option `scheduler-names`.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from kqlint.domain.kinds import VOLCANO_JOB
from kqlint.domain.objects import K8sObject
from kqlint.domain.workloads import (
    COSCHEDULING_SCHEDULER_NAMES,
    KAI_SCHEDULER_NAMES,
    VOLCANO_SCHEDULER_NAMES,
    is_workload,
    own_templates,
)
from kqlint.engine.rule import RuleContext, RuleMeta
from kqlint.fix.model import Edit, Fix
from kqlint.model import Finding, Location, Severity
from kqlint.rules.gang._scheduler_names import closest_names, known_scheduler_names

META = RuleMeta(code="KQ308", slug="unknown-scheduler-name", severity=Severity.ERROR,
                summary="a schedulerName is a typo of a known scheduler: no scheduler claims the pods",
                fix="safe")


@dataclass(frozen=True)
class Options:
    scheduler_names: tuple[str, ...] = ()
    volcano_scheduler_names: tuple[str, ...] = VOLCANO_SCHEDULER_NAMES
    kai_scheduler_names: tuple[str, ...] = KAI_SCHEDULER_NAMES
    coscheduling_scheduler_names: tuple[str, ...] = COSCHEDULING_SCHEDULER_NAMES


def check(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    if not is_workload(obj):
        return
    sites: list[tuple[str, Location, tuple[Any, ...]]] = []
    if VOLCANO_JOB.of(obj) and isinstance(obj.get("spec", "schedulerName"), str):
        sites.append((obj.get("spec", "schedulerName"), obj.at_value("spec", "schedulerName"),
                      ("spec", "schedulerName")))
    for template in own_templates(obj):
        name = template.spec.get("schedulerName") if isinstance(template.spec, dict) else None
        if isinstance(name, str):
            path = (*template.spec_path, "schedulerName")
            sites.append((name, obj.at_value(*path), path))
    if not sites:
        return
    known = _known(ctx)
    for name, at, path in sites:
        if name in known:
            continue
        closest = closest_names(name, known)
        if not closest:
            continue
        fix = Fix.safe(f"Replace `{name}` with `{closest[0]}`", Edit.replace(path, closest[0])) \
            if len(closest) == 1 else None
        shown = " or ".join(f"`{c}`" for c in closest)
        yield ctx.finding(
            at=at, fix=fix, remedy=f"Write {shown}, or list `{name}` in the option `scheduler-names` if it exists",
            message=(f"{obj.display()}: schedulerName `{name}` is no scheduler kqlint knows (did you mean {shown}?): "
                     "no scheduler claims the pods, they stay Pending with no event"))


def _known(ctx: RuleContext) -> frozenset[str]:
    options = ctx.options
    configured = (*options.scheduler_names, *options.volcano_scheduler_names,
                  *options.kai_scheduler_names, *options.coscheduling_scheduler_names)
    return known_scheduler_names(ctx.graph, configured)
