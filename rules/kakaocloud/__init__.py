"""Profile ``kakaocloud``: the GPU platform of seed 004 (rules KQ501-KQ508, off unless
``profile: kakaocloud``). ``declared_objects`` lists what the platform provides, from
``profile.yaml`` next to this file."""
from __future__ import annotations

from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from kqlint.domain.kinds import NAMESPACE, GroupKind

if TYPE_CHECKING:
    from kqlint.config import Config
    from kqlint.domain.graph import ObjectGraph
    from kqlint.domain.objects import K8sObject

PROFILE = "kakaocloud"
CUSTOM_WPC = GroupKind("kakaocloud.io", "CustomWorkloadPriorityClass")


@lru_cache(maxsize=1)
def profile_data() -> dict[str, Any]:
    from kqlint.loader import parse_bytes

    raw = resources.files(__name__).joinpath("profile.yaml").read_bytes()
    profile: dict[str, Any] = parse_bytes("profile.yaml", raw).documents[0]
    return profile


def tenant_namespaces(graph: ObjectGraph) -> list[str]:
    names = {obj.namespace for obj in graph.inputs if obj.kind == "LocalQueue" and obj.namespace}
    names |= {obj.name for obj in graph.inputs if NAMESPACE.of(obj) and obj.name}
    return sorted(names)


def declared_objects(graph: ObjectGraph, config: Config) -> list[K8sObject]:
    from kqlint.domain.graph import PROFILE as TIER
    from kqlint.domain.graph import declared_object

    data = profile_data()
    file = f"<profile {PROFILE}>"
    objects = [declared_object("WorkloadPriorityClass", dict(entry), TIER, file, config.namespace)
               for entry in data["workloadPriorityClasses"]]
    objects += [declared_object("WorkloadPriorityClass", {"name": cwpc.name, "value": cwpc.get("spec", "value")},
                                TIER, file, config.namespace) for cwpc in _custom_classes(graph)]
    for namespace in tenant_namespaces(graph):
        spec = {**data["tenantClusterQueueSpec"],
                "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": namespace}}}
        objects.append(declared_object("ClusterQueue", {"name": namespace, "spec": spec}, TIER, file, config.namespace))
    return objects


def _custom_classes(graph: ObjectGraph) -> list[K8sObject]:
    """The platform creates a WorkloadPriorityClass twin for every CustomWorkloadPriorityClass."""
    return [obj for obj in graph.of_kind(CUSTOM_WPC[1], CUSTOM_WPC[0])
            if isinstance(obj.get("spec", "value"), int) and obj.name]


def platform_settings() -> dict[str, Any]:
    """What seed 004 establishes about the cluster (the platform model's profile layer)."""
    value = profile_data().get("platform")
    return value if isinstance(value, dict) else {}
