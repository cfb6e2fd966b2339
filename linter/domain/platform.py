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
    fair_sharing           Kueue's Fair Sharing is on (True/False), or None (unknown)
    gang_schedulers        "volcano", "kai", "coscheduling" known to be installed
    nic_resources          RDMA NIC resources GPU nodes offer (``nvidia.com/mlnxnics``)
    template_labels        (group, kind) whose pod-template Kueue labels the platform documents
    volcano_version        (major, minor) of the Volcano that runs, or None
    schedulers             scheduler names known to run besides the gang-scheduler options
                           (``platform.schedulers``, the profile, kqlint.domain.schedulers evidence)
    coscheduling_profiles  kube-scheduler profiles that enable / do not enable the Coscheduling
    plain_profiles         plugin (a KubeSchedulerConfiguration in the inputs)
    scheduler_webhook      True when a mutating webhook assigns ``schedulerName`` to pods
                           (Volcano's admission ``resourceGroups``)
    volcano_hierarchy      True when Volcano's capacity plugin runs with ``enableHierarchy``
    manage_jobs_without_queue_name  the Kueue Configuration's ``manageJobsWithoutQueueName``
                           (False when a Configuration in the inputs leaves it unset), or None
    kueue_gates            (gate, on) pairs the Kueue manager's ``--feature-gates`` or its
                           Configuration's ``featureGates`` set (evidence; a gate set both ways
                           by two sources is in twice); a gate not in it has its default
    kueue_resources        (excludeResourcePrefixes, transformations, quotaCheckStrategy is
                           IgnoreUndeclared) of the Kueue Configuration (evidence;
                           kqlint.domain.kueue_config.manager_resources), or None

Sources, per fact, the first that sets it wins (config > profile > evidence):
1. the configuration's ``platform:`` section (``kueue.version``, ``kueue.integrations``,
   ``kueue.fair-sharing``, ``gang-schedulers``, ``nic-resources``, ``volcano.version``,
   ``schedulers``);
