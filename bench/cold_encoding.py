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

Prints each variant's median wall and CPU seconds (the process and its reaped workers and
helper) and its wall against ``nocache`` of the same round. docs/performance.md has the figures.
"""
from __future__ import annotations

import os
import shutil
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

VARIANTS = ("nocache", "cold", "main-free", "idle-helper", "helper")
HELPER_SLEEP_S = 1.0  # the idle helper lives about as long as the graph build and the rules


def _patch(variant: str) -> None:
    if variant in ("nocache", "cold"):
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
    parser.add_argument("--variants", default=",".join(VARIANTS))
    args = parser.parse_args()
    variants = [name for name in args.variants.split(",") if name]
    unknown = [name for name in variants if name not in VARIANTS]
    if unknown:
        print(f"unknown variant {unknown[0]!r} (choose from {', '.join(VARIANTS)})", file=sys.stderr)
        return 2
    if "nocache" in variants:  # first in each round: the others are compared with it
        variants.remove("nocache")
        variants.insert(0, "nocache")
    measure_variants(corpus_of(args), variants, args.runs, args.jobs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
