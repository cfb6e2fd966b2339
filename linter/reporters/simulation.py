"""``kqlint simulate`` as text (a table per ClusterQueue, the never-admissible workloads with
Kueue's message, the assumptions) or JSON (schema version ``SCHEMA_VERSION``, cli.md)."""
from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from kqlint.sanitize import terminal_safe

if TYPE_CHECKING:
    from kqlint.domain.kueue.simulation import PodSetResult, Simulation, Stage1, WorkloadResult
    from kqlint.model import Location

COLUMNS = ("workload", "priority", "status", "flavors", "borrowing", "preempted/by", "reason")


def render_json(sim: Simulation, workloads: list[WorkloadResult],
                place: Callable[[Location], Location] | None = None) -> str:
    """``place``: where a rendered object's position came from (``--kustomize``)."""
    from kqlint import __version__
    from kqlint.domain.kueue.simulation import SCHEMA_VERSION

    document = {
        "version": __version__, "schemaVersion": SCHEMA_VERSION, "kueueVersion": sim.kueue_version,
        "assumptions": sim.assumptions,
        "workloads": [_workload(w, place) for w in workloads],
        "clusterQueues": [{"name": q.name, "cohort": q.cohort, "queueingStrategy": q.strategy,
                           "usage": q.usage, "borrowed": q.borrowed} for q in sim.cluster_queues],
        "summary": summary(workloads),
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def summary(workloads: list[WorkloadResult]) -> dict[str, int]:
    never = sum(1 for w in workloads if w.never_admissible)
    return {"workloads": len(workloads),
            "admitted": sum(1 for w in workloads if w.status in ("admitted", "running")),
            "pending": sum(1 for w in workloads if w.status == "pending") - never,
            "neverAdmissible": never,
            "preempted": sum(1 for w in workloads if w.status == "preempted"),
            "notSimulated": sum(1 for w in workloads if w.status == "not-simulated")}


def _ref(w: WorkloadResult, reason: str) -> dict[str, Any]:
    obj = w.unit.obj
    return {"kind": obj.kind, "namespace": obj.namespace, "name": obj.name, "reason": reason}


def _pod_sets(pod_sets: list[PodSetResult]) -> list[dict[str, Any]]:
    return [{"name": p.name, "count": p.count, "flavors": p.flavors, "borrowing": p.borrowing} for p in pod_sets]


def _stage1(stage: Stage1 | None) -> dict[str, Any] | None:
    if stage is None:
        return None
    return {"mode": stage.mode, "podSets": _pod_sets(stage.pod_sets), "reason": stage.reason, "message": stage.message}


def _workload(w: WorkloadResult, place: Callable[[Location], Location] | None) -> dict[str, Any]:
    obj = w.unit.obj
    where = place(obj.location()) if place is not None else None
    found: dict[str, Any] = {
        "kind": obj.kind, "namespace": obj.namespace, "name": obj.name, "file": where.file if where else obj.file,
        "line": where.line if where else w.line, "localQueue": w.local_queue, "clusterQueue": w.cluster_queue,
        "priority": w.priority, "status": w.status}
    if w.pod_sets:
        found["podSets"] = _pod_sets(w.pod_sets)
    found["borrowing"] = w.borrowing
    found["preempted"] = [_ref(v, reason) for v, reason in w.preempted]
    found["preemptionMessage"] = w.preemption_message
    found["preemptedBy"] = _ref(*w.preempted_by) if w.preempted_by else None
    found["waitsFor"] = w.waits_for
    found["reason"] = w.reason
    found["message"] = w.message
    found["emptyCluster"] = _stage1(w.empty_cluster)
    return found


# ------------------------------------------------------------------ text

_STATUS_COLORS = {"admitted": "32", "running": "32", "pending": "33", "preempted": "31", "not-simulated": "35"}


def render_text(sim: Simulation, workloads: list[WorkloadResult], color: bool = False) -> str:
    """Every text of the repository's (names, reasons, messages) made terminal-safe; ``color``:
    ClusterQueue titles bold, each status in its colour (ANSI, added after the padding)."""
    lines: list[str] = []
    by_queue: dict[str, list[WorkloadResult]] = {}
    for w in workloads:
        by_queue.setdefault(w.cluster_queue or "(no ClusterQueue)", []).append(w)
    queues = {q.name: q for q in sim.cluster_queues}
    for name in sorted(by_queue):
        queue = queues.get(name)
        title = f"ClusterQueue {name}"
        if queue is not None:
            title += f" (cohort {queue.cohort or '-'}, {queue.strategy})"
        lines += [_paint(terminal_safe(title), "1", color),
                  *_table([_row(w) for w in by_queue[name]], [w.status for w in by_queue[name]], color), ""]
    never = [w for w in workloads if w.never_admissible or w.status == "not-simulated"]
    if never:
        lines.append(_paint("Never admissible or not simulated:", "1", color))
        lines += [terminal_safe(f"  {_name(w)}: {w.reason or 'not simulated'}: {w.message}") for w in never]
        lines.append("")
    counts = summary(workloads)
    lines.append(", ".join(f"{n} {k}" for k, n in counts.items()))
    lines.append(_paint("Assumptions:", "1", color))
    lines += [terminal_safe(f"  - {a}") for a in sim.assumptions]
    return "\n".join(lines) + "\n"


def _paint(text: str, code: str, color: bool) -> str:
    return f"\x1b[{code}m{text}\x1b[0m" if color and code else text


def _name(w: WorkloadResult) -> str:
    obj = w.unit.obj
    return f"{obj.kind}/{obj.namespace}/{obj.name}"


def _row(w: WorkloadResult) -> list[str]:
    asked = {p.name: p.count for p in w.requests or ()}
    flavors = "; ".join(f"{p.name}{_fewer(p.count, asked.get(p.name))}: "
                        + ", ".join(f"{r}={f}" for r, f in p.flavors.items()) for p in w.pod_sets)
    preempted = ", ".join(f"{_name(v)} ({reason})" for v, reason in w.preempted)
    if w.preempted_by is not None:
        preempted = f"by {_name(w.preempted_by[0])} ({w.preempted_by[1]})"
    status = w.status + (f" (waits for {', '.join(w.waits_for)})" if w.waits_for and w.status == "admitted" else "")
    return [terminal_safe(cell) for cell in (_name(w), "-" if w.priority is None else str(w.priority), status,
                                             flavors or "-", "yes" if w.borrowing else "no", preempted or "-",
                                             w.reason or "-")]


def _fewer(count: int, asked: int | None) -> str:
    """`` (20 of 30 pods)`` for a pod set admitted with fewer pods than it asks for (partial admission)."""
    return f" ({count} of {asked} pods)" if asked is not None and count < asked else ""


def _table(rows: list[list[str]], statuses: list[str], color: bool) -> list[str]:
    widths = [max(len(r[i]) for r in [list(COLUMNS), *rows]) for i in range(len(COLUMNS))]
    lines = ["  " + "  ".join(cell.ljust(widths[i]) for i, cell in enumerate(COLUMNS)).rstrip()]
    for row, status in zip(rows, statuses, strict=True):
        cells = [cell.ljust(widths[i]) for i, cell in enumerate(row)]
        cells[2] = _paint(cells[2], _STATUS_COLORS.get(status, ""), color)
        lines.append(("  " + "  ".join(cells)).rstrip())
    return lines
