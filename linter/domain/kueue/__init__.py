"""Kueue and priority domain predicates (shared/reference/kueue.md). Rules ask here and never
re-derive these facts.

INTERFACE (rules depend on it):

    QUEUE_LABEL, PRIORITY_LABEL, PREEMPT_LOWER, NEVER, HIGHEST_USER_PRIORITY
    effective_preemption_policy(pc) -> str          # "PreemptLowerPriority" when unset (A2)
    class_value(pc) -> int | None                    # PriorityClass / WorkloadPriorityClass value
    resolve_priority_class(name, graph) -> K8sObject | None
    global_default_class(graph) -> K8sObject | None  # lowest value wins when several (A3)
    pod_priority(template, graph) -> PodPriority      # value, policy, class, source, resolved
    pod_profile(unit, graph) -> PodProfile | None      # lowest template, strongest preemptor
    workload_priority(obj_or_unit, graph) -> WorkloadPriority   # B12 chain
    queue_name(obj) -> str | None                     # explicit label where Kueue reads it (B13)
    managed_workloads(obj, graph) -> list[ManagedWorkload]      # [] when Kueue ignores obj
    is_kueue_managed(obj, graph) -> bool
    local_queue(unit, graph) / cluster_queue_of(unit, graph) -> K8sObject | None
    managed_templates(obj, graph) -> [(PodTemplate, ManagedWorkload)]  # what template rules judge
    all_managed_workloads(graph) / routed_workloads(graph)   # indexed once per graph
    workloads_routed_to(cq_name, graph) / queues_of(objects, graph)  # only what one queue needs
    within_cluster_queue(cq) -> str                   # effective, "Never" when unset (B8)

Layout: ``routing`` (ManagedWorkload, queue labels, LocalQueue -> ClusterQueue routes),
``priority`` (PriorityClass facts, pod and Workload priority), ``quota`` (the ClusterQueue view
of resource groups, flavors and quotas; cohorts), ``podsets`` (the pod sets of one Workload and
their requests), ``flavors`` and ``tas`` (Kueue's per-flavor checks: TAS, taints, affinity),
``cohorts`` (the Cohort hierarchy and its loops), ``activity`` (why Kueue marks a ClusterQueue
inactive: admission checks, TAS Topologies), ``limitranges`` (LimitRange defaults in the
requests Kueue counts), ``ceilings`` (the most a ClusterQueue can ever give per flavor: KQ210).
The manager Configuration is read outside this package
(kqlint.domain.kueue_config), beside the platform model that uses it.

A ``ManagedWorkload`` is one thing Kueue turns into Workloads: normally the whole object (its
labels on the object's own ``metadata.labels``); for a DynamoGraphDeployment, which Kueue manages
through the pod integration, one per component pod template (labels on that template).

Decisions where the reference leaves room:
- A CronJob counts: its runs are Jobs whose own labels come from ``spec.jobTemplate.metadata``.
- LLMInferenceService is not an integration (B13 does not list it): never Kueue-managed here.
- LocalQueueDefaulting (B13, GA) applies to every integration, DGD components included.
- Kubeflow pod-class fallback follows the operator's replica-type order (Master before Worker,
  Launcher before Worker), not the order written in the file.
- A class that cannot be resolved, or has no integer ``value``, is "unresolved": callers skip it.
"""
from __future__ import annotations

