"""KQ004's Volcano Job items: what Volcano's job admission refuses on create.

Mirrors volcano-sh/volcano (``ed72c7c81``) ``pkg/webhooks/admission/jobs/validate/admit_job.go``
``validateJobCreate`` (no task; the MPI plugin's master task, ``--master``, default ``master``,
``pkg/controllers/job/plugins/distributed-framework/mpi/mpi.go``; duplicate task names; pod names
``<job>-<task>-<task position>`` and the job name as qualified names, ``validateK8sPodNameLength``,
``validateJobName``; plugins outside the registry, ``pkg/controllers/job/plugins/factory.go``) and
the ``job-validation-policy`` admission policy's task names as DNS-1123 labels.
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from kqlint.domain.objects import K8sObject
from kqlint.engine.rule import RuleContext
from kqlint.loader.placeholders import holds_placeholder
from kqlint.model import Finding
from kqlint.rules.engine._webhook import rejected

PLUGINS = frozenset({"ssh", "env", "svc", "tensorflow", "mpi", "pytorch", "hcclrank", "ray"})
QUALIFIED_NAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
DNS1123_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
MAX_NAME = 63
MASTER_FLAG = re.compile(r"^--?master(?:=(.*))?$")


def volcano_job_findings(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    tasks = obj.get("spec", "tasks")
    if not isinstance(tasks, list) or not tasks:
        at = obj.at("spec", "tasks") if obj.has("spec") else obj.location()
        yield _rejected(obj, ctx, at, "`No task specified in job spec`", "add at least one task")
        return
    names = [task.get("name") if isinstance(task, dict) else None for task in tasks]
    yield from _plugins(obj, ctx, names)
    yield from _task_names(obj, ctx, names)
    job = obj.get("metadata", "name")
    if isinstance(job, str) and not holds_placeholder(job) and not _qualified(job):
        yield _rejected(obj, ctx, obj.at_value("metadata", "name"),
                        f"the job name is not a qualified name of at most 63 characters ({len(job)}; the server "
                        "says `create job with name … validate failed`)", "Shorten or rename the job")


def _rejected(obj: K8sObject, ctx: RuleContext, at: Any, rule: str, remedy: str) -> Finding:
    return rejected(obj, ctx, at, "Volcano's job admission", rule, remedy)


def _qualified(name: str) -> bool:
    return len(name) <= MAX_NAME and bool(QUALIFIED_NAME.match(name))


def _plugins(obj: K8sObject, ctx: RuleContext, names: list[Any]) -> Iterator[Finding]:
    plugins = obj.get("spec", "plugins")
    if not isinstance(plugins, dict):
        return
    for plugin in plugins:
        if plugin not in PLUGINS:
            yield _rejected(obj, ctx, obj.at("spec", "plugins", plugin), f"`unable to find job plugin: {plugin}`",
                            f"use one of {', '.join(sorted(PLUGINS))}")
    if "mpi" in plugins:
        master = _mpi_master(plugins["mpi"])
        if master not in names:
            yield _rejected(obj, ctx, obj.at("spec", "plugins", "mpi"),
                            f"`The specified mpi master task was not found` (no task named `{master}`)",
                            f"name the launcher task `{master}`, or pass `--master=<task name>` to the mpi plugin")


def _mpi_master(arguments: Any) -> Any:
    """The ``--master`` flag among the plugin's arguments (Go's flag syntax), else ``master``."""
    master: Any = "master"
    items = [str(a) for a in arguments] if isinstance(arguments, list) else []
    for position, item in enumerate(items):
        match = MASTER_FLAG.match(item)
        if match and match.group(1) is not None:
            master = match.group(1)
        elif match and position + 1 < len(items):
            master = items[position + 1]
    return master


def _task_names(obj: K8sObject, ctx: RuleContext, names: list[Any]) -> Iterator[Finding]:
    seen: set[Any] = set()
    job = obj.get("metadata", "name")
    for position, name in enumerate(names):
        if not isinstance(name, str):
            continue
        at = obj.at_value("spec", "tasks", position, "name")
        if name in seen:
            yield _rejected(obj, ctx, at, f"`duplicated task name {name}`", "give every task its own name")
            return  # the webhook stops at the first duplicate
        seen.add(name)
        if holds_placeholder(name):  # the same placeholder twice renders the same name: a duplicate all the same
            continue
        if len(name) > MAX_NAME or not DNS1123_LABEL.match(name):
            yield _rejected(obj, ctx, at, f"task name `{name}` is not a DNS-1123 label (job-validation-policy)",
                            "use lowercase letters, digits and `-`, at most 63 characters")
        elif isinstance(job, str) and not holds_placeholder(job) and _qualified(job) \
                and not _qualified(pod := f"{job}-{name}-{position}"):
            yield _rejected(obj, ctx, at, f"its pod name `<job>-{name}-{position}` is {len(pod)} characters, more than "
                            "63 (the server says `create pod with name … validate failed`)",
                            f"Shorten the job or task name (`{pod}`)")
