"""KQ004's LeaderWorkerSet items: what the LWS validating webhook refuses on create.

Mirrors ``generalValidate`` and ``validateUpdateSubGroupPolicy`` of kubernetes-sigs/lws
``pkg/webhooks/leaderworkerset_webhook.go`` (``060ab4da17``), run after the CRD's defaults
(``replicas``, ``size`` 1; ``maxUnavailable`` 1, ``maxSurge`` 0 once ``rollingUpdateConfiguration``
exists or the defaulter creates it).
"""
from __future__ import annotations

import math
import re
from collections.abc import Iterator
from typing import Any

from kqlint.domain.fields import is_integer
from kqlint.domain.objects import K8sObject
from kqlint.engine.rule import RuleContext
from kqlint.loader.placeholders import holds_placeholder
from kqlint.model import Finding
from kqlint.rules.engine._webhook import rejected

MAX_INT32 = 2**31 - 1
MAX_REPLICAS = 1_000_000
EXCLUSIVE_TOPOLOGY = "leaderworkerset.sigs.k8s.io/subgroup-exclusive-topology"
DNS1035_LABEL = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
PERCENT = re.compile(r"^[0-9]+%$")
TEMPLATE = ("spec", "leaderWorkerTemplate")
ROLLING = ("spec", "rolloutStrategy", "rollingUpdateConfiguration")
SUBGROUP = (*TEMPLATE, "subGroupPolicy")


def lws_findings(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    name = obj.get("metadata", "name")
    if isinstance(name, str) and not holds_placeholder(name) and (len(name) > 63 or not DNS1035_LABEL.match(name)):
        yield _rejected(obj, ctx, obj.at_value("metadata", "name"),
                        f"metadata.name `{name}` is not a DNS-1035 label (it names the group's headless Service)",
                        "Rename it: at most 63 lowercase letters, digits and `-`, starting with a letter")
    replicas, size = _int(obj, ("spec", "replicas"), 1), _int(obj, (*TEMPLATE, "size"), 1)
    if replicas is None or size is None:
        return
    yield from _counts(obj, ctx, replicas, size)
    yield from _rollout(obj, ctx, replicas)
    yield from _subgroups(obj, ctx, size)


def _int(obj: K8sObject, path: tuple[str, ...], default: int) -> int | None:
    value = obj.get(*path)
    if value is None:
        return default
    return int(value) if is_integer(value) and not isinstance(value, bool) else None


def _rejected(obj: K8sObject, ctx: RuleContext, at: Any, rule: str, remedy: str) -> Finding:
    return rejected(obj, ctx, at, "the LeaderWorkerSet webhook", rule, remedy)


def _counts(obj: K8sObject, ctx: RuleContext, replicas: int, size: int) -> Iterator[Finding]:
    if replicas < 0 or replicas > MAX_REPLICAS:
        bound = "equal or greater than 0" if replicas < 0 else f"equal or less than {MAX_REPLICAS}"
        yield _rejected(obj, ctx, obj.at_value("spec", "replicas"), f"`replicas must be {bound}`",
                        f"set replicas between 0 and {MAX_REPLICAS}")
    if size < 1:
        yield _rejected(obj, ctx, obj.at_value(*TEMPLATE, "size"), "`size must be equal or greater than 1`",
                        "set leaderWorkerTemplate.size to the pods per group, the leader included")
    elif replicas * size > MAX_INT32:
        yield _rejected(obj, ctx, obj.at_value("spec", "replicas"),
                        f"`the product of replicas and worker replicas must not exceed {MAX_INT32}`",
                        "lower replicas or size")


def _rollout(obj: K8sObject, ctx: RuleContext, replicas: int) -> Iterator[Finding]:
    config = obj.get(*ROLLING)
    if config is not None and not isinstance(config, dict):
        return
    config = config or {}
    scaled: dict[str, int | None] = {}
    for key, default, round_up in (("maxUnavailable", 1, False), ("maxSurge", 0, True)):
        value = config.get(key, default) if config.get(key) is not None else default
        problem = _int_or_percent_problem(value)
        if problem:
            yield _rejected(obj, ctx, obj.at_value(*ROLLING, key), f"`{key}`: {problem}",
                            f"write {key} as an integer ≥ 0 or a percentage up to 100%")
            scaled[key] = None
        else:
            scaled[key] = _scaled(value, replicas, round_up)
    if scaled["maxUnavailable"] == 0 and scaled["maxSurge"] == 0 and replicas != 0:
        yield _rejected(obj, ctx, obj.at_value(*ROLLING, "maxUnavailable"),
                        "`maxUnavailable`: `must not be 0 when `maxSurge` is 0`",
                        "allow one of maxUnavailable or maxSurge to be above 0")


def _int_or_percent_problem(value: Any) -> str | None:
    if isinstance(value, str):
        if not PERCENT.match(value):
            return "`a valid percent string must be a numeric string followed by an ending '%'`"
        return "`must not be greater than 100%`" if int(value[:-1]) > 100 else None
    if is_integer(value) and not isinstance(value, bool):
        return "`must be greater than or equal to 0`" if int(value) < 0 else None
    return "`must be an integer or percentage (e.g '5%')`"


def _scaled(value: Any, replicas: int, round_up: bool) -> int:
    if isinstance(value, str):
        exact = int(value[:-1]) * replicas / 100
        return math.ceil(exact) if round_up else math.floor(exact)
    return int(value)


def _subgroups(obj: K8sObject, ctx: RuleContext, size: int) -> Iterator[Finding]:
    policy = obj.get(*SUBGROUP)
    if not isinstance(policy, dict):
        if EXCLUSIVE_TOPOLOGY in obj.annotations:
            yield _rejected(obj, ctx, obj.at("metadata", "annotations", EXCLUSIVE_TOPOLOGY),
                            "`cannot have subgroup-exclusive-topology without subGroupSize set`",
                            "set leaderWorkerTemplate.subGroupPolicy.subGroupSize, or remove the annotation")
        return
    sub = _int(obj, (*SUBGROUP, "subGroupSize"), 0)
    if sub is None or "subGroupSize" not in policy:
        return
    at = obj.at_value(*SUBGROUP, "subGroupSize")
    if sub < 1:
        yield _rejected(obj, ctx, at, "`subGroupSize must be equal or greater than 1`", "set subGroupSize ≥ 1")
        return
    if size % sub and (size - 1) % sub:
        yield _rejected(obj, ctx, at, f"`size or size - 1 must be divisible by subGroupSize` (size {size}, "
                        f"subGroupSize {sub})", "choose a subGroupSize that divides size or size - 1")
    if size < sub:
        yield _rejected(obj, ctx, at, f"`subGroupSize cannot be larger than size` ({sub} > {size})",
                        "lower subGroupSize to at most size")
    if policy.get("subGroupPolicyType") == "LeaderExcluded" and (size - 1) % sub:
        yield _rejected(obj, ctx, at, "`size-1 must be divisible by subGroupSize when using LeaderExcluded` "
                        f"(size {size}, subGroupSize {sub})", "choose a subGroupSize that divides size - 1")
