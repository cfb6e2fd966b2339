"""
## What it catches
(a) A pod template (or bare Pod, or a Volcano Job's `spec.schedulerName`) whose `schedulerName`
is no scheduler kqlint knows **and** is within two edits (Damerau–Levenshtein, ignoring case;
names of 4 or more characters) of one that it knows: `vocalno` for `volcano`, `kai-schduler`
for `kai-scheduler`, `defualt-scheduler`. A name far from every known one (`yunikorn`,
`volcano-gpu`) is not reported: clusters run custom schedulers.

(b) A pod template carrying a gang marker — Volcano's `scheduling.k8s.io/group-name` (or
`scheduling.volcano.sh/group-name`) annotation, KAI's `pod-group-name` annotation or
`kai.scheduler/subgroup-name` label, coscheduling's `scheduling.x-k8s.io/pod-group` label —
while its pods go to `default-scheduler` (no `schedulerName`, or that name), or to a
kube-scheduler profile of a `KubeSchedulerConfiguration` in the repository that enables no
`Coscheduling` plugin (warning). Not for kinds whose operator fills in the scheduler (Volcano
Job, Kubeflow jobs, Ray, Dynamo), not when the marker's own scheduler options list the name
(`coscheduling-scheduler-names: [default-scheduler]` for a scheduler-plugins default scheduler),
and not where Volcano's admission webhook assigns `schedulerName` (`resourceGroups` in its
ConfigMap).

What it assumes (printed as the platform model's "scheduler names" by `kqlint graph` and
`--statistics`): the known names are `default-scheduler`; the options
`volcano-scheduler-names`, `kai-scheduler-names`, `coscheduling-scheduler-names` and
`scheduler-names`; the configuration's `platform.schedulers`; and names the repository sets
up: `profiles[].schedulerName` of a `KubeSchedulerConfiguration` (a file, or text in a
ConfigMap), `--scheduler-name` in the arguments of a Deployment's, StatefulSet's, DaemonSet's
or Pod's container, and `resourceGroups[].schedulerName` of a Volcano admission ConfigMap.
Before reporting a typo, every ConfigMap and container of the repository is searched for the
name. Which kube-scheduler profiles enable `Coscheduling` comes from the same
`KubeSchedulerConfiguration`s; without one, only `default-scheduler` is judged for (b).

## Why it breaks on a cluster
No scheduler claims pods whose `schedulerName` it does not own: they stay Pending forever with
no event explaining why (volcano-sh/volcano#604). kube-scheduler without the Coscheduling
plugin does not read gang markers: it places the pods one at a time, so a gang starts partly
and its started pods hold GPUs while the rest wait.

## Bad
```yaml
apiVersion: batch/v1
kind: Job
metadata:
  name: pretrain
spec:
  template:
    spec:
      schedulerName: vocalno
      restartPolicy: Never
      containers:
      - name: main
        image: trainer:1.0
```

## Good
```yaml
apiVersion: batch/v1
kind: Job
metadata:
  name: pretrain
spec:
  template:
    spec:
      schedulerName: volcano
      restartPolicy: Never
      containers:
      - name: main
        image: trainer:1.0
```

## How to fix
Correct the name (`kqlint check --fix` does when exactly one known name is closest). If the
cluster runs a scheduler of that name, list it in the option `scheduler-names` or in
`platform.schedulers`. For a gang marker, send the pods to the gang scheduler that reads it
(`schedulerName: volcano`, `kai-scheduler`, or a Coscheduling profile), or drop the marker.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from kqlint.domain import kinds as K
from kqlint.domain.kinds import VOLCANO_JOB
from kqlint.domain.objects import K8sObject
from kqlint.domain.platform import Platform, platform_of
from kqlint.domain.workloads import (
    COSCHEDULING_SCHEDULER_NAMES,
    KAI_SCHEDULER_NAMES,
    OPERATOR_SETS_SCHEDULER,
    VOLCANO_SCHEDULER_NAMES,
    PodTemplate,
    effective_scheduler_name,
    is_workload,
    own_templates,
    pod_group_refs,
    resolve_pod_group,
)
from kqlint.domain.workloads.gang import (
    COSCHEDULING_POD_GROUP_LABEL,
    KAI_POD_GROUP_ANNOTATION,
    KAI_SUBGROUP_LABEL,
    SCHEDULER_TITLES,
    VOLCANO_GROUP_ANNOTATION,
    VOLCANO_LEGACY_GROUP_ANNOTATION,
)
from kqlint.domain.workloads.templates import DEFAULT_SCHEDULER
from kqlint.engine.rule import RuleContext, RuleMeta
from kqlint.fix.model import Edit, Fix
from kqlint.model import Finding, Location, Severity
from kqlint.rules.gang._scheduler_names import SCHEDULER_SETUP_READS, typo_targets

# findings cache: reads the objects that set up scheduler names (ConfigMaps, KubeSchedulerConfigurations, scheduler
# Deployments/StatefulSets/DaemonSets/Pods) and the PodGroups a marker names (related)
META = RuleMeta(code="KQ308", slug="unknown-scheduler-name", severity=Severity.ERROR,
                summary="a schedulerName is a typo of a known scheduler, or a gang marker goes to a scheduler "
                        "that ignores it",
                fix="safe",
                reads=SCHEDULER_SETUP_READS | K.POD_GROUPS)
# (where, key, family): the pod-template markers only a gang scheduler reads
GANG_MARKERS = (("annotations", VOLCANO_GROUP_ANNOTATION, "volcano"),
                ("annotations", VOLCANO_LEGACY_GROUP_ANNOTATION, "volcano"),
                ("annotations", KAI_POD_GROUP_ANNOTATION, "kai"),
                ("labels", KAI_SUBGROUP_LABEL, "kai"),
                ("labels", COSCHEDULING_POD_GROUP_LABEL, "coscheduling"))
SETS_ITS_OWN_SCHEDULER = OPERATOR_SETS_SCHEDULER | {VOLCANO_JOB, K.LLMISVC}  # KQ305 owns LLMInferenceService


@dataclass(frozen=True)
class Options:
    scheduler_names: tuple[str, ...] = ()
    volcano_scheduler_names: tuple[str, ...] = VOLCANO_SCHEDULER_NAMES
    kai_scheduler_names: tuple[str, ...] = KAI_SCHEDULER_NAMES
    coscheduling_scheduler_names: tuple[str, ...] = COSCHEDULING_SCHEDULER_NAMES


def check(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    if not is_workload(obj):
        return
    yield from _typos(obj, ctx)
    if (obj.group, obj.kind) not in SETS_ITS_OWN_SCHEDULER:
        yield from _ignored_markers(obj, ctx)


def _typos(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    """(a) a schedulerName within two edits of a known name."""
    sites: list[tuple[str, Location, tuple[Any, ...]]] = []
    if VOLCANO_JOB.of(obj) and isinstance(obj.get("spec", "schedulerName"), str):
        sites.append((obj.get("spec", "schedulerName"), obj.at_value("spec", "schedulerName"),
                      ("spec", "schedulerName")))
    for template in own_templates(obj):
        name = template.spec.get("schedulerName") if isinstance(template.spec, dict) else None
        if isinstance(name, str):
            path = (*template.spec_path, "schedulerName")
            sites.append((name, obj.at_value(*path), path))
    for name, at, path in sites:
        closest = typo_targets(name, ctx.graph, _configured(ctx))
        if not closest:
            continue
        fix = Fix.safe(f"Replace `{name}` with `{closest[0]}`", Edit.replace(path, closest[0])) \
            if len(closest) == 1 else None
        shown = " or ".join(f"`{c}`" for c in closest)
        yield ctx.finding(
            at=at, fix=fix, remedy=f"Write {shown}, or list `{name}` in the option `scheduler-names` if it exists",
            message=(f"{obj.display()}: schedulerName `{name}` is no scheduler kqlint knows (did you mean {shown}?): "
                     "no scheduler claims the pods, they stay Pending with no event"))


def _configured(ctx: RuleContext) -> tuple[str, ...]:
    options = ctx.options
    return (*options.scheduler_names, *options.volcano_scheduler_names,
            *options.kai_scheduler_names, *options.coscheduling_scheduler_names)


def _ignored_markers(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    """(b) a gang marker on pods that go to a kube-scheduler without Coscheduling."""
    platform = platform_of(ctx.graph)
    if platform.scheduler_webhook:
        return  # Volcano's admission webhook may give the pods another scheduler
    for template in own_templates(obj):
        scheduler = effective_scheduler_name(template)
        if scheduler is None or template.meta_path is None:
            continue
        for where, key, family in GANG_MARKERS:
            section = template.labels if where == "labels" else template.annotations
            if key in section and _ignores(scheduler, family, platform, ctx):
                yield _marker_finding(obj, ctx, template, where, key, family, scheduler)


def _ignores(scheduler: str, family: str, platform: Platform, ctx: RuleContext) -> bool:
    """Whether pods sent to ``scheduler`` lose a ``family`` marker: it is kube-scheduler
    (``default-scheduler``, or a profile the repository configures without Coscheduling), no
    option of that family lists it, and no profile of that name enables Coscheduling."""
    options = ctx.options
    own = {"volcano": options.volcano_scheduler_names, "kai": options.kai_scheduler_names,
           "coscheduling": options.coscheduling_scheduler_names}[family]
    if scheduler in own or scheduler in platform.coscheduling_profiles:
        return False
    return scheduler == DEFAULT_SCHEDULER or scheduler in platform.plain_profiles


def _marker_finding(obj: K8sObject, ctx: RuleContext, template: PodTemplate, where: str, key: str, family: str,
                    scheduler: str) -> Finding:
    written = isinstance(template.spec.get("schedulerName"), str)
    related = []
    for ref in pod_group_refs(template):
        group = resolve_pod_group(ref, template.workload.namespace, ctx.graph) if ref.key == key else None
        if group is not None:
            related.append((group.location(), f"the {SCHEDULER_TITLES[family]} PodGroup it names"))
    sent = f"schedulerName `{scheduler}`" if written else "no schedulerName, so default-scheduler"
    title = SCHEDULER_TITLES[family]
    whose = obj.display() if K.POD.of(obj) else template.describe()
    return ctx.finding(
        at=obj.at(*(template.meta_path or ()), where, key), related=related, severity=Severity.WARNING,
        message=(f"{whose}: `{key}` is a {title} gang marker, but the pods have {sent}: "
                 "kube-scheduler ignores it and places them one by one"),
        remedy=f"Send the pods to {title} (set schedulerName to its name), or remove the marker")
