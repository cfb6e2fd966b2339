"""Per workload kind: where pod templates live, how many pods each yields, and where the
gang-scheduling markers are. The one place that knows workload shapes
(shared/reference/workloads.md); rules ask here instead of walking kinds themselves.

INTERFACE (stable; rules depend on it):

    pod_templates(obj, graph=None) -> list[PodTemplate]
        Every pod template written in (or, for TrainJob, referenced by) ``obj``, in
        document order; [] for objects that are not workloads. Operator-generated pods
        (a RayJob's default submitter) come as ``generated=True`` templates: count them,
        do not judge them.
    own_templates(obj, graph=None) -> list[PodTemplate]
        The templates written in ``obj`` itself (owner is obj, not generated): what
        template-level rules judge, so that a runtime's template is reported once, on the
        runtime, not again on every TrainJob that uses it.
    total_pods(obj, graph=None) -> int
        All pods the workload runs at once, including operator-generated ones.
    is_workload(obj) -> bool
        The object creates pods (TrainingRuntimes only hold templates: False).
    has_pod_templates(obj) -> bool
        ``pod_templates`` knows the kind (workloads plus TrainingRuntimes).

Layout: ``templates`` (PodTemplate and the readers extractors share), ``shapes`` (one extractor
per workload kind), ``trainer`` (TrainJob -> runtime), ``extract`` (the kind table and the
questions above), ``gang`` (marker keys, PodGroup references, min-member sites, gang markers).

Gang helpers: ``replica_specs`` (Kubeflow replica specs with their raw ``replicas``),
``KUBEFLOW_MIN_AVAILABLE_PATH``, ``VOLCANO_JOB_MIN_AVAILABLE_PATH``, ``pod_group_refs``,
``gang_family``, ``training_runtime``, ``resources_per_node`` and the marker-key constants.

Decisions where the reference leaves room (documented here, tested in test_workloads.py):
- LLMInferenceService templates are bare PodSpecs. Their pod labels/annotations come from
  the workload part's ``labels``/``annotations`` (``spec.labels`` for decode/main,
  ``spec.prefill.labels`` for prefill; reference section 6 and the CRD), so ``meta_path``
  is ``("spec",)`` or ``("spec", "prefill")``: ``template.labels`` reads ``spec.labels``.
  The ``metadata`` property then returns that whole mapping; read ``labels``/``annotations``.
- DynamoGraphDeployment: a service/component yields pods even without an
  ``extraPodSpec``/``podTemplate``; its template is then empty (``spec == {}``) and
  positions fall back to the service key.
- DaemonSet: one pod per eligible node, unknown statically; counted as 1.
- AppWrapper components without ``podSets`` are inferred with kqlint's own per-kind rules
  (so a wrapped RayCluster counts ``numOfHosts``, as KubeRay does).
"""
from __future__ import annotations

from kqlint.domain.kinds import (
    APPWRAPPER,
    COSCHEDULING_PODGROUP,
    KAI_PODGROUP,
    KUBEFLOW_GROUP,
    TRAINER_GROUP,
    VOLCANO_JOB,
    VOLCANO_PODGROUP,
)
from kqlint.domain.workloads.extract import (
    OWN_TEMPLATE_KINDS,
    has_pod_templates,
    is_template_facts,
    is_workload,
    own_templates,
    owned,
    parse_podset_path,
    pod_templates,
    template_facts,
    total_pods,
)
from kqlint.domain.workloads.gang import (
    COSCHEDULING_POD_GROUP_LABEL,
    COSCHEDULING_SCHEDULER_NAMES,
    KAI_BATCH_MIN_MEMBER_ANNOTATION,
    KAI_POD_GROUP_ANNOTATION,
    KAI_QUEUE_LABEL,
    KAI_SCHEDULER_NAMES,
    KAI_SKIP_PODGROUPER_ANNOTATION,
    KAI_SUBGROUP_LABEL,
    KUBEFLOW_MIN_AVAILABLE_PATH,
    KUBEFLOW_RUN_POLICY_PATH,
    KUBERAY_VOLCANO_QUEUE_LABEL,
    OPERATOR_SETS_SCHEDULER,
    POD_GROUP_MIN_MEMBER_PATH,
    POD_GROUP_REFERENCES,
    SCHEDULER_TITLES,
    VOLCANO_GROUP_ANNOTATION,
    VOLCANO_JOB_MIN_AVAILABLE_PATH,
    VOLCANO_LEGACY_GROUP_ANNOTATION,
    VOLCANO_MIN_MEMBER_ANNOTATION,
    VOLCANO_QUEUE_ANNOTATION,
    VOLCANO_SCHEDULER_NAMES,
    GangMarker,
    MinMemberSite,
    PodGroupRef,
    PodGroupReference,
    batch_min_member_sites,
    effective_scheduler_name,
    gang_family,
    gang_markers,
    is_kubeflow_job,
    is_pod_group,
    operator_pod_group_names,
    pod_group_refs,
    pod_owner_annotations,
    pod_owner_meta_path,
    replica_specs,
    resolve_pod_group,
    volcano_tasks,
    wrapped_objects,
    wrapped_pod_groups,
)
from kqlint.domain.workloads.shapes import (
    llm_group_size,
    ray_group_pods,
)
from kqlint.domain.workloads.templates import (
    DEFAULT_SCHEDULER,
    KUBEFLOW_REPLICA_KEYS,
    MAX_INT32,
    PodTemplate,
    ReplicaSpec,
    as_count,
    job_pods,
)
from kqlint.domain.workloads.trainer import (
    RESOURCES_PER_NODE_PATH,
    RUNTIME_KINDS,
    RUNTIME_REF_PATH,
    TRAINER_ANCESTOR_LABEL,
    TRAINER_NODE_CONTAINER,
    resources_per_node,
    runtime_patch_metadata,
    trainer_num_nodes,
    training_runtime,
)

