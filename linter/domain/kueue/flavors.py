"""Kueue's per-flavor checks for one pod set (kueue.md B23): the one model KQ210, KQ217 and KQ218
answer from, mirroring ``checkFlavorForPodSets`` in Kueue's
``pkg/scheduler/flavorassigner/flavorassigner.go`` (TAS, kqlint.domain.kueue.tas, then taints,
then node affinity).

What a pod set brings: its template's ``tolerations``, ``nodeSelector`` and required node
affinity. What a flavor brings: ``spec.nodeLabels``, ``spec.nodeTaints`` and ``spec.tolerations``.
Only the flavor's own label keys are compared (Kueue 0.17.8, 0.18.2, 0.19.0 and later; the older
union of the group's keys is stricter, so a rejection here holds on every version).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kqlint.domain.fields import strings
from kqlint.domain.kinds import KUEUE_GROUP
from kqlint.domain.kueue.quota import group_flavors, resource_groups
from kqlint.domain.objects import CONTEXT, INPUT

if TYPE_CHECKING:
    from kqlint.domain.graph import ObjectGraph
    from kqlint.domain.kueue.podsets import PodSet
    from kqlint.domain.objects import K8sObject
    from kqlint.domain.workloads.templates import PodTemplate

BLOCKING_EFFECTS = ("NoSchedule", "NoExecute")  # PreferNoSchedule is ignored at admission
TOLERATIONS, NODE_SELECTOR, AFFINITY = "tolerations", "nodeSelector", "affinity"
TOPOLOGY = "topology"  # rejected by Topology Aware Scheduling (kqlint.domain.kueue.tas), checked first
# a flavor -> Kueue's TAS reason for one pod set, None when it matches (kqlint.domain.kueue.tas.tas_verdict)
TasVerdict = Callable[["K8sObject"], "str | None"]


@dataclass(frozen=True)
class FlavorCheck:
    """Whether one flavor suits a pod set; when not, Kueue's reason and the pod spec key at fault."""

    flavor: K8sObject
    reason: str | None = None     # "untolerated taint ... in flavor X" / "flavor X doesn't match node affinity"
    blocker: str | None = None    # TOPOLOGY, TOLERATIONS, NODE_SELECTOR or AFFINITY

    @property
    def fits(self) -> bool:
        return self.reason is None


def check_flavor(pod_spec: dict[str, Any], flavor: K8sObject, tas: TasVerdict | None = None) -> FlavorCheck:
    """Kueue's verdict on ``flavor`` for a pod set with ``pod_spec``: TAS first (when ``tas`` is
    given), then taints, then affinity."""
    reason = tas(flavor) if tas is not None else None
    if reason is not None:
        return FlavorCheck(flavor, reason, TOPOLOGY)
    spec = flavor.get("spec")
    spec = spec if isinstance(spec, dict) else {}
    tolerations = _mappings(pod_spec.get("tolerations")) + _mappings(spec.get("tolerations"))
    taint = untolerated_taint(_mappings(spec.get("nodeTaints")), tolerations)
    if taint is not None:
        return FlavorCheck(flavor, f"untolerated taint {kueue_taint_text(taint)} in flavor {flavor.name}", TOLERATIONS)
    labels = spec.get("nodeLabels")
    labels = {k: v for k, v in labels.items() if isinstance(v, str)} if isinstance(labels, dict) else {}
    blocker = affinity_blocker(pod_spec, labels)
    if blocker is not None:
        return FlavorCheck(flavor, f"flavor {flavor.name} doesn't match node affinity", blocker)
    return FlavorCheck(flavor)


# ------------------------------------------------------------------ taints

