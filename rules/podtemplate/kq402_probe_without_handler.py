"""
## What it catches
A container probe (`livenessProbe`, `readinessProbe` or `startupProbe`) of any container or
init container in a pod template that sets no handler: none of `exec`, `httpGet`,
`tcpSocket` or `grpc`. An empty probe (`readinessProbe: {}`) counts; a null one does not.
One finding per such probe, at its key (e.g. `livenessProbe:`): each one is rejected on its own
and each needs its own handler.
Not judged: LLMInferenceService probes (KQ306's: its pod specs are overlays merged onto
presets), the Dynamo main container (`extraPodSpec.mainContainer`, or the container named
`main` in a DynamoGraphDeployment: the operator merges it onto its default container, whose
default probes carry the handlers), and lifecycle hooks (`postStart`/`preStop`).

## Why it breaks on a cluster
The API server requires exactly one handler per probe and refuses the pod with
`spec.containers[0].livenessProbe: Required value: must specify a handler type`.
A Deployment or Job with such a template is refused at apply time; an operator-managed
workload (PyTorchJob, JobSet, RayCluster ...) is accepted, but every pod the operator
creates from the template is refused, so the workload never runs and a gang never fills.

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
          livenessProbe:          # timing only, no handler
            periodSeconds: 30
            failureThreshold: 5
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
          livenessProbe:
            exec:
              command: ["cat", "/tmp/healthy"]
            periodSeconds: 30
            failureThreshold: 5
```

## How to fix
Give every probe exactly one handler (`httpGet`, `tcpSocket`, `exec` or `grpc`), or remove
the probe.
"""
from __future__ import annotations

from collections.abc import Iterator

from kqlint.domain.kinds import LLMISVC
from kqlint.domain.objects import K8sObject
from kqlint.domain.podspec import (
    PROBE_HANDLERS,
    Container,
    containers,
    handlerless_probes,
    operator_defaulted,
    probe_fields,
    template_label,
)
from kqlint.domain.workloads import PodTemplate, own_templates
from kqlint.engine.rule import RuleContext, RuleMeta
from kqlint.model import Finding, Severity

# findings cache: pure, the probes of the pod templates the object owns (graph: template cache only)
META = RuleMeta(code="KQ402", slug="probe-without-handler", severity=Severity.ERROR,
                summary="a container probe has no exec, httpGet, tcpSocket or grpc handler",
                pure=True)

HANDLERS = ", ".join(PROBE_HANDLERS[:-1]) + f" or {PROBE_HANDLERS[-1]}"
KQ306_KIND = LLMISVC  # KQ306 owns its probes


def check(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    if (obj.group, obj.kind) == KQ306_KIND:
        return
    for template in own_templates(obj, ctx.graph):
        for container in containers(template.spec):
            if operator_defaulted(template, container):
                continue
            for key in handlerless_probes(container):
                yield _finding(obj, template, container, key, ctx)


def _finding(obj: K8sObject, template: PodTemplate, container: Container, key: str,
             ctx: RuleContext) -> Finding:
    message = (f"{obj.display()}: {template_label(template)}, container `{container.name}` {key} "
               f"has no handler ({probe_fields(container.data[key])}): the API server rejects every pod "
               "of this template (`must specify a handler type`)")
    return ctx.finding(at=template.at(*container.path, key), message=message,
                       remedy=(f"Give the probe exactly one handler ({HANDLERS}), e.g. `tcpSocket: {{port: 8080}}`, "
                               "or remove it"))
