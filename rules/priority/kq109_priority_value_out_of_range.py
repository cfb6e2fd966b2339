"""
## What it catches
A user PriorityClass the API server refuses: a `value` above 1000000000 (the highest a
user-defined class may have), or a name starting with `system-` that is not exactly a
built-in class (`system-node-critical` 2000001000, `system-cluster-critical` 2000000000,
both `globalDefault: false`). Points at the offending node: the name of an unknown
`system-` class, else the `value`, else `globalDefault`.

## Why it breaks on a cluster
The apply fails (`maximum allowed value of a user defined priority is 1000000000`, or
`priority class names with 'system-' prefix are reserved for system use only`), and every
workload naming the class then has pods rejected at creation (`no PriorityClass with name
... was found`).

## Bad
```yaml
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: ultra-critical
value: 2000000000
```

## Good
```yaml
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: ultra-critical
value: 1000000000
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: system-cluster-critical     # exactly the built-in class
value: 2000000000
```

## How to fix
Keep user classes at or below 1000000000 and do not start their names with `system-`;
to use a built-in class, name it in `priorityClassName` instead of redefining it.
"""
from __future__ import annotations

from collections.abc import Iterator

from kqlint.domain.graph import BUILTIN_PRIORITY_CLASSES
from kqlint.domain.kinds import PRIORITY_CLASS
from kqlint.domain.kueue import HIGHEST_USER_PRIORITY, class_value, is_global_default
from kqlint.domain.objects import K8sObject
from kqlint.engine.rule import RuleContext, RuleMeta
from kqlint.model import Finding, Severity

# findings cache: pure, a PriorityClass's own value and name against constants (the built-in classes)
META = RuleMeta(code="KQ109", slug="priority-value-out-of-range", severity=Severity.ERROR,
                summary="a PriorityClass value above 1000000000 or a reserved system- name",
                kinds=frozenset({PRIORITY_CLASS}),
                pure=True)

RESERVED = "priority class names with 'system-' prefix are reserved for system use only"


def check(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    value = class_value(obj)
    if obj.name.startswith("system-"):
        yield from _system_name(obj, value, ctx)
    elif value is not None and value > HIGHEST_USER_PRIORITY:
        yield ctx.finding(at=obj.at("value"), message=(
            f"PriorityClass {obj.name} has value {value}, above {HIGHEST_USER_PRIORITY}, the maximum for a user "
            f"class: the API server rejects it (\"maximum allowed value of a user defined priority is "
            f"{HIGHEST_USER_PRIORITY}\") and pods naming it are never created"),
            remedy=f"Use a value of at most {HIGHEST_USER_PRIORITY}")


def _system_name(obj: K8sObject, value: int | None, ctx: RuleContext) -> Iterator[Finding]:
    builtin = BUILTIN_PRIORITY_CLASSES.get(obj.name)
    if builtin is None:
        yield ctx.finding(at=obj.at("metadata", "name"), message=(
            f"PriorityClass {obj.name}: {obj.name} is not a known system priority class, and {RESERVED}: "
            "the API server rejects it"), remedy="Rename it without the system- prefix")
    elif value is not None and value != builtin["value"]:
        yield ctx.finding(at=obj.at("value"), message=(
            f"PriorityClass {obj.name} has value {value}, but the built-in {obj.name} must be "
            f"{builtin['value']} ({RESERVED}): the API server rejects it"),
            remedy="Delete this definition: the API server already has the built-in class")
    elif is_global_default(obj) != builtin["globalDefault"]:
        yield ctx.finding(at=obj.at("globalDefault"), message=(
            f"PriorityClass {obj.name} sets globalDefault: true, but the built-in {obj.name} must have "
            f"globalDefault {str(builtin['globalDefault']).lower()} ({RESERVED}): the API server rejects it"),
            remedy="Delete this definition: the API server already has the built-in class")
