#!/usr/bin/env python3
"""Side-by-side benchmark: kqlint vs the YAML "floor" on generated repositories.

    python bench/run.py                      # 1k and 10k documents, 3 runs each
    python bench/run.py --sizes 1000,10000,50000 --runs 5 --jobs 1,2
    python bench/run.py --sizes 10000 --scenarios nocache,cold,warm,warm-1pct,precommit-warm,precommit-edited

Scenarios (every one runs in the corpus folder, which gets an empty ``.git`` folder so that
it is a project: a one-file run gets the whole repository as context, as under pre-commit; the
cache lives in ``--cache-dir`` the corpus folder's sibling ``NAME.cache``, kqlint's own folder
``kqlint/`` inside it):
  nocache           ``kqlint check . --no-cache`` (what every run cost before the cache)
  cold              ``kqlint check .`` with the cache removed before each run
  warm              ``kqlint check .`` again, nothing changed
  warm-1pct         1 % of the files edited (a comment appended) before each run
  warm-1pct-edit    1 % of the files edited inside an object before each run: a ClusterQueue's first
                    quota raised, else a workload's first label value or container image changed
                    (values no rule reads of another object: kqlint.cache.masks)
  warm-1pct-count   1 % of the files: a workload's first pod count (parallelism, replicas) changed,
                    a value the graph rules read (KQ301, multi-pod gangs): they run again
  precommit-warm    ``kqlint check ONE_FILE``, the repository as context, nothing changed
  precommit-edited  the same after editing that one file (a real commit)
  fix               ``kqlint check . --no-cache --fix --unsafe-fixes`` (compare with nocache)
  fix-cold          ``kqlint check . --fix --unsafe-fixes``, the cache removed (compare with cold)
  simulate          ``kqlint simulate . --format json``: Kueue's scheduler over every workload (compare with
                    nocache: the target is at most 2x)
Edited and fixed files are restored before each run and afterwards. Commands run with bytecode caching allowed (as an
installed kqlint has its .pyc files), after one warm-up run.

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
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
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


def measure(command: list[str], cwd: Path | None = None) -> tuple[float, float, bytes, float]:
    """Wall seconds and peak RSS (MiB) of one process, its stdout, and the CPU seconds of it
    and its (reaped) worker processes: on a busy machine CPU time moves less than wall time."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "KQLINT_CACHE_DIR")}
    start = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=cwd, env=env)
    out = proc.stdout.read() if proc.stdout else b""
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        raise SystemExit(f"command failed ({status}): {' '.join(command)}")
    return wall, usage.ru_maxrss / 1024, out, usage.ru_utime + usage.ru_stime


def kqlint_command(directory: Path, jobs: int) -> list[str]:
    return [sys.executable, "-m", "kqlint", "check", str(directory), "--format", "json", "--jobs", str(jobs)]


SCENARIOS = ("nocache", "cold", "warm", "warm-1pct", "warm-1pct-edit", "warm-1pct-count", "precommit-warm",
             "precommit-edited", "fix", "fix-cold", "simulate")


def manifests(directory: Path) -> list[Path]:
    return sorted(p for p in directory.rglob("*") if p.suffix in (".yaml", ".yml")
                  and not any(part.startswith(".") for part in p.relative_to(directory).parts))


