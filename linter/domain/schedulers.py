"""Platform evidence about schedulers (rules.md "Terms": known scheduler names, Volcano version):
which scheduler names the repository sets up, which kube-scheduler profiles enable the
Coscheduling plugin, whether Volcano's admission webhook assigns ``schedulerName`` itself, and
which Volcano release runs. kqlint.domain.platform merges them into the platform model, with
where each came from, so ``Platform.lines()`` shows what the rules assumed.

Sources read (bounded, never executed):
- ``KubeSchedulerConfiguration`` objects, and ConfigMaps whose name mentions a scheduler or an
  admission configuration and whose text holds one: ``profiles[].schedulerName`` (unset:
  ``default-scheduler``), and whether a profile enables ``Coscheduling`` in any plugin list;
- Volcano's admission ConfigMap (``resourceGroups[].schedulerName``): a mutating webhook
  assigns those names to pods (volcano-sh/volcano ``pkg/webhooks/admission/pods/mutate``);
- ``--scheduler-name=X`` / ``--scheduler-name X`` in the arguments of a container of a
  Deployment, StatefulSet, DaemonSet or Pod whose name mentions a scheduler (vc-scheduler and
  kube-scheduler both take it); the rest of the repository is scanned only by KQ308 when a name
  looks like a typo (decoding every workload here would slow every run);
- a ``volcanosh/vc-scheduler``, ``vc-controller-manager`` or ``vc-webhook-manager`` image tag.
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kqlint.domain.fields import mappings

if TYPE_CHECKING:
    from kqlint.domain.graph import ObjectGraph
    from kqlint.domain.objects import K8sObject
    from kqlint.domain.platform import Platform

DEFAULT_SCHEDULER = "default-scheduler"
SCHEDULER_HOSTS = frozenset({"Deployment", "StatefulSet", "DaemonSet", "Pod"})
HOST_NAME_MARKERS = ("sched", "volcano")
CONFIG_MAP_MARKERS = ("sched", "admission", "volcano")
COSCHEDULING_PLUGIN = "Coscheduling"
NO_SCHEDULERS = "default-scheduler and the gang-scheduler options only"
SCANNED_WORDS = ("schedulerName", "enableHierarchy")
MAX_SCANNED = 1_000_000  # characters of ConfigMap text read per value
_FLAG = re.compile(r"^--?scheduler-name(?:=(.*))?$")
_VOLCANO_IMAGE = re.compile(r"volcanosh/vc-(?:scheduler|controller-manager|webhook-manager):v(\d+)\.(\d+)(?:\.\d+)?\b")


@dataclass
class SchedulerEvidence:
    """What the inputs and context establish; each fact with where it came from."""

    names: dict[str, str] = field(default_factory=dict)          # scheduler name -> source
    coscheduling: set[str] = field(default_factory=set)          # profiles that enable Coscheduling
    without_coscheduling: set[str] = field(default_factory=set)  # profiles that enable none
    webhook: str | None = None                                   # source of a scheduler-assigning webhook
    hierarchy: str | None = None                                 # source of capacity enableHierarchy: true
    volcano_version: tuple[tuple[int, int], str] | None = None


def scheduler_evidence(graph: ObjectGraph) -> SchedulerEvidence:
    found = SchedulerEvidence()
    for obj in graph.objects:
        if obj.source not in ("input", "context"):
            continue
        if obj.kind == "KubeSchedulerConfiguration":
            _profiles(found, obj.data, f"{obj.display()} ({obj.file})")
        elif obj.kind == "ConfigMap" and obj.group == "" and _mentions(obj.name, CONFIG_MAP_MARKERS):
            _config_map(found, obj)
        elif obj.kind in SCHEDULER_HOSTS and obj.group in ("", "apps"):
            if _mentions(obj.name, HOST_NAME_MARKERS):
                for name in flag_names(obj):
                    found.names.setdefault(name, f"--scheduler-name of {obj.display()} ({obj.file})")
            if found.volcano_version is None and obj.kind == "Deployment" and _mentions(obj.name, ("volcano", "vc-")):
                found.volcano_version = _volcano_image(obj)
    return found


def _mentions(name: Any, markers: tuple[str, ...]) -> bool:
    return isinstance(name, str) and any(marker in name.lower() for marker in markers)


def _profiles(found: SchedulerEvidence, document: Any, where: str) -> None:
    profiles = document.get("profiles") if isinstance(document, dict) else None
    for profile in profiles if isinstance(profiles, list) else []:
        if not isinstance(profile, dict):
            continue
        name = profile.get("schedulerName", DEFAULT_SCHEDULER)
        if not isinstance(name, str) or not name:
            continue
        found.names.setdefault(name, f"KubeSchedulerConfiguration profile in {where}")
        (found.coscheduling if _enables_coscheduling(profile.get("plugins")) else found.without_coscheduling).add(name)


def _enables_coscheduling(plugins: Any) -> bool:
    """``Coscheduling`` in the ``enabled`` list of any extension point (``multiPoint``,
    ``queueSort``, ``permit`` ...)."""
    points = plugins.values() if isinstance(plugins, dict) else []
    return any(isinstance(entry, dict) and entry.get("name") == COSCHEDULING_PLUGIN
               for point in points if isinstance(point, dict) and isinstance(point.get("enabled"), list)
               for entry in point["enabled"])


def _config_map(found: SchedulerEvidence, obj: K8sObject) -> None:
    data = obj.get("data")
    for key, value in sorted(data.items()) if isinstance(data, dict) else []:
        if not isinstance(value, str) or not any(word in value[:MAX_SCANNED] for word in SCANNED_WORDS):
            continue
        where = f"ConfigMap {obj.display()} key {key} ({obj.file})"
        for document in _documents(obj.file, value[:MAX_SCANNED]):
            if document.get("kind") == "KubeSchedulerConfiguration":
                _profiles(found, document, where)
            if _capacity_hierarchy(document.get("tiers")):
                found.hierarchy = found.hierarchy or where
            groups = document.get("resourceGroups")
            for group in groups if isinstance(groups, list) else []:
                name = group.get("schedulerName") if isinstance(group, dict) else None
                if isinstance(name, str) and name:
                    found.names.setdefault(name, f"Volcano admission resourceGroups in {where}")
                    found.webhook = found.webhook or where


def _capacity_hierarchy(tiers: Any) -> bool:
    """``volcano-scheduler.conf``: the ``capacity`` plugin with ``enableHierarchy: true`` in a
    tier (volcano-sh/volcano ``pkg/scheduler/conf/scheduler_conf.go`` ``PluginOption``)."""
    plugins = [plugin for tier in (tiers if isinstance(tiers, list) else []) if isinstance(tier, dict)
               for plugin in mappings(tier.get("plugins"))]
    return any(plugin.get("name") == "capacity" and plugin.get("enableHierarchy") is True for plugin in plugins)


def _documents(file: str, text: str) -> Iterator[dict[str, Any]]:
    from kqlint.loader import parse_bytes

    source = parse_bytes(file, text.encode("utf-8", "surrogateescape"))
    if not source.problems:
        yield from (document for document in source.documents if isinstance(document, dict))


def flag_names(obj: K8sObject) -> set[str]:
    """``--scheduler-name`` values in the command or args of the object's containers."""
    from kqlint.domain.workloads import own_templates

    found: set[str] = set()
    for template in own_templates(obj):
        for _, container in template.containers:
            words = [str(w) for key in ("command", "args") if isinstance(container.get(key), list)
                     for w in container[key]]
            for position, word in enumerate(words):
                match = _FLAG.match(word)
                if match and match.group(1):
                    found.add(match.group(1))
                elif match and match.group(1) is None and position + 1 < len(words):
                    found.add(words[position + 1])
    return found