from kqlint.domain.kinds import KUEUE_GROUP, SCHEDULING_GROUP
from kqlint.domain.kueue.podsets import (
    COUNT_KEYS,
    JOB_MIN_PARALLELISM,
    SINGLE_POD_WORKLOADS,
    PodSet,
    ResourceConfig,
    count_location,
    pod_sets,
    request_location,
    resource_config,
)
from kqlint.domain.kueue.priority import (
    HIGHEST_USER_PRIORITY,
    NEVER,
    PREEMPT_LOWER,
    RUN_POLICY_CLASS,
    PodPriority,
    PodProfile,
    WorkloadPriority,
    class_location,
    class_value,
    effective_preemption_policy,
    global_default_class,
    global_defaults,
    is_builtin_class,
    is_global_default,
    pod_priority,
    pod_profile,
    priority_classes,
    resolve_priority_class,
    resolve_workload_priority_class,
    resolved_pod_priorities,
    workload_priority,
    workload_priority_classes,
)
from kqlint.domain.kueue.quota import (
    COHORT_FIELDS,
    RESOURCE_GROUPS,
    FlavorQuotas,
    cluster_queue_candidates,
    cluster_queues_by_cohort,
    cohort_name,
    cohort_tree_open,
    covered_resources,
    flavor_quotas,
    flavors_covering,
    group_flavors,
    quota_entry,
    quota_known,
    resource_groups,
    within_cluster_queue,
)
from kqlint.domain.kueue.routing import (
    CLUSTER_QUEUE_FIELD,
    CRONJOB,
    DEFAULT_LOCAL_QUEUE,
    INTEGRATIONS,
    KUBEFLOW_ROLE_ORDER,
    MANAGED,
    MANAGED_KINDS,
    POD_GROUP_NAME,
    POD_GROUP_TOTAL,
    POD_TEMPLATE_LABELLED,
    PRIORITY_LABEL,
    QUEUE_LABEL,
    ManagedWorkload,
    all_managed_workloads,
    cluster_queue_name,
    cluster_queue_of,
    defaulted_route,
    defaulting_applies,
    has_default_local_queue,
    is_kueue_managed,
    is_multi_pod,
    local_queue,
    managed_templates,
    managed_workloads,
    object_labels_path,
    ordered_templates,
    queue_name,
    queues_of,
    routed_workloads,
    trainjobs_using,
    unqueued_priority_labels,
    workloads_routed_to,
)
from kqlint.domain.wording import describe_pod_priority, describe_template, describe_workload_priority
from kqlint.domain.workloads import pod_templates  # kueue.pod_templates: the name tests use

__all__ = [
    "CLUSTER_QUEUE_FIELD",
    "COHORT_FIELDS",
    "COUNT_KEYS",
    "CRONJOB",
    "DEFAULT_LOCAL_QUEUE",
    "FlavorQuotas",
    "HIGHEST_USER_PRIORITY",
    "INTEGRATIONS",
    "JOB_MIN_PARALLELISM",
    "KUBEFLOW_ROLE_ORDER",
    "KUEUE_GROUP",
    "MANAGED",
    "MANAGED_KINDS",
    "ManagedWorkload",
    "NEVER",
    "POD_GROUP_NAME",
    "POD_GROUP_TOTAL",
    "POD_TEMPLATE_LABELLED",
    "PREEMPT_LOWER",
    "PRIORITY_LABEL",
    "PodPriority",
    "PodProfile",
    "PodSet",
    "QUEUE_LABEL",
    "RESOURCE_GROUPS",
    "RUN_POLICY_CLASS",
    "ResourceConfig",
    "SCHEDULING_GROUP",
    "SINGLE_POD_WORKLOADS",
    "WorkloadPriority",
    "all_managed_workloads",
    "class_location",
    "class_value",
    "cluster_queue_candidates",
    "cluster_queue_name",
    "cluster_queue_of",
    "cluster_queues_by_cohort",
    "cohort_name",
    "cohort_tree_open",
    "count_location",
    "covered_resources",
    "describe_pod_priority",
    "describe_template",
    "describe_workload_priority",
    "effective_preemption_policy",
    "flavor_quotas",
    "flavors_covering",
    "global_default_class",
    "global_defaults",
    "group_flavors",
    "defaulted_route",
    "defaulting_applies",
    "has_default_local_queue",
    "is_builtin_class",
    "is_global_default",
    "is_kueue_managed",
    "is_multi_pod",
    "local_queue",
    "managed_templates",
    "managed_workloads",
    "object_labels_path",
    "ordered_templates",
    "pod_priority",
    "pod_profile",
    "pod_sets",
    "pod_templates",
    "priority_classes",
    "queue_name",
    "queues_of",
    "quota_entry",
    "quota_known",
    "request_location",
    "resolve_priority_class",
    "resolve_workload_priority_class",
    "resolved_pod_priorities",
    "resource_config",
    "resource_groups",
    "routed_workloads",
    "trainjobs_using",
    "unqueued_priority_labels",
    "within_cluster_queue",
    "workload_priority",
    "workload_priority_classes",
    "workloads_routed_to",
]
