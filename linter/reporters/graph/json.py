"""The graph as JSON: version, summary counts, nodes (with their findings), edges and the
platform model."""
from __future__ import annotations

import json
from typing import Any

from kqlint.model import Finding
from kqlint.reporters.graph.elements import Graph, Node


def _finding(finding: Finding) -> dict[str, Any]:
    loc = finding.location
    data = {"code": finding.code, "slug": finding.slug, "severity": finding.severity.label,
            "file": loc.file, "line": loc.line, "column": loc.column, "message": finding.message}
    if finding.remedy:  # as `check --format json`: how to fix it, apart from the message
        data["remedy"] = finding.remedy
    return data


def _node(graph: Graph, node: Node) -> dict[str, Any]:
    data: dict[str, Any] = {"id": node.id, "apiVersion": node.api_version or None, "kind": node.kind,
                            "group": node.group, "namespace": node.namespace, "name": node.name,
                            "status": node.status, "file": node.file, "line": node.line, "column": node.column}
    if node.namespaces:  # undetermined: every namespace kustomize renders it into
        data["namespaces"] = list(node.namespaces)
    if node.id in graph.findings:
        data["findings"] = [_finding(f) for f in graph.findings[node.id]]
    return data


def render(graph: Graph, **_: Any) -> str:
    from kqlint import __version__

    nodes = [_node(graph, node) for node in graph.sorted_nodes()]
    edges = [{"from": e.source, "to": e.target, "relation": e.relation, "label": e.label} for e in graph.edges]
    summary = {"nodes": len(nodes), "edges": len(edges), "unresolved": len(graph.unresolved()),
               "findings": sum(len(v) for v in graph.findings.values())}
    document: dict[str, Any] = {"version": __version__, "summary": summary, "nodes": nodes, "edges": edges}
    if graph.platform is not None:
        document["platform"] = graph.platform.describe()
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
