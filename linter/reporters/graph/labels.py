"""Wording the tree, DOT and Mermaid formats share: a node's label lines, its status note,
its worst finding, the platform model as comment lines."""
from __future__ import annotations

from kqlint.domain.kinds import BATCH_GROUP
from kqlint.model import Finding, Severity
from kqlint.reporters.graph.elements import AMBIGUOUS, IMPLICIT, OPERATOR, UNCHECKED, UNRESOLVED, Graph, Node

STATUS_NOTES = {UNRESOLVED: "unresolved", IMPLICIT: "implicit cohort", OPERATOR: "created by the operator",
                AMBIGUOUS: "ambiguous: depends on where it is applied",
                UNCHECKED: "not found; check does not judge it here",
                "context": "context", "external": "external", "profile": "profile"}


def label_lines(graph: Graph, node: Node) -> list[str]:
    lines = [node.kind if not node.group or node.kind != "Job" or node.group == BATCH_GROUP
             else f"{node.kind} ({node.group})",
             f"{node.namespace}/{node.name}" if node.namespace else node.name]
    if node.status in STATUS_NOTES:
        lines.append(f"({STATUS_NOTES[node.status]})")
    codes = sorted({f.code for f in graph.findings.get(node.id, [])})
    if codes:
        lines.append(", ".join(codes))
    return lines


def worst(findings: list[Finding]) -> Severity | None:
    return max((f.severity for f in findings), default=None)


def platform_comments(graph: Graph, marker: str) -> list[str]:
    """The platform model as comment lines (dot ``//``, mermaid ``%%``)."""
    if graph.platform is None or not graph.platform.known():
        return []
    return [f"{marker} platform: {line}" for line in graph.platform.lines()]
