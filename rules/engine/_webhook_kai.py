"""KQ004's KAI Scheduler items: what KAI's validating webhooks refuse on create.

Mirrors NVIDIA/KAI-Scheduler (``72de64fc``) ``pkg/apis/scheduling/v2alpha2/podgroup_webhook.go``
``validateSubGroups`` (duplicate subgroup names, a parent that names no subgroup, a cycle) and
``pkg/apis/scheduling/v2/queue_webhook.go`` (``resources must be specified``); and, for the
newer CRD with ``minSubGroup`` (rules.md, HEAD ``d5bc503a14``), ``minMember`` together with
``minSubGroup`` on the PodGroup or on one subgroup.
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kqlint.domain.chains import parent_loops
from kqlint.domain.objects import K8sObject
from kqlint.engine.rule import RuleContext
from kqlint.model import Finding
from kqlint.rules.engine._webhook import rejected

PODGROUP_VERSION = "scheduling.run.ai/v2alpha2"
QUEUE_VERSION = "scheduling.run.ai/v2"


def kai_findings(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    if obj.kind == "Queue" and obj.api_version == QUEUE_VERSION:
        if obj.get("spec", "resources") is None:
            at = obj.at("spec") if obj.has("spec") else obj.location()
            yield _rejected(obj, ctx, at, "the Queue webhook", "`resources must be specified`",
                            "give the queue spec.resources (quota, limit and overQuotaWeight per gpu, cpu, memory)")
    elif obj.kind == "PodGroup" and obj.api_version == PODGROUP_VERSION:
        yield from _pod_group(obj, ctx)


def _rejected(obj: K8sObject, ctx: RuleContext, at: Any, webhook: str, rule: str, remedy: str) -> Finding:
    return rejected(obj, ctx, at, f"KAI's {webhook}", rule, remedy)


def _pod_group(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    webhook = "PodGroup webhook"
    spec = obj.get("spec")
    if isinstance(spec, dict) and spec.get("minMember") is not None and spec.get("minSubGroup") is not None:
        yield _rejected(obj, ctx, obj.at("spec", "minSubGroup"), webhook,
                        "`minMember` and `minSubGroup` are mutually exclusive", "keep one of them")
    groups = obj.get("spec", "subGroups")
    groups = [(i, g) for i, g in enumerate(groups) if isinstance(g, dict) and _names_are_text(g)] \
        if isinstance(groups, list) else []  # another type is the schema's finding (KQ002)
    names: dict[Any, int] = {}
    for index, group in groups:
        base = ("spec", "subGroups", index)
        if group.get("name") in names:
            yield _rejected(obj, ctx, obj.at_value(*base, "name"), webhook,
                            f"`duplicate subgroup name {group.get('name')}`", "give every subgroup its own name")
        names.setdefault(group.get("name"), index)
        if group.get("minMember") is not None and group.get("minSubGroup") is not None:
            yield _rejected(obj, ctx, obj.at(*base, "minSubGroup"), webhook,
                            f"subgroup {group.get('name')}: `minMember` and `minSubGroup` are mutually exclusive",
                            "keep one of them")
    parents = {group.get("name"): group.get("parent") for _, group in groups if group.get("parent") is not None}
    looping = {name for loop in parent_loops(parents) for name in loop}
    for index, group in groups:
        parent = group.get("parent")
        if parent is None:
            continue
        at = obj.at_value("spec", "subGroups", index, "parent")
        if parent not in names:
            yield _rejected(obj, ctx, at, webhook, f"`parent {parent} of {group.get('name')} was not found`",
                            "name a subgroup of this PodGroup as parent")
        elif group.get("name") in looping:
            yield _rejected(obj, ctx, at, webhook, "`cycle detected in subgroups`",
                            "make the subgroups' parents form a tree")


def _names_are_text(group: dict[str, Any]) -> bool:
    return isinstance(group.get("name"), str) and (group.get("parent") is None or isinstance(group.get("parent"), str))
