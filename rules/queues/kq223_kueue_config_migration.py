"""
## What it catches
A Kueue manager `Configuration` (the `kueue-manager-config` ConfigMap) in
`config.kueue.x-k8s.io/v1beta1` (deprecated; v1beta2 is served from Kueue 0.15) whose behaviour a
plain rename to v1beta2 would change:
(a) `waitForPodsReady.enable: true` without `blockAdmission` (warning, at `enable:`);
(b) `waitForPodsReady.enable: true` without `timeout` (warning, at `waitForPodsReady:`);
(c) no `waitForPodsReady`, or not enabled, where the platform's Kueue is 0.19 or later or
unknown (warning, at `enable:`, `waitForPodsReady:` or `apiVersion:` when the section is absent);
(d) `fairSharing` without `enable: true` (warning, at `enable:`);
(e) `fairSharing.enable: true` without `preemptionStrategies` (info, at `fairSharing:`);
(f) `integrations.podOptions` or `queueVisibility` (info, at the key).
(g) When none applies: one info at `apiVersion:` (the rename keeps the meaning).
Silent where the platform's Kueue is older than 0.15 (no v1beta2 to move to).

## Why it breaks on a cluster
The two versions default differently: v1beta1 defaults `blockAdmission` to `enable` (true) and
`timeout` to 5m, v1beta2 defaults `blockAdmission` to false and requires `timeout` (0.15-0.18)
or fills 30m (0.19+); from 0.19 an absent v1beta2 `waitForPodsReady` means on; a v1beta2
`fairSharing` section turns Fair Sharing on whatever it holds, and v1beta2 requires
`preemptionStrategies`; `podOptions` and `queueVisibility` are not accepted in v1beta2 (strict
decoding stops the manager, KQ222). Renaming the `apiVersion` alone silently changes how gangs
are admitted, or stops the manager.

## Bad
```yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: kueue-manager-config
  namespace: kueue-system
data:
  controller_manager_config.yaml: |
    apiVersion: config.kueue.x-k8s.io/v1beta1
    kind: Configuration
    waitForPodsReady:
      enable: true       # blockAdmission and timeout come from v1beta1 defaults
```

## Good
```yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: kueue-manager-config
  namespace: kueue-system
data:
  controller_manager_config.yaml: |
    apiVersion: config.kueue.x-k8s.io/v1beta2
    kind: Configuration
    waitForPodsReady:
      blockAdmission: true
      timeout: 5m
```

## How to fix
Write the v1beta2 document that keeps the behaviour: drop `enable`; write `blockAdmission: true`,
`timeout: 5m` and `preemptionStrategies: [LessThanOrEqualToFinalShare, LessThanInitialShare]`
explicitly; delete a disabled `fairSharing`. `kqlint check --fix --select KQ223` does it. The fix
is unsafe (`--unsafe-fixes`) where v1beta2 cannot say the same: waitForPodsReady off on Kueue 0.19
or later (only the alpha `DisableWaitForPodsReady` gate turns it off), and `podOptions` (no exact
v1beta2 field; closest: `managedJobsNamespaceSelector`) or `queueVisibility`.
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kqlint.domain.kinds import CORE_GROUP, GroupKind
from kqlint.domain.kueue_config import KUEUE_CONFIG_KEY, V1BETA1, V1BETA2, KueueConfiguration, configuration_of
from kqlint.domain.kueue_config_migration import (
    DEFAULT_STRATEGIES,
    FAIR,
    V1BETA1_TIMEOUT,
    WAIT,
    MigrationChange,
    keeps_off_only_by_gate,
    migration_changes,
)
from kqlint.domain.objects import K8sObject
from kqlint.domain.platform import platform_of
from kqlint.engine.rule import RuleContext, RuleMeta
from kqlint.fix.model import Edit, Fix
from kqlint.model import Finding, Severity

CONFIG_MAP = GroupKind(CORE_GROUP, "ConfigMap")
V1BETA2_SINCE = (0, 15)
FIX_TITLE = "Write the Configuration in v1beta2, keeping what v1beta1 meant"

# findings cache: reads only its own ConfigMap and the platform's Kueue version (the platform model is in
# every graph key); its own kind is named because a declaration names one
META = RuleMeta(code="KQ223", slug="kueue-config-migration", severity=Severity.WARNING,
                summary="a v1beta1 Kueue Configuration whose meaning a plain rename to v1beta2 would change",
                kinds=frozenset({CONFIG_MAP}), fix="unsafe",
                reads=frozenset({CONFIG_MAP}))


def check(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    config = configuration_of(obj)
    version = platform_of(ctx.graph).kueue_version
    if config is None or config.api_version != V1BETA1 or version is not None and version < V1BETA2_SINCE:
        return
    changes = migration_changes(config, version)
    fix = _v1beta2_fix(config, changes, version)
    if not changes:
        yield ctx.finding(at=config.at("apiVersion"), severity=Severity.INFO, fix=fix,
                          message=(f"the Kueue Configuration uses {V1BETA1}, which is deprecated (v1beta2 is served "
                                   "from Kueue 0.15); renaming it to v1beta2 keeps its meaning"),
                          remedy=f"Change apiVersion to {V1BETA2}")
    for change in changes:
        yield ctx.finding(at=config.at(*change.path), message=change.message, fix=fix,
                          severity=Severity.WARNING if change.changes_meaning else Severity.INFO,
                          remedy=_remedy(change))


def _remedy(change: MigrationChange) -> str:
    return {"a": "In v1beta2 write blockAdmission: true explicitly (and drop enable)",
            "b": f"In v1beta2 write timeout: {V1BETA1_TIMEOUT} explicitly",
            "c": "Keep v1beta1 until you want waitForPodsReady on, or turn it off with the alpha "
                 "DisableWaitForPodsReady feature gate",
            "d": "Delete the disabled fairSharing section when moving to v1beta2",
            "e": "In v1beta2 write preemptionStrategies: [LessThanOrEqualToFinalShare, LessThanInitialShare]",
            "f": "Remove it when moving to v1beta2" + (
                "; select namespaces with managedJobsNamespaceSelector instead" if "podOptions" in change.path else ""),
            }[change.case]


def _v1beta2_fix(config: KueueConfiguration, changes: list[MigrationChange],
                 version: tuple[int, int] | None) -> Fix | None:
    """The whole embedded document rewritten in v1beta2 (comments and order kept); unsafe where
    v1beta2 cannot say what v1beta1 did."""
    text = _rewritten(config, _edits(config))
    if text is None:
        return None
    unsafe = keeps_off_only_by_gate(config, version) or any(c.case == "f" for c in changes)
    edit = Edit.replace(("data", KUEUE_CONFIG_KEY), text)
    return Fix.unsafe(FIX_TITLE, edit) if unsafe else Fix.safe(FIX_TITLE, edit)


def _edits(config: KueueConfiguration) -> list[Edit]:
    edits = [Edit.replace(("apiVersion",), V1BETA2)]
    for name, needed in ((WAIT, {"blockAdmission": True, "timeout": V1BETA1_TIMEOUT}),
                         (FAIR, {"preemptionStrategies": DEFAULT_STRATEGIES})):
        section = config.get(name)
        if not isinstance(section, dict):
            continue
        if section.get("enable") is not True:
            edits.append(Edit.remove((name,)))  # off in v1beta1
            continue
        edits.append(Edit.remove((name, "enable")))
        edits += [Edit.insert((name,), key, value) for key, value in needed.items() if key not in section]
    edits += [Edit.remove(path) for path in (("integrations", "podOptions"), ("queueVisibility",))
              if config.has(*path)]
    return edits


def _rewritten(config: KueueConfiguration, edits: list[Edit]) -> str | None:
    """The embedded text with ``edits`` applied by the fixer itself (exact text edits); None when
    they cannot all be written."""
    from kqlint.domain.objects import objects_from_file
    from kqlint.fix import fix_file
    from kqlint.loader import parse_bytes

    raw = str(config.configmap.get("data", KUEUE_CONFIG_KEY)).encode("utf-8")
    found, _, _ = objects_from_file(parse_bytes(KUEUE_CONFIG_KEY, raw), "default")
    if len(found) != 1:
        return None
    embedded: Any = found[0]
    finding = Finding(META.code, META.slug, META.severity, "", embedded.at("apiVersion"),
                      fix=Fix.safe(FIX_TITLE, *edits))
    outcome = fix_file(raw, KUEUE_CONFIG_KEY, [finding])
    return outcome.text if outcome.applied == [finding] and not outcome.stale else None
