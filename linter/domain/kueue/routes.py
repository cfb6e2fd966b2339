"""Where a workload's queue route resolved, named under a finding's ``related`` when the
LocalQueue or ClusterQueue sits in another folder (for the rules that declare ``shows_route``)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from kqlint.domain.kueue.routing import cluster_queue_of, local_queue, managed_workloads

if TYPE_CHECKING:
    from kqlint.domain.graph import ObjectGraph
    from kqlint.domain.objects import K8sObject
    from kqlint.model import Finding, ObjectRef

def with_routes(findings: list[Finding], graph: ObjectGraph, codes: frozenset[str]) -> list[Finding]:
    """Findings of the rules ``codes`` (those that declare ``shows_route``) name, under
    ``related``, the LocalQueue and ClusterQueue the workload's queue resolved to when they sit
    in another folder."""
    if not any(f.code in codes for f in findings):
        return findings
    by_ref: dict[tuple[str, ObjectRef | None], K8sObject] = {(obj.file, obj.ref): obj for obj in graph.inputs}
    return [_with_route(f, by_ref.get((f.location.file, f.obj)), graph) if f.code in codes else f
            for f in findings]


def _with_route(finding: Finding, obj: K8sObject | None, graph: ObjectGraph) -> Finding:
    from dataclasses import replace

    if obj is None:
        return finding
    folder = finding.location.file.rpartition("/")[0]
    shown = {(r.file, r.line) for r in finding.related}
    added = []
    for unit in managed_workloads(obj, graph)[:1]:
        for target, how in ((local_queue(unit, graph), f"`queue-name: {unit.queue}` resolves to"),
                            (cluster_queue_of(unit, graph), "its LocalQueue points at")):
            if target is None or target.root is None or target.file.rpartition("/")[0] == folder:
                continue
            at = target.location()
            if (at.file, at.line) not in shown and all(r.file != at.file for r in finding.related):
                added.append(at.with_message(f"{how} {target.display()} (in another folder)"))
    return replace(finding, related=finding.related + tuple(added)) if added else finding
