#!/usr/bin/env python3
"""Side-by-side benchmark: kqlint vs the YAML "floor" on generated repositories.

    python bench/run.py                      # 1k and 10k documents, 3 runs each
    python bench/run.py --sizes 1000,10000,50000 --runs 5 --jobs 1,2

For each size it generates a repository with ../shared/bench/gen_corpus.py (cached under
--work), then runs, alternating A B A B ...:
  floor   PyYAML C ``load_all`` of every .yaml/.yml file, keeping all documents, no positions
  kqlint  ``kqlint check DIR --format json`` with all default rules (per --jobs value)
and prints wall time (median), peak RSS, objects/s and the ratios to the floor. The
floor script and kqlint run as separate processes measured the same way (wall clock
around the process, peak RSS from wait4).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GENERATOR = ROOT.parent / "shared" / "bench" / "gen_corpus.py"

FLOOR = r"""
import os, sys, yaml
docs = []
for d, dirs, files in os.walk(sys.argv[1]):
    dirs[:] = sorted(x for x in dirs if not x.startswith('.'))
    for name in sorted(files):
        if name.endswith(('.yaml', '.yml')):
            with open(os.path.join(d, name), 'rb') as f:
                docs.extend(yaml.load_all(f.read(), Loader=yaml.CSafeLoader))
print(len(docs))
sys.stdout.flush()
os._exit(0)
"""


def generate(size: int, work: Path, generator: Path) -> Path:
    target = work / f"corpus-{size}"
    if (target / ".complete").exists():
        return target
    if target.exists():
        subprocess.run(["rm", "-rf", str(target)], check=True)
    subprocess.run([sys.executable, str(generator), str(target), "--manifests", str(size), "--seed", "1"],
                   check=True, stdout=subprocess.DEVNULL)
    (target / ".complete").write_text("ok")
    return target


def measure(command: list[str]) -> tuple[float, float, bytes]:
    """Wall seconds and peak RSS (MiB) of one process, plus its stdout."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = proc.stdout.read() if proc.stdout else b""
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        raise SystemExit(f"command failed ({status}): {' '.join(command)}")
    return wall, usage.ru_maxrss / 1024, out


def kqlint_command(directory: Path, jobs: int) -> list[str]:
    return [sys.executable, "-m", "kqlint", "check", str(directory), "--format", "json", "--jobs", str(jobs)]


def bench_size(size: int, directory: Path, runs: int, jobs_list: list[int]) -> list[dict[str, object]]:
    floor_cmd = [sys.executable, "-c", FLOOR, str(directory)]
    measure(floor_cmd)  # warm-up (page cache)
    rows = []
    for jobs in jobs_list:
        measure(kqlint_command(directory, jobs))
        floor_walls, floor_peaks, walls, peaks, ratios = [], [], [], [], []
        objects = 0
        for _ in range(runs):
            a_wall, a_peak, out = measure(kqlint_command(directory, jobs))
            b_wall, b_peak, _ = measure(floor_cmd)
            objects = json.loads(out)["summary"]["objects"]
            walls.append(a_wall); peaks.append(a_peak)
            floor_walls.append(b_wall); floor_peaks.append(b_peak)
            ratios.append(a_wall / b_wall)
        rows.append({
            "documents": size, "jobs": jobs, "objects": objects,
            "floor_wall": statistics.median(floor_walls), "floor_peak": max(floor_peaks),
            "kqlint_wall": statistics.median(walls), "kqlint_peak": max(peaks),
            "ratio": statistics.median(ratios),
            "peak_ratio": max(peaks) / max(floor_peaks),
            "objects_per_s": objects / statistics.median(walls),
        })
    return rows


def print_rows(rows: list[dict[str, object]]) -> None:
    header = ("docs", "jobs", "floor s", "floor MiB", "kqlint s", "kqlint MiB", "x floor (wall)",
              "x floor (RSS)", "objects/s")
    print(" | ".join(header))
    print(" | ".join("---" for _ in header))
    for r in rows:
        print(f"{r['documents']:,} | {r['jobs']} | {r['floor_wall']:.2f} | {r['floor_peak']:.0f} | "
              f"{r['kqlint_wall']:.2f} | {r['kqlint_peak']:.0f} | {r['ratio']:.2f} | "
              f"{r['peak_ratio']:.2f} | {r['objects_per_s']:,.0f}")


def scaling(rows: list[dict[str, object]]) -> None:
    by = {(r["documents"], r["jobs"]): r["kqlint_wall"] for r in rows}
    for (docs, jobs), wall in sorted(by.items()):
        base = by.get((10000, jobs))
        if docs == 50000 and base:
            print(f"scaling jobs={jobs}: 50k / 10k wall = {wall / base:.2f} (target <= 5.5)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--jobs", default="1,2")
    parser.add_argument("--work", default=os.environ.get("KQLINT_BENCH_DIR", "/tmp/kqlint-bench"))
    parser.add_argument("--generator", default=str(GENERATOR))
    parser.add_argument("--json", help="also write the rows as JSON to this file")
    args = parser.parse_args()
    generator = Path(args.generator)
    if not generator.is_file():
        print(f"generator not found: {generator} (pass --generator)", file=sys.stderr)
        return 2
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    jobs_list = [int(j) for j in args.jobs.split(",")]
    rows = []
    for size in (int(s) for s in args.sizes.split(",")):
        rows += bench_size(size, generate(size, work, generator), args.runs, jobs_list)
    print_rows(rows)
    scaling(rows)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
