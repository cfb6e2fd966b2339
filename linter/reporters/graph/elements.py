"""The nodes and edges of the exported graph, and the Graph they form with the findings and
the platform model overlaid."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kqlint.model import Finding

if TYPE_CHECKING:
    from kqlint.domain.platform import Platform

# relations drawn as the queue hierarchy (solid); every other relation is an attribute (dashed)
HIERARCHY = ("queue", "cluster-queue", "cohort", "parent-cohort")
UNRESOLVED, IMPLICIT, OPERATOR = "unresolved", "implicit", "operator"
# A missing target `kqlint check` does not report: the answer depends on where the manifests are
# applied (AMBIGUOUS: a namespace chosen at apply time, another unit, a placeholder), or check
# does not judge the reference there (UNCHECKED: a context file's, an implied default's)
AMBIGUOUS, UNCHECKED = "ambiguous", "unchecked"
MISSING = (UNRESOLVED, AMBIGUOUS, UNCHECKED, IMPLICIT, OPERATOR)


@dataclass(frozen=True)
class Node:
    id: str
    kind: str
    group: str
    namespace: str | None
    name: str
    status: str                     # input, context, external, profile, or MISSING
    api_version: str = ""
    file: str | None = None
    line: int | None = None
    column: int | None = None
    namespaces: tuple[str, ...] = ()  # undetermined namespace: those kustomize renders it into

    def display(self) -> str:
        return f"{self.kind} {self.namespace}/{self.name}" if self.namespace else f"{self.kind} {self.name}"

    @property
    def missing(self) -> bool:
        return self.status in MISSING


@dataclass(frozen=True, order=True)
class Edge:
    source: str
    target: str
    relation: str
    label: str


@dataclass
class Graph:
    nodes: dict[str, Node] = field(default_factory=dict)
    edges: list[Edge] = field(default_factory=list)
    findings: dict[str, list[Finding]] = field(default_factory=dict)
    platform: Platform | None = None  # the run's platform model (README "Platform model")

    def sorted_nodes(self) -> list[Node]:
        return sorted(self.nodes.values(), key=lambda n: n.id)

    def unresolved(self) -> list[Node]:
        return [n for n in self.sorted_nodes() if n.status == UNRESOLVED]


def shown_namespace(namespace: str | None) -> tuple[str | None, tuple[str, ...]]:
    """How a node shows ``namespace``, and the namespaces it stands for: an object kustomize
    renders into several namespaces (a base its overlays place) shows them all, as
    ``(team-a|team-b)`` (``unset`` for an overlay that sets none), never one of them."""
    rendered = getattr(namespace, "namespaces", None)
    if not rendered:
        return (str(namespace) if namespace is not None else None), ()
    names = tuple(name or "unset" for name in rendered)
    return f"({'|'.join(names)})", names


def node_id(kind: str, group: str, namespace: str | None, name: str) -> str:
    qualified = f"{kind}.{group}" if group else kind
    return f"{qualified}/{namespace}/{name}" if namespace else f"{qualified}/{name}"