__all__ = [
    "OWN_TEMPLATE_KINDS",
    "APPWRAPPER",
    "COSCHEDULING_PODGROUP",
    "COSCHEDULING_POD_GROUP_LABEL",
    "COSCHEDULING_SCHEDULER_NAMES",
    "DEFAULT_SCHEDULER",
    "GangMarker",
    "KAI_BATCH_MIN_MEMBER_ANNOTATION",
    "KAI_PODGROUP",
    "KAI_POD_GROUP_ANNOTATION",
    "KAI_QUEUE_LABEL",
    "KAI_SCHEDULER_NAMES",
    "KAI_SKIP_PODGROUPER_ANNOTATION",
    "KAI_SUBGROUP_LABEL",
    "KUBERAY_VOLCANO_QUEUE_LABEL",
    "KUBEFLOW_GROUP",
    "KUBEFLOW_MIN_AVAILABLE_PATH",
    "KUBEFLOW_RUN_POLICY_PATH",
    "KUBEFLOW_REPLICA_KEYS",
    "MAX_INT32",
    "MinMemberSite",
    "OPERATOR_SETS_SCHEDULER",
    "POD_GROUP_MIN_MEMBER_PATH",
    "POD_GROUP_REFERENCES",
    "PodGroupRef",
    "PodGroupReference",
    "PodTemplate",
    "RESOURCES_PER_NODE_PATH",
    "RUNTIME_REF_PATH",
    "RUNTIME_KINDS",
    "ReplicaSpec",
    "SCHEDULER_TITLES",
    "TRAINER_ANCESTOR_LABEL",
    "TRAINER_GROUP",
    "TRAINER_NODE_CONTAINER",
    "VOLCANO_GROUP_ANNOTATION",
    "VOLCANO_JOB",
    "VOLCANO_JOB_MIN_AVAILABLE_PATH",
    "VOLCANO_LEGACY_GROUP_ANNOTATION",
    "VOLCANO_MIN_MEMBER_ANNOTATION",
    "VOLCANO_PODGROUP",
    "VOLCANO_QUEUE_ANNOTATION",
    "VOLCANO_SCHEDULER_NAMES",
    "as_count",
    "batch_min_member_sites",
    "effective_scheduler_name",
    "gang_family",
    "gang_markers",
    "has_pod_templates",
    "is_kubeflow_job",
    "is_pod_group",
    "is_template_facts",
    "is_workload",
    "job_pods",
    "llm_group_size",
    "operator_pod_group_names",
    "own_templates",
    "owned",
    "parse_podset_path",
    "pod_group_refs",
    "pod_owner_annotations",
    "pod_owner_meta_path",
    "pod_templates",
    "ray_group_pods",
    "replica_specs",
    "resolve_pod_group",
    "resources_per_node",
    "template_facts",
    "total_pods",
    "runtime_patch_metadata",
    "trainer_num_nodes",
    "training_runtime",
    "volcano_tasks",
    "wrapped_objects",
    "wrapped_pod_groups",
]
