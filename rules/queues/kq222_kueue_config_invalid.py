"""
## What it catches
A Kueue manager `Configuration` (the `kueue-manager-config` ConfigMap, key
`controller_manager_config.yaml`) that makes the manager exit at start. One finding per problem,
at the offending key inside the embedded document:
(1) strict decoding: a key the document's `apiVersion` does not have in any Kueue release (such
as v1beta2 `waitForPodsReady.enable`, `fairSharing.enable`, `integrations.podOptions`,
`queueVisibility`), a duplicate key, a value of the wrong type; `config.kueue.x-k8s.io/v1beta2`
where the platform's Kueue is older than 0.15;
(2) an enabled `waitForPodsReady` with a negative `timeout`/`recoveryTimeout`, a `timestamp`
other than `Creation`/`Eviction`, a negative backoff; in v1beta2 a section without `timeout`
on Kueue 0.15-0.18;
(3) `integrations.frameworks` naming a framework no Kueue release (or the platform's release)
knows, or one twice; `externalFrameworks` not in `Kind.version.group` form, or duplicated;
(4) with the `pod` integration, a `managedJobsNamespaceSelector` that matches `kube-system` or
Kueue's namespace (`namespace:`, default `kueue-system`), such as `{}`;
(5) `fairSharing` in v1beta2 without `preemptionStrategies`, or with an unsupported list;
(6) `resources.transformations` with a `strategy` other than `Retain`/`Replace` or the same
`input` twice; `quotaCheckStrategy: IgnoreUndeclared` with `excludeResourcePrefixes` (Kueue 0.19
or later, or unknown);
(7) negative `multiKueue`, `objectRetentionPolicies` or `admissionFairSharing` durations, a
`multiKueue.origin` that is not a label value;
(8) `featureGates` naming a gate the platform's Kueue release does not know (silent for an
unknown version), or `featureGates` while the manager Deployment passes `--feature-gates`.

Positions inside the embedded document are exact for a literal block (`|`); any other scalar
style points at the `controller_manager_config.yaml` key.

## Why it breaks on a cluster
`cmd/kueue/main.go` logs `Unable to load the configuration`, `conflicting feature gates
detected` or `Unable to validate the configuration` and exits with status 1. With no manager, no
Kueue webhook answers (every create of a Kueue object or managed job fails) and no queue admits
anything.

## Bad
```yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: kueue-manager-config
  namespace: kueue-system
data:
  controller_manager_config.yaml: |
    apiVersion: config.kueue.x-k8s.io/v1beta2
    kind: Configuration
    waitForPodsReady:
      enable: true          # v1beta1 only: strict decoding rejects it
      timeout: 10m
```

## Good
```yaml
    apiVersion: config.kueue.x-k8s.io/v1beta2
    kind: Configuration
    waitForPodsReady:
      timeout: 10m
```

## How to fix
Write the document in the fields of its own `apiVersion` (v1beta2 drops `enable`; the section's
presence turns the feature on), fix the value the message names, and set feature gates in one
place only.
"""
from __future__ import annotations

from collections.abc import Iterator

from kqlint.domain.kinds import CORE_GROUP, DEPLOYMENT, GroupKind
from kqlint.domain.kueue_config import configuration_of, gates_flag
from kqlint.domain.kueue_config_checks import GATES, LOAD, ConfigProblem, manager_exits
from kqlint.domain.objects import K8sObject
from kqlint.domain.platform import platform_of
from kqlint.engine.rule import RuleContext, RuleMeta
from kqlint.model import Finding, Severity

CONFIG_MAP = GroupKind(CORE_GROUP, "ConfigMap")
MESSAGE_LIMIT = 240
CONSEQUENCE = ": the Kueue manager exits at start, so no webhook answers and no queue admits anything"

# findings cache: reads its own ConfigMap, the Kueue manager Deployment's --feature-gates and the platform's
# Kueue version (the platform model is in every graph key)
META = RuleMeta(code="KQ222", slug="kueue-config-invalid", severity=Severity.ERROR,
                summary="the kueue-manager-config Configuration makes the Kueue manager exit at start",
                kinds=frozenset({CONFIG_MAP}),
                reads=frozenset({DEPLOYMENT}))


def check(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    config = configuration_of(obj)
    if config is None:
        return
    version = platform_of(ctx.graph).kueue_version
    for problem in manager_exits(config, version, _manager_flag_gates(obj, ctx)):
        at = config.at_text(*problem.text_at) if problem.text_at else config.at(*problem.path)
        room = MESSAGE_LIMIT - len(CONSEQUENCE)
        said = problem.message if len(problem.message) <= room else problem.message[:room - 3] + "..."
        yield ctx.finding(at=at, message=said + CONSEQUENCE, remedy=_remedy(problem))


def _manager_flag_gates(configmap: K8sObject, ctx: RuleContext) -> bool:
    """The Kueue manager Deployment (in the ConfigMap's namespace) passes ``--feature-gates``."""
    return any(gates_flag(deployment, configmap.namespace) is not None
               for deployment in ctx.graph.of_kind("Deployment", "apps"))


def _remedy(problem: ConfigProblem) -> str:
    if problem.message.startswith(LOAD):
        return "Use only the fields and types of the document's apiVersion (remove or rename the key)"
    if problem.message.startswith(GATES):
        return "Set feature gates in one place (featureGates or --feature-gates), with names the release knows"
    return "Correct the value as Kueue's validation message says"
