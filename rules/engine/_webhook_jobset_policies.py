"""KQ004's JobSet items beyond the replicatedJobs: network subdomain, managedBy, failure policy and
coordinator, as ``ValidateCreate`` of kubernetes-sigs/jobset ``pkg/webhooks/jobset_webhook.go``
(``08dfbdfd``) refuses them: ``validation.IsDNS1123Subdomain``/``IsDNS1035Label`` of
``spec.network.subdomain``, ``IsDomainPrefixedPath`` and 63 characters for ``spec.managedBy``,
``validateFailurePolicy`` (rule names, targets, job failure reasons, ``RestartJob`` with more
than 1024 replicas), ``validateCoordinator`` and ``validateCoordinatorLabelValue`` (the
coordinator endpoint ``<jobset>-<replicatedJob>-<jobIndex>-<podIndex>.<subdomain or jobset>``,
``controllers.CoordinatorEndpoint``, must be a label value). Not mirrored: ``restartStrategy:
InPlaceRestart`` is rejected only while the ``InPlaceRestart`` gate is off, which the platform
model does not know.
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from kqlint.domain.fields import is_integer
from kqlint.domain.objects import K8sObject
from kqlint.engine.rule import RuleContext
from kqlint.loader.placeholders import holds_placeholder
from kqlint.model import Finding
from kqlint.rules.engine._webhook import rejected

DNS1123_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
DNS1035_LABEL = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
DNS1035_FORMAT = ("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
                  "alphabetic character, and end with an alphanumeric character")
LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
HTTP_PATH = re.compile(r"^[A-Za-z0-9/\-._~%!$&'()*+,;=:]+$")
RULE_NAME = re.compile(r"^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$")
MAX_LABEL, MAX_SUBDOMAIN, MAX_RULE_NAME, MAX_RESTARTED_REPLICAS = 63, 253, 128, 1024
JOB_FAILURE_REASONS = ("BackoffLimitExceeded", "DeadlineExceeded", "FailedIndexes", "MaxFailedIndexesExceeded",
                       "PodFailurePolicy")
RESTART_JOB_ACTIONS = ("RestartJob", "RestartJobAndIgnoreMaxRestarts")


def jobset_policy_findings(obj: K8sObject, ctx: RuleContext, name: str | None) -> Iterator[Finding]:
    """``name``: the JobSet name the webhook validates with (None: neither name nor generateName)."""
    yield from _subdomain(obj, ctx)
    yield from _managed_by(obj, ctx)
    yield from _failure_policy(obj, ctx)
    if isinstance(obj.get("spec", "coordinator"), dict):
        yield from _coordinator(obj, ctx, name)


def _rejected(obj: K8sObject, ctx: RuleContext, at: Any, rule: str, remedy: str) -> Finding:
    return rejected(obj, ctx, at, "the JobSet webhook", rule, remedy)


def _replicated_jobs(obj: K8sObject) -> list[tuple[int, dict[str, Any]]]:
    jobs = obj.get("spec", "replicatedJobs")
    return [(i, job) for i, job in enumerate(jobs) if isinstance(job, dict)] if isinstance(jobs, list) else []


def _short(text: str, limit: int = 40) -> str:
    """``text`` cut for a message (messages stay within 240 characters)."""
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _count(value: Any, default: int) -> int | None:
    if value is None:
        return default
    return int(value) if is_integer(value) else None


def _subdomain(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    subdomain = obj.get("spec", "network", "subdomain")
    if not isinstance(subdomain, str) or not subdomain or holds_placeholder(subdomain):
        return
    if len(subdomain) > MAX_LABEL:
        problem = "`.spec.network.subdomain is too long, must be less than 63 characters`"
    elif not DNS1123_SUBDOMAIN.match(subdomain) or not DNS1035_LABEL.match(subdomain):
        problem = f"`spec.network.subdomain: {DNS1035_FORMAT}`"
    else:
        return
    yield _rejected(obj, ctx, obj.at_value("spec", "network", "subdomain"), problem,
                    "use a lowercase name of at most 63 characters that starts with a letter (no dots)")


def _managed_by(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    manager = obj.get("spec", "managedBy")
    if not isinstance(manager, str) or holds_placeholder(manager):
        return
    host, _, path = manager.partition("/")
    prefixed = bool(host) and bool(path) and len(host) <= MAX_SUBDOMAIN and bool(DNS1123_SUBDOMAIN.match(host)) \
        and bool(HTTP_PATH.match(path))
    if not prefixed or len(manager) > MAX_LABEL:
        why = "must be a domain-prefixed path (such as \"acme.io/foo\")" if not prefixed else \
            f"may not be more than {MAX_LABEL} bytes"
        yield _rejected(obj, ctx, obj.at_value("spec", "managedBy"), f"`spec.managedBy: {why}`",
                        "name the managing controller as `<domain>/<name>`, at most 63 characters "
                        "(e.g. `kueue.x-k8s.io/multikueue`)")


def _failure_policy(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    rules = obj.get("spec", "failurePolicy", "rules")
    if not isinstance(rules, list):
        return
    base = ("spec", "failurePolicy", "rules")
    jobs = _replicated_jobs(obj)
    names = {name for _, job in jobs if isinstance(name := job.get("name"), str)}  # a list or map names none
    yield from _restart_job_replicas(obj, ctx, rules, jobs)
    seen: dict[str, int] = {}
    for index, rule in enumerate(rules):
        if not isinstance(rule, dict):
            continue
        name = rule.get("name") if rule.get("name") else f"failurePolicyRule{index}"  # the defaulter's name
        at = obj.at_value(*base, index, "name") if rule.get("name") else obj.at(*base, index)
        if isinstance(name, str) and not holds_placeholder(name):
            yield from _rule_name(obj, ctx, at, name, index, seen)
        yield from _rule_lists(obj, ctx, (*base, index), rule, names)


def _rule_name(obj: K8sObject, ctx: RuleContext, at: Any, name: str, index: int,
               seen: dict[str, int]) -> Iterator[Finding]:
    if len(name) > MAX_RULE_NAME:
        yield _rejected(obj, ctx, at, f"`invalid failure policy rule name of length {len(name)}, the rule name must "
                        f"be at least 1 characters long and at most {MAX_RULE_NAME} characters long`",
                        "shorten the rule name")
    if not RULE_NAME.match(name):
        yield _rejected(obj, ctx, at, f"`invalid failure policy rule name '{_short(name)}'`: it must start with a "
                        "letter, then letters, digits, `_`, `,` or `:` (no `-`), ending with a letter, digit or `_`",
                        "use letters, digits and `_` in the rule name (e.g. `restart_on_preemption`)")
    if name in seen:
        yield _rejected(obj, ctx, at, f"`rule names are not unique, rules with indices [{seen[name]} {index}] all have "
                        f"the same name '{_short(name)}'`", "give every failure-policy rule its own name")
    seen.setdefault(name, index)


def _rule_lists(obj: K8sObject, ctx: RuleContext, path: tuple[Any, ...], rule: dict[str, Any],
                names: set[Any]) -> Iterator[Finding]:
    targets = rule.get("targetReplicatedJobs")
    for position, target in enumerate(targets if isinstance(targets, list) else []):
        if isinstance(target, str) and target not in names:
            yield _rejected(obj, ctx, obj.at_value(*path, "targetReplicatedJobs", position),
                            f"`invalid replicatedJob name '{_short(target)}' in failure policy does not appear in "
                            ".spec.ReplicatedJobs`", "name a replicatedJob of this JobSet")
    reasons = rule.get("onJobFailureReasons")
    for position, reason in enumerate(reasons if isinstance(reasons, list) else []):
        if isinstance(reason, str) and reason not in JOB_FAILURE_REASONS:
            yield _rejected(obj, ctx, obj.at_value(*path, "onJobFailureReasons", position),
                            f"`invalid job failure reason '{_short(reason)}' in failure policy is not a recognized job "
                            "failure reason`", f"use one of {', '.join(JOB_FAILURE_REASONS)}")


def _restart_job_replicas(obj: K8sObject, ctx: RuleContext, rules: list[Any],
                          jobs: list[tuple[int, dict[str, Any]]]) -> Iterator[Finding]:
    """A ``RestartJob`` action with a replicatedJob of more than 1024 replicas (rejected
    whether the ``RestartJob`` gate is on or off: off, the action itself is refused)."""
    action = next((i for i, rule in enumerate(rules) if isinstance(rule, dict)
                   and rule.get("action") in RESTART_JOB_ACTIONS), None)
    if action is None:
        return
    for index, job in jobs:
        replicas = _count(job.get("replicas"), 1)
        if replicas is not None and replicas > MAX_RESTARTED_REPLICAS:
            yield ctx.finding(
                at=obj.at_value("spec", "replicatedJobs", index, "replicas"),
                related=[(obj.at_value("spec", "failurePolicy", "rules", action, "action"), "the RestartJob rule")],
                message=(f"{obj.display()}: the JobSet webhook rejects it: `JobSet cannot have a failure policy rule "
                         f"with RestartJob or RestartJobAndIgnoreMaxRestarts action and a replicated job with "
                         f"replicas > {MAX_RESTARTED_REPLICAS}`"),
                remedy="Split the replicatedJob, or restart the whole JobSet (RestartJobSet) instead")
            return


def _coordinator(obj: K8sObject, ctx: RuleContext, name: str | None) -> Iterator[Finding]:
    coordinator = obj.get("spec", "coordinator")
    at = obj.at("spec", "coordinator")
    target = coordinator.get("replicatedJob", "")
    job_index, pod_index = _count(coordinator.get("jobIndex"), 0), _count(coordinator.get("podIndex"), 0)
    problem = None if holds_placeholder(target) else _coordinator_problem(obj, target, job_index, pod_index)
    if problem:
        yield _rejected(obj, ctx, at, problem[0], problem[1])
    subdomain = obj.get("spec", "network", "subdomain")
    if name is None or job_index is None or pod_index is None or any(map(holds_placeholder, (target, subdomain))):
        return
    domain = subdomain if isinstance(subdomain, str) and subdomain else name
    endpoint = f"{name}-{target}-{job_index}-{pod_index}.{domain}"
    if len(endpoint) > MAX_LABEL or not LABEL_VALUE.match(endpoint):
        yield _rejected(obj, ctx, at, f"the coordinator endpoint ({len(endpoint)} characters) is no label value "
                        "(`spec will lead to invalid label value … for coordinator label`)",
                        f"shorten the JobSet, replicatedJob or subdomain name (`{endpoint}`)")


def _coordinator_problem(obj: K8sObject, target: Any, job_index: int | None,
                         pod_index: int | None) -> tuple[str, str] | None:
    """The first of ``validateCoordinator``'s checks that fails (it returns at the first)."""
    job = next((job for _, job in _replicated_jobs(obj) if job.get("name") == target), None)
    if job is None:
        return (f"`coordinator replicatedJob {_short(str(target))} does not exist`",
                "name a replicatedJob of this JobSet")
    replicas = _count(job.get("replicas"), 1)
    if job_index is None or replicas is None:
        return None
    if not 0 <= job_index < replicas:
        return (f"`coordinator job index {job_index} is invalid for replicatedJob {target}`",
                f"use a jobIndex from 0 to {replicas - 1}")
    spec = job.get("template", {}).get("spec") if isinstance(job.get("template"), dict) else None
    spec = spec if isinstance(spec, dict) else {}
    completions = _count(spec.get("completions"), 0) if spec.get("completions") is not None else None
    if spec.get("completionMode", "Indexed") != "Indexed" or completions is None:
        return ("`job for coordinator pod must be indexed completion mode, and completions number must be set`",
                "set completions (and keep completionMode Indexed) on the coordinator's replicatedJob")
    if pod_index is not None and not 0 <= pod_index < completions:
        return (f"`coordinator pod index {pod_index} is invalid for replicatedJob {target} job index {job_index}`",
                f"use a podIndex from 0 to {completions - 1}")
    return None
