"""
## What it catches
A multi-pod Job, CronJob, Deployment, StatefulSet, ReplicaSet or Pod whose pods go to a gang
scheduler without joining a gang:

- Volcano (`schedulerName` in `volcano-scheduler-names`): a template without the pod
  annotation `scheduling.k8s.io/group-name`, while the owner has no
  `scheduling.volcano.sh/group-min-member` annotation. The older
  `scheduling.volcano.sh/group-name` annotation does not count: the scheduler never reads it.
- KAI (`schedulerName` in `kai-scheduler-names`): a Job running more than one pod at once
  without `kai.scheduler/batch-min-member`, or a Deployment/StatefulSet with more than one
  replica, unless the owner sets `kai.scheduler/skip-podgrouper: "true"` and the template
  names its own PodGroup with `pod-group-name`.
- Coscheduling, the scheduler-plugins gang plugin (`schedulerName` in
  `coscheduling-scheduler-names`, default `scheduler-plugins-scheduler`): a template without
  the pod label `scheduling.x-k8s.io/pod-group`; such pods are scheduled one by one.

Workloads wrapped in an AppWrapper (`spec.components[].template`) are checked as the kinds
they wrap. Kinds whose operator or scheduler builds the gang itself (JobSet, LeaderWorkerSet, Kubeflow
jobs, Volcano Job, Ray) are not checked.

## Why it breaks on a cluster
Volcano gives a pod without a group annotation an automatic PodGroup with `minMember: 1`;
coscheduling treats a pod without the pod-group label as an ordinary pod;
KAI puts every pod of a plain Job (without the annotation) or of a Deployment in a group of
one. Each pod is then scheduled on its own: some workers start and hold GPUs while the
others stay Pending, exactly what the gang scheduler was chosen to prevent.

## Bad
```yaml
apiVersion: batch/v1
kind: Job
metadata:
  name: allreduce
spec:
  parallelism: 4
  completions: 4
  template:
    spec:
      schedulerName: kai-scheduler
      restartPolicy: Never
      containers:
      - name: worker
        image: trainer:1.0
```

## Good
```yaml
apiVersion: batch/v1
kind: Job
metadata:
  name: allreduce
  annotations:
    kai.scheduler/batch-min-member: "4"
spec:
  parallelism: 4
  completions: 4
  template:
    spec:
      schedulerName: kai-scheduler
      restartPolicy: Never
      containers:
      - name: worker
        image: trainer:1.0
```

## How to fix
Volcano: create a PodGroup with `minMember` equal to the pods and annotate the pod template
with `scheduling.k8s.io/group-name: <podgroup>`, or annotate the owner with
`scheduling.volcano.sh/group-min-member: "<pods>"`. KAI: annotate the Job with
`kai.scheduler/batch-min-member: "<pods>"`; for a Deployment or StatefulSet set
`kai.scheduler/skip-podgrouper: "true"` and point the template at your own PodGroup with
`pod-group-name`. Or use a kind the scheduler gangs natively (JobSet, LeaderWorkerSet).
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from kqlint.domain.kinds import APPWRAPPER, CRONJOB, DEPLOYMENT, JOB, POD, REPLICASET, STATEFULSET
from kqlint.domain.objects import K8sObject
from kqlint.domain.workloads import (
    COSCHEDULING_POD_GROUP_LABEL,
    COSCHEDULING_SCHEDULER_NAMES,
    KAI_BATCH_MIN_MEMBER_ANNOTATION,
    KAI_POD_GROUP_ANNOTATION,
    KAI_SCHEDULER_NAMES,
    KAI_SKIP_PODGROUPER_ANNOTATION,
    VOLCANO_GROUP_ANNOTATION,
    VOLCANO_LEGACY_GROUP_ANNOTATION,
    VOLCANO_MIN_MEMBER_ANNOTATION,
    VOLCANO_SCHEDULER_NAMES,
    PodTemplate,
    gang_family,
    own_templates,
    pod_owner_annotations,
    pod_owner_meta_path,
    total_pods,
    wrapped_objects,
)
from kqlint.engine.rule import RuleContext, RuleMeta
from kqlint.model import Finding, Severity

# findings cache: pure, the workload's own templates and pod count (graph-free extractors for its kinds), options
META = RuleMeta(code="KQ302", slug="gang-group-missing", severity=Severity.ERROR,
                summary="a multi-pod workload goes to a gang scheduler without joining a gang",
                kinds=frozenset({JOB, CRONJOB, DEPLOYMENT, STATEFULSET, REPLICASET, POD, APPWRAPPER}),
                pure=True)


@dataclass(frozen=True)
class Options:
    volcano_scheduler_names: tuple[str, ...] = VOLCANO_SCHEDULER_NAMES
    kai_scheduler_names: tuple[str, ...] = KAI_SCHEDULER_NAMES
    coscheduling_scheduler_names: tuple[str, ...] = COSCHEDULING_SCHEDULER_NAMES


# Kinds whose pods get a one-pod automatic group (rules.md KQ302; CronJob = the Job it creates).
VOLCANO_KINDS = frozenset({JOB, CRONJOB, DEPLOYMENT, STATEFULSET, REPLICASET, POD})
KAI_JOB_KINDS = frozenset({JOB, CRONJOB})
KAI_PER_POD_KINDS = frozenset({DEPLOYMENT, STATEFULSET})
_KAI_SHAPE = {"Deployment": "one PodGroup per pod", "StatefulSet": "the default grouper"}


def check(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    for target in [obj, *wrapped_objects(obj)]:  # an AppWrapper's components: as the kinds they wrap
        yield from _check_workload(target, ctx)


def _check_workload(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    if (obj.group, obj.kind) not in VOLCANO_KINDS:
        return
    pods = total_pods(obj)
    if pods <= 1:
        return
    options: Options = ctx.options
    for tpl in own_templates(obj):
        family = gang_family(tpl.scheduler_name, options.volcano_scheduler_names, options.kai_scheduler_names)
        if family == "volcano":
            yield from _volcano(obj, tpl, pods, ctx)
        elif family == "kai":
            yield from _kai(obj, tpl, pods, ctx)
        elif tpl.scheduler_name in options.coscheduling_scheduler_names:
            yield from _coscheduling(obj, tpl, pods, ctx)


def _coscheduling(obj: K8sObject, tpl: PodTemplate, pods: int, ctx: RuleContext) -> Iterator[Finding]:
    """scheduler-plugins' coscheduling gangs only pods labelled with their PodGroup."""
    if COSCHEDULING_POD_GROUP_LABEL in tpl.labels:
        return
    yield ctx.finding(
        tpl.at_meta("labels", COSCHEDULING_POD_GROUP_LABEL),
        f"{obj.display()}: {pods} pods go to the coscheduling scheduler ({tpl.scheduler_name}) without "
        f"the label {COSCHEDULING_POD_GROUP_LABEL}: coscheduling gangs only pods that name their PodGroup, "
        "so these are scheduled one by one",
        related=[(tpl.at("schedulerName"), f"schedulerName: {tpl.scheduler_name}")],
        remedy=(f"Label the pod template with {COSCHEDULING_POD_GROUP_LABEL}: "
                f"<scheduling.x-k8s.io PodGroup with minMember {pods}>"))


