"""
## What it catches
A container probe (`livenessProbe`, `readinessProbe`, `startupProbe`) in one of the pod
overlays of a KServe `LLMInferenceService` (`serving.kserve.io/v1alpha1` or `v1alpha2`):
`spec.template`, `spec.worker`, `spec.prefill.template` or `spec.prefill.worker` (all four
are bare PodSpecs), that sets fields such as `failureThreshold` or `periodSeconds` but no
handler (`exec`, `httpGet`, `tcpSocket` or `grpc`). An empty probe (`startupProbe: {}`) is
reported too; `startupProbe: null` is not (in a strategic merge it deletes the probe).
One finding per overlay, at the first such probe; the others are listed as related.

## Why it breaks on a cluster
KServe does not use these PodSpecs as written: it strategic-merges them onto well-known
preset `LLMInferenceServiceConfig` templates (and your `baseRefs`), merging containers by
name. A partial probe only tweaks the preset's probe when the preset's container has that
probe. Where it has none (the decode worker presets of many platforms carry no probes),
the merged probe has no handler and the API server rejects every pod with
`livenessProbe: Required value: must specify a handler type`. For `spec.worker` (and
`spec.template` when a worker exists) the pods form one LeaderWorkerSet group: a missing
worker means the group (gang) never fills and the leader waits in Pending too.
kqlint cannot see the presets, so any handler-less probe in an overlay is reported.

## Bad
```yaml
apiVersion: serving.kserve.io/v1alpha2
kind: LLMInferenceService
metadata:
  name: llama-70b
  namespace: serving
spec:
  model:
    uri: hf://meta-llama/Llama-3.1-70B-Instruct
  parallelism:
    tensor: 8
    data: 2
    dataLocal: 1
  template:
    containers:
      - name: main
  worker:
    containers:
      - name: main
        startupProbe:
          failureThreshold: 120   # no handler: the worker pod is rejected
```

## Good
```yaml
apiVersion: serving.kserve.io/v1alpha2
kind: LLMInferenceService
metadata:
  name: llama-70b
  namespace: serving
spec:
  model:
    uri: hf://meta-llama/Llama-3.1-70B-Instruct
  parallelism:
    tensor: 8
    data: 2
    dataLocal: 1
  template:
    containers:
      - name: main
  worker:
    containers:
      - name: main
        startupProbe:             # the whole probe, handler included
          httpGet:
            path: /health
            port: 8000
          failureThreshold: 120
          periodSeconds: 10
```

## How to fix
Write the whole probe, handler included (`httpGet`, `tcpSocket`, `exec` or `grpc`), not
just the fields you want to change; or leave the probe out entirely and let the preset's
probe apply. To drop a preset's probe, set it to `null`.
"""
from __future__ import annotations

from collections.abc import Iterator

from kqlint.domain.kinds import LLMISVC
from kqlint.domain.objects import K8sObject
from kqlint.domain.podspec import PROBE_HANDLERS, Container, containers, handlerless_probes
from kqlint.domain.workloads import PodTemplate, own_templates
from kqlint.engine.rule import RuleContext, RuleMeta
from kqlint.model import Finding, Location, Severity

# findings cache: pure, the probes of an LLMInferenceService's own overlay pod specs
META = RuleMeta(code="KQ306", slug="partial-probe-override", severity=Severity.ERROR,
                summary="an LLMInferenceService overlay sets a probe without a handler",
                kinds=frozenset({LLMISVC}),
                pure=True)

# The overlays KServe merges onto its presets, each with the worker that makes its pods a gang.
OVERLAYS: dict[tuple[str, ...], tuple[str, ...]] = {
    ("spec", "template"): ("spec", "worker"),
    ("spec", "worker"): ("spec", "worker"),
    ("spec", "prefill", "template"): ("spec", "prefill", "worker"),
    ("spec", "prefill", "worker"): ("spec", "prefill", "worker"),
}
HANDLERS = ", ".join(PROBE_HANDLERS[:-1]) + f" or {PROBE_HANDLERS[-1]}"


def check(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    for template in _overlays(obj, ctx):
        bad = [(c, key) for c in containers(template.spec) for key in handlerless_probes(c)]
        if bad:
            yield _finding(obj, template, bad, ctx)


def _overlays(obj: K8sObject, ctx: RuleContext) -> list[PodTemplate]:
    """The overlay templates written in ``obj``, each once (a worker may back the leader)."""
    return [t for t in own_templates(obj, ctx.graph) if tuple(t.spec_path) in OVERLAYS]


def _finding(obj: K8sObject, template: PodTemplate, bad: list[tuple[Container, str]],
             ctx: RuleContext) -> Finding:
    (first, key), rest = bad[0], bad[1:]
    overlay = ".".join(template.spec_path)
    message = (f"{obj.display()}: {overlay} container `{first.name}` {key} has no handler: merged onto a "
               f"preset container without one, the API server rejects the pod{_consequence(obj, template)}")
    related = [(_at(template, c, k), f"{overlay} container `{c.name}` {k} has no handler either")
               for c, k in rest]
    return ctx.finding(at=_at(template, first, key), message=message, related=related,
                       remedy=(f"Write the whole probe with its handler ({HANDLERS}), e.g. "
                               "`httpGet: {path: /health, port: 8000}`, or remove it (KServe strategic-merges "
                               f"{overlay} onto its preset LLMInferenceServiceConfig by container name)"))


def _at(template: PodTemplate, container: Container, key: str) -> Location:
    return template.at(*container.path, key)


def _consequence(obj: K8sObject, template: PodTemplate) -> str:
    worker = OVERLAYS[tuple(template.spec_path)]
    if isinstance(obj.get(*worker), dict):
        return "; the LeaderWorkerSet group never fills"
    return "; the Deployment never gets a running pod"