def _volcano_image(obj: K8sObject) -> tuple[tuple[int, int], str] | None:
    from kqlint.domain.podspec import containers

    for container in containers(obj.get("spec", "template", "spec")):
        match = _VOLCANO_IMAGE.search(str(container.data.get("image") or ""))
        if match:
            return (int(match.group(1)), int(match.group(2))), f"image of {obj.display()} ({obj.file})"
    return None


POD_GROUP_SCHEDULERS = {"scheduling.volcano.sh": "volcano", "scheduling.run.ai": "kai",
                        "scheduling.x-k8s.io": "coscheduling"}


def _pod_group_schedulers(graph: ObjectGraph) -> set[str]:
    return {POD_GROUP_SCHEDULERS[obj.group] for obj in graph.of_kind("PodGroup")
            if obj.group in POD_GROUP_SCHEDULERS and obj.source in ("input", "context")}


def scheduler_facts(graph: ObjectGraph, facts: dict[str, Any], sources: dict[str, str]) -> None:
    """The platform facts of schedulers the inputs and context establish, into ``facts`` and
    ``sources`` (kqlint.domain.platform evidence layer)."""
    gang = _pod_group_schedulers(graph)
    if gang:
        facts["gang_schedulers"] = frozenset(gang)
        sources["gang-schedulers"] = "PodGroups in the inputs/context"
    found = scheduler_evidence(graph)
    if found.names:
        facts["schedulers"] = frozenset(found.names)
        sources["schedulers"] = "; ".join(sorted(set(found.names.values())))
    if found.coscheduling or found.without_coscheduling:
        facts["coscheduling_profiles"] = frozenset(found.coscheduling)
        facts["plain_profiles"] = frozenset(found.without_coscheduling - found.coscheduling)
        sources["scheduler-profiles"] = "KubeSchedulerConfiguration profiles in the inputs/context"
    if found.webhook:
        facts["scheduler_webhook"], sources["scheduler-webhook"] = True, found.webhook
    if found.volcano_version:
        facts["volcano_version"], sources["volcano.version"] = found.volcano_version
    if found.hierarchy:
        facts["volcano_hierarchy"], sources["volcano.hierarchy"] = True, found.hierarchy


