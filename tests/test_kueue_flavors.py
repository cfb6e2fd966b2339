"""Kueue's per-flavor checks (kqlint.kueue.flavors), from the behaviour Kueue documents
(resource_flavor.md; kueue.md B23) and the scenarios of Kueue's flavor-assigner unit tests:
taints against pod plus flavor tolerations, nodeSelector and required affinity reduced to the
flavor's own label keys."""
from __future__ import annotations

from typing import Any

import pytest
from kqlint.domain.kueue.flavors import (
    AFFINITY,
    NODE_SELECTOR,
    TOLERATIONS,
    check_flavor,
    expression_matches,
    tolerates,
)
from kqlint.domain.objects import INPUT, K8sObject, objects_from_file
from kqlint.loader import parse_bytes

FLAVOR = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: h100
spec:
  nodeLabels: {gpu: h100, zone: a}
  nodeTaints:
  - {key: nvidia.com/gpu, value: present, effect: NoSchedule}
  - {key: soft, value: x, effect: PreferNoSchedule}
"""
def objects(text: str) -> list[K8sObject]:
    found, _, _ = objects_from_file(parse_bytes("flavor.yaml", text.encode()), "default", INPUT)
    return found


TOLERATE_GPU = [{"key": "nvidia.com/gpu", "operator": "Exists"}]


def _verdict(pod_spec: dict[str, Any], flavor: str = FLAVOR) -> tuple[str | None, str | None]:
    check = check_flavor(pod_spec, objects(flavor)[0])
    return check.blocker, check.reason


def test_untolerated_taint_rejects_the_flavor_with_kueues_reason() -> None:
    assert _verdict({}) == (TOLERATIONS, "untolerated taint {nvidia.com/gpu present NoSchedule <nil>} in flavor h100")


def test_prefer_no_schedule_taints_are_ignored() -> None:
    assert _verdict({"tolerations": TOLERATE_GPU}) == (None, None)


def test_the_flavors_own_tolerations_count() -> None:
    flavor = FLAVOR + "  tolerations:\n  - {key: nvidia.com/gpu, operator: Equal, value: present}\n"
    assert _verdict({}, flavor) == (None, None)


@pytest.mark.parametrize("toleration,expected", [
    ({"operator": "Exists"}, True),                                              # empty key: every taint
    ({"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoExecute"}, False),  # other effect
    ({"key": "nvidia.com/gpu", "value": "present"}, True),                       # Equal is the default
    ({"key": "nvidia.com/gpu", "value": "absent"}, False),
    ({"key": "other", "operator": "Exists"}, False),
])
def test_toleration_matching_follows_kubernetes(toleration: dict[str, Any], expected: bool) -> None:
    taint = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
    assert tolerates(toleration, taint) is expected


def test_node_selector_compares_only_the_flavors_keys() -> None:
    base = {"tolerations": TOLERATE_GPU}
    assert _verdict({**base, "nodeSelector": {"gpu": "h100", "team": "x"}}) == (None, None)
    rejected = (NODE_SELECTOR, "flavor h100 doesn't match node affinity")
    assert _verdict({**base, "nodeSelector": {"gpu": "a100"}}) == rejected


def _affinity(*terms: list[dict[str, Any]]) -> dict[str, Any]:
    required = {"nodeSelectorTerms": [{"matchExpressions": term} for term in terms]}
    return {"tolerations": TOLERATE_GPU,
            "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": required}}}


def test_required_affinity_terms_are_ored() -> None:
    spec = _affinity([{"key": "gpu", "operator": "In", "values": ["a100"]}],
                     [{"key": "zone", "operator": "In", "values": ["a"]}])
    assert _verdict(spec) == (None, None)


def test_no_term_matching_rejects_the_flavor() -> None:
    spec = _affinity([{"key": "gpu", "operator": "NotIn", "values": ["h100"]}])
    assert _verdict(spec) == (AFFINITY, "flavor h100 doesn't match node affinity")


def test_a_term_without_the_flavors_keys_drops_the_whole_affinity() -> None:
    spec = _affinity([{"key": "gpu", "operator": "NotIn", "values": ["h100"]}],
                     [{"key": "rack", "operator": "In", "values": ["r1"]}])
    assert _verdict(spec) == (None, None)


@pytest.mark.parametrize("expression,expected", [
    ({"key": "cores", "operator": "Gt", "values": ["8"]}, True),
    ({"key": "cores", "operator": "Lt", "values": ["8"]}, False),
    ({"key": "cores", "operator": "Gt", "values": ["x"]}, False),
    ({"key": "cores", "operator": "Exists"}, True),
    ({"key": "gpu", "operator": "DoesNotExist"}, True),
    ({"key": "cores", "operator": "Bogus"}, False),
])
def test_node_selector_operators(expression: dict[str, Any], expected: bool) -> None:
    assert expression_matches(expression, {"cores": "16"}) is expected


def test_malformed_flavor_and_pod_fields_never_crash() -> None:
    flavor = ("apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: x}\n"
              "spec:\n  nodeLabels: 3\n  nodeTaints: [1, {effect: NoSchedule}]\n")
    pod = {"nodeSelector": [1], "tolerations": "x", "affinity": {"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchExpressions": 5}]}}}}
    assert _verdict(pod, flavor)[0] == TOLERATIONS
