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
               min_items: int = MIN_ITEMS_PER_JOB) -> list[_R]:
    """``[function(item) for item in items]``, with items split over ``jobs`` processes
    (each getting at least ``min_items``: fewer cost more to fork than they save).

    The parent works on the first chunk itself while the workers do the others; results
    come back in the order of ``items``."""
    jobs = effective_jobs(jobs, len(items), min_items)
    if jobs == 1:
        return [function(item) for item in items]
    chunks = [list(items[i::jobs]) for i in range(jobs)]
    global _WORK
    _WORK = (function, chunks)
    try:
        from kqlint.interrupts import in_worker

        parent = os.getpid()
        with multiprocessing.get_context("fork").Pool(jobs - 1, initializer=_worker_start,
                                                      initargs=(parent, in_worker)) as pool:
            pending = pool.map_async(_run_chunk, range(1, jobs))
            results = [_run_chunk(0)] + pending.get()
    finally:
        _WORK = None
    return _interleave(results, len(items))


def _worker_start(parent: int, setup: Callable[[], None]) -> None:
    setup()
    if os.getppid() != parent:  # the parent died before the worker was set up
        os._exit(1)


def _interleave(results: list[list[_R]], total: int) -> list[_R]:
    """Undo the ``items[i::jobs]`` split."""
    merged: list[_R] = [None] * total  # type: ignore[list-item]
    jobs = len(results)
    for start, chunk in enumerate(results):
        merged[start::jobs] = chunk
    return merged
