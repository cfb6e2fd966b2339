"""Built-in platform profiles (``profile:`` in config, ``--profile``).

A profile is a rule package whose rules carry ``RuleMeta(profile=<name>)`` (enabled only
with that profile) and whose module may expose ``declared_objects(graph, config)``: the
objects the platform provides (tier "profile", resolved last; rules.md "Resolution").
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kqlint.config.settings import Config
    from kqlint.domain.graph import ObjectGraph
    from kqlint.domain.objects import K8sObject

# profile name -> module exposing declared_objects(graph, config)
PROFILES: dict[str, str] = {
    "kakaocloud": "kqlint.rules.kakaocloud",
}


def profile_objects(name: str, graph: ObjectGraph, config: Config) -> list[K8sObject]:
    """The objects profile ``name`` declares for this graph; an unknown name is a config error."""
    from kqlint.errors import ConfigError

    module_name = PROFILES.get(name)
    if module_name is None:
        raise ConfigError(f"unknown profile {name!r} (available: {', '.join(sorted(PROFILES))})")
    declared = getattr(importlib.import_module(module_name), "declared_objects", None)
    if declared is None:
        return []
    return list(declared(graph, config))


def profile_platform(name: str) -> dict[str, Any]:
    """The ``platform:`` facts profile ``name`` declares (its module's ``PLATFORM`` mapping)."""
    module_name = PROFILES.get(name)
    if module_name is None:
        return {}
    value = getattr(importlib.import_module(module_name), "platform_settings", None)
    return dict(value()) if callable(value) else {}
