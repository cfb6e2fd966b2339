"""The rule registry: built-in rule modules (an explicit, sorted tuple), plugins from the
entry-point group ``kqlint.rules`` and config ``plugins``, and declarative custom rules."""
from __future__ import annotations

import dataclasses
import importlib
import inspect
from collections.abc import Iterable
from types import ModuleType

from kqlint.errors import RegistryError
from kqlint.rule import Rule, RuleMeta

# One module per rule, by family (the code's hundreds digit). Keep sorted by code.
BUILTIN_RULE_MODULES: tuple[str, ...] = (
    "kqlint.rules.engine.kq000_unused_suppression",
    "kqlint.rules.engine.kq001_invalid_yaml",
    "kqlint.rules.engine.kq002_schema_violation",
    "kqlint.rules.engine.kq003_duplicate_object",
    "kqlint.rules.engine.kq004_api_rejects",
    "kqlint.rules.engine.kq005_deprecated_api",
    "kqlint.rules.engine.kq006_unrendered_template",
    "kqlint.rules.priority.kq101_pod_preemption_enabled",
    "kqlint.rules.priority.kq102_global_default_leak",
    "kqlint.rules.priority.kq103_multiple_global_defaults",
    "kqlint.rules.priority.kq104_mixed_priority_in_workload",
    "kqlint.rules.priority.kq105_priority_mismatch",
    "kqlint.rules.priority.kq106_non_uniform_pod_priority",
    "kqlint.rules.priority.kq107_pod_preemption_exposure",
    "kqlint.rules.priority.kq108_missing_workload_priority",
    "kqlint.rules.priority.kq109_priority_value_out_of_range",
    "kqlint.rules.queues.kq201_missing_within_cluster_queue",
    "kqlint.rules.queues.kq202_unknown_workload_priority_class",
    "kqlint.rules.queues.kq203_unknown_local_queue",
    "kqlint.rules.queues.kq204_unknown_cluster_queue",
    "kqlint.rules.queues.kq205_unknown_priority_class",
    "kqlint.rules.queues.kq206_unknown_resource_flavor",
    "kqlint.rules.queues.kq207_queue_name_missing",
    "kqlint.rules.queues.kq208_kueue_label_misplaced",
    "kqlint.rules.queues.kq209_resource_not_covered",
    "kqlint.rules.queues.kq210_exceeds_quota",
    "kqlint.rules.queues.kq211_cluster_queue_selects_no_namespace",
    "kqlint.rules.gang.kq301_min_member_mismatch",
    "kqlint.rules.gang.kq302_gang_group_missing",
    "kqlint.rules.gang.kq303_unknown_pod_group",
    "kqlint.rules.gang.kq304_mixed_gang_schedulers",
    "kqlint.rules.gang.kq305_incomplete_scheduler_name",
    "kqlint.rules.gang.kq306_partial_probe_override",
    "kqlint.rules.gang.kq307_kubeflow_replicas_unset",
    "kqlint.rules.podtemplate.kq401_missing_rdma_nic",
    "kqlint.rules.podtemplate.kq402_probe_without_handler",
    "kqlint.rules.podtemplate.kq403_extended_resource_mismatch",
    "kqlint.rules.kakaocloud.kq501_trainjob_scheduler_queue",
    "kqlint.rules.kakaocloud.kq502_volcano_queue_used",
    "kqlint.rules.kakaocloud.kq503_kai_queue_not_default",
    "kqlint.rules.kakaocloud.kq504_localqueue_foreign_cluster_queue",
    "kqlint.rules.kakaocloud.kq505_custom_priority_class_name",
    "kqlint.rules.kakaocloud.kq506_kai_enabled_label_missing",
    "kqlint.rules.kakaocloud.kq507_cross_tenant_reclaim",
    "kqlint.rules.kakaocloud.kq508_wrong_scheduler_name",
)

ENTRY_POINT_GROUP = "kqlint.rules"


def rule_from_module(module: ModuleType) -> Rule:
    meta = getattr(module, "META", None)
    if not isinstance(meta, RuleMeta):
        raise RegistryError(f"rule module {module.__name__} has no META = RuleMeta(...)")
    options_type = getattr(module, "Options", None)
    if options_type is not None and not dataclasses.is_dataclass(options_type):
        raise RegistryError(f"rule module {module.__name__}: Options must be a dataclass")
    if meta.scope == "object" and not hasattr(module, "check"):
        raise RegistryError(f"rule module {module.__name__} ({meta.code}) has no check(obj, ctx)")
    if meta.scope == "graph" and not hasattr(module, "check_graph"):
        raise RegistryError(f"rule module {module.__name__} ({meta.code}) has no check_graph(graph, ctx)")
    return Rule(meta, module, options_type, inspect.cleandoc(module.__doc__ or ""))


def builtin_rules() -> list[Rule]:
    return [rule_from_module(importlib.import_module(name)) for name in BUILTIN_RULE_MODULES]


def plugin_rules(extra_modules: Iterable[str] = ()) -> list[Rule]:
    """Rules from installed plugins (entry points) and config ``plugins`` (module names)."""
    rules: list[Rule] = []
    seen: set[str] = set()  # a module named by an entry point and by config `plugins` loads once
    for name, loader in sorted(_entry_point_modules() + [(m, m) for m in extra_modules], key=lambda i: i[0]):
        module = _load_plugin(name, loader)
        for member in getattr(module, "RULE_MODULES", None) or [module]:
            member = _load_plugin(name, member) if isinstance(member, str) else member
            if member.__name__ not in seen:
                seen.add(member.__name__)
                rules.append(rule_from_module(member))
    return rules


def _load_plugin(name: str, loader: object) -> ModuleType:
    try:
        return importlib.import_module(loader) if isinstance(loader, str) else loader.load()  # type: ignore[attr-defined, no-any-return]
    except (Exception, SystemExit, KeyboardInterrupt) as exc:  # a broken plugin is a configuration error:
        # not a crash, and a plugin calling sys.exit() at import does not decide kqlint's exit status
        from kqlint.sanitize import excerpt, shorten

        raise RegistryError(f"cannot load rule plugin {excerpt(name, 60)}: {type(exc).__name__}: "
                            f"{shorten(str(exc))}") from None


def _entry_point_modules() -> list[tuple[str, object]]:
    from importlib.metadata import entry_points

    return [(ep.name, ep) for ep in entry_points(group=ENTRY_POINT_GROUP)]


def all_rules(plugins: Iterable[str] = (), custom: Iterable[Rule] = ()) -> list[Rule]:
    rules = builtin_rules() + plugin_rules(plugins) + list(custom)
    seen: dict[str, Rule] = {}
    for rule in rules:
        for key in (rule.code, rule.slug):
            if key in seen and seen[key] is not rule:
                raise RegistryError(f"rule {rule.code} ({rule.slug}) clashes with {seen[key].code} "
                                    f"({seen[key].slug}): codes and slugs must be unique")
            seen[key] = rule
    return sorted(rules, key=lambda r: r.code)


def find_rule(rules: Iterable[Rule], name: str) -> Rule | None:
    wanted = name.strip()
    for rule in rules:
        if rule.code.upper() == wanted.upper() or rule.slug == wanted.lower():
            return rule
    return None
