"""KQ004: the Kueue webhook checks that depend on the platform's Kueue release and feature gates
(kueue.md B30; ``pkg/features/kube_features.go`` ``defaultVersionedFeatureGates``).

- ``TopologyAwareScheduling`` (beta, on from 0.14): every integration's webhook checks the TAS
  annotations only while it is on (``job_webhook.go`` ``validateCreate``).
- ``TASMultiLayerTopology`` (alpha, off, in 0.17 and 0.18; beta, on, from 0.19): with the gate off,
  ``validateSliceRequiredTopologyConstraintsAnnotation`` (``tas_validation.go``) refuses the
  ``podset-slice-required-topology-constraints`` annotation outright; before 0.17 no release
  knows the annotation and ignores it.
- ``ElasticJobsViaWorkloadSlices`` (alpha, off, from 0.13; beta, on, from 0.18): only with it on
  does ``kueue.x-k8s.io/elastic-job: "true"`` make a job elastic (``workloadslicing.Enabled``).
  Then the Job webhook refuses a required or preferred topology (``validateTopologyRequest``,
  from 0.17), and ``ValidateElasticJobAnnotation`` (``jobframework/validation.go``, from 0.18)
  refuses the annotation on kinds other than Job, RayCluster, RayJob and RayService.

A gate written in the manager's ``featureGates`` or ``--feature-gates`` overrides its default. An
unknown release counts as the newest (rules.md KQ004). Where pins that disagree, or two sources
that set a gate both ways, leave the answer open, only what every possibility refuses is reported.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from kqlint.domain import kinds as K
from kqlint.domain.kueue_config import kueue_gate, kueue_release
from kqlint.domain.kueue_config_facts import KIND_FRAMEWORKS, OPT_IN_FRAMEWORKS
from kqlint.domain.objects import K8sObject
from kqlint.domain.platform import Platform, platform_of
from kqlint.engine.rule import RuleContext
from kqlint.model import Finding

ELASTIC = "kueue.x-k8s.io/elastic-job"
MULTI_LAYER_GATE, SLICING_GATE, TAS_GATE = "TASMultiLayerTopology", "ElasticJobsViaWorkloadSlices", \
    "TopologyAwareScheduling"
ELASTIC_KINDS = frozenset({K.JOB, K.RAYCLUSTER, K.RAYJOB, K.RAYSERVICE})  # supportedElasticJobGVKs
# Integrations whose webhook calls ValidateElasticJobAnnotation. The Pod webhook does too, but which
# pods it sees depends on the webhook's namespace selector and the pods' owners: not judged.
CHECKED_KINDS = frozenset({K.JOBSET, *K.KUBEFLOW_JOBS, K.APPWRAPPER, K.TRAINJOB, K.DEPLOYMENT, K.STATEFULSET,
                           K.LWS})


@dataclass(frozen=True)
class KueueGates:
    """What the platform's Kueue does with the annotations whose handling depends on its release."""

    tas: bool                  # the TAS annotation checks run
    multi_layer: bool | None   # the constraints annotation: accepted (checked), refused, or unknown (ignored)
    elastic_topology: bool     # the Job webhook refuses an elastic Job's required/preferred topology
    elastic_kinds: bool        # ValidateElasticJobAnnotation refuses the annotation on other kinds
    slicing: bool = False      # the elastic-job annotation makes a job elastic (workloadslicing.Enabled)


def kueue_gates(platform: Platform) -> KueueGates:
    def release(minor: int) -> bool | None:
        return kueue_release(platform, minor)

    def gate(name: str, on_since: int) -> bool | None:
        return kueue_gate(platform, name, on_since)

    slicing = release(13) is True and gate(SLICING_GATE, 18) is True
    multi_layer = gate(MULTI_LAYER_GATE, 19)  # open: only what either setting refuses (the layers' syntax)
    return KueueGates(tas=gate(TAS_GATE, 14) is True,
                      multi_layer=multi_layer is not False if release(17) is True else None,
                      elastic_topology=slicing and release(17) is True, elastic_kinds=slicing and release(18) is True,
                      slicing=slicing)


def gates_of(ctx: RuleContext) -> KueueGates:
    return kueue_gates(platform_of(ctx.graph))


# Kueue's job webhooks skip these namespaces (config/components/webhook/kustomization.yaml and the
# Helm chart's namespaceSelector: kube-system and Kueue's own namespace, kueue-system by default)
UNWATCHED_NAMESPACES = frozenset({"kube-system", "kueue-system"})


def webhook_validates(obj: K8sObject, ctx: RuleContext) -> bool:
    """Whether Kueue's webhook for ``obj``'s kind validates it: its integration is enabled (a
    disabled one's webhook is a no-op, ``SetupNoopWebhook``; unknown: one of Kueue's default
    frameworks) and its namespace is one the webhook configuration selects."""
    if str(obj.namespace or "") in UNWATCHED_NAMESPACES:
        return False
    framework = KIND_FRAMEWORKS.get((obj.group, obj.kind), "")
    enabled = platform_of(ctx.graph).integration(framework)
    return not (enabled is False or enabled is None and framework in OPT_IN_FRAMEWORKS)


def is_elastic(obj: K8sObject) -> bool:
    """``workloadslicing.Enabled``: the annotation's value is exactly ``true``."""
    return obj.annotations.get(ELASTIC) == "true"


def elastic_kind_findings(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    """``elastic job is not supported for …`` on an integrated kind other than the four."""
    if (obj.group, obj.kind) not in CHECKED_KINDS or not is_elastic(obj) or not gates_of(ctx).elastic_kinds:
        return
    if not webhook_validates(obj, ctx):
        return
    gvk = f"{obj.group}/{obj.version}, Kind={obj.kind}"
    yield ctx.finding(
        at=obj.at("metadata", "annotations", ELASTIC),
        message=f"{obj.display()}: Kueue's webhook rejects it (`{ELASTIC}: Forbidden: elastic job is not supported "
                f"for \"{gvk}\"`)",
        remedy=f"Only a batch/v1 Job, RayCluster, RayJob or RayService can be elastic: remove {ELASTIC}")