class Scenario:
    """One cache scenario: the command, and what to do to the corpus before each run."""

    def __init__(self, name: str, directory: Path, jobs: int) -> None:
        self.name, self.directory, self.jobs = name, directory, jobs
        files = manifests(directory)
        self.staged = files[len(files) // 2]
        self.edited = files[:: 100] if name.startswith("warm-1pct") else [self.staged] if name == "precommit-edited" \
            else []
        self.originals = {path: path.read_bytes() for path in self.edited}
        self.fixed = {path: path.read_bytes() for path in files} if name.startswith("fix") else {}
        self.runs = 0
        self.stamp = time.time_ns() // 1000 % 10**9  # edits differ from those of an earlier bench run
        (directory / ".git").mkdir(exist_ok=True)

    def command(self) -> list[str]:
        if self.name == "simulate":  # the whole repository as one queue: compare with nocache (target <= 2x)
            return [sys.executable, "-m", "kqlint", "simulate", ".", "--format", "json"]
        target = str(self.staged.relative_to(self.directory)) if self.name.startswith("precommit") else "."
        extra = ["--no-cache"] if self.name in ("nocache", "fix") else ["--cache-dir", str(cache_home(self.directory))]
        extra += ["--fix", "--unsafe-fixes"] if self.name.startswith("fix") else []
        return [sys.executable, "-m", "kqlint", "check", target, "--format", "json", "--jobs", str(self.jobs)] + extra

    def before(self) -> None:
        self.runs += 1
        if self.name in ("cold", "fix-cold"):
            subprocess.run(["rm", "-rf", str(cache_home(self.directory) / "kqlint")], check=True)
        self.put_back_fixed()
        for path, data in self.originals.items():
            mark = self.stamp * 100 + self.runs  # whose stored report would be reused
            edited = value_edit(data, mark) if self.name == "warm-1pct-edit" else \
                count_edit(data, mark) if self.name == "warm-1pct-count" else None
            path.write_bytes(edited or data + f"# bench edit {mark}\n".encode())

    def restore(self) -> None:
        for path, data in self.originals.items():
            path.write_bytes(data)
        self.put_back_fixed()

    def put_back_fixed(self) -> None:
        for path, data in self.fixed.items():
            if path.read_bytes() != data:
                path.write_bytes(data)


_QUOTA = re.compile(rb"^(\s+nominalQuota: )(\d+)", re.M)
_LABEL = re.compile(rb"^(\s+)labels:\n((?:\1\s+.*\n)+)", re.M)
_OWN_LABEL = re.compile(rb"^\s+(?!kueue\.x-k8s\.io/)[\w./-]+: ['\"]?([\w./-]+)", re.M)
_IMAGE = re.compile(rb"^\s+image: ['\"]?([^'\"\s]+)", re.M)
_COUNT = re.compile(rb"^(\s+(?:parallelism|replicas): )(\d+)$", re.M)


def value_edit(data: bytes, run: int) -> bytes | None:
    """A change of data inside an object (warm-1pct-edit): a ClusterQueue's first quota, else the
    first label value that is not Kueue's, else the first container image; None: nothing of the kind."""
    quota = _QUOTA.search(data)
    if quota is not None:
        return data[:quota.start(2)] + str(int(quota.group(2)) + 1 + run % 997).encode() + data[quota.end(2):]
    for labels in _LABEL.finditer(data):
        label = _OWN_LABEL.search(labels.group(2))
        if label is not None:
            at = labels.start(2) + label.end(1)
            return data[:at] + f"-edit{run}".encode() + data[at:]
    image = _IMAGE.search(data)
    return None if image is None else data[:image.end(1)] + f"-edit{run}".encode() + data[image.end(1):]


def count_edit(data: bytes, run: int) -> bytes | None:
    """The first pod count (warm-1pct-count) set to another value, or None: none there."""
    count = _COUNT.search(data)
    if count is None:
        return None
    changed = int(count.group(2)) + 1 + run % 2  # another value than the last run's too
    return data[:count.start(2)] + str(changed).encode() + data[count.end(2):]


def cache_home(directory: Path) -> Path:
    """The ``--cache-dir`` of a corpus: outside it (kqlint refuses a cache inside the project)."""
    return directory.parent / f"{directory.name}.cache"


def cache_bytes(directory: Path) -> int:
    return sum(p.stat().st_size for p in (cache_home(directory) / "kqlint").rglob("*") if p.is_file())


def bench_scenarios(size: int, directory: Path, runs: int, jobs_list: list[int],
                    names: list[str]) -> list[dict[str, object]]:
    floor_cmd = [sys.executable, "-c", FLOOR, str(directory)]
    measure(floor_cmd)
    yaml_bytes = sum(p.stat().st_size for p in manifests(directory))
    rows = []
    for jobs in jobs_list:
        for name in names:
            scenario = Scenario(name, directory, jobs)
            try:
                scenario.before()
                measure(scenario.command(), cwd=directory)  # warm-up (and primes the cache)
                floor_walls, walls, peaks, ratios, cpu_ratios = [], [], [], [], []
                for _ in range(runs):
                    scenario.before()
                    a_wall, a_peak, _, a_cpu = measure(scenario.command(), cwd=directory)
                    b_wall, _, _, b_cpu = measure(floor_cmd)
                    walls.append(a_wall)
                    peaks.append(a_peak)
                    floor_walls.append(b_wall)
                    ratios.append(a_wall / b_wall)
                    cpu_ratios.append(a_cpu / b_cpu)
            finally:
                scenario.restore()
            rows.append({"documents": size, "jobs": jobs, "scenario": name,
                         "floor_wall": statistics.median(floor_walls), "kqlint_wall": statistics.median(walls),
                         "ratio": statistics.median(ratios), "ratio_min": min(ratios), "ratio_max": max(ratios),
                         "cpu_ratio": statistics.median(cpu_ratios),
                         "kqlint_peak": max(peaks), "cache_bytes": cache_bytes(directory), "yaml_bytes": yaml_bytes,
                         "load": os.getloadavg()[0]})
    return rows


def print_scenarios(rows: list[dict[str, object]]) -> None:
    header = ("docs", "jobs", "scenario", "floor s", "kqlint s", "x floor (median)", "x floor (min-max)",
              "CPU x floor CPU", "kqlint MiB", "cache / YAML bytes", "load avg")
    print(" | ".join(header))
    print(" | ".join("---" for _ in header))
    for r in rows:
        print(f"{r['documents']:,} | {r['jobs']} | {r['scenario']} | {r['floor_wall']:.2f} | {r['kqlint_wall']:.2f} | "
              f"{r['ratio']:.3f} | {r['ratio_min']:.3f}-{r['ratio_max']:.3f} | {r['cpu_ratio']:.3f} | "
              f"{r['kqlint_peak']:.0f} | "
              f"{r['cache_bytes'] / r['yaml_bytes']:.2f} | {r['load']:.1f}")


def bench_size(size: int, directory: Path, runs: int, jobs_list: list[int]) -> list[dict[str, object]]:
    floor_cmd = [sys.executable, "-c", FLOOR, str(directory)]
    measure(floor_cmd)  # warm-up (page cache)
    rows = []
    for jobs in jobs_list:
        measure(kqlint_command(directory, jobs))
        floor_walls, floor_peaks, walls, peaks, ratios = [], [], [], [], []
        objects = 0
        for _ in range(runs):
            a_wall, a_peak, out, _ = measure(kqlint_command(directory, jobs))
            b_wall, b_peak, _, _ = measure(floor_cmd)
            objects = json.loads(out)["summary"]["objects"]
            walls.append(a_wall)
            peaks.append(a_peak)
            floor_walls.append(b_wall)
            floor_peaks.append(b_peak)
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


def corpus_parser(description: str | None) -> argparse.ArgumentParser:
    """The options of a bench script that measures variants on one generated repository
    (bench/cache_layers.py, bench/cold_encoding.py)."""
    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=10000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--work", default=os.environ.get("KQLINT_BENCH_DIR", "/tmp/kqlint-bench"))
    parser.add_argument("--corpus", help="an existing generated repository instead of --size/--work")
    return parser


def corpus_of(args: argparse.Namespace) -> Path:
    return Path(args.corpus) if args.corpus else generate(args.size, Path(args.work), GENERATOR)


def run_patched(patch: Callable[[str], None]) -> None:
    """``SCRIPT --run NAME -- ARGS``: kqlint's command line with ARGS in this process, after
    ``patch(NAME)`` (the variant a bench script measures); it exits. Otherwise returns."""
    if len(sys.argv) > 2 and sys.argv[1] == "--run":
        name, rest = sys.argv[2], sys.argv[3:]
        patch(name)
        from kqlint.cli import entry

        sys.argv = ["kqlint", *(rest[1:] if rest[:1] == ["--"] else rest)]
        entry()  # exits


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--jobs", default="1,2")
    parser.add_argument("--work", default=os.environ.get("KQLINT_BENCH_DIR", "/tmp/kqlint-bench"))
    parser.add_argument("--generator", default=str(GENERATOR))
    parser.add_argument("--json", help="also write the rows as JSON to this file")
    parser.add_argument("--scenarios", default="",
                        help="cache scenarios instead of the plain check: comma-separated, from "
                             f"{', '.join(SCENARIOS)}")
    args = parser.parse_args()
    generator = Path(args.generator)
    if not generator.is_file():
        print(f"generator not found: {generator} (pass --generator)", file=sys.stderr)
        return 2
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    jobs_list = [int(j) for j in args.jobs.split(",")]
    rows = []
    names = [n for n in args.scenarios.split(",") if n]
    unknown = [n for n in names if n not in SCENARIOS]
    if unknown:
        print(f"unknown scenario {unknown[0]!r} (choose from {', '.join(SCENARIOS)})", file=sys.stderr)
        return 2
    for size in (int(s) for s in args.sizes.split(",")):
        corpus = generate(size, work, generator)
        rows += bench_scenarios(size, corpus, args.runs, jobs_list, names) if names else \
            bench_size(size, corpus, args.runs, jobs_list)
    if names:
        print_scenarios(rows)
    else:
        print_rows(rows)
        scaling(rows)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
