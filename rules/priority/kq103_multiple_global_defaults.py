"""
## What it catches
More than one PriorityClass with `globalDefault: true` (counted once per name across the
inputs, `--context`, config `external` and the profile). Every such class in the inputs is
reported at its `globalDefault` key; `related` lists the other defaults.

## Why it breaks on a cluster
The API server admits only one default: applying the second fails with `PriorityClass
<existing> is already marked as default. Only one default can exist`, so the apply
breaks halfway. If a race still leaves two, pods without a class get the one with the
lowest value, which may not be the one you meant.

## Bad
```yaml
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: batch-default
value: 0
globalDefault: true
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: serving-default
value: 1000
globalDefault: true
```

## Good
```yaml
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: batch-default
value: 0
globalDefault: true
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: serving
value: 1000
globalDefault: false
```

## How to fix
Keep `globalDefault: true` on exactly one PriorityClass (usually the lowest, non-preempting
one) and set the others to `false`; give workloads that need another class an explicit
`priorityClassName`.
"""
from __future__ import annotations

from collections.abc import Iterator

from kqlint.domain.graph import ObjectGraph
from kqlint.domain.kueue import class_location, class_value, global_defaults
from kqlint.domain.objects import INPUT
from kqlint.engine.rule import RuleContext, RuleMeta
from kqlint.model import Finding, Severity

META = RuleMeta(code="KQ103", slug="multiple-global-defaults", severity=Severity.ERROR,
                summary="more than one PriorityClass has globalDefault: true", scope="graph")


def check_graph(graph: ObjectGraph, ctx: RuleContext) -> Iterator[Finding]:
    defaults = global_defaults(graph)
    if len(defaults) < 2:
        return
    for pc in defaults:
        if pc.source != INPUT:
            continue
        others = [other for other in defaults if other is not pc]
        names = ", ".join(f"{o.name} ({class_value(o)})" for o in others)
        message = (f"PriorityClass {pc.name} has globalDefault: true, and so does {names}: the API server "
                   f"admits only one (the second apply fails: \"Only one default can exist\"), "
                   "and pods without a class would get the lowest-valued one")
        related = [(class_location(o, "globalDefault"), f"PriorityClass {o.name} is a global default too")
                   for o in others]
        yield ctx.finding(at=pc.at("globalDefault"), message=message, related=related,
                          remedy="Keep globalDefault: true on one class only")