def describe_schedulers(platform: Platform) -> dict[str, Any]:
    """The scheduler facts of ``Platform.describe()``."""
    version = platform.volcano_version
    return {"volcano": {"version": ".".join(map(str, version)) if version else None,
                        "capacityHierarchy": platform.volcano_hierarchy},
            "schedulers": sorted(platform.schedulers),
            "coschedulingProfiles": sorted(platform.coscheduling_profiles),
            "profilesWithoutCoscheduling": sorted(platform.plain_profiles),
            "schedulerWebhook": platform.scheduler_webhook}


def scheduler_rows(platform: Platform) -> list[tuple[str, str, str]]:
    """(fact, value, source key) rows of ``Platform.lines()``."""
    data = describe_schedulers(platform)
    rows = [("volcano version", data["volcano"]["version"] or "unknown", "volcano.version"),
            ("scheduler names", ", ".join(data["schedulers"]) or NO_SCHEDULERS, "schedulers")]
    if platform.coscheduling_profiles or platform.plain_profiles:
        rows.append(("kube-scheduler profiles", ", ".join(
            [f"{n} (Coscheduling)" for n in data["coschedulingProfiles"]]
            + [f"{n} (no Coscheduling)" for n in data["profilesWithoutCoscheduling"]]), "scheduler-profiles"))
    if platform.scheduler_webhook:
        rows.append(("schedulerName assigned by a webhook", "yes", "scheduler-webhook"))
    if platform.volcano_hierarchy:
        rows.append(("Volcano capacity plugin hierarchy", "on (jobs only on leaf queues)", "volcano.hierarchy"))
    return rows
