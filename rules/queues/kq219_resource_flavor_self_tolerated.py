"""
## What it catches
A ResourceFlavor whose own `spec.tolerations` tolerate one of its own `spec.nodeTaints` with
effect `NoSchedule` or `NoExecute`. One finding per tolerated taint, at the first toleration
that tolerates it, with `related` the taint.

Silent where the platform's Kueue is older than 0.10: flavor tolerations were not part of the
admission check before (kueue#3722). An unknown version counts as a maintained release.

## Why it breaks on a cluster
Kueue's flavor assigner checks a flavor's taints against the pod's tolerations *plus* the
flavor's own (`checkFlavorForPodSets`), so it ignores this taint at admission: workloads that do
not tolerate it get the flavor, and Kueue injects the flavor's toleration into their pods. A
tainted flavor meant to be reserved for the workloads that tolerate it is open to every workload
of the ClusterQueue (kueue#4646; Kueue's `resource_flavor.md`: "the taints are not considered
during admission").

## Bad
```yaml
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: reserved-h100
spec:
  nodeLabels:
    pool: reserved
  nodeTaints:
  - key: reserved
    value: "true"
    effect: NoSchedule
  tolerations:
  - key: reserved          # tolerates the flavor's own taint
    operator: Exists
```

## Good
Either keep the taint and let users tolerate it (user-selective), or drop the taint and let
Kueue inject the toleration (automatic):
```yaml
spec:
  nodeLabels:
    pool: reserved
  nodeTaints:
  - key: reserved
    value: "true"
    effect: NoSchedule
```

## How to fix
Decide who may use the flavor. To reserve it, drop the toleration from the flavor: only
workloads that tolerate the taint themselves get it. To give it to every workload, drop the
taint from the flavor (the nodes keep theirs; Kueue injects the toleration).
"""
from __future__ import annotations

from collections.abc import Iterator

from kqlint.domain.fields import indexed_mappings
from kqlint.domain.kinds import RESOURCE_FLAVOR
from kqlint.domain.kueue.flavors import BLOCKING_EFFECTS, taint_text, tolerates
from kqlint.domain.objects import K8sObject
from kqlint.domain.platform import platform_of
from kqlint.engine.rule import RuleContext, RuleMeta
from kqlint.model import Finding, Severity

FLAVOR_TOLERATIONS_SINCE = (0, 10)  # kueue#3722 (commit bbbdd95560), kueue.md B25

# findings cache: reads only its own ResourceFlavor and the platform's Kueue version (the platform
# model is in every graph key); its own kind is named because a declaration names one
META = RuleMeta(code="KQ219", slug="resource-flavor-self-tolerated", severity=Severity.WARNING,
                summary="a ResourceFlavor tolerates its own taint, so Kueue ignores the taint at admission",
                kinds=frozenset({RESOURCE_FLAVOR}),
                reads=frozenset({RESOURCE_FLAVOR}))


def check(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    if platform_of(ctx.graph).kueue_at_least(*FLAVOR_TOLERATIONS_SINCE) is False:
        return
    tolerations = list(indexed_mappings(obj.get("spec", "tolerations")))
    for t, taint in indexed_mappings(obj.get("spec", "nodeTaints")):
        if taint.get("effect") not in BLOCKING_EFFECTS:
            continue  # PreferNoSchedule is ignored at admission anyway
        matching = next((i for i, toleration in tolerations if tolerates(toleration, taint)), None)
        if matching is None:
            continue
        shown = taint_text(taint)
        yield ctx.finding(
            at=obj.at("spec", "tolerations", matching),
            message=(f"ResourceFlavor {obj.name} tolerates its own taint {shown}, so Kueue ignores the taint at "
                     "admission: workloads without the toleration get this flavor, and Kueue injects the "
                     "toleration into their pods"),
            related=[(obj.at("spec", "nodeTaints", t), f"the taint {shown} this toleration cancels")],
            remedy=("To reserve the flavor, drop this toleration (users must tolerate the taint); to let every "
                    "workload use it, drop the taint from the flavor's nodeTaints"))
