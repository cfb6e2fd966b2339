"""
## What it catches
Only where the GPU nodes are known to offer the RDMA NIC resource (option `resource`, default
`nvidia.com/mlnxnics`): a `resource` set in the configuration (`rules: {KQ401: {resource: ...}}`
is the configuration's word on what this cluster's NIC is called: it alone is demanded and
taken as offered, whatever NIC resources the profile or other pods suggest), or, for the
default, where the platform model says so: the `kakaocloud` profile, the configuration's
`platform: {nic-resources: [...]}`, or another pod of the inputs or context that requests it.
Elsewhere (GKE, EKS, OpenShift, plain clusters) the resource does not exist and the rule is
silent. Then: a pod template of a workload whose pods form one job across nodes that asks for
GPUs (`nvidia.com/gpu` above zero in the requests or limits of any container or init
container) while no container of that pod asks for the NIC. One job across nodes means
(linter/domain/multinode.py): a Kubeflow job, TrainJob/TrainingRuntime, JobSet, Volcano Job, RayJob or
RayCluster of more than one pod; a LeaderWorkerSet group, the `worker` part of an
LLMInferenceService or a `multinode` DynamoGraphDeployment component of more than one pod; a
Job, CronJob, StatefulSet, ReplicaSet or Pod whose pods join a gang (a named PodGroup, or
`kai.scheduler/batch-min-member` / `scheduling.volcano.sh/group-min-member` above 1); an
AppWrapper component judged as the kind it wraps. Never a Deployment (inference replicas),
RayService, or a Job of independent pods. A pod that already uses another fabric
(`vpc.amazonaws.com/efa`, an `rdma/...` device, GKE multi-network resources
`networking.gke.io.networks/...` or annotations `networking.gke.io/interfaces` /
`networking.gke.io/default-interface`) is not judged.
The NIC is a pod-level attachment, so one container asking for it is enough; a limit alone
counts, because the request of an extended resource defaults to its limit. A runtime's
templates are judged on the (Cluster)TrainingRuntime itself; a TrainJob is judged on what it
changes: `spec.trainer.resourcesPerNode` replaces the resources of the runtime's `node`
container in the trainer step (a NIC written there is dropped, so only `resourcesPerNode` or
another container of that pod can supply it), and `numNodes` can make a one-pod runtime
multi-pod. A TrainJob whose runtime is not among the linted objects is judged on
`resourcesPerNode` alone, when `spec.trainer.numNodes` is above 1. When the pod asks for
another RDMA-looking resource (`...roce...`, `...mlnx...`), the remedy suggests setting the
option to it.
One finding per offending pod template, at the `resources` key of its first GPU container
(for a TrainJob, at `resourcesPerNode`, or its nearest existing ancestor).

## Why it breaks on a cluster
On GPU clusters with InfiniBand, the RDMA interface is handed out as an extended resource.
A multi-node job's pods exchange gradients or KV cache over it; a pod that does not ask
for it gets no InfiniBand interface and stays in ContainerCreating (or silently falls back
to slow TCP), so the gang never fills and the GPUs it holds sit idle.

## Bad
```yaml
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: llm-pretrain
  namespace: training
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers:
            - name: pytorch
              image: ghcr.io/example/train:1.0
              resources:
                limits:
                  nvidia.com/gpu: 8
                  nvidia.com/mlnxnics: 4
    Worker:
      replicas: 3
      template:
        spec:
          containers:
            - name: pytorch
              image: ghcr.io/example/train:1.0
              resources:            # GPUs but no RDMA NIC
                limits:
                  nvidia.com/gpu: 8
```

## Good
```yaml
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: llm-pretrain
  namespace: training
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers:
            - name: pytorch
              image: ghcr.io/example/train:1.0
              resources:
                limits:
                  nvidia.com/gpu: 8
                  nvidia.com/mlnxnics: 4
    Worker:
      replicas: 3
      template:
        spec:
          containers:
            - name: pytorch
              image: ghcr.io/example/train:1.0
              resources:
                requests:
                  nvidia.com/gpu: 8
                  nvidia.com/mlnxnics: 4
                limits:
                  nvidia.com/gpu: 8
                  nvidia.com/mlnxnics: 4
```

## How to fix
Add the NIC resource to the GPU container's `limits` (and to `requests` with the same
quantity, if you write requests), e.g. `nvidia.com/mlnxnics: 4`, using the count your
platform documents. For a TrainJob, put it in `spec.trainer.resourcesPerNode` next to the
GPUs. If your cluster names the resource differently, set it in the config:
`rules: {KQ401: {resource: rdma/hca_shared_devices_a}}` (kqlint then takes it as the NIC the GPU
nodes offer; NIC resources other pods request do not change it).
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from kqlint.domain import reading
from kqlint.domain.multinode import is_other_fabric, other_fabric, spans_nodes
from kqlint.domain.objects import K8sObject
from kqlint.domain.platform import platform_of
from kqlint.domain.podspec import (
    GPU_RESOURCE,
    Container,
    asks_for,
    asks_for_some,
    containers,
    effective_resources,
    per_node_resources_path,
    resource_list,
    sets_resources,
    template_label,
)
from kqlint.domain.workloads import (
    TRAINER_NODE_CONTAINER,
    PodTemplate,
    own_templates,
    pod_templates,
    resources_per_node,
    total_pods,
    trainer_num_nodes,
)
from kqlint.engine.rule import RuleContext, RuleMeta, Run
from kqlint.model import Finding, Location, Severity

# findings cache: reads the platform model (offers the NIC); total_pods, own_templates
META = RuleMeta(code="KQ401", slug="missing-rdma-nic", severity=Severity.WARNING,
                summary="a GPU pod of a job across nodes does not ask for the RDMA NIC the platform offers",
                reads=reading.RUNTIMES)

DEFAULT_NIC = "nvidia.com/mlnxnics"
# Substrings of resource names that are RDMA devices under another name (message hint only).
RDMA_MARKERS = ("rdma", "roce", "mlnx", "hca", "infiniband")
Resources = list[tuple[Container, dict[str, Any]]]


@dataclass(frozen=True)
class Options:
    resource: str = DEFAULT_NIC


def prepare(run: Run) -> str | None:
    """The NIC resource the configuration names (``rules.KQ401.resource``), if it names one:
    the user's word on what this cluster's NIC is called, which nothing inferred overrides."""
    value = run.config.rules.get(META.code, {}).get("resource")
    return value if isinstance(value, str) and value else None


def check(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    nic = _nic(ctx)
    if not _offered_by_platform(nic, ctx):
        return  # neither the configuration nor the platform model says this cluster has it
    pods = total_pods(obj, ctx.graph)
    path = per_node_resources_path(obj)
    if path is not None and not pod_templates(obj, ctx.graph):
        yield from _unresolved_trainjob(obj, path, nic, ctx)
    for template in own_templates(obj, ctx.graph):
        if not _judged(template, nic, ctx):
            continue
        gpu = missing_nic(effective_resources(template), nic)
        if gpu is not None:
            yield ctx.finding(at=template.at(*gpu.path, "resources"),
                              message=_template_message(obj, template, gpu, nic, pods),
                              remedy=(f"Add {nic} to the limits of `{gpu.name}` (and to its requests with the "
                                      "same quantity, if it has requests)" + _offered(nic, ctx)
                                      + _other_rdma_hint(effective_resources(template), ctx)))
    if path is not None:
        yield from _trainjob(obj, path, nic, pods, ctx)


def _judged(template: PodTemplate, nic: str, ctx: RuleContext) -> bool:
    """Pods of one job across nodes that use no other fabric (linter/domain/multinode.py)."""
    return spans_nodes(template, ctx.graph) and other_fabric(template, nic) is None


def _configured(ctx: RuleContext) -> str | None:
    return ctx.state if isinstance(ctx.state, str) else None


def _offered_by_platform(nic: str, ctx: RuleContext) -> bool:
    """A configured resource is offered by the configuration's word; the default one only
    where the platform model says the GPU nodes offer it."""
    return _configured(ctx) is not None or platform_of(ctx.graph).offers(nic)


def _offered(nic: str, ctx: RuleContext) -> str:
    """Why kqlint believes this cluster has the NIC resource (the configuration, or the
    platform model's source)."""
    if _configured(ctx) is not None:
        return f" ({nic} is this cluster's NIC resource: configuration `rules.{META.code}.resource`)"
    model = platform_of(ctx.graph)
    source = (model.sources.get("nic-resources", "") if nic in model.nic_resources
              else "pods in the inputs/context that request it")
    return f" (the platform offers {nic}: {source})"


def _nic(ctx: RuleContext) -> str:
    value = getattr(ctx.options, "resource", None)
    return value if isinstance(value, str) and value else DEFAULT_NIC


def missing_nic(resources: Resources, nic: str) -> Container | None:
    """The first container asking for GPUs when no container of the pod asks for ``nic``
    (the NIC is attached to the pod, so any container asking for it is enough)."""
    if any(asks_for(res, nic) for _, res in resources):
        return None
    return next((c for c, res in resources if asks_for_some(res, GPU_RESOURCE)), None)


def _template_message(obj: K8sObject, template: PodTemplate, gpu: Container, nic: str, pods: int) -> str:
    return (f"{obj.display()}: {template_label(template)} ({template.pods} of {pods} pods) asks "
            f"for {GPU_RESOURCE} in container `{gpu.name}` but no container asks for {nic}: "
            "the pods get no RDMA interface and stay in ContainerCreating")


def _other_rdma_hint(resources: Resources, ctx: RuleContext) -> str:
    """Point out RDMA resources of another name: the cluster may simply call its NIC that,
    unless the configuration says what it is called."""
    names = sorted({name for _, res in resources for key in ("requests", "limits")
                    for name in resource_list(res, key)
                    if isinstance(name, str) and any(m in name.lower() for m in RDMA_MARKERS)})
    if not names:
        return ""
    if _configured(ctx) is not None:
        return f". The pod asks for {', '.join(names)} instead, which is not the NIC the configuration names"
    return (f". The pod asks for {', '.join(names)}: if that is this cluster's RDMA NIC resource, "
            f"set it as the rule option (`rules: {{{META.code}: {{resource: {names[0]}}}}}`)")


# ------------------------------------------------------------------ TrainJob

def _trainjob(obj: K8sObject, path: tuple[str, ...], nic: str, pods: int,
              ctx: RuleContext) -> Iterator[Finding]:
    """The runtime's templates as this TrainJob runs them: ``resourcesPerNode`` replaces the
    `node` container's resources, and ``numNodes`` may make a one-pod runtime multi-pod."""
    for template in pod_templates(obj, ctx.graph):
        if template.owner is obj or template.generated or not _judged(template, nic, ctx):
            continue
        gpu = missing_nic(effective_resources(template), nic)
        if gpu is None:
            continue
        if _from_per_node(template, gpu):
            yield ctx.finding(at=obj.at(*path),
                              message=_per_node_message(obj, template, nic, pods),
                              related=_dropped(template, nic), remedy=_per_node_remedy(nic, ctx))
        elif not _reported_by_runtime(template, nic, ctx):
            yield ctx.finding(at=obj.at(*path),
                              message=_runtime_message(obj, template, gpu, nic, pods),
                              related=_where(template, gpu, "the runtime's GPU container"),
                              remedy=(f"Set spec.trainer.resourcesPerNode with both {GPU_RESOURCE} and {nic}, "
                                      f"or add {nic} to the runtime's template" + _offered(nic, ctx)))


def _unresolved_trainjob(obj: K8sObject, path: tuple[str, ...], nic: str,
                         ctx: RuleContext) -> Iterator[Finding]:
    """A TrainJob whose runtime is not among the linted objects: its pods are unknown to
    ``total_pods``, but ``spec.trainer.numNodes`` alone fixes the trainer step's pod count
    (workloads.md section 4) and ``resourcesPerNode`` is what those pods' `node` container gets."""
    nodes = trainer_num_nodes(obj)
    per_node = obj.get(*path)
    if nodes is None or nodes <= 1:
        return
    if asks_for_some(per_node, GPU_RESOURCE) and not asks_for(per_node, nic) \
            and not any(is_other_fabric(name, nic) for key in ("requests", "limits")
                        for name in resource_list(per_node, key)):
        yield ctx.finding(at=obj.at(*path), message=(
            f"{obj.display()}: resourcesPerNode asks for {GPU_RESOURCE}, not {nic}, and replaces the "
            f"`{TRAINER_NODE_CONTAINER}` container's resources: unless another container of the runtime (not "
            f"linted) asks for it, the {nodes} node pods get no RDMA interface"),
            remedy=_per_node_remedy(nic, ctx))


def _from_per_node(template: PodTemplate, gpu: Container) -> bool:
    return gpu.name == TRAINER_NODE_CONTAINER and sets_resources(resources_per_node(template))


def _reported_by_runtime(template: PodTemplate, nic: str, ctx: RuleContext) -> bool:
    """The runtime is linted too, is multi-pod on its own and fails the same way without the
    TrainJob's changes: its own finding covers this template."""
    owner = template.owner
    plain = [(c, c.resources) for c in containers(template.spec)]
    return (owner.source == "input" and total_pods(owner, ctx.graph) > 1
            and missing_nic(plain, nic) is not None)


def _dropped(template: PodTemplate, nic: str) -> list[tuple[Location, str]]:
    """The runtime `node` container's own NIC, which resourcesPerNode throws away."""
    return [item for c in containers(template.spec)
            if c.name == TRAINER_NODE_CONTAINER and asks_for(c.resources, nic)
            for item in _where(template, c, f"{nic} here is replaced by resourcesPerNode")]


def _where(template: PodTemplate, container: Container, why: str) -> list[tuple[Location, str]]:
    if template.owner.root is None:  # a declared (external/profile) runtime has no file
        return []
    return [(template.at(*container.path, "resources"), why)]


def _per_node_message(obj: K8sObject, template: PodTemplate, nic: str, pods: int) -> str:
    return (f"{obj.display()}: spec.trainer.resourcesPerNode asks for {GPU_RESOURCE}, not {nic}, and replaces "
            f"the `{TRAINER_NODE_CONTAINER}` container's resources: {template.pods} of {pods} pods "
            f"({template.role}) get no RDMA interface and stay in ContainerCreating")


def _per_node_remedy(nic: str, ctx: RuleContext) -> str:
    return f"Add {nic} to resourcesPerNode limits (and requests, with the same quantity)" + _offered(nic, ctx)


def _runtime_message(obj: K8sObject, template: PodTemplate, gpu: Container, nic: str, pods: int) -> str:
    return (f"{obj.display()}: {template.pods} of its {pods} pods run {template.owner.display()} "
            f"{template.role}, whose container `{gpu.name}` asks for {GPU_RESOURCE} but no container for "
            f"{nic}: they get no RDMA interface, stuck in ContainerCreating")
