"""
## What it catches
A Kubeflow job (PyTorchJob, TFJob, XGBoostJob, JAXJob, PaddleJob, MPIJob) sent to KAI (a pod
template's `schedulerName` is in `kai-scheduler-names`, default `kai-scheduler`) with a
replica spec whose `replicas` is unset or 0. One finding per such replica spec.

## Why it breaks on a cluster
KAI's pod grouper reads the job as stored, before any operator defaulting, and computes the
gang size from every replica spec's `replicas`. When one is missing or 0 it returns an error
instead of a PodGroup, so no pod of the job is ever scheduled. (An unset MPIJob Worker
`replicas` also defaults to 0: no workers at all.)

## Bad
```yaml
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: train
  labels:
    kai.scheduler/queue: team-a
spec:
  pytorchReplicaSpecs:
    Master:
      template:
        spec:
          schedulerName: kai-scheduler
          containers: [{name: pytorch, image: torch}]
    Worker:
      replicas: 4
      template:
        spec:
          schedulerName: kai-scheduler
          containers: [{name: pytorch, image: torch}]
```

## Good
```yaml
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: train
  labels:
    kai.scheduler/queue: team-a
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          schedulerName: kai-scheduler
          containers: [{name: pytorch, image: torch}]
    Worker:
      replicas: 4
      template:
        spec:
          schedulerName: kai-scheduler
          containers: [{name: pytorch, image: torch}]
```

## How to fix
Write `replicas:` explicitly (at least 1) in every replica spec of the job, or remove a
replica type you do not want.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from kqlint.domain.kinds import KUBEFLOW_JOBS
from kqlint.domain.objects import K8sObject
from kqlint.domain.workloads import (
    KAI_SCHEDULER_NAMES,
    ReplicaSpec,
    own_templates,
    replica_specs,
)
from kqlint.engine.rule import RuleContext, RuleMeta
from kqlint.fix.model import Edit, Fix
from kqlint.model import Finding, Severity

# findings cache: pure, a Kubeflow job's own replica specs and templates, options
META = RuleMeta(code="KQ307", slug="kubeflow-replicas-unset", severity=Severity.WARNING,
                summary="a Kubeflow job sent to KAI has a replica spec without replicas",
                kinds=frozenset(KUBEFLOW_JOBS), fix="safe",
                pure=True)


@dataclass(frozen=True)
class Options:
    kai_scheduler_names: tuple[str, ...] = KAI_SCHEDULER_NAMES


def check(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    kai = [t for t in own_templates(obj) if t.scheduler_name in ctx.options.kai_scheduler_names]
    if not kai:
        return
    for spec in replica_specs(obj):
        if spec.has_replicas and spec.raw_replicas != 0:
            continue
        state = "replicas: 0" if spec.has_replicas else "no replicas"
        yield ctx.finding(
            obj.at(*spec.path, "replicas"),
            f"{obj.display()}: replica spec {spec.role} has {state} and the job goes to KAI "
            f"({kai[0].scheduler_name}): KAI's pod grouper refuses a Kubeflow job whose replica specs "
            "do not all set replicas above 0, so none of its pods is scheduled",
            remedy=f"Set {spec.role}.replicas explicitly",
            related=[(kai[0].at("schedulerName"), f"template {kai[0].role} goes to KAI")],
            fix=explicit_replicas_fix(obj, spec))


def explicit_replicas_fix(obj: K8sObject, spec: ReplicaSpec) -> Fix | None:
    """``replicas`` written as the operator defaults it (1); ``replicas: 0`` and a type that
    defaults to 0 (MPIJob Worker) are a decision: not offered."""
    if spec.has_replicas or spec.replicas <= 0 or not isinstance(obj.get(*spec.path), dict):
        return None
    return Fix.safe(f"Set {spec.role}.replicas: {spec.replicas}", Edit.insert(spec.path, "replicas", spec.replicas))
