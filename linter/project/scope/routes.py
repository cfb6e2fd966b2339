"""Where a queue reference resolved, when it sits in another folder: named under a finding's
``related`` (the LocalQueue and ClusterQueue of KQ105, KQ209, KQ210)."""
from __future__ import annotations

from typing import Any

ROUTED_RULES = frozenset({"KQ105", "KQ209", "KQ210"})  # judged through queue-name -> LocalQueue -> ClusterQueue


def with_routes(findings: list[Any], graph: Any) -> list[Any]:
    """Findings of the queue-routing rules name, under ``related``, the LocalQueue and
    ClusterQueue the workload's queue resolved to when they sit in another folder."""
    if not any(f.code in ROUTED_RULES for f in findings):
        return findings
    by_ref = {(obj.file, obj.ref): obj for obj in graph.inputs}
    return [_with_route(f, by_ref.get((f.location.file, f.obj)), graph) if f.code in ROUTED_RULES else f
            for f in findings]


def _with_route(finding: Any, obj: Any, graph: Any) -> Any:
    from dataclasses import replace

    from kqlint.domain.kueue import cluster_queue_of, local_queue, managed_workloads

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
