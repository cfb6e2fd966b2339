"""
## What it catches
A multi-node LLMInferenceService (one with `spec.worker`) that sets `schedulerName` in some
but not all of its pod specs: `spec.template`, `spec.worker`, `spec.prefill.template` and
`spec.prefill.worker`. All four are bare PodSpecs; one that is absent creates no pods and is
not counted. One finding per pod spec that lacks the name.

## Why it breaks on a cluster
KServe turns `spec.template` into the LeaderWorkerSet leader and `spec.worker` into its
workers (the same for prefill). Each PodSpec is merged onto its own preset only; KServe never
carries a `schedulerName` from one pod spec to another. A pod spec without it goes to `default-scheduler`,
so the leader and the workers land on different schedulers, the gang scheduler's group never
fills, and the multi-node replica never serves.

## Bad
```yaml
apiVersion: serving.kserve.io/v1alpha2
kind: LLMInferenceService
metadata:
  name: llama-70b
spec:
  model:
    uri: hf://meta-llama/Llama-3.1-70B-Instruct
  parallelism:
    tensor: 8
    pipeline: 2
  template:
    schedulerName: kai-scheduler
    containers:
    - name: main
      image: vllm/vllm-openai:latest
  worker:
    containers:
    - name: main
      image: vllm/vllm-openai:latest
```

## Good
```yaml
apiVersion: serving.kserve.io/v1alpha2
kind: LLMInferenceService
metadata:
  name: llama-70b
spec:
  model:
    uri: hf://meta-llama/Llama-3.1-70B-Instruct
  parallelism:
    tensor: 8
    pipeline: 2
  template:
    schedulerName: kai-scheduler
    containers:
    - name: main
      image: vllm/vllm-openai:latest
  worker:
    schedulerName: kai-scheduler
    containers:
    - name: main
      image: vllm/vllm-openai:latest
```

## How to fix
Set the same `schedulerName` in every pod spec the service has (`template`, `worker`, and
the `prefill` ones when present), or in none of them.
"""
from __future__ import annotations

from collections.abc import Iterator

from kqlint.domain.fields import text
from kqlint.domain.kinds import LLMISVC
from kqlint.domain.objects import K8sObject
from kqlint.domain.workloads import own_templates
from kqlint.engine.rule import RuleContext, RuleMeta
from kqlint.model import Finding, Severity

# findings cache: pure, an LLMInferenceService's own pod specs
META = RuleMeta(code="KQ305", slug="incomplete-scheduler-name", severity=Severity.ERROR,
                summary="a multi-node LLMInferenceService sets schedulerName in only some pod specs",
                kinds=frozenset({LLMISVC}),
                pure=True)


def check(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    if not isinstance(obj.get("spec", "worker"), dict):
        return
    present = [t for t in own_templates(obj) if isinstance(obj.get(*t.spec_path), dict)]
    named = [t for t in present if _has_name(t.spec.get("schedulerName"))]
    if not named or len(named) == len(present):
        return
    more = f" (and {len(named) - 1} more)" if len(named) > 1 else ""
    names = f"spec.{named[0].role} sets {named[0].scheduler_name}{more}"
    for tpl in present:
        if tpl not in named:
            yield ctx.finding(
                tpl.at("schedulerName"),
                f"{obj.display()}: spec.{tpl.role} has no schedulerName while {names}: KServe does not "
                "copy schedulerName between pod specs, so these pods go to default-scheduler and the gang "
                "never fills",
                related=[(t.at("schedulerName"), f"spec.{t.role} sets it") for t in named],
                remedy=f"Set schedulerName: {named[0].scheduler_name} here too")


def _has_name(value: object) -> bool:
    return text(value) is not None
