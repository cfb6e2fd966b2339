"""``kqlint graph``: the resolved object graph, as a rich tree, Graphviz DOT, Mermaid or JSON.

Edges are the references of ``kqlint.domain.refs`` (its table lists each relation), resolved by the
same walk the unknown-reference rules use.

Pod-template edges start at the object that holds the template, labelled with the
template's role. A reference that does not resolve becomes a node with status
``unresolved``; a cohort named by ClusterQueues but defined by no Cohort object is
``implicit`` (Kueue creates it), and a PodGroup an operator creates under the job's own
name is ``operator``. With findings, each node carries the findings on its object.

A run (``run``): load the inputs -> ``build`` the nodes and edges (``elements``) -> render
one of ``FORMATS``, picked the way ``kqlint check`` picks its reports (``kqlint.reporters.formats``).
``labels`` holds the wording the tree, DOT and Mermaid share.
"""
from __future__ import annotations

from typing import Any

from kqlint.reporters.graph.elements import Graph

FORMATS = {
    "tree": "kqlint.reporters.graph.tree",
    "dot": "kqlint.reporters.graph.dot",
    "mermaid": "kqlint.reporters.graph.mermaid",
    "json": "kqlint.reporters.graph.json",
}
JSON_FORMATS = frozenset({"json"})


def render(format_name: str, graph: Graph, **options: Any) -> str:
    from kqlint.reporters import formats

    return formats.render(FORMATS, JSON_FORMATS, format_name, graph, **options)
