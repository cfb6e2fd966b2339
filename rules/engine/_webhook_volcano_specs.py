"""KQ004's Volcano items beyond names and plugins: what Volcano's admission refuses on create in a
Job's tasks, policies and volumes, a PodGroup's network topology and a Queue's hierarchy
annotations. Mirrors volcano-sh/volcano (``ed72c7c81``):
``pkg/webhooks/admission/jobs/validate/admit_job.go`` ``validatePartitionPolicy``,
``validateNetworkTopology``, ``validateTaskTopoPolicy``/``guaranteedCPUs`` and the DAG check
(``util.go`` ``topoSort``/``makeGraph``), ``util.go`` ``validatePolicies`` (spec and task
policies) and ``validateIO``; ``podgroups/validate/validate_podgroup.go``
``validateNetworkTopology``; ``queues/validate/validate_queue.go``
``validateHierarchicalAttributes``. Policy events outside the CRD's enum are KQ002's (the
schema); the events the enum allows but the webhook refuses (``PodRunning``, ``OutOfSync``,
``CommandIssued``) are reported here.
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kqlint.domain.fields import is_integer
from kqlint.domain.objects import K8sObject
from kqlint.domain.quantity import parse_quantity, resource_list
from kqlint.engine.rule import RuleContext
from kqlint.model import Finding
from kqlint.rules.engine._webhook import rejected

CRD_EVENTS = frozenset({"*", "PodPending", "PodRunning", "PodFailed", "PodEvicted", "Unknown", "TaskCompleted",
                        "OutOfSync", "CommandIssued", "JobUpdated", "TaskFailed"})
REFUSED_EVENTS = frozenset({"PodRunning", "OutOfSync", "CommandIssued"})  # in the enum, refused by the webhook
ACTIONS = frozenset({"AbortJob", "RestartJob", "RestartTask", "RestartPod", "RestartPartition", "TerminateJob",
                     "CompleteJob", "ResumeJob"})
BOTH_TIERS = "must not specify 'highestTierAllowed' and 'highestTierName' in networkTopology simultaneously"
HIERARCHY, HIERARCHY_WEIGHTS = "volcano.sh/hierarchy", "volcano.sh/hierarchy-weights"


def _rejected(obj: K8sObject, ctx: RuleContext, at: Any, rule: str, remedy: str, who: str = "job") -> Finding:
    return rejected(obj, ctx, at, f"Volcano's {who} admission", rule, remedy)


def _tasks(obj: K8sObject) -> list[tuple[int, dict[str, Any]]]:
    tasks = obj.get("spec", "tasks")
    return [(i, t) for i, t in enumerate(tasks) if isinstance(t, dict)] if isinstance(tasks, list) else []


def _int(value: Any, default: int = 0) -> int | None:
    return default if value is None else int(value) if is_integer(value) else None


def volcano_job_spec_findings(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    yield from _both_tiers(obj, ctx, ("spec", "networkTopology"))
    for index, task in _tasks(obj):
        base = ("spec", "tasks", index)
        yield from _partition(obj, ctx, base, task)
        yield from _topology_policy(obj, ctx, base, index, task)
        yield from _policies(obj, ctx, (*base, "policies"))
    yield from _policies(obj, ctx, ("spec", "policies"))
    yield from _volumes(obj, ctx)
    yield from _dependency_cycle(obj, ctx)


def _both_tiers(obj: K8sObject, ctx: RuleContext, path: tuple[Any, ...], who: str = "job",
                where: str = "") -> Iterator[Finding]:
    topology = obj.get(*path)
    if isinstance(topology, dict) and topology.get("highestTierAllowed") is not None \
            and topology.get("highestTierName") not in (None, ""):
        yield _rejected(obj, ctx, obj.at(*path), f"{where}`{BOTH_TIERS}`",
                        "set only one of highestTierAllowed and highestTierName", who)


def _partition(obj: K8sObject, ctx: RuleContext, base: tuple[Any, ...], task: dict[str, Any]) -> Iterator[Finding]:
    policy = task.get("partitionPolicy")
    if not isinstance(policy, dict):
        return
    name = task.get("name")
    total, size, minimum = (_int(policy.get(k)) for k in ("totalPartitions", "partitionSize", "minPartitions"))
    replicas, available = _int(task.get("replicas")), task.get("minAvailable")
    path = (*base, "partitionPolicy")
    problem: tuple[tuple[Any, ...], str, str] | None = None
    if total is None or size is None or replicas is None or minimum is None:
        problem = None  # another type is KQ002's
    elif total <= 0:
        problem = ((*path, "totalPartitions"), "'TotalPartitions' must be greater than 0", "set totalPartitions ≥ 1")
    elif size <= 0:
        problem = ((*path, "partitionSize"), "'PartitionSize' must be greater than 0", "set partitionSize ≥ 1")
    elif replicas != total * size:
        problem = ((*base, "replicas"), "'Replicas' are not equal to TotalPartitions*PartitionSize",
                   f"set replicas to {total * size} (totalPartitions × partitionSize)")
    elif is_integer(available) and minimum > 0 and available != minimum * size:
        problem = ((*base, "minAvailable"), "'MinAvailable' is not equal to MinPartitions*PartitionSize",
                   f"set minAvailable to {minimum * size} or remove it")
    if problem is not None:
        at = obj.at_value(*problem[0]) if obj.has(*problem[0]) else obj.at(*path)
        yield _rejected(obj, ctx, at, f"`{problem[1]} in task: {name}`", problem[2])
    yield from _both_tiers(obj, ctx, (*path, "networkTopology"))


def _topology_policy(obj: K8sObject, ctx: RuleContext, base: tuple[Any, ...], index: int,
                     task: dict[str, Any]) -> Iterator[Finding]:
    """A ``topologyPolicy`` other than ``none`` needs whole CPUs in every container (its requests,
    or its limits when it requests nothing; a missing cpu counts as 0 and is refused too)."""
    if task.get("topologyPolicy") in (None, "", "none"):
        return
    spec = task.get("template", {}).get("spec") if isinstance(task.get("template"), dict) else None
    if not isinstance(spec, dict):
        return
    position = 0
    for key in ("containers", "initContainers"):
        items = spec.get(key)
        for c, container in enumerate(items if isinstance(items, list) else []):
            if not isinstance(container, dict):
                continue
            requests = resource_list(container.get("resources"), "requests")
            source = "requests" if requests else "limits"
            cpu = parse_quantity(resource_list(container.get("resources"), source).get("cpu", 0))
            if cpu is not None and (cpu == 0 or cpu.denominator != 1):
                path = (*base, "template", "spec", key, c)
                at = obj.at_value(*path, "resources", source, "cpu") if obj.has(*path, "resources", source, "cpu") \
                    else obj.at(*path)
                yield _rejected(obj, ctx, at, f"`the cpu request isn't an integer in spec.task[{index}] "
                                f"container[{position}].` (topologyPolicy {task.get('topologyPolicy')})",
                                "request a whole number of CPUs (at least 1) in every container, or drop "
                                "topologyPolicy")
                return  # the webhook stops at the first
            position += 1


def _policies(obj: K8sObject, ctx: RuleContext, path: tuple[Any, ...]) -> Iterator[Finding]:
    """``validatePolicies``: it stops at the first problem; ``*`` excludes every other event."""
    policies = obj.get(*path)
    events: dict[Any, int] = {}
    codes: set[Any] = set()
    for index, policy in enumerate(policies if isinstance(policies, list) else []):
        if not isinstance(policy, dict):
            continue
        problem = _policy_problem(policy, events, codes, index)
        if problem is not None:
            at = obj.at(*path, index, problem[0]) if problem[0] in policy else obj.at(*path, index)
            yield _rejected(obj, ctx, at, f"`{problem[1]}`", problem[2])
            return
    if "*" in events and len(events) > 1:
        yield _rejected(obj, ctx, obj.at(*path, events["*"]), "`if there's * here, no other policy should be here`",
                        "keep the `*` policy alone, or list the events one by one")


def _typed_as_the_schema_says(policy: dict[str, Any]) -> bool:
    """``event``/``action`` strings, ``events`` a list of strings, ``exitCode`` an integer (or unset)."""
    event, events, action, code = (policy.get(key) for key in ("event", "events", "action", "exitCode"))
    return (event is None or isinstance(event, str)) and (action is None or isinstance(action, str)) \
        and (events is None or isinstance(events, list) and all(isinstance(e, str) for e in events)) \
        and (code is None or isinstance(code, int) and not isinstance(code, bool))


def _policy_problem(policy: dict[str, Any], events: dict[Any, int], codes: set[Any],
                    index: int) -> tuple[str, str, str] | None:
    if not _typed_as_the_schema_says(policy):
        return None  # a field of another type: the schema's (KQ002)
    listed = [e for e in policy.get("events") or [] if isinstance(e, str)]
    if policy.get("event"):
        listed.append(policy["event"])
    code = policy.get("exitCode")
    if listed and code is not None:
        return "exitCode", "must not specify event and exitCode simultaneously", "keep either the events or exitCode"
    if not listed and code is None:
        return "action", "either event and exitCode should be specified", "add an event or an exitCode"
    for event in dict.fromkeys(listed):
        if event not in CRD_EVENTS:
            return None  # the schema's enum: KQ002
        if event in REFUSED_EVENTS:
            return "event" if policy.get("event") == event else "events", "invalid policy event", \
                "use an event the webhook accepts (`PodFailed`, `PodEvicted`, `TaskCompleted`, …)"
        if policy.get("action") not in ACTIONS:
            return "action", "invalid policy action", f"use one of {', '.join(sorted(ACTIONS))}"
        if event in events:
            return "event" if policy.get("event") == event else "events", \
                f"duplicate event {event}  across different policy", "name each event in one policy only"
        events[event] = index
    if not listed:
        if code == 0:
            return "exitCode", "0 is not a valid error code", "use a non-zero exit code"
        if code in codes:
            return "exitCode", f"duplicate exitCode {code}", "name each exit code in one policy only"
        codes.add(code)
    return None


def _volumes(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    """``validateIO``: it stops at the first problem."""
    volumes = obj.get("spec", "volumes")
    paths: set[Any] = set()
    for index, volume in enumerate(volumes if isinstance(volumes, list) else []):
        if not isinstance(volume, dict):
            continue
        at = obj.at("spec", "volumes", index)
        mount = volume.get("mountPath")
        if not mount:
            yield _rejected(obj, ctx, at, "`mountPath is required`", "give the volume a mountPath")
            return
        if mount in paths:
            yield _rejected(obj, ctx, obj.at_value("spec", "volumes", index, "mountPath"),
                            f"`duplicated mountPath: {mount}`", "mount each volume at its own path")
            return
        if volume.get("volumeClaim") is None and not volume.get("volumeClaimName"):
            yield _rejected(obj, ctx, at, "`either VolumeClaim or VolumeClaimName must be specified`",
                            "name an existing PVC (volumeClaimName) or describe a new one (volumeClaim)")
            return
        paths.add(mount)


def _dependency_cycle(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    """Task ``dependsOn.name`` must form a DAG (``topoSort``): a cycle, a name that is no task, or
    a name listed twice leaves tasks unsorted. Reported at the ``dependsOn`` of one of them:
    on a cycle when there is one."""
    tasks = _tasks(obj)
    names = [task.get("name") for _, task in tasks]
    if not all(isinstance(n, str) for n in names) or len(set(names)) != len(names):
        return  # missing, non-string or duplicate names: reported apart
    needs = {task["name"]: _depends(task) for _, task in tasks}
    if not any(needs.values()):
        return
    unsorted = _unsorted(needs)
    if not unsorted:
        return
    culprit = _on_cycle(needs, unsorted)
    index = names.index(culprit)
    yield _rejected(obj, ctx, obj.at("spec", "tasks", index, "dependsOn"),
                    "`job has dependencies between tasks, but doesn't form a directed acyclic graph(DAG)` "
                    f"(task {culprit} waits on {', '.join(needs[culprit])})",
                    "make the dependsOn names form a chain without loops, naming only tasks of this job, each once")


def _depends(task: dict[str, Any]) -> list[str]:
    depends = task.get("dependsOn")
    names = depends.get("name") if isinstance(depends, dict) else None
    return [str(n) for n in names] if isinstance(names, list) else []


def _unsorted(needs: dict[str, list[str]]) -> list[str]:
    """Kahn's sort as ``topoSort`` does it: in-degree counts every listed name, an unknown name
    never reaches 0."""
    degree = {task: len(listed) for task, listed in needs.items()}
    waiting: dict[str, list[str]] = {}  # name -> the tasks listing it, once per listing (linear, not a scan per task)
    for other, listed in needs.items():
        for name in listed:
            waiting.setdefault(name, []).append(other)
    ready = [task for task, count in degree.items() if count == 0]
    done: set[str] = set()
    while ready:
        task = ready.pop()
        done.add(task)
        for other in waiting.get(task, ()):
            degree[other] -= 1
            if degree[other] == 0:
                ready.append(other)
    return [task for task in needs if task not in done]


def _on_cycle(needs: dict[str, list[str]], unsorted: list[str]) -> str:
    """A task on a loop of unsorted tasks, else the first that names an unknown or repeated task."""
    for task in unsorted:
        listed = needs[task]
        if any(name not in needs for name in listed) or len(set(listed)) != len(listed):
            return task
    seen: set[str] = set()
    stuck = set(unsorted)
    task = unsorted[0]
    while task not in seen:
        seen.add(task)
        task = next(name for name in needs[task] if name in stuck)
    return task


# ------------------------------------------------------------------ PodGroup, Queue

def volcano_pod_group_findings(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    yield from _both_tiers(obj, ctx, ("spec", "networkTopology"), "PodGroup")
    policies = obj.get("spec", "subGroupPolicy")
    for index, policy in enumerate(policies if isinstance(policies, list) else []):
        if isinstance(policy, dict):
            yield from _both_tiers(obj, ctx, ("spec", "subGroupPolicy", index, "networkTopology"), "PodGroup",
                                   f"in subGroupPolicy '{policy.get('name')}': ")


def volcano_queue_findings(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    """``volcano.sh/hierarchy`` and ``volcano.sh/hierarchy-weights``: as many parts, weights > 0."""
    hierarchy, weights = obj.annotations.get(HIERARCHY), obj.annotations.get(HIERARCHY_WEIGHTS)
    if not hierarchy and not weights:
        return
    paths = str(hierarchy or "").split("/")
    parts = str(weights or "").split("/")
    at = obj.at_value("metadata", "annotations", HIERARCHY if hierarchy else HIERARCHY_WEIGHTS)
    if len(paths) != len(parts):
        yield _rejected(obj, ctx, at, f"`{HIERARCHY} must have the same length with {HIERARCHY_WEIGHTS}` "
                        f"({len(paths)} and {len(parts)} parts)", "give one weight per level of the hierarchy",
                        "queue")
        return
    for part in parts:
        weight = _float(part)
        if weight is not None and weight <= 0:  # a number Go's ParseFloat refuses is not judged
            yield _rejected(obj, ctx, obj.at_value("metadata", "annotations", HIERARCHY_WEIGHTS),
                            f"`{part} in the {weights} must be larger than 0`", "write each weight as a number above 0",
                            "queue")
            return


def _float(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None
