"""``--jobs``: spread parsing and per-object rules over forked worker processes.

Workers are forked after the parent has everything they need (rules, the graph), so
nothing but results crosses a process boundary: parsed files (pickled once per chunk,
which keeps shared anchors shared) and findings. Output is identical to ``--jobs 1``:
results are merged back in input order and findings are sorted by a total key.
Where ``fork`` is unavailable (Windows, some sandboxes) everything runs in-process.
"""
from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

_T = TypeVar("_T")
_R = TypeVar("_R")
MIN_ITEMS_PER_JOB = 200  # below this, forking costs more than it saves
# A worker pickles each parsed file to send it (about a third of its parse) and the parent
# unpickles it (a tenth): the parent parses this much more than a worker, so both finish together.
PARSE_PARENT_WEIGHT = 1.25

# The work of the current fan-out, set by the parent just before forking: the forked
# workers inherit it (nothing is pickled on the way in). Reset right after.
_WORK: tuple[Callable[[Any], Any], Sequence[Any]] | None = None


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def can_fork() -> bool:
    return "fork" in multiprocessing.get_all_start_methods()


def effective_jobs(jobs: int, items: int, min_items: int = MIN_ITEMS_PER_JOB) -> int:
    if jobs <= 1 or not can_fork():
        return 1
    return max(1, min(jobs, items // min_items))


def _run_chunk(index: int) -> list[Any]:
    assert _WORK is not None
    function, chunks = _WORK
    return [function(item) for item in chunks[index]]


def map_chunks(function: Callable[[_T], _R], items: Sequence[_T], jobs: int,
               min_items: int = MIN_ITEMS_PER_JOB, parent_weight: float = 1.0) -> list[_R]:
    """``[function(item) for item in items]``, with items split over ``jobs`` processes
    (each getting at least ``min_items``: fewer cost more to fork than they save).

    The parent works on the first chunk itself while the workers do the others; results
    come back in the order of ``items``. ``parent_weight``: the parent's share of the items
    relative to a worker's; above 1 when a worker's results cost it time to send (parsed
    files are pickled), so that all finish together."""
    jobs = effective_jobs(jobs, len(items), min_items)
    if jobs == 1:
        return [function(item) for item in items]
    indexes = split(len(items), jobs, parent_weight)
    global _WORK
    _WORK = (function, [[items[i] for i in chunk] for chunk in indexes])
    try:
        from kqlint.interrupts import in_worker

        parent = os.getpid()
        with multiprocessing.get_context("fork").Pool(jobs - 1, initializer=_worker_start,
                                                      initargs=(parent, in_worker)) as pool:
            pending = pool.map_async(_run_chunk, range(1, jobs))
            results = [_run_chunk(0)] + pending.get()
    finally:
        _WORK = None
    merged: list[_R] = [None] * len(items)  # type: ignore[list-item]
    for chunk, found in zip(indexes, results, strict=True):
        for index, result in zip(chunk, found, strict=True):
            merged[index] = result
    return merged


def split(count: int, jobs: int, parent_weight: float = 1.0) -> list[list[int]]:
    """Item indexes per process (the parent's first), interleaved so that neighbouring items,
    often alike, spread over every process; the parent takes ``parent_weight`` times a
    worker's share (smooth weighted round robin: deterministic)."""
    if parent_weight == 1.0:
        return [list(range(start, count, jobs)) for start in range(jobs)]
    shares = [parent_weight] + [1.0] * (jobs - 1)
    total = sum(shares)
    chunks: list[list[int]] = [[] for _ in range(jobs)]
    credit = [0.0] * jobs
    for index in range(count):
        for job in range(jobs):
            credit[job] += shares[job] / total
        chosen = max(range(jobs), key=credit.__getitem__)
        chunks[chosen].append(index)
        credit[chosen] -= 1.0
    return chunks


def _worker_start(parent: int, setup: Callable[[], None]) -> None:
    setup()
    if os.getppid() != parent:  # the parent died before the worker was set up
        os._exit(1)