def untolerated_taint(taints: list[dict[str, Any]], tolerations: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The first ``NoSchedule``/``NoExecute`` taint no toleration tolerates, else None."""
    for taint in taints:
        if taint.get("effect") in BLOCKING_EFFECTS and not any(tolerates(t, taint) for t in tolerations):
            return taint
    return None


def tolerates(toleration: dict[str, Any], taint: dict[str, Any]) -> bool:
    """Kubernetes' ``Toleration.ToleratesTaint``: effect, key and operator/value."""
    effect = toleration.get("effect") or ""
    if effect and effect != taint.get("effect"):
        return False
    key = toleration.get("key") or ""
    operator = toleration.get("operator") or "Equal"
    if key and key != taint.get("key"):
        return False
    if operator == "Exists":
        return True
    return operator == "Equal" and bool(key) and (toleration.get("value") or "") == (taint.get("value") or "")


def kueue_taint_text(taint: dict[str, Any]) -> str:
    """A taint as Kueue's flavor assigner prints it (``%s`` of a ``corev1.Taint`` value:
    ``{KEY VALUE EFFECT <nil>}``, flavorassigner.go), so the message matches the Workload's."""
    return f"{{{taint.get('key') or ''} {taint.get('value') or ''} {taint.get('effect') or ''} <nil>}}"


def taint_text(taint: dict[str, Any]) -> str:
    """A taint as Kubernetes prints it: ``key=value:Effect``."""
    value = taint.get("value")
    return f"{taint.get('key')}{'=' + str(value) if value else ''}:{taint.get('effect')}"


# ------------------------------------------------------------------ node affinity

def affinity_blocker(pod_spec: dict[str, Any], labels: dict[str, str]) -> str | None:
    """NODE_SELECTOR or AFFINITY when the pod set's node constraints, reduced to the flavor's
    own label keys, exclude a node labelled ``labels``; None when they allow it."""
    selector = pod_spec.get("nodeSelector")
    if isinstance(selector, dict):
        for key, value in selector.items():
            if key in labels and labels[key] != value:
                return NODE_SELECTOR
    terms = _required_terms(pod_spec)
    if terms is None:
        return None
    kept = [[e for e in _mappings(term.get("matchExpressions")) if e.get("key") in labels] for term in terms]
    if not kept or any(not expressions for expressions in kept):
        return None  # a term without the flavor's keys matches any flavor
    if any(all(expression_matches(e, labels) for e in expressions) for expressions in kept):
        return None
    return AFFINITY


def _required_terms(pod_spec: dict[str, Any]) -> list[dict[str, Any]] | None:
    affinity = pod_spec.get("affinity")
    node = affinity.get("nodeAffinity") if isinstance(affinity, dict) else None
    required = node.get("requiredDuringSchedulingIgnoredDuringExecution") if isinstance(node, dict) else None
    if not isinstance(required, dict):
        return None
    return _mappings(required.get("nodeSelectorTerms"))


def expression_matches(expression: dict[str, Any], labels: dict[str, str]) -> bool:
    """A ``NodeSelectorRequirement`` against node labels (In, NotIn, Exists, DoesNotExist, Gt, Lt)."""
    key, operator = expression.get("key"), expression.get("operator")
    values = [v for v in expression.get("values") or [] if isinstance(v, str)] if isinstance(
        expression.get("values"), list) else []
    present = isinstance(key, str) and key in labels
    value = labels.get(key) if isinstance(key, str) else None
    if operator == "In":
        return present and value in values
    if operator == "NotIn":
        return not present or value not in values
    if operator == "Exists":
        return present
    if operator == "DoesNotExist":
        return not present
    if operator in ("Gt", "Lt") and present and len(values) == 1:
        node, bound = _integer(value), _integer(values[0])
        if node is None or bound is None:
            return False
        return node > bound if operator == "Gt" else node < bound
    return False


def _integer(value: str | None) -> int | None:
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def _mappings(value: Any) -> list[dict[str, Any]]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


# ------------------------------------------------------------------ a pod set against a ClusterQueue

def group_checks(template: PodTemplate, flavor_names: list[str], graph: ObjectGraph,
                 tas: TasVerdict | None = None) -> list[FlavorCheck] | None:
    """Kueue's verdict on every flavor of one resource group, in the group's order; None when
    a flavor cannot be resolved (KQ206's) or is known by name only, so nothing is judged."""
    spec = template.spec
    if tas is not None:
        return _group_checks(spec, flavor_names, graph, tas)
    # one verdict per pod spec, group and graph: KQ210 asks per resource and ClusterQueue
    known: dict[tuple[int, tuple[str, ...]], tuple[Any, list[FlavorCheck] | None]] = graph.memo(group_checks, dict)
    key = (id(spec), tuple(flavor_names))
    seen = known.get(key)
    if seen is None or seen[0] is not spec:  # the spec is kept with it: its id is not reused meanwhile
        seen = known[key] = (spec, _group_checks(spec, flavor_names, graph, None))
    return seen[1]


def _group_checks(spec: dict[str, Any], flavor_names: list[str], graph: ObjectGraph,
                  tas: TasVerdict | None) -> list[FlavorCheck] | None:
    checks = []
    for name in flavor_names:
        flavor = graph.resolve("ResourceFlavor", name, None, KUEUE_GROUP)
        if flavor is None or not (flavor.source in (INPUT, CONTEXT) or flavor.has("spec")):
            return None
        checks.append(check_flavor(spec, flavor, tas))
    return checks


def usable_flavor_names(template: PodTemplate, flavor_names: list[str], graph: ObjectGraph) -> list[str]:
    """The flavors of a group this pod set can be given (all of them when one is unknown)."""
    checks = group_checks(template, flavor_names, graph)
    if checks is None:
        return list(flavor_names)
    return [c.flavor.name for c in checks if c.fits]


def rejecting_group(pod_set: PodSet, cq: K8sObject, graph: ObjectGraph) -> tuple[int, list[FlavorCheck]] | None:
    """(group index, verdicts) of the first resource group covering a requested resource in which
    every flavor rejects the pod set; None when each such group has a flavor for it."""
    requested = {r for r in pod_set.per_pod if pod_set.total(r) > 0}
    for g, group in resource_groups(cq):
        if not requested.intersection(strings(group.get("coveredResources"))):  # a hostile item may be a mapping
            continue
        names = [f["name"] for _, f in group_flavors(group) if isinstance(f.get("name"), str)]
        checks = group_checks(pod_set.template, names, graph)
        if checks and not any(c.fits for c in checks):
            return g, checks
    return None
