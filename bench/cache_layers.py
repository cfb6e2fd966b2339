#!/usr/bin/env python3
"""What each layer of kqlint's cache buys: the cache scenarios of bench/run.py, run once with
the whole cache and once with each layer turned off.

    python bench/cache_layers.py --size 10000 --runs 3
    python bench/cache_layers.py --layers report,findings --scenarios warm,precommit-warm

A layer is turned off in the measured process itself (``python bench/cache_layers.py --run
LAYER -- check ...`` patches it out, then runs kqlint's command line), so the product carries
no switch for it (input entries kept encoded until a rule read them, a seventh layer, measured
nothing and is gone: docs/performance.md). The layers:

  report        the whole report of an identical earlier run (kqlint.cache.run)
  findings      stored findings of pure and declaring rules (kqlint.cache.findings)
  masks         projections that blank values no reused rule reads (kqlint.cache.masks):
                with it off, a quota, label value or image edit changes the projection
  reads         the stored findings of rules that read other objects, with all that only they
                use: the documents' digests and projections and the masked values (a cold run
                works none of them out; pure rules' findings are still stored): what a cache
                without them would cost and save (issue 28's option c)
  placeholders  the stored envsubst-placeholder verdicts (kqlint.cache.placeholders)
  fixes         the stored text of resolved fixes (kqlint.cache.fixes)

Without any layer a run still parses through the cache (its entries): compare with the
``nocache`` scenario for what the entries themselves buy. Prints, per scenario, the median
CPU seconds (user+sys, the process and its workers) and peak RSS with every layer and with
each one off: CPU time moves less than wall time on a shared machine.
"""
from __future__ import annotations

import os
import shutil
import statistics
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

LAYERS = ("report", "findings", "masks", "reads", "placeholders", "fixes")
DEFAULT_SCENARIOS = ("cold", "warm", "warm-1pct", "warm-1pct-edit", "warm-1pct-count", "precommit-warm",
                     "precommit-edited")


def _none(*_: Any, **__: Any) -> None:
    return None


def _no_digests(text: bytes, ends: list[int], masks: Any) -> tuple[tuple[str, ...], tuple[str, ...]]:
    return ("",) * len(ends), ("",) * len(ends)  # read by no one once the reads layer is off


def _turn_off(layer: str) -> None:
    import kqlint.cache.findings as findings
    import kqlint.cache.run as run

    if layer not in (*LAYERS, "none"):
        raise SystemExit(f"unknown layer {layer!r} (choose from {', '.join(LAYERS)})")
    if layer == "report":
        run.load_report = _none  # type: ignore[assignment]
        run.store_report = _none  # type: ignore[assignment]
    if layer == "findings":
        findings.begin = _none  # type: ignore[assignment]
    if layer in ("masks", "reads"):
        import kqlint.cache.masks as masks
        masks.mask_sites = lambda obj, templates=None: []  # type: ignore[assignment]
    if layer == "reads":
        import kqlint.cache.digests as digests
        findings.reading_rules = lambda rules: frozenset()  # type: ignore[assignment]
        digests.document_digests = _no_digests  # type: ignore[assignment]
    if layer == "placeholders":
        from kqlint.cache.placeholders import PlaceholderVerdicts
        PlaceholderVerdicts.get = lambda self, key: (False, None)  # type: ignore[assignment,method-assign]
        PlaceholderVerdicts.save = _none  # type: ignore[assignment,method-assign]
    if layer == "fixes":
        from kqlint.cache.fixes import ResolvedFixes
        ResolvedFixes.get = _none  # type: ignore[assignment,method-assign]
        ResolvedFixes.save = _none  # type: ignore[assignment,method-assign]


def measure_layers(corpus: Path, layers: list[str], scenarios: list[str], runs: int, jobs: int,
                   report: Callable[[str], None]) -> list[dict[str, Any]]:
    from run import Scenario, cache_home, measure  # bench/run.py

    rows = []
    for name in scenarios:
        for layer in ["none", *layers]:
            scenario = Scenario(name, corpus, jobs)
            command = scenario.command()
            launched = [sys.executable, __file__, "--run", layer, "--", *command[3:]]
            cpus, peaks = [], []
            try:
                shutil.rmtree(cache_home(corpus) / "kqlint", ignore_errors=True)  # filled by this variant alone
                scenario.before()
                measure(launched, cwd=corpus)  # warm-up
                for _ in range(runs):
                    scenario.before()
                    _, peak, _, cpu = measure(launched, cwd=corpus)
                    cpus.append(cpu)
                    peaks.append(peak)
            finally:
                scenario.restore()
            row = {"scenario": name, "without": layer, "cpu": statistics.median(cpus), "peak": max(peaks),
                   "load": os.getloadavg()[0]}
            rows.append(row)
            report(f"{name:18} without {layer:13} CPU {row['cpu']:6.2f} s  peak {row['peak']:5.0f} MiB  "
                   f"load {row['load']:.1f}")
    return rows


def main() -> int:
    from run import corpus_of, corpus_parser, run_patched  # bench/run.py

    run_patched(_turn_off)
    parser = corpus_parser(__doc__)
    parser.add_argument("--layers", default=",".join(LAYERS))
    parser.add_argument("--scenarios", default=",".join(DEFAULT_SCENARIOS))
    args = parser.parse_args()
    layers = [layer for layer in args.layers.split(",") if layer]
    for layer in layers:
        if layer not in LAYERS:
            print(f"unknown layer {layer!r} (choose from {', '.join(LAYERS)})", file=sys.stderr)
            return 2
    measure_layers(corpus_of(args), layers, args.scenarios.split(","), args.runs, args.jobs, print)
    return 0


if __name__ == "__main__":
    sys.exit(main())
