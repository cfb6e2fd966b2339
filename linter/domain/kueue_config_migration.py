"""What a plain rename of a v1beta1 Kueue ``Configuration`` to v1beta2 would change (kueue.md B29),
for KQ223: the v1beta1 defaults and conversion (``apis/config/v1beta1/defaults.go``,
``configuration_conversion.go``) against the v1beta2 defaults (``apis/config/v1beta2/defaults.go``).

Each change names the case of rules.md KQ223, the key it concerns, whether the meaning changes
(else the key is only dropped or required), and what the v1beta2 document needs instead.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kqlint.domain.kueue_config import V1BETA1, KueueConfiguration

WAIT, FAIR = "waitForPodsReady", "fairSharing"
DEFAULT_STRATEGIES = ["LessThanOrEqualToFinalShare", "LessThanInitialShare"]  # v1beta1 defaults.go
V1BETA1_TIMEOUT = "5m"  # v1beta1 defaultPodsReadyTimeout
WAIT_ON_BY_DEFAULT = (0, 19)  # v1beta2: an absent waitForPodsReady means on, 30m (kueue#11855)


@dataclass(frozen=True)
class MigrationChange:
    case: str                   # "a".."f" (rules.md KQ223)
    path: tuple[Any, ...]       # the key concerned, inside the embedded document
    changes_meaning: bool       # a warning; otherwise an info
    message: str


def migration_changes(config: KueueConfiguration, version: tuple[int, int] | None) -> list[MigrationChange]:
    """The cases (a)-(f) of a v1beta1 Configuration, in document order of concern."""
    if config.api_version != V1BETA1 or config.document is None:
        return []
    return [*_wait_for_pods_ready(config, version), *_fair_sharing(config), *_dropped(config)]


def keeps_off_only_by_gate(config: KueueConfiguration, version: tuple[int, int] | None) -> bool:
    """Case (c): waitForPodsReady is off, and the platform's v1beta2 turns an absent section on
    (0.19 or later, or unknown): v1beta2 has no field that says off."""
    section = config.get(WAIT)
    enabled = isinstance(section, dict) and section.get("enable") is True
    return not enabled and (version is None or version >= WAIT_ON_BY_DEFAULT)


def _wait_for_pods_ready(config: KueueConfiguration, version: tuple[int, int] | None) -> list[MigrationChange]:
    section = config.get(WAIT)
    if isinstance(section, dict) and section.get("enable") is True:
        found = []
        if "blockAdmission" not in section:
            found.append(MigrationChange("a", (WAIT, "enable"), True, (
                "waitForPodsReady.enable: true without blockAdmission: v1beta1 defaults blockAdmission to true, "
                "v1beta2 to false, so renaming to v1beta2 turns off sequential admission of gangs")))
        if section.get("timeout") is None:
            found.append(MigrationChange("b", (WAIT,), True, (
                "waitForPodsReady without timeout: v1beta1 defaults it to 5m, while v1beta2 requires it "
                "(Kueue 0.15-0.18) or defaults it to 30m (0.19 and later)")))
        return found
    if not keeps_off_only_by_gate(config, version):
        return []
    written = isinstance(section, dict) and "enable" in section
    path = (WAIT, "enable") if written else (WAIT,) if config.has(WAIT) else ("apiVersion",)
    how = "enable: false" if written else "no enable" if config.has(WAIT) else "no waitForPodsReady section"
    return [MigrationChange("c", path, True, (
        f"waitForPodsReady is off here ({how}), but from Kueue 0.19 a v1beta2 Configuration without the "
        "section has it on with a 30m timeout, and v1beta2 has no field to turn it off"))]


def _fair_sharing(config: KueueConfiguration) -> list[MigrationChange]:
    section = config.get(FAIR)
    if not isinstance(section, dict):
        return []
    if section.get("enable") is not True:
        path = (FAIR, "enable") if "enable" in section else (FAIR,)
        return [MigrationChange("d", path, True, (
            "fairSharing is off in v1beta1 (enable is not true), but in v1beta2 the section's presence turns "
            "Fair Sharing on"))]
    if not section.get("preemptionStrategies"):
        return [MigrationChange("e", (FAIR,), False, (
            "fairSharing.enable: true without preemptionStrategies: v1beta1 defaults them to "
            "[LessThanOrEqualToFinalShare, LessThanInitialShare]; v1beta2 requires them"))]
    return []


def _dropped(config: KueueConfiguration) -> list[MigrationChange]:
    found = []
    if config.has("integrations", "podOptions"):
        found.append(MigrationChange("f", ("integrations", "podOptions"), False, (
            "integrations.podOptions is dropped by the conversion and not accepted in v1beta2 (the closest "
            "field, managedJobsNamespaceSelector, has other semantics)")))
    if config.has("queueVisibility"):
        found.append(MigrationChange("f", ("queueVisibility",), False, (
            "queueVisibility is dropped by the conversion and not accepted in v1beta2")))
    return found
