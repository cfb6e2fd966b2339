"""PodTemplate: one pod template of a workload (where it is, how many pods it yields), the
readers its extractors share, and the Kubeflow replica-spec shape."""
from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kqlint.domain.fields import count, indexed_mappings, integer, text, text_or
from kqlint.domain.objects import dig
from kqlint.domain.wording import owner_template

if TYPE_CHECKING:
    from kqlint.domain.graph import ObjectGraph
    from kqlint.domain.objects import K8sObject
    from kqlint.model import Location

DEFAULT_SCHEDULER = "default-scheduler"

# Kubeflow kinds and the spec key that holds their replica specs (workloads.md section 3).
KUBEFLOW_REPLICA_KEYS = {
    "PyTorchJob": "pytorchReplicaSpecs", "TFJob": "tfReplicaSpecs",
    "XGBoostJob": "xgbReplicaSpecs", "PaddleJob": "paddleReplicaSpecs",
    "JAXJob": "jaxReplicaSpecs", "MPIJob": "mpiReplicaSpecs",
}
# Replica types whose `replicas` defaults to something other than 1 (MPIJob Worker: 0).
REPLICA_DEFAULTS = {("MPIJob", "Worker"): 0}
MAX_INT32 = 2147483647
as_count = count  # the name callers use


@dataclass(frozen=True)
class PodTemplate:
    owner: K8sObject            # the object whose file holds the template (a TrainJob's runtime!)
    role: str                     # "Master", "Worker", "replicatedJobs[workers]", "leader", "worker", ...
    path: tuple[Any, ...]         # path in ``owner`` to the PodTemplateSpec (or the bare PodSpec)
    spec_path: tuple[Any, ...]    # path in ``owner`` to the PodSpec
    meta_path: tuple[Any, ...] | None  # path in ``owner`` to pod metadata (labels/annotations), None if none
    pods: int                     # pods this template yields at once (replicas etc. applied)
    generated: bool = False       # operator-generated (not written in the manifest): counts only
    via: K8sObject | None = None  # the workload running the pods when it is not the owner (TrainJob)
    trainer_step: bool = False    # a TrainJob runtime's trainer step (`resourcesPerNode` applies)
    # (priority_class_name, metadata) read when the owner was cached (kqlint.cache.entries): the
    # same values, answered without decoding the owner's body; None: read them from the owner
    known: tuple[str | None, dict[str, Any]] | None = field(default=None, compare=False, repr=False)

    @property
    def workload(self) -> K8sObject:
        """The object whose pods these are (the TrainJob for a runtime's template)."""
        return self.via if self.via is not None else self.owner

    @property
    def spec(self) -> dict[str, Any]:
        value = self.owner.get(*self.spec_path)
        return value if isinstance(value, dict) else {}

    @property
    def metadata(self) -> dict[str, Any]:
        if self.known is not None:
            return self.known[1]
        if self.meta_path is None:
            return {}
        value = self.owner.get(*self.meta_path)
        return value if isinstance(value, dict) else {}

    @property
    def labels(self) -> dict[str, Any]:
        value = self.metadata.get("labels")
        return value if isinstance(value, dict) else {}

    @property
    def annotations(self) -> dict[str, Any]:
        value = self.metadata.get("annotations")
        return value if isinstance(value, dict) else {}

    @property
    def priority_class_name(self) -> str | None:
        if self.known is not None:
            return self.known[0]
        return text(self.spec.get("priorityClassName"))

    @property
    def scheduler_name(self) -> str:
        return text_or(self.spec.get("schedulerName"), DEFAULT_SCHEDULER)

    @property
    def containers(self) -> list[tuple[int, dict[str, Any]]]:
        """(index, container) for every mapping in ``spec.containers``."""
        return list(mappings_at(self.spec, ("containers",)))

    def at(self, *path: Any) -> Location:
        """Location of ``path`` relative to the PodSpec (``at("priorityClassName")``)."""
        return self.owner.at(*self.spec_path, *path)

    def at_meta(self, *path: Any) -> Location:
        """Location of ``path`` relative to the pod metadata (``at_meta("annotations", key)``);
        the template itself when the template has no metadata of its own."""
        if self.meta_path is None:
            return self.owner.at(*self.path)
        return self.owner.at(*self.meta_path, *path)

    def describe(self) -> str:
        """``PyTorchJob ns/name template Worker`` (``Job ns/name pod template``) for messages."""
        return owner_template(self)


@dataclass(frozen=True)
class ReplicaSpec:
    """One Kubeflow replica spec (``spec.<kind>ReplicaSpecs.<role>``)."""

    role: str
    path: tuple[Any, ...]         # path to the replica spec mapping
    raw_replicas: Any             # the written value, None when unset
    has_replicas: bool            # the `replicas` key is present
    replicas: int                 # effective count (API default applied)


# ---------------------------------------------------------------- small readers
def mappings_at(node: Any, path: tuple[Any, ...]) -> Iterator[tuple[int, dict[str, Any]]]:
    return indexed_mappings(dig(node, path))


def name_of(item: dict[str, Any], fallback: Any, key: str = "name") -> str:
    return text_or(item.get(key), str(fallback))


def job_pods(job_spec: Any) -> int:
    """Pods a Job runs at once: parallelism (1), lowered to completions when smaller."""
    spec = job_spec if isinstance(job_spec, dict) else {}
    parallelism = as_count(spec.get("parallelism"), 1)
    completions = integer(spec.get("completions"))
    if completions is not None:
        return min(parallelism, max(completions, 0))
    return parallelism


def full_template(owner: K8sObject, role: str, path: tuple[Any, ...], pods: int,
          generated: bool = False) -> PodTemplate:
    """A PodTemplateSpec (metadata + spec) at ``path``."""
    return PodTemplate(owner, role, path, path + ("spec",), path + ("metadata",), pods, generated)


def bare_template(owner: K8sObject, role: str, path: tuple[Any, ...], meta: tuple[Any, ...] | None,
          pods: int) -> PodTemplate:
    """A bare PodSpec at ``path`` with its pod metadata (if any) at ``meta``."""
    return PodTemplate(owner, role, path, path, meta, pods)


# ---------------------------------------------------------------- extractors per kind
# Each extractor gets (owner, base, data, graph): ``data`` is the object (or an object
# embedded in ``owner`` at ``base``, for AppWrapper components) and paths are built on ``base``.
Extractor = Callable[["K8sObject", tuple[Any, ...], dict[str, Any], "ObjectGraph | None"],
                     list[PodTemplate]]