2. the active profile (``kakaocloud``: seed 004);
3. evidence in the inputs and context: a Kueue ``Configuration`` in the ``kueue-manager-config``
   ConfigMap (``controller_manager_config.yaml``: ``integrations.frameworks``, ``fairSharing``;
   kqlint.domain.kueue_config), the Kueue versions the repository pins (kqlint.domain.pins: the
   manager's image tag, a release manifest URL, Kueue's Helm chart version; read once per run
   from every object and the project's kustomizations, charts and values files), PodGroups of a
   gang scheduler, the scheduler evidence of kqlint.domain.schedulers (``schedulers`` adds every
   layer's), and pods that request a NIC resource (``nic_resources`` adds the profile's and the
   evidence's; a configured list replaces both).

Pins that disagree on the minor release (0.12 here, 0.16 there) leave the version unknown, and
``pinned_before`` still names the older one: a rule stays silent where one of them would make
its finding false, and no fix is safe that writes an API version a pinned Kueue does not serve.

``platform_of(graph)`` returns the model of a run (``runner.build_graph`` attaches it); rules
never read the config's ``platform:`` section themselves.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from kqlint.domain.kueue_config import KueueResources, manager_facts, manager_gates, manager_resources
from kqlint.domain.kueue_config_facts import IMPLIES_POD, OPT_IN_FRAMEWORKS, POD
from kqlint.domain.requested import is_nic_resource as is_nic_resource
from kqlint.domain.requested import object_requested_resources as object_requested_resources
from kqlint.domain.requested import requested_resources

if TYPE_CHECKING:
    from kqlint.domain.graph import ObjectGraph
    from kqlint.domain.pins import Pin

GANG_SCHEDULERS = ("volcano", "kai", "coscheduling")
# Kinds whose pod-template Kueue labels a platform may document (`kueue.pod-template-labels`).
TEMPLATE_LABEL_KINDS = {"Deployment": ("apps", "Deployment"), "StatefulSet": ("apps", "StatefulSet"),
                        "LeaderWorkerSet": ("leaderworkerset.x-k8s.io", "LeaderWorkerSet"),
                        "DynamoGraphDeployment": ("nvidia.com", "DynamoGraphDeployment")}
# PriorityClasses a gang scheduler installs (rules.md "Platform model"; KAI's chart).
INSTALLED_PRIORITY_CLASSES: dict[str, dict[str, int]] = {
    "kai": {"train": 50, "build-preemptible": 75, "build": 100, "inference": 125},
}
_VERSION = re.compile(r"^v?(\d+)\.(\d+)(?:\.\d+)?(?:[-+].*)?$")


@dataclass(frozen=True)
class Platform:
    kueue_version: tuple[int, int] | None = None
    integrations: frozenset[str] | None = None
    integrations_complete: bool = False
    fair_sharing: bool | None = None   # Kueue's Fair Sharing is on (its Configuration), or None
    gang_schedulers: frozenset[str] = frozenset()
    nic_resources: frozenset[str] = frozenset()
    template_labels: frozenset[tuple[str, str]] = frozenset()
    manage_jobs_without_queue_name: bool | None = None
    kueue_gates: tuple[tuple[str, bool], ...] = ()  # feature gates the Kueue manager is started with
    kueue_resources: KueueResources | None = None  # its Configuration's resources section
    requested: frozenset[str] = frozenset()   # evidence: every resource some pod requests
    kueue_pins: tuple[Pin, ...] = ()          # evidence: every Kueue version the repository pins
    volcano_version: tuple[int, int] | None = None
    schedulers: frozenset[str] = frozenset()
    coscheduling_profiles: frozenset[str] = frozenset()
    plain_profiles: frozenset[str] = frozenset()
    scheduler_webhook: bool = False
    volcano_hierarchy: bool = False
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

    def gate_settings(self, name: str) -> frozenset[bool]:
        """What the Kueue manager sets feature gate ``name`` to: empty when nothing sets it,
        both values when its sources disagree."""
        return frozenset(on for gate, on in self.kueue_gates if gate == name)

    def kueue_at_least(self, major: int, minor: int) -> bool | None:
        return None if self.kueue_version is None else self.kueue_version >= (major, minor)

    def pinned_before(self, major: int, minor: int) -> Pin | None:
        """A Kueue version the repository pins that is older than ``major.minor`` (the oldest),
        whatever the model's version says: None when no pin is that old."""
        return next((pin for pin in sorted(self.kueue_pins) if pin.version < (major, minor)), None)

    def pins_disagree(self) -> bool:
        return len({pin.version for pin in self.kueue_pins}) > 1

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
        return bool(self.kueue_version or self.integrations is not None or self.fair_sharing is not None
                    or self.gang_schedulers or self.nic_resources or self.template_labels or self.kueue_pins
                    or self.volcano_version or self.schedulers or self.scheduler_webhook or self.volcano_hierarchy
                    or self.kueue_gates or self.kueue_resources is not None)

    def describe(self) -> dict[str, Any]:
        """The model as plain data (``kqlint graph --format json``), unknown facts as null."""
        from kqlint.domain.schedulers import describe_schedulers

        version = ".".join(map(str, self.kueue_version)) if self.kueue_version else None
        return {
            "kueue": {"version": version,
                      "integrations": sorted(self.integrations) if self.integrations is not None else None,
                      "integrationsComplete": self.integrations_complete,
                      "fairSharing": self.fair_sharing,
                      **({"featureGates": [f"{k}={str(v).lower()}" for k, v in self.kueue_gates]}
                         if self.kueue_gates else {}),
                      **({"resources": _resources(self.kueue_resources)} if self.kueue_resources else {})},
            "gangSchedulers": sorted(self.gang_schedulers),
            "nicResources": sorted(self.nic_resources),
            "podTemplateLabels": [kind for _, kind in sorted(self.template_labels)],
            **describe_schedulers(self),
            "sources": dict(sorted(self.sources.items())),
        }

    def lines(self) -> list[str]:
        """One line per fact (tree output and ``--statistics``)."""
        from kqlint.domain.schedulers import scheduler_rows

        data = self.describe()
        kueue = data["kueue"]
        integrations = ", ".join(kueue["integrations"]) if kueue["integrations"] is not None else "unknown"
        if kueue["integrations"] is not None and not self.integrations_complete:
            integrations += " (others unknown)"
        rows = [("kueue version", kueue["version"] or self._unknown_version(), "kueue.version"),
                ("kueue integrations", integrations, "kueue.integrations"),
                ("kueue fair sharing", "unknown" if self.fair_sharing is None else "on" if self.fair_sharing else "off",
                 "kueue.fair-sharing"),
                ("gang schedulers", ", ".join(data["gangSchedulers"]) or "unknown", "gang-schedulers"),
                ("NIC resources", ", ".join(data["nicResources"]) or "none known", "nic-resources")]
        if self.kueue_gates:
            rows.append(("kueue feature gates", ", ".join(data["kueue"]["featureGates"]), "kueue.feature-gates"))
        if self.kueue_resources:
            rows.append(("kueue resources", ", ".join(data["kueue"]["resources"]), "kueue.resources"))
        if self.template_labels:
            rows.append(("pod-template Kueue labels", ", ".join(data["podTemplateLabels"]), "pod-template-labels"))
        rows += scheduler_rows(self)
        return [f"{name}: {value}" + (f" (from {self.sources[key]})" if key in self.sources else "")
                for name, value, key in rows]

    def _unknown_version(self) -> str:
        if not self.pins_disagree():
            return "unknown"
        shown = "; ".join(f"{'.'.join(map(str, pin.version))}: {pin.source}" for pin in sorted(self.kueue_pins)[:4])
        more = len(self.kueue_pins) - 4
        return f"unknown (the repository's pins disagree: {shown}{f'; {more} more' if more > 0 else ''})"


UNKNOWN = Platform()


def _resources(section: KueueResources) -> list[str]:
    return [f"exclude {p}*" for p in section.exclude_prefixes] + [
        f"{t.get('input')} {str(t.get('strategy') or 'Retain')}" for t in section.transformations] + (
        ["quotaCheckStrategy IgnoreUndeclared"] if section.ignore_undeclared else [])


def platform_of(graph: ObjectGraph) -> Platform:
    """The platform model of a run; without one attached (a bare graph), evidence only."""
    build = graph.build_platform
    return graph.memo(platform_of, lambda: build(graph) if build is not None else build_platform(None, None, graph))


# ------------------------------------------------------------------ building

def build_platform(settings: Any, profile: str | None, graph: ObjectGraph,
                   requests: dict[int, frozenset[str]] | None = None,
                   pins: tuple[Pin, ...] | None = None) -> Platform:
    """config ``platform:`` settings, then the profile, then evidence in ``graph``.
    ``requests`` memoises each object's requested resources for a run that builds several
    graphs over the same objects (one per unit, kqlint.project.scope); ``pins``: the Kueue
    versions the whole repository pins, read once per run (default: those of ``graph``'s objects)."""
    if pins is None:
        from kqlint.domain.pins import object_pins

        pins = tuple(sorted(object_pins(graph.objects)))
    layers = [_from_settings(settings if isinstance(settings, dict) else {}),
              _from_profile(profile), _from_evidence(graph, {} if requests is None else requests, pins)]
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
        if result.volcano_version is None and layer.volcano_version is not None:
            result = replace(result, volcano_version=layer.volcano_version)
            sources["volcano.version"] = layer.sources.get("volcano.version", "")
        if result.fair_sharing is None and layer.fair_sharing is not None:
            result = replace(result, fair_sharing=layer.fair_sharing)
            sources["kueue.fair-sharing"] = layer.sources.get("kueue.fair-sharing", "")
        if result.manage_jobs_without_queue_name is None:
            result = replace(result, manage_jobs_without_queue_name=layer.manage_jobs_without_queue_name)
        if not result.kueue_gates and layer.kueue_gates:
            result = replace(result, kueue_gates=layer.kueue_gates)
            sources["kueue.feature-gates"] = layer.sources.get("kueue.feature-gates", "")
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
    result = replace(result, gang_schedulers=merged["gang_schedulers"], nic_resources=merged["nic_resources"],
                     kueue_pins=tuple(sorted({pin for layer in layers for pin in layer.kueue_pins})))
    result = _merge_schedulers(result, layers, sources)
    if layers[-1].kueue_resources is not None:  # evidence only
        result = replace(result, kueue_resources=layers[-1].kueue_resources)
        sources["kueue.resources"] = layers[-1].sources["kueue.resources"]
    if "nic-resources" not in config.sources:
        result = replace(result, requested=frozenset().union(*(layer.requested for layer in rest)))
    return replace(result, sources={k: v for k, v in sources.items() if v})


def _merge_schedulers(result: Platform, layers: list[Platform], sources: dict[str, str]) -> Platform:
    """Scheduler names add up over every layer (more names only make rules quieter); the
    kube-scheduler profiles and the webhook are evidence only."""
    evidence = layers[-1]
    where = [layer.sources["schedulers"] for layer in layers if layer.schedulers and "schedulers" in layer.sources]
    if where:
        sources["schedulers"] = "; ".join(where)
    for key in ("scheduler-profiles", "scheduler-webhook", "volcano.hierarchy"):
        if key in evidence.sources:
            sources[key] = evidence.sources[key]
    return replace(result, schedulers=frozenset().union(*(layer.schedulers for layer in layers)),
                   coscheduling_profiles=evidence.coscheduling_profiles, plain_profiles=evidence.plain_profiles,
                   scheduler_webhook=evidence.scheduler_webhook, volcano_hierarchy=evidence.volcano_hierarchy)


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
    if isinstance(kueue.get("fair-sharing"), bool):
        facts["fair_sharing"], sources["kueue.fair-sharing"] = kueue["fair-sharing"], where
    if isinstance(kueue.get("pod-template-labels"), list):
        facts["template_labels"] = frozenset(TEMPLATE_LABEL_KINDS[k] for k in kueue["pod-template-labels"]
                                             if k in TEMPLATE_LABEL_KINDS)
        sources["pod-template-labels"] = where
    volcano = settings.get("volcano")
    volcano_version = parse_version(volcano.get("version")) if isinstance(volcano, dict) else None
    if volcano_version is not None:
        facts["volcano_version"], sources["volcano.version"] = volcano_version, where
    for key, attr in (("gang-schedulers", "gang_schedulers"), ("nic-resources", "nic_resources"),
                      ("schedulers", "schedulers")):
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

def _from_evidence(graph: ObjectGraph, requests: dict[int, frozenset[str]], pins: tuple[Pin, ...]) -> Platform:
    facts: dict[str, Any] = {"kueue_pins": pins}
    sources: dict[str, str] = {}
    configuration = manager_facts(graph)
    if configuration is not None:
        obj, frameworks, fair_sharing, manage = configuration
        where = f"{obj.display()} ({obj.file})"
        if frameworks is not None:
            facts["integrations"], facts["integrations_complete"] = frameworks, True
            sources["kueue.integrations"] = where
        if fair_sharing is not None:
            facts["fair_sharing"], sources["kueue.fair-sharing"] = fair_sharing, where
        if manage is not None:
            facts["manage_jobs_without_queue_name"] = manage
    resources = manager_resources(graph)
    if resources is not None:
        facts["kueue_resources"], sources["kueue.resources"] = resources
    gates = manager_gates(graph)
    if gates:
        facts["kueue_gates"] = tuple(sorted({pair for _, written in gates for pair in written.items()}))
        sources["kueue.feature-gates"] = "; ".join(where for where, _ in gates[:3])
    versions = sorted({pin.version for pin in pins})
    if len(versions) == 1:  # pins that disagree leave it unknown (the class docstring)
        facts["kueue_version"], sources["kueue.version"] = versions[0], _pin_sources(pins)
    from kqlint.domain.schedulers import scheduler_facts

    scheduler_facts(graph, facts, sources)
    requested = requested_resources(graph, requests)
    facts["requested"] = frozenset(requested)
    nics = {name for name in requested if is_nic_resource(name)}
    if nics:
        facts["nic_resources"] = frozenset(nics)
        sources["nic-resources"] = "pods in the inputs/context that request them"
    return Platform(**facts, sources=sources)


def _pin_sources(pins: tuple[Pin, ...]) -> str:
    shown = "; ".join(pin.source for pin in pins[:3])
    return shown + (f"; {len(pins) - 3} more" if len(pins) > 3 else "")
