"""Read-only helpers for the inside of a PodSpec: containers, probes, resources, quantities.

Rules get PodSpecs from :mod:`kqlint.domain.workloads` (``PodTemplate.spec``) and use these to look
at containers; paths returned here are relative to the PodSpec, so a rule points at a node
with ``template.at(*container.path, "resources")``.

Facts: probe handlers and extended-resource validation are ``shared/reference/kueue.md``
A5 and A6 (``validateProbe``/``validateHandler``, ``ValidateResourceRequirements``).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kqlint.domain.fields import indexed_mappings
from kqlint.domain.kinds import DCD, DGD
from kqlint.domain.quantity import Requests, add, maximum, requirement_requests
from kqlint.domain.quantity import format_quantity as format_quantity  # re-exported
from kqlint.domain.quantity import parse_quantity as parse_quantity
from kqlint.domain.quantity import resource_list as resource_list
from kqlint.domain.wording import template_label as template_label  # re-exported
from kqlint.domain.workloads import (
    RESOURCES_PER_NODE_PATH,
    TRAINER_GROUP,
    TRAINER_NODE_CONTAINER,
    PodTemplate,
    resources_per_node,
)

if TYPE_CHECKING:
    from kqlint.domain.objects import K8sObject

PROBE_KEYS = ("livenessProbe", "readinessProbe", "startupProbe")
PROBE_HANDLERS = ("exec", "httpGet", "tcpSocket", "grpc")
GPU_RESOURCE = "nvidia.com/gpu"
# Lists of containers a PodSpec holds; DynamoGraphDeployment v1alpha1 ``extraPodSpec`` inlines
# a PodSpec plus a single ``mainContainer`` (shared/reference/workloads.md section 7).
CONTAINER_LISTS = ("initContainers", "containers")
SINGLE_CONTAINERS = ("mainContainer",)


@dataclass(frozen=True)
class Container:
    path: tuple[Any, ...]   # relative to the PodSpec: ("containers", 0), ("mainContainer",)
    data: dict[str, Any]

    @property
    def name(self) -> str:
        value = self.data.get("name")
        return str(value) if isinstance(value, (str, int)) and value != "" else f"#{self.path[-1]}"

    @property
    def resources(self) -> dict[str, Any]:
        value = self.data.get("resources")
        return value if isinstance(value, dict) else {}


def containers(spec: Any) -> list[Container]:
    """Every container of a PodSpec (init containers first, then app containers), in order."""
    if not isinstance(spec, dict):
        return []
    found: list[Container] = []
    for key in CONTAINER_LISTS:
        found.extend(Container((key, i), item) for i, item in indexed_mappings(spec.get(key)))
    for key in SINGLE_CONTAINERS:
        if isinstance(spec.get(key), dict):
            found.append(Container((key,), spec[key]))
    return found


# Kinds whose operator builds a default container and merges the written one onto it, so a
# partial probe or a request whose limit the operator supplies is legitimate there. Dynamo
# (workloads.md section 7): v1alpha1 `extraPodSpec.mainContainer` and the v1beta1 container
# named `main` receive the operator defaults (default probes per component type, and the
# service-level `resources`), merged with mergo `WithOverride`, which deep-merges pointers.
OPERATOR_DEFAULTED_KINDS = frozenset({DGD, DCD})
OPERATOR_DEFAULTED_CONTAINER = "main"


def operator_defaulted(template: PodTemplate, container: Container) -> bool:
    """Whether the operator merges its own defaults into this container (Dynamo's main)."""
    owner = template.owner
    if (owner.group, owner.kind) not in OPERATOR_DEFAULTED_KINDS:
        return False
    return container.path == ("mainContainer",) or container.data.get("name") == OPERATOR_DEFAULTED_CONTAINER


# ------------------------------------------------------------------ probes

def probe_handlers(probe: dict[str, Any]) -> list[str]:
    """Handlers a probe sets; a handler whose value is null is no handler (nil pointer)."""
    return [key for key in PROBE_HANDLERS if probe.get(key) is not None]


def probe_fields(probe: dict[str, Any]) -> str:
    """``it sets only periodSeconds, failureThreshold`` (null fields left out) or ``it is empty``."""
    names = [str(key) for key, value in probe.items() if value is not None]
    return f"it sets only {', '.join(names)}" if names else "it is empty"


def handlerless_probes(container: Container) -> list[str]:
    """Probe keys of a container whose value is a mapping with no handler.

    ``livenessProbe: null`` is no probe at all (and, in a strategic-merge overlay, deletes
    the probe), so it is not reported; ``livenessProbe: {}`` is a probe without a handler."""
    return [key for key in PROBE_KEYS
            if isinstance(container.data.get(key), dict) and not probe_handlers(container.data[key])]


# ------------------------------------------------------------------ resources

def asks_for(requirements: Any, resource: str) -> bool:
    """True when ``resource`` is in requests or limits with a quantity above zero.

    A limit alone counts: the request of an extended resource defaults to its limit (A5).
    An unparseable quantity counts as asking (kqlint cannot tell it is zero)."""
    for key in ("requests", "limits"):
        values = resource_list(requirements, key)
        if resource in values:
            quantity = parse_quantity(values[resource])
            if quantity is None or quantity > 0:
                return True
    return False


def asks_for_some(requirements: Any, resource: str) -> bool:
    """Like :func:`asks_for`, but only quantities known to be above zero count."""
    for key in ("requests", "limits"):
        quantity = parse_quantity(resource_list(requirements, key).get(resource))
        if quantity is not None and quantity > 0:
            return True
    return False


def is_hugepages(name: str) -> bool:
    return name.startswith("hugepages-")


def is_extended_resource(name: str) -> bool:
    """A resource name with a domain outside ``kubernetes.io`` (``nvidia.com/gpu``).

    Mirrors ``IsNativeResource`` upstream: a name without ``/`` or containing
    ``kubernetes.io/`` is native; ``requests.*`` names are quota names, not resources."""
    return "/" in name and "kubernetes.io/" not in name and not name.startswith("requests.")


def overcommit_forbidden(name: Any) -> bool:
    """Extended and hugepages resources: request must equal limit (kueue.md A5)."""
    return isinstance(name, str) and (is_extended_resource(name) or is_hugepages(name))


# ------------------------------------------------------------------ TrainJob

def per_node_resources_path(obj: K8sObject) -> tuple[str, ...] | None:
    """Where a TrainJob keeps ``resourcesPerNode``; None for every other kind."""
    if (obj.group, obj.kind) == (TRAINER_GROUP, "TrainJob"):
        return RESOURCES_PER_NODE_PATH
    return None


def sets_resources(requirements: Any) -> bool:
    """True when a ``resourcesPerNode`` carries requests or limits: it then replaces the
    runtime `node` container's resources wholesale (kubeflow/trainer jobset builder,
    ``Containers[j].WithResources(...)``)."""
    return isinstance(requirements, dict) and any(
        isinstance(requirements.get(key), dict) for key in ("requests", "limits"))


def effective_resources(template: PodTemplate) -> list[tuple[Container, dict[str, Any]]]:
    """Each container with the resources its pods really get: for a TrainJob's trainer step,
    the container named ``node`` gets the TrainJob's ``resourcesPerNode`` when that sets any."""
    per_node = resources_per_node(template)
    override = sets_resources(per_node)
    return [(c, per_node if override and c.name == TRAINER_NODE_CONTAINER else c.resources)
            for c in containers(template.spec)]


# ------------------------------------------------------------------ requests of one pod

def _is_init(container: Container) -> bool:
    return bool(container.path[0] == "initContainers")


def combine(spec: Mapping[str, Any], pairs: list[tuple[Container, Any]]) -> Requests:
    """Requests of one pod from its PodSpec and (container, resources) pairs."""
    total: Requests = {}
    sidecars: Requests = {}
    init_peak: Requests = {}
    for container, resources in pairs:
        own = requirement_requests(resources)
        if not _is_init(container):
            total = add(total, own)
        elif container.data.get("restartPolicy") == "Always":
            total, sidecars = add(total, own), add(sidecars, own)
            init_peak = maximum(init_peak, sidecars)
        else:
            init_peak = maximum(init_peak, add(sidecars, own))
    total = maximum(total, init_peak)
    total.update(_pod_level_requests(spec.get("resources"), total))
    return add(total, requirement_requests({"requests": spec.get("overhead")}))


def _is_pod_level_resource(name: str) -> bool:
    return name in ("cpu", "memory") or name.startswith("hugepages-")


def _pod_level_requests(requirements: Any, containers_total: Requests) -> Requests:
    """Pod-level requests as the API server defaults them (``defaultPodRequests``): an explicit
    request wins; a pod-level limit alone becomes the request only for a resource no container
    requests (hugepages always take the limit), otherwise the containers' total stands."""
    explicit = {name: amount for name, amount in requirement_requests({"requests": _requests_of(requirements)}).items()
                if _is_pod_level_resource(name)}
    for name, amount in requirement_requests({"requests": _limits_of(requirements)}).items():
        if name in explicit or not _is_pod_level_resource(name):
            continue
        if name.startswith("hugepages-") or name not in containers_total:
            explicit[name] = amount
    return explicit


def _requests_of(requirements: Any) -> Any:
    return requirements.get("requests") if isinstance(requirements, Mapping) else None


def _limits_of(requirements: Any) -> Any:
    return requirements.get("limits") if isinstance(requirements, Mapping) else None


def pod_requests(template: PodTemplate) -> Requests:
    """Requests of one pod of ``template`` (TrainJob ``resourcesPerNode`` applied)."""
    return combine(template.spec, effective_resources(template))
