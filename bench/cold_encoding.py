#!/usr/bin/env python3
"""Where a cold run's extra wall time could go (issue 28: a cold run within 5 % of ``--no-cache``).

    python bench/cold_encoding.py --size 10000 --runs 3
    python bench/cold_encoding.py --corpus /tmp/kqlint-bench/corpus-10000 --variants nocache,cold,main-free

A timing experiment, not a mode of the product: each variant patches the measured process
(``python bench/cold_encoding.py --run VARIANT -- check ...``) and then runs kqlint's command
line. Entries the main process would encode are not written in the ``main-free`` variants, so
their caches are incomplete: only the wall time means anything. The variants, run in turn:

  nocache      ``--no-cache``
  cold         an empty cache, as kqlint fills it
  main-free    the main process encodes nothing it parses (its entries are dropped); the worker
               encodes and sends its entries as in ``cold``: what moving the main process's
               encoding out of the parse fan-out could buy at best
  idle-helper  main-free, plus a process forked after parsing that only sleeps: what
               copy-on-write costs the main process while such a helper lives
  helper       main-free, plus that process encoding the main process's files at the lowest
               priority (``nice 19``), results thrown away: the helper's real cost
  no-reads     cold, without the stored findings of rules that read other objects and what only
               they use (documents' digests, projections, masked values): bench/cache_layers.py's
               ``reads`` layer turned off, a complete cache of another design (option c)

Prints each variant's median wall and CPU seconds (the process and its reaped workers and
helper) and its wall against ``nocache`` of the same round. docs/performance.md has the figures.

``--phases`` instead times where a run's wall goes, for ``nocache`` and ``cold`` (or the
``--variants`` given): the main process's serial steps and each fan-out (kqlint.engine.parallel
.map_chunks: parsing, the per-object rules, the fixes' text), with the CPU seconds of the main
process and of its workers in each, as medians over the runs. A serial step is where one core
is idle, the only place work could be moved to without costing wall time.
"""
from __future__ import annotations

import json
import os
import shutil
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

VARIANTS = ("nocache", "cold", "main-free", "idle-helper", "helper", "no-reads")
PHASES_FILE = "KQLINT_BENCH_PHASES"  # set: the measured process writes its timeline (JSON) there
FANOUTS = ("parse", "rules", "fix texts")  # kqlint check's fan-outs, in the order a run makes them
HELPER_SLEEP_S = 1.0  # the idle helper lives about as long as the graph build and the rules


def _patch(variant: str) -> None:
    if os.environ.get(PHASES_FILE):
        _record_phases(os.environ[PHASES_FILE])
    if variant in ("nocache", "cold"):
        return
    if variant == "no-reads":
        from cache_layers import _turn_off  # bench/cache_layers.py

        _turn_off("reads")
        return
    if variant not in VARIANTS:
        raise SystemExit(f"unknown variant {variant!r} (choose from {', '.join(VARIANTS)})")
    import kqlint.cache.run as run
    from kqlint.engine import lifetime

    main_process, real_encode, real_load, real_exit = os.getpid(), run.encode, run.load_sources, lifetime.exit_now
    kept: list[tuple[Any, bytes]] = []
    helpers: list[int] = []

    def encode(source: Any, raw: bytes) -> Any:
        if os.getpid() != main_process:
            return real_encode(source, raw)
        kept.append((source, raw))
        return None  # run._encoded's "cannot encode": the file is used as parsed, not stored

    def load_sources(*args: Any, **kwargs: Any) -> Any:
        sources = real_load(*args, **kwargs)
        if kept and variant != "main-free" and (helper := os.fork()) != 0:
            helpers.append(helper)
        elif kept and variant != "main-free":
            try:
                if variant == "idle-helper":
                    time.sleep(HELPER_SLEEP_S)
                else:
                    os.nice(19)
                    for source, raw in kept:
                        real_encode(source, raw)
            finally:
                os._exit(0)
        kept.clear()
        return sources

    def exit_now(status: int) -> None:  # as a real helper's results would be: waited for before the end
        for helper in helpers:
            os.waitpid(helper, 0)
        real_exit(status)

    run.encode = encode  # type: ignore[assignment]
    run.load_sources = load_sources  # type: ignore[assignment]
    lifetime.exit_now = exit_now  # type: ignore[assignment]


def _record_phases(target: str) -> None:
    """Mark the start and end of every fan-out (wall since start, CPU of this process and of its
    reaped workers) and write the marks to ``target`` when the command exits."""
    import resource

    import kqlint.engine.parallel as parallel
    from kqlint.engine import lifetime

    start, marks = time.perf_counter(), []
    real_map, real_exit = parallel.map_chunks, lifetime.exit_now

    def mark() -> None:
        own, workers = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        marks.append((time.perf_counter() - start, own.ru_utime + own.ru_stime, workers.ru_utime + workers.ru_stime))

    def map_chunks(*args: Any, **kwargs: Any) -> Any:
        mark()
        try:
            return real_map(*args, **kwargs)
        finally:
            mark()

    def exit_now(status: int) -> None:
        mark()
        Path(target).write_text(json.dumps(marks))
        real_exit(status)

    mark()
    parallel.map_chunks = map_chunks  # type: ignore[assignment]
    lifetime.exit_now = exit_now  # type: ignore[assignment]


