"""The platform model: what kqlint knows about the cluster the manifests are for.

rules.md "Platform model". A rule may rely on a fact about the cluster only when it holds on
every cluster or when this model establishes it; a fact the model does not establish is
``None`` (unknown) and the rule stays silent.

Facts
    kueue_version          (major, minor) of the Kueue that runs, or None
    integrations           Kueue framework names known to be enabled (``batch/job``, ``pod``,
                           ``deployment``, ``jobset.x-k8s.io/jobset``, ...), or None
    integrations_complete  True when ``integrations`` is the whole list (a Kueue Configuration
                           or the config's list): a framework not in it is off
    gang_schedulers        "volcano", "kai", "coscheduling" known to be installed
    nic_resources          RDMA NIC resources GPU nodes offer (``nvidia.com/mlnxnics``)
    template_labels        (group, kind) whose pod-template Kueue labels the platform documents
    manage_jobs_without_queue_name  the Kueue Configuration's ``manageJobsWithoutQueueName``
                           (False when a Configuration in the inputs leaves it unset), or None

Sources, per fact, the first that sets it wins (config > profile > evidence):
1. the configuration's ``platform:`` section (``kueue.version``, ``kueue.integrations``,
   ``gang-schedulers``, ``nic-resources``);
2. the active profile (``kakaocloud``: seed 004);
3. evidence in the inputs and context: a Kueue ``Configuration`` in the ``kueue-manager-config``
   ConfigMap (``controller_manager_config.yaml``: ``integrations.frameworks``), the Kueue
   manager's image tag (``.../kueue:v0.14.2``) for the version, PodGroups of a gang scheduler,
   and pods that request a NIC resource (``nic_resources`` adds the profile's and the
   evidence's; a configured list replaces both).

``platform_of(graph)`` returns the model of a run (``runner.build_graph`` attaches it); rules
never read the config's ``platform:`` section themselves.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from kqlint.domain.objects import dig
from kqlint.domain.podspec import containers, resource_list

if TYPE_CHECKING:
    from kqlint.domain.graph import ObjectGraph
    from kqlint.domain.objects import K8sObject

POD = "pod"
KUEUE_CONFIG_MAP = "kueue-manager-config"
KUEUE_CONFIG_KEY = "controller_manager_config.yaml"
# Kueue's Configuration framework names per integrated kind (config/components/manager/
# controller_manager_config.yaml at kueue ff69552e).
FRAMEWORKS: dict[tuple[str, str], str] = {
    ("batch", "Job"): "batch/job", ("", "Pod"): POD,
    ("apps", "Deployment"): "deployment", ("apps", "StatefulSet"): "statefulset",
    ("jobset.x-k8s.io", "JobSet"): "jobset.x-k8s.io/jobset",
    ("kubeflow.org", "MPIJob"): "kubeflow.org/mpijob", ("kubeflow.org", "PyTorchJob"): "kubeflow.org/pytorchjob",
    ("kubeflow.org", "TFJob"): "kubeflow.org/tfjob", ("kubeflow.org", "XGBoostJob"): "kubeflow.org/xgboostjob",
    ("kubeflow.org", "PaddleJob"): "kubeflow.org/paddlejob", ("kubeflow.org", "JAXJob"): "kubeflow.org/jaxjob",
    ("trainer.kubeflow.org", "TrainJob"): "trainer.kubeflow.org/trainjob",
    ("ray.io", "RayJob"): "ray.io/rayjob", ("ray.io", "RayCluster"): "ray.io/raycluster",
    ("ray.io", "RayService"): "ray.io/rayservice",
    ("workload.codeflare.dev", "AppWrapper"): "workload.codeflare.dev/appwrapper",
    ("leaderworkerset.x-k8s.io", "LeaderWorkerSet"): "leaderworkerset.x-k8s.io/leaderworkerset",
}
# Frameworks a cluster enables only when its Configuration lists them (rules.md "Kueue-managed"):
# without evidence, every other integration counts as one of Kueue's default frameworks.
OPT_IN_FRAMEWORKS = frozenset({POD, "deployment", "statefulset", "leaderworkerset.x-k8s.io/leaderworkerset"})
# Integrations that turn the pod integration on implicitly, only for their own pods (kueue
# `ImplicitlyEnabledFrameworkNames`; pod_controller.go `Skip` ignores other pods then).
IMPLIES_POD = frozenset({"deployment", "statefulset", "leaderworkerset.x-k8s.io/leaderworkerset"})
GANG_SCHEDULERS = ("volcano", "kai", "coscheduling")
# Kinds whose pod-template Kueue labels a platform may document (`kueue.pod-template-labels`).
TEMPLATE_LABEL_KINDS = {"Deployment": ("apps", "Deployment"), "StatefulSet": ("apps", "StatefulSet"),
                        "LeaderWorkerSet": ("leaderworkerset.x-k8s.io", "LeaderWorkerSet"),
                        "DynamoGraphDeployment": ("nvidia.com", "DynamoGraphDeployment")}
# PriorityClasses a gang scheduler installs (rules.md "Platform model"; KAI's chart).
INSTALLED_PRIORITY_CLASSES: dict[str, dict[str, int]] = {
    "kai": {"train": 50, "build-preemptible": 75, "build": 100, "inference": 125},
}
POD_GROUP_SCHEDULERS = {"scheduling.volcano.sh": "volcano", "scheduling.run.ai": "kai",
                        "scheduling.x-k8s.io": "coscheduling"}
# Resource-name markers of an RDMA/fabric device (evidence for nic_resources).
NIC_MARKERS = ("mlnx", "rdma", "hca", "infiniband", "roce")
_KUEUE_IMAGE = re.compile(r"/kueue(?:/kueue)?:v(\d+)\.(\d+)(?:\.\d+)?\b")
_VERSION = re.compile(r"^v?(\d+)\.(\d+)(?:\.\d+)?(?:[-+].*)?$")


@dataclass(frozen=True)
class Platform:
    kueue_version: tuple[int, int] | None = None
    integrations: frozenset[str] | None = None
    integrations_complete: bool = False
    gang_schedulers: frozenset[str] = frozenset()
    nic_resources: frozenset[str] = frozenset()
    template_labels: frozenset[tuple[str, str]] = frozenset()
    manage_jobs_without_queue_name: bool | None = None
    requested: frozenset[str] = frozenset()   # evidence: every resource some pod requests
    sources: dict[str, str] = field(default_factory=dict, compare=False)  # fact -> where it came from

    # ------------------------------------------------------------ questions rules ask
    def integration(self, name: str) -> bool | None:
        """Whether Kueue framework ``name`` is enabled: True, False, or None (unknown)."""
        if self.integrations is not None and name in self.integrations:
            return True
        return False if self.integrations_complete else None

    def routes_unlabelled(self, name: str) -> bool:
        """Whether Kueue's defaults that route a workload without a queue-name label (a
        LocalQueue named ``default``) reach framework ``name``: only an enabled integration,
        where an unknown one counts as enabled unless it is opt-in."""
        enabled = self.integration(name)
        return enabled if enabled is not None else name not in OPT_IN_FRAMEWORKS

    def pod_integration(self) -> str | None:
        """"explicit" (plain pods are queued), "implicit" (only pods of managed Deployments,
        StatefulSets, LeaderWorkerSets), "off", or None when unknown."""
        enabled = self.integration(POD)
        if enabled:
            return "explicit"
        if enabled is None:
            return None
        return "implicit" if self.integrations and self.integrations & IMPLIES_POD else "off"

    def kueue_at_least(self, major: int, minor: int) -> bool | None:
        return None if self.kueue_version is None else self.kueue_version >= (major, minor)

    def offers(self, resource: str) -> bool:
        """The GPU nodes offer ``resource`` (an RDMA NIC) as a requestable resource: a known
        NIC resource, or (unless the config lists them) one that some pod requests."""
        return resource in self.nic_resources or resource in self.requested

    def installed_priority_classes(self) -> dict[str, int]:
        found: dict[str, int] = {}
        for scheduler in sorted(self.gang_schedulers):
            found.update(INSTALLED_PRIORITY_CLASSES.get(scheduler, {}))
        return found

    # ------------------------------------------------------------ display
    def known(self) -> bool:
        """Whether the model establishes any fact at all."""
        return bool(self.kueue_version or self.integrations is not None or self.gang_schedulers
                    or self.nic_resources or self.template_labels)

    def describe(self) -> dict[str, Any]:
        """The model as plain data (``kqlint graph --format json``), unknown facts as null."""
        version = ".".join(map(str, self.kueue_version)) if self.kueue_version else None
        return {
            "kueue": {"version": version,
                      "integrations": sorted(self.integrations) if self.integrations is not None else None,
                      "integrationsComplete": self.integrations_complete},
            "gangSchedulers": sorted(self.gang_schedulers),
            "nicResources": sorted(self.nic_resources),
            "podTemplateLabels": [kind for _, kind in sorted(self.template_labels)],
            "sources": dict(sorted(self.sources.items())),
        }

    def lines(self) -> list[str]:
        """One line per fact (tree output and ``--statistics``)."""
        data = self.describe()
        kueue = data["kueue"]
        integrations = ", ".join(kueue["integrations"]) if kueue["integrations"] is not None else "unknown"
        if kueue["integrations"] is not None and not self.integrations_complete:
            integrations += " (others unknown)"
        rows = [("kueue version", kueue["version"] or "unknown", "kueue.version"),
                ("kueue integrations", integrations, "kueue.integrations"),
                ("gang schedulers", ", ".join(data["gangSchedulers"]) or "unknown", "gang-schedulers"),
                ("NIC resources", ", ".join(data["nicResources"]) or "none known", "nic-resources")]
        if self.template_labels:
            rows.append(("pod-template Kueue labels", ", ".join(data["podTemplateLabels"]), "pod-template-labels"))
        return [f"{name}: {value}" + (f" (from {self.sources[key]})" if key in self.sources else "")
                for name, value, key in rows]


UNKNOWN = Platform()


def platform_of(graph: ObjectGraph) -> Platform:
    """The platform model of a run; without one attached (a bare graph), evidence only."""
    build = graph.build_platform
    return graph.memo(platform_of, lambda: build(graph) if build is not None else build_platform(None, None, graph))


# ------------------------------------------------------------------ building

def build_platform(settings: Any, profile: str | None, graph: ObjectGraph,
                   requests: dict[int, frozenset[str]] | None = None) -> Platform:
    """config ``platform:`` settings, then the profile, then evidence in ``graph``.
    ``requests`` memoises each object's requested resources for a run that builds several
    graphs over the same objects (one per unit, kqlint.project.scope)."""
    layers = [_from_settings(settings if isinstance(settings, dict) else {}),
              _from_profile(profile), _from_evidence(graph, {} if requests is None else requests)]
    return _merge(layers)


def _merge(layers: list[Platform]) -> Platform:
    result = UNKNOWN
    sources: dict[str, str] = {}
    config, *rest = layers
    for layer in layers:
        if result.kueue_version is None and layer.kueue_version is not None:
            result = replace(result, kueue_version=layer.kueue_version)
            sources["kueue.version"] = layer.sources.get("kueue.version", "")
        if result.integrations is None and layer.integrations is not None:
            result = replace(result, integrations=layer.integrations,
                             integrations_complete=layer.integrations_complete)
            sources["kueue.integrations"] = layer.sources.get("kueue.integrations", "")
        if result.manage_jobs_without_queue_name is None:
            result = replace(result, manage_jobs_without_queue_name=layer.manage_jobs_without_queue_name)
        if not result.template_labels and layer.template_labels:
            result = replace(result, template_labels=layer.template_labels)
            sources["pod-template-labels"] = layer.sources.get("pod-template-labels", "")
    merged: dict[str, frozenset[str]] = {}
    for key, attr in (("gang-schedulers", "gang_schedulers"), ("nic-resources", "nic_resources")):
        chosen = [config] if key in config.sources else rest  # a configured list replaces the others
        merged[attr] = frozenset().union(*(getattr(layer, attr) for layer in chosen))
        where = [layer.sources[key] for layer in chosen if key in layer.sources and getattr(layer, attr)]
        if where or key in config.sources:
            sources[key] = "; ".join(where) or config.sources[key]
    result = replace(result, gang_schedulers=merged["gang_schedulers"], nic_resources=merged["nic_resources"])
    if "nic-resources" not in config.sources:
        result = replace(result, requested=frozenset().union(*(layer.requested for layer in rest)))
    return replace(result, sources={k: v for k, v in sources.items() if v})


def _from_settings(settings: dict[str, Any], where: str = "configuration `platform:`") -> Platform:
    """The facts a ``platform:`` mapping sets (the config's, or a profile's ``platform:``)."""
    written = settings.get("kueue")
    kueue: dict[str, Any] = written if isinstance(written, dict) else {}
    facts: dict[str, Any] = {}
    sources: dict[str, str] = {}
    version = parse_version(kueue.get("version"))
    if version is not None:
        facts["kueue_version"], sources["kueue.version"] = version, where
    if isinstance(kueue.get("integrations"), list):
        facts["integrations"] = frozenset(str(n) for n in kueue["integrations"])
        facts["integrations_complete"] = kueue.get("integrations-complete", True) is not False
        sources["kueue.integrations"] = where
    if isinstance(kueue.get("pod-template-labels"), list):
        facts["template_labels"] = frozenset(TEMPLATE_LABEL_KINDS[k] for k in kueue["pod-template-labels"]
                                             if k in TEMPLATE_LABEL_KINDS)
        sources["pod-template-labels"] = where
    for key, attr in (("gang-schedulers", "gang_schedulers"), ("nic-resources", "nic_resources")):
        if isinstance(settings.get(key), list):
            facts[attr] = frozenset(str(v) for v in settings[key])
            sources[key] = where
    return Platform(**facts, sources=sources)


def _from_profile(profile: str | None) -> Platform:
    """The ``platform:`` facts a profile declares (kakaocloud: its profile.yaml, seed 004)."""
    if not profile:
        return UNKNOWN
    from kqlint.config.profiles import profile_platform

    return _from_settings(profile_platform(profile), f"profile {profile}")


def parse_version(value: Any) -> tuple[int, int] | None:
    """``"0.14"``, ``"v0.14.2"``, ``0.14`` -> (0, 14); None when it is not a version."""
    match = _VERSION.match(str(value).strip()) if value is not None and not isinstance(value, bool) else None
    return (int(match.group(1)), int(match.group(2))) if match else None


# ------------------------------------------------------------------ evidence

def _from_evidence(graph: ObjectGraph, requests: dict[int, frozenset[str]]) -> Platform:
    facts: dict[str, Any] = {}
    sources: dict[str, str] = {}
    configuration = _kueue_configuration(graph)
    if configuration is not None:
        obj, document = configuration
        frameworks = dig(document, ("integrations", "frameworks"))
        if isinstance(frameworks, list):
            facts["integrations"] = frozenset(str(f) for f in frameworks if isinstance(f, str))
            facts["integrations_complete"] = True
            sources["kueue.integrations"] = f"ConfigMap {obj.display()} ({obj.file})"
        manage = document.get("manageJobsWithoutQueueName", False)  # Kueue's default: false (B14)
        if isinstance(manage, bool):
            facts["manage_jobs_without_queue_name"] = manage
    version = _kueue_image_version(graph)
    if version is not None:
        facts["kueue_version"], sources["kueue.version"] = version[0], version[1]
    schedulers = _pod_group_schedulers(graph)
    if schedulers:
        facts["gang_schedulers"] = frozenset(schedulers)
        sources["gang-schedulers"] = "PodGroups in the inputs/context"
    requested = _requested_resources(graph, requests)
    facts["requested"] = frozenset(requested)
    nics = {name for name in requested if is_nic_resource(name)}
    if nics:
        facts["nic_resources"] = frozenset(nics)
        sources["nic-resources"] = "pods in the inputs/context that request them"
    return Platform(**facts, sources=sources)


def _kueue_configuration(graph: ObjectGraph) -> tuple[K8sObject, dict[str, Any]] | None:
    """The Kueue Configuration document of a kueue-manager-config ConfigMap (the first that
    lists ``integrations.frameworks``, else the first that parses as a mapping)."""
    found: tuple[K8sObject, dict[str, Any]] | None = None
    for obj in graph.of_kind("ConfigMap", ""):
        if not obj.name.endswith(KUEUE_CONFIG_MAP):
            continue
        text = obj.get("data", KUEUE_CONFIG_KEY)
        if not isinstance(text, str):
            continue
        from kqlint.loader import parse_bytes

        source = parse_bytes(obj.file, text.encode("utf-8"))
        document = source.documents[0] if source.documents and not source.problems else None
        if not isinstance(document, dict):
            continue
        if isinstance(dig(document, ("integrations", "frameworks")), list):
            return obj, document
        found = found or (obj, document)
    return found


def _kueue_image_version(graph: ObjectGraph) -> tuple[tuple[int, int], str] | None:
    for obj in graph.of_kind("Deployment", "apps"):
        if "kueue" not in obj.name:
            continue
        for container in containers(obj.get("spec", "template", "spec")):
            match = _KUEUE_IMAGE.search(str(container.data.get("image") or ""))
            if match:
                return (int(match.group(1)), int(match.group(2))), f"image of {obj.display()} ({obj.file})"
    return None


def _pod_group_schedulers(graph: ObjectGraph) -> set[str]:
    return {POD_GROUP_SCHEDULERS[obj.group] for obj in graph.of_kind("PodGroup")
            if obj.group in POD_GROUP_SCHEDULERS and obj.source in ("input", "context")}


def _requested_resources(graph: ObjectGraph, memo: dict[int, frozenset[str]]) -> set[str]:
    """Extended resources some pod of the inputs/context requests (the nodes offer them).
    A context object served from the cache brings its own (computed when the file was
    cached), so its body is not decoded for this; others are computed once per run."""
    found: set[str] = set()
    for obj in graph.objects:
        if obj.source in ("input", "context"):
            known = getattr(obj, "known_requests", None)
            if known is None:
                known = memo.get(id(obj))
                if known is None:
                    known = memo[id(obj)] = object_requested_resources(obj, graph)
            found |= known
    return found


def object_requested_resources(obj: K8sObject, graph: ObjectGraph | None = None,
                               templates: list[Any] | None = None) -> frozenset[str]:
    """The extended resources (names with a ``/``) one object's own pod templates request or
    limit, and a TrainJob's ``resourcesPerNode``: a fact of the object alone (a TrainJob's
    runtime templates are the runtime's own, so ``graph`` only shares the template cache).
    ``templates``: the object's own templates, when already known."""
    from kqlint.domain.workloads import RESOURCES_PER_NODE_PATH, has_pod_templates, own_templates

    if not has_pod_templates(obj):
        return frozenset()
    templates = own_templates(obj, graph) if templates is None else templates
    sections = [c.resources for t in templates for c in containers(t.spec)]
    sections.append(obj.get(*RESOURCES_PER_NODE_PATH))
    found: set[str] = set()
    for resources in sections:
        for key in ("requests", "limits"):
            found |= {name for name in resource_list(resources, key) if isinstance(name, str) and "/" in name}
    return frozenset(found)


def is_nic_resource(name: str) -> bool:
    lowered = name.lower()
    return "/" in lowered and any(marker in lowered for marker in NIC_MARKERS)
