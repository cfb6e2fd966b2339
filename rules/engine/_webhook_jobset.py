"""KQ004's JobSet items: what the JobSet validating webhook refuses on create.

Mirrors ``ValidateCreate`` of kubernetes-sigs/jobset ``pkg/webhooks/jobset_webhook.go``
(``08dfbdfd``), after its defaulter (``completionMode: Indexed`` when unset) and the CRD's
defaults (``replicas`` 1, ``groupName`` ``default``). Child names come from
``placement.GenJobName``/``GenPodName`` (``pkg/util/placement/placement.go``): the longest job is
``<jobset>-<replicatedJob>-<replicas-1>``, the longest pod of an Indexed job with ``completions``
``<jobset>-<replicatedJob>-<replicas-1>-<completions-1>-abcde``; with only ``generateName`` the
webhook validates a generated name (the prefix, cut to 58 characters, and 5 more).
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kqlint.domain.fields import is_integer
from kqlint.domain.objects import K8sObject
from kqlint.engine.rule import RuleContext
from kqlint.loader.placeholders import holds_placeholder
from kqlint.model import Finding
from kqlint.rules.engine._webhook import rejected
from kqlint.rules.engine._webhook_jobset_policies import DNS1035_FORMAT, DNS1035_LABEL, jobset_policy_findings

MAX_INT32 = 2**31 - 1
MAX_LABEL = 63
GENERATED_PREFIX = 58  # names.SimpleNameGenerator: at most 58 characters of generateName, then 5
JOB_TOO_LONG = "JobSet name is too long, job names generated for this JobSet will exceed 63 characters"
POD_TOO_LONG = "JobSet name is too long, pod names generated for this JobSet will exceed 63 characters"


def jobset_findings(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    jobs = obj.get("spec", "replicatedJobs")
    if not isinstance(jobs, list):
        return
    name = _name_for_validation(obj)
    earlier: set[str] = set()
    for index, job in enumerate(jobs):
        if not isinstance(job, dict):
            continue
        base = ("spec", "replicatedJobs", index)
        if name is not None:
            yield from _child_names(obj, ctx, base, name, job)
        yield from _depends_on(obj, ctx, base, index, job, earlier)
        yield from _sizes(obj, ctx, base, job)
        job_name = job.get("name")
        if isinstance(job_name, str):  # another type is the schema's finding (KQ002)
            earlier.add(job_name)
    yield from jobset_policy_findings(obj, ctx, name)
    targets = obj.get("spec", "successPolicy", "targetReplicatedJobs")
    for position, target in enumerate(targets if isinstance(targets, list) else []):
        if isinstance(target, str) and target not in earlier and not holds_placeholder(target):
            yield _rejected(obj, ctx, obj.at_value("spec", "successPolicy", "targetReplicatedJobs", position),
                            f"`invalid replicatedJob name '{target}' does not appear in .spec.ReplicatedJobs`",
                            "name a replicatedJob of this JobSet")


def _name_for_validation(obj: K8sObject) -> str | None:
    name, prefix = obj.get("metadata", "name"), obj.get("metadata", "generateName")
    if isinstance(name, str) and name:
        return None if holds_placeholder(name) else name
    if isinstance(prefix, str) and prefix:
        return None if holds_placeholder(prefix) else prefix[:GENERATED_PREFIX] + "abcde"
    return None


def _rejected(obj: K8sObject, ctx: RuleContext, at: Any, rule: str, remedy: str) -> Finding:
    return rejected(obj, ctx, at, "the JobSet webhook", rule, remedy)


def _count(value: Any, default: int) -> int | None:
    if value is None:
        return default
    return int(value) if is_integer(value) and not isinstance(value, bool) else None


def _child_names(obj: K8sObject, ctx: RuleContext, base: tuple[Any, ...], name: str,
                 job: dict[str, Any]) -> Iterator[Finding]:
    replicas, spec = _count(job.get("replicas"), 1), job.get("template", {}).get("spec") \
        if isinstance(job.get("template"), dict) else None
    if replicas is None or not isinstance(job.get("name"), str) or holds_placeholder(job["name"]):
        return
    longest_job = f"{name}-{job['name']}-{replicas - 1}"
    problem = _dns1035_problem(longest_job, JOB_TOO_LONG)
    if problem is None and isinstance(spec, dict) and spec.get("completionMode") in (None, "Indexed"):
        completions = _count(spec.get("completions"), 0) if spec.get("completions") is not None else None
        if completions is not None:
            longest_pod = f"{longest_job}-{completions - 1}-abcde"
            problem = _dns1035_problem(longest_pod, POD_TOO_LONG)
            longest_job = longest_pod if problem else longest_job
    if problem:
        yield _rejected(obj, ctx, obj.at_value(*base, "name"), f"`{problem}` (the longest is {len(longest_job)} "
                        "characters)", f"Shorten the JobSet or replicatedJob name (`{longest_job}`)")


def _dns1035_problem(label: str, too_long: str) -> str | None:
    if len(label) > MAX_LABEL:
        return too_long
    return None if DNS1035_LABEL.match(label) else DNS1035_FORMAT


def _depends_on(obj: K8sObject, ctx: RuleContext, base: tuple[Any, ...], index: int, job: dict[str, Any],
                earlier: set[str]) -> Iterator[Finding]:
    depends = job.get("dependsOn")
    if not isinstance(depends, list):
        return
    if index == 0:
        yield _rejected(obj, ctx, obj.at(*base, "dependsOn"), "`DependsOn can't be set for the first ReplicatedJob`",
                        "remove dependsOn from the first replicatedJob, or reorder the replicatedJobs")
        return
    for position, item in enumerate(depends):
        target = item.get("name") if isinstance(item, dict) else None
        if isinstance(target, str) and target not in earlier:
            yield _rejected(obj, ctx, obj.at_value(*base, "dependsOn", position, "name"),
                            f"`replicatedJob: {job.get('name')} cannot depend on replicatedJob: {target}`",
                            "depend only on a replicatedJob listed before this one")


def _sizes(obj: K8sObject, ctx: RuleContext, base: tuple[Any, ...], job: dict[str, Any]) -> Iterator[Finding]:
    spec = job.get("template", {}).get("spec") if isinstance(job.get("template"), dict) else None
    replicas = _count(job.get("replicas"), 1)
    parallelism = _count(spec.get("parallelism") if isinstance(spec, dict) else None, 1)
    if replicas is not None and parallelism is not None and replicas * parallelism > MAX_INT32:
        yield _rejected(obj, ctx, obj.at_value(*base, "replicas"),
                        f"`the product of replicas and parallelism must not exceed {MAX_INT32} for replicatedJob "
                        f"'{job.get('name')}'`", "lower replicas or parallelism")
    group = job.get("groupName")
    if isinstance(group, str) and not holds_placeholder(group):
        problem = _dns1035_problem(group, ".spec.replicatedJob[].groupName is too long, must be less than 63 "
                                          "characters")
        if problem:
            yield _rejected(obj, ctx, obj.at_value(*base, "groupName"), f"`{problem}`",
                            "use a DNS-1035 label as groupName")
