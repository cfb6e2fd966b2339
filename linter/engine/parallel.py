"""``--jobs``: spread parsing and per-object rules over forked worker processes.

Workers are forked after the parent has everything they need (rules, the graph), so
nothing but results crosses a process boundary: parsed files (pickled once per batch,
which keeps shared anchors shared) and findings. The items are cut into batches (shrinking
towards the end) that the parent and the workers take in turn from a shared counter, so
whoever is free takes the next: a process slowed by other work (the parent's graph rules,
unpickling what the workers send, another program on the machine) simply does fewer.
Output is identical to ``--jobs 1``: results are merged back in input order and findings
are sorted by a total key.
Where ``fork`` is unavailable (Windows, some sandboxes) everything runs in-process.
"""
from __future__ import annotations

import multiprocessing
import os
import pickle
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

_T = TypeVar("_T")
_R = TypeVar("_R")
MIN_ITEMS_PER_JOB = 200  # below this, forking costs more than it saves
BATCHES_PER_JOB = 48     # the smallest batch: the items / (jobs * this); see _batches
# While workers send, the parent's reader threads need the GIL between pipe reads; at the
# default 5 ms a busy parent (parsing without file I/O) left a worker blocked on a full pipe
# for seconds. A shorter interval lets them in at once.
READER_SWITCH_S = 0.0005

# The work of the current fan-out, set by the parent just before forking: the forked
# workers inherit it (nothing is pickled on the way in). Reset right after.
_WORK: tuple[Callable[[Any], Any], Sequence[Any], list[range], Any] | None = None


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def can_fork() -> bool:
    return "fork" in multiprocessing.get_all_start_methods()