def phase_names(marks: int) -> list[str]:
    """The steps between ``marks`` marks: serial steps and fan-outs in turn."""
    names = []
    for index in range(marks - 1):
        fanout = index // 2
        label = FANOUTS[fanout] if fanout < len(FANOUTS) else f"fan-out {fanout + 1}"
        names.append(f"{label} fan-out" if index % 2 else
                     "start (serial)" if index == 0 else f"before {label} (serial)" if fanout < len(FANOUTS)
                     else f"before fan-out {fanout + 1} (serial)")
    names[-1] = "end (serial)" if len(names) % 2 else names[-1]
    return names


def phases_of(marks: list[list[float]]) -> list[tuple[float, float, float]]:
    """(wall, main CPU, workers' CPU) of each step between marks."""
    return [(b[0] - a[0], b[1] - a[1], b[2] - a[2]) for a, b in zip(marks[:-1], marks[1:], strict=True)]


def measure_phases(corpus: Path, variants: list[str], runs: int, jobs: int) -> None:
    import tempfile

    from run import cache_home, measure  # bench/run.py

    (corpus / ".git").mkdir(exist_ok=True)
    cache = cache_home(corpus)
    steps: dict[str, list[list[tuple[float, float, float]]]] = {name: [] for name in variants}
    with tempfile.TemporaryDirectory() as folder:
        timeline = Path(folder) / "phases.json"
        os.environ[PHASES_FILE] = str(timeline)
        try:
            for round_ in range(runs + 1):  # the first round warms the page cache and is not counted
                for name in variants:
                    flags = ["--no-cache"] if name == "nocache" else ["--cache-dir", str(cache)]
                    shutil.rmtree(cache / "kqlint", ignore_errors=True)
                    measure([sys.executable, __file__, "--run", name, "--", "check", ".", "--format", "json",
                             "--jobs", str(jobs), *flags], cwd=corpus)
                    if round_:
                        steps[name].append(phases_of(json.loads(timeline.read_text())))
        finally:
            del os.environ[PHASES_FILE]
    print_phases(steps)


def print_phases(steps: dict[str, list[list[tuple[float, float, float]]]]) -> None:
    counts = {len(run) for runs in steps.values() for run in runs}
    if len(counts) != 1:
        print(f"the variants' runs made different numbers of fan-outs ({sorted(counts)}): not comparable")
        return
    names = phase_names(counts.pop() + 1)
    header = "".join(f"{name:>28}" for name in steps)
    print(f"{'step':28}{header}    (median wall s / main CPU s / workers' CPU s)")
    for index, step in enumerate(names):
        cells = []
        for runs in steps.values():
            wall, own, workers = (statistics.median(run[index][part] for run in runs) for part in range(3))
            cells.append(f"{wall:5.2f} / {own:5.2f} / {workers:5.2f}")
        print(f"{step:28}" + "".join(f"{cell:>28}" for cell in cells))
    totals = [statistics.median(sum(step[0] for step in run) for run in runs) for runs in steps.values()]
    print(f"{'whole run':28}" + "".join(f"{total:>8.2f}{'':20}" for total in totals))


def measure_variants(corpus: Path, variants: list[str], runs: int, jobs: int) -> None:
    from run import cache_home, measure  # bench/run.py

    (corpus / ".git").mkdir(exist_ok=True)
    cache = cache_home(corpus)
    walls: dict[str, list[float]] = {name: [] for name in variants}
    cpus: dict[str, list[float]] = {name: [] for name in variants}
    against: dict[str, list[float]] = {name: [] for name in variants}
    for round_ in range(runs + 1):  # the first round warms the page cache and is not counted
        nocache = None
        for name in variants:
            flags = ["--no-cache"] if name == "nocache" else ["--cache-dir", str(cache)]
            command = [sys.executable, __file__, "--run", name, "--", "check", ".", "--format", "json",
                       "--jobs", str(jobs), *flags]
            shutil.rmtree(cache / "kqlint", ignore_errors=True)
            wall, _, _, cpu = measure(command, cwd=corpus)
            if round_ == 0:
                continue
            nocache = wall if name == "nocache" else nocache
            walls[name].append(wall)
            cpus[name].append(cpu)
            if nocache is not None:
                against[name].append(wall / nocache - 1)
    for name in variants:
        extra = f"  {100 * statistics.median(against[name]):+5.1f} % wall against nocache" if against[name] else ""
        print(f"{name:12} wall {statistics.median(walls[name]):5.2f} s ({min(walls[name]):.2f}-{max(walls[name]):.2f})"
              f"  CPU {statistics.median(cpus[name]):5.2f} s{extra}  load {os.getloadavg()[0]:.1f}")


def main() -> int:
    from run import corpus_of, corpus_parser, run_patched  # bench/run.py

    run_patched(_patch)
    parser = corpus_parser(__doc__)
    parser.add_argument("--variants", default="")
    parser.add_argument("--phases", action="store_true", help="time each step of a run (nocache and cold by default)")
    args = parser.parse_args()
    args.variants = args.variants or ("nocache,cold" if args.phases else ",".join(VARIANTS))
    variants = [name for name in args.variants.split(",") if name]
    unknown = [name for name in variants if name not in VARIANTS]
    if unknown:
        print(f"unknown variant {unknown[0]!r} (choose from {', '.join(VARIANTS)})", file=sys.stderr)
        return 2
    if "nocache" in variants:  # first in each round: the others are compared with it
        variants.remove("nocache")
        variants.insert(0, "nocache")
    (measure_phases if args.phases else measure_variants)(corpus_of(args), variants, args.runs, args.jobs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