def _volcano(obj: K8sObject, tpl: PodTemplate, pods: int, ctx: RuleContext) -> Iterator[Finding]:
    if VOLCANO_GROUP_ANNOTATION in tpl.annotations or VOLCANO_MIN_MEMBER_ANNOTATION in pod_owner_annotations(obj):
        return
    legacy = ""
    related = []
    if VOLCANO_LEGACY_GROUP_ANNOTATION in tpl.annotations:
        legacy = f" ({VOLCANO_LEGACY_GROUP_ANNOTATION} is not read)"
        related = [(tpl.at_meta("annotations", VOLCANO_LEGACY_GROUP_ANNOTATION), "ignored by the scheduler")]
    yield ctx.finding(
        tpl.at_meta("annotations", VOLCANO_GROUP_ANNOTATION),
        f"{obj.display()}: {pods} pods go to Volcano ({tpl.scheduler_name}) without a gang{legacy}: "
        "Volcano gives each pod its own PodGroup (minMember 1), so pods start one by one",
        related=[(tpl.at("schedulerName"), f"schedulerName: {tpl.scheduler_name}"), *related],
        remedy=(f"Annotate the pod template with {VOLCANO_GROUP_ANNOTATION}: <PodGroup with minMember {pods}> "
                f"or the {obj.kind} with {VOLCANO_MIN_MEMBER_ANNOTATION}: \"{pods}\""))


def _kai(obj: K8sObject, tpl: PodTemplate, pods: int, ctx: RuleContext) -> Iterator[Finding]:
    owner = pod_owner_annotations(obj)
    skip = str(owner.get(KAI_SKIP_PODGROUPER_ANNOTATION,
                         tpl.annotations.get(KAI_SKIP_PODGROUPER_ANNOTATION))).lower() == "true"
    if skip and KAI_POD_GROUP_ANNOTATION in tpl.annotations:
        return  # the user manages the PodGroup (KQ301/KQ303 check it)
    owner_at = pod_owner_meta_path(obj) + ("annotations",)
    sent = [(tpl.at("schedulerName"), f"schedulerName: {tpl.scheduler_name}")]
    if (obj.group, obj.kind) in KAI_JOB_KINDS and KAI_BATCH_MIN_MEMBER_ANNOTATION not in owner:
        yield ctx.finding(
            obj.at(*owner_at, KAI_BATCH_MIN_MEMBER_ANNOTATION),
            f"{obj.display()}: a Job of {pods} pods goes to KAI ({tpl.scheduler_name}) without "
            f"{KAI_BATCH_MIN_MEMBER_ANNOTATION}: KAI's PodGroup for a Job has minMember 1, so the "
            "pods start one by one",
            related=sent, remedy=f"Annotate the Job with {KAI_BATCH_MIN_MEMBER_ANNOTATION}: \"{pods}\"")
    elif (obj.group, obj.kind) in KAI_PER_POD_KINDS:
        missing = (tpl.at_meta("annotations", KAI_POD_GROUP_ANNOTATION) if skip
                   else obj.at(*owner_at, KAI_SKIP_PODGROUPER_ANNOTATION))
        yield ctx.finding(
            missing,
            f"{obj.display()}: {pods} replicas go to KAI ({tpl.scheduler_name}), whose pod grouper "
            f"gives a {obj.kind} minMember 1 ({_KAI_SHAPE[obj.kind]}), so they are never scheduled "
            "together", related=sent,
            remedy=(f"Set {KAI_SKIP_PODGROUPER_ANNOTATION}: \"true\" on the {obj.kind} and "
                    f"{KAI_POD_GROUP_ANNOTATION} on the pod template (naming your own PodGroup), or use a "
                    "LeaderWorkerSet"))