def effective_jobs(jobs: int, items: int, min_items: int | None = None) -> int:
    if jobs <= 1 or not can_fork():
        return 1
    return max(1, min(jobs, items // (MIN_ITEMS_PER_JOB if min_items is None else min_items)))


def map_chunks(function: Callable[[_T], _R], items: Sequence[_T], jobs: int,
               min_items: int | None = None, before: Callable[[], None] | None = None,
               arrived: Callable[[_R], _R] | None = None) -> list[_R]:
    """``[function(item) for item in items]``, with items spread over ``jobs`` processes
    (each getting at least ``min_items``, default MIN_ITEMS_PER_JOB: fewer cost more to fork than they save).

    ``before()`` runs in the parent first; with workers, once they are forked, so it runs
    beside them and what it computes stays in the parent. ``arrived(result)`` is what the
    parent makes of a worker's result, done as results arrive, between its own batches (a
    worker may send a compact form). Results come back in the order of ``items``. A batch a
    worker did not return (it died) is done by the parent."""
    jobs = effective_jobs(jobs, len(items), min_items)
    if jobs == 1:
        if before is not None:
            before()
        return [function(item) for item in items]
    batches = _batches(len(items), jobs)
    context = multiprocessing.get_context("fork")
    results: list[list[_R] | None] = [None] * len(batches)
    try:
        counter = context.Value("i", 0)
    except OSError:  # no shared memory for the counter (some sandboxes): in-process
        return map_chunks(function, items, 1, min_items, before, arrived)
    global _WORK
    _WORK = (function, items, batches, counter)
    workers: list[Any] = []
    inbox = _Inbox(arrived)
    switch = sys.getswitchinterval()
    sys.setswitchinterval(READER_SWITCH_S)
    try:
        from kqlint.engine.interrupts import in_worker

        pipes = [_start_worker(context, os.getpid(), in_worker) for _ in range(jobs - 1)]
        workers = [process for process, _ in pipes]
        for _, receive in pipes:  # every worker forked first: no thread of ours is copied into one
            inbox.listen(receive)
        if before is not None:
            before()
        while (index := _take()) is not None:
            results[index] = [function(items[i]) for i in batches[index]]
            inbox.unpack_into(results)  # what arrived meanwhile, so it does not pile up
        for process in workers:
            process.join()
        inbox.finish()
        inbox.unpack_into(results)
    finally:
        _WORK = None
        sys.setswitchinterval(switch)
        for process in workers:
            if process.is_alive():
                process.kill()
                process.join()
    merged: list[_R] = []
    for index, found in enumerate(results):
        merged.extend(found if found is not None else [function(items[i]) for i in batches[index]])
    return merged


def _batches(count: int, jobs: int) -> list[range]:
    """``range(count)`` cut into batches that shrink as the work runs out ("guided"
    self-scheduling): each a quarter of what is left per process, down to count / (jobs *
    BATCHES_PER_JOB). Whoever takes the last, small batches finishes about when the others
    do: with equal batches (a 24th of the work each) the parent, which also unpacks what the
    workers send, finished its last one 0.06-0.27 s after the worker, which waited idle;
    now 0.004-0.05 s (10,000 documents, two processes)."""
    smallest = -(-count // (jobs * BATCHES_PER_JOB))
    batches, start = [], 0
    while start < count:
        size = max(smallest, (count - start) // (4 * jobs))
        batches.append(range(start, min(start + size, count)))
        start += size
    return batches


def _take() -> int | None:
    """The next batch nobody has taken yet, or None when all are taken."""
    assert _WORK is not None
    counter, total = _WORK[3], len(_WORK[2])
    with counter.get_lock():
        index = int(counter.value)
        if index >= total:
            return None
        counter.value = index + 1
    return index


NOTES = -1  # the index of a worker's last message: the notes it held (kqlint.errors.note_once)


def _start_worker(context: Any, parent: int, setup: Callable[[], None]) -> tuple[Any, Any]:
    """A forked worker and the end of the pipe its results come through."""
    receive, send = context.Pipe(duplex=False)
    process = context.Process(target=_work, args=(send, parent, setup), daemon=True)
    process.start()
    send.close()
    return process, receive


def _work(send: Any, parent: int, setup: Callable[[], None]) -> None:
    """A worker: take batches until none are left, sending each batch's results. Any error
    ends it quietly; the parent does what it did not send (and meets the error itself)."""
    from kqlint.errors import held_notes, hold_notes

    setup()
    if os.getppid() != parent:  # the parent died before the worker was set up
        os._exit(1)
    assert _WORK is not None
    function, items, batches, _ = _WORK
    hold_notes()  # said by the parent, once for the run (kqlint.errors.note_once)
    try:
        while (index := _take()) is not None:
            send.send_bytes(pickle.dumps((index, [function(items[i]) for i in batches[index]]), protocol=5))
        send.send_bytes(pickle.dumps((NOTES, held_notes()), protocol=5))
    except BaseException:
        pass
    finally:
        send.close()


class _Inbox:
    """The workers' messages, read by one thread per worker as they come (a worker never
    waits for the parent to finish a batch before it can send), unpickled by the parent."""

    def __init__(self, arrived: Callable[[Any], Any] | None = None) -> None:
        self.arrived = arrived
        self.messages: list[bytes] = []
        self.threads: list[threading.Thread] = []
        self.lock = threading.Lock()

    def listen(self, connection: Any) -> None:
        thread = threading.Thread(target=self._read, args=(connection,), daemon=True)
        thread.start()
        self.threads.append(thread)

    def _read(self, connection: Any) -> None:
        try:
            while True:
                message = connection.recv_bytes()
                with self.lock:
                    self.messages.append(message)
        except (EOFError, OSError):
            pass
        finally:
            connection.close()

    def finish(self) -> None:
        for thread in self.threads:
            thread.join()

    def unpack_into(self, results: list[Any]) -> None:
        with self.lock:
            messages, self.messages = self.messages, []
        for message in messages:
            index, found = pickle.loads(message)
            if index == NOTES:
                from kqlint.errors import note_once

                for line in found:
                    note_once(line)
                continue
            results[index] = found if self.arrived is None else [self.arrived(result) for result in found]
