"""
## What it catches
A batch Job without the team's cost-center label (a test plugin written only against
`kqlint.plugin`, the plugin author's API).

## Why it breaks on a cluster
The cluster's chargeback cannot bill the Job's pods to a team.

## Bad
```yaml
apiVersion: batch/v1
kind: Job
metadata: {name: train}
```

## Good
```yaml
apiVersion: batch/v1
kind: Job
metadata: {name: train, labels: {acme.io/cost-center: ml}}
```

## How to fix
Add the label.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from kqlint.plugin import Finding, GroupKind, K8sObject, RuleContext, RuleMeta, Run, Severity

META = RuleMeta(code="ACME001", slug="acme-cost-center", severity=Severity.WARNING,
                summary="a batch Job has no cost-center label",
                kinds=frozenset({GroupKind("batch", "Job")}))  # not Volcano's batch.volcano.sh Job


@dataclass(frozen=True)
class Options:  # config: rules: {ACME001: {label: ...}}
    label: str = "acme.io/cost-center"


def prepare(run: Run) -> str:
    """Once per run: what ``ctx.state`` holds (here, the run's default namespace)."""
    return run.config.namespace


def check(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    if ctx.options.label not in obj.labels:
        where = obj.at("metadata", "labels") if obj.has("metadata", "labels") else obj.at("metadata")
        default = " (the run's default namespace)" if obj.namespace == ctx.state else ""
        yield ctx.finding(at=where, message=f"{obj.display()}{default}: add the {ctx.options.label} label")
