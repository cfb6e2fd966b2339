"""Scheduler names kqlint knows (KQ308 reports typos of them; KQ304 leaves typos to KQ308):
``default-scheduler``, the configured gang-scheduler names, the platform model's
``schedulers``, and the names the whole repository sets up (a KubeSchedulerConfiguration's
profiles, text in a ConfigMap, ``--scheduler-name`` flags), read only for a candidate typo."""
from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from kqlint.domain import kinds as K
from kqlint.domain.graph import ObjectGraph, graph_fact
from kqlint.domain.platform import platform_of
from kqlint.domain.schedulers import flag_names
from kqlint.spelling import edit_distance

DEFAULT_SCHEDULER = "default-scheduler"
MAX_DISTANCE, MIN_LENGTH = 2, 4
SCHEDULER_HOSTS = frozenset({"Deployment", "StatefulSet", "DaemonSet", "Pod"})
_CONFIGURED = re.compile(r"schedulerName\"?\s*:\s*[\"']?([A-Za-z0-9][A-Za-z0-9._-]*)")
MAX_SCANNED = 1_000_000  # characters of ConfigMap text scanned per object


# what typo_targets reads beyond the object judged: the objects that set up scheduler names (a rule
# that asks it declares these among its findings-cache reads)
SCHEDULER_SETUP_READS = frozenset({K.GroupKind("", "ConfigMap"),
                                   K.GroupKind("kubescheduler.config.k8s.io", "KubeSchedulerConfiguration"),
                                   K.DEPLOYMENT, K.STATEFULSET, K.DAEMONSET, K.POD})


def known_scheduler_names(graph: ObjectGraph, configured: Iterable[str]) -> frozenset[str]:
    """``default-scheduler``, the configured names and the platform model's ``schedulers``
    (``platform.schedulers``, the profile, the evidence kqlint.domain.schedulers reads)."""
    return frozenset((DEFAULT_SCHEDULER, *configured)) | platform_of(graph).schedulers


def typo_targets(name: str, graph: ObjectGraph, configured: Iterable[str]) -> list[str]:
    """The known names ``name`` is a typo of; [] when it is known or near none. A candidate
    typo is first checked against every ``--scheduler-name`` and ``schedulerName:`` of the
    repository (objects of any name): a scheduler the repository runs is never a typo."""
    known = known_scheduler_names(graph, configured)
    if name in known or not closest_names(name, known):
        return []
    known |= _established(graph)
    return [] if name in known else closest_names(name, known)


@graph_fact
def _established(graph: ObjectGraph) -> frozenset[str]:
    """Scheduler names the repository sets up (inputs and context), read once per graph."""
    found: set[str] = set()
    for obj in graph:
        if obj.kind == "ConfigMap" and obj.group == "":
            found |= _configured_names(obj.get("data"))
        elif obj.kind == "KubeSchedulerConfiguration":
            found |= _profile_names(obj.get("profiles"))
        elif obj.kind in SCHEDULER_HOSTS and obj.group in ("", "apps"):
            found |= flag_names(obj)
    return frozenset(found)


def _configured_names(data: Any) -> set[str]:
    """``schedulerName:`` in a ConfigMap's text (a KubeSchedulerConfiguration's profiles, a
    Volcano admission configuration's resourceGroups): more names only make the rule quieter."""
    texts = [str(value)[:MAX_SCANNED] for value in data.values()] if isinstance(data, dict) else []
    return {match.group(1) for text in texts for match in _CONFIGURED.finditer(text)}


def _profile_names(profiles: Any) -> set[str]:
    return {p["schedulerName"] for p in profiles if isinstance(p, dict) and isinstance(p.get("schedulerName"), str)} \
        if isinstance(profiles, list) else set()


def closest_names(name: str, known: frozenset[str]) -> list[str]:
    """The known names at the smallest distance, when it is at most MAX_DISTANCE."""
    distances = {candidate: edit_distance(name.lower(), candidate.lower()) for candidate in known
                 if len(candidate) >= MIN_LENGTH}
    best = min(distances.values(), default=MAX_DISTANCE + 1)
    if len(name) < MIN_LENGTH:
        return []
    return sorted(c for c, d in distances.items() if d == best) if best <= MAX_DISTANCE else []
