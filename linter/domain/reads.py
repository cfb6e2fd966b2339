"""What built-in rules read besides their own object: the kind groups and reasons a rule's
``RuleMeta.reads`` declares (the cache reuses its findings while those objects are unchanged)."""
from __future__ import annotations

from kqlint.domain import kinds as K
from kqlint.domain.kueue import routing
from kqlint.domain.objects import K8sObject
from kqlint.domain.workloads.extract import TEMPLATE_KINDS as _TEMPLATE_KINDS

RUNTIMES = frozenset({K.TRAINING_RUNTIME, K.CLUSTER_TRAINING_RUNTIME})
ROUTING = RUNTIMES | {K.LOCAL_QUEUE}
POD_GROUPS = frozenset({K.VOLCANO_PODGROUP, K.KAI_PODGROUP, K.COSCHEDULING_PODGROUP})
TEMPLATE_KINDS = frozenset(_TEMPLATE_KINDS)
ROUTED = frozenset(routing.MANAGED) | {K.LOCAL_QUEUE, K.CLUSTER_QUEUE, K.WORKLOAD_PRIORITY_CLASS, K.PRIORITY_CLASS}
TEMPLATES = "pod_templates: a TrainJob's come from its (Cluster)TrainingRuntime"
MANAGED = (f"managed_workloads: its queue-name label, or a LocalQueue `default` in its namespace; {TEMPLATES}; "
           "a runtime's templates run in the TrainJobs using it (managed_templates, trainjobs_using)")
POD_PRIORITY = ("pod_priority: its PriorityClass or the global default one (priority_classes); the fix's shared "
                "non-preempting class (only_non_preempting_class: the graph's PriorityClasses)")


def quota_scope(obj: K8sObject, by_kind: dict[str, list[K8sObject]]) -> list[K8sObject]:
    """The ClusterQueues whose quotas a workload's capacity check may read judging ``obj``: those
    named by a LocalQueue of its namespace (or of none, or applied wherever: every LocalQueue it
    may resolve), and every ClusterQueue sharing a cohort with one of them; in run order."""
    from kqlint.domain.kueue import cluster_queue_name, cohort_name
    from kqlint.domain.objects import ApplyTimeNamespace

    names = {cluster_queue_name(lq) for lq in by_kind.get("LocalQueue", ())
             if lq.namespace is None or lq.namespace == obj.namespace or isinstance(lq.namespace, ApplyTimeNamespace)}
    queues = by_kind.get("ClusterQueue", [])
    cohorts = {cohort_name(cq) for cq in queues if cq.name in names} - {None}
    return [cq for cq in queues if cq.name in names or cohort_name(cq) in cohorts]
