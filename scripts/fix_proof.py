#!/usr/bin/env python3
"""Apply every fix (safe and unsafe) to a COPY of a manifest tree and prove it harmless.

    python scripts/fix_proof.py SOURCE_DIR [--work /tmp/kqlint-fix-proof] [--profile kakaocloud]

SOURCE_DIR is copied to WORK (never changed in place). Then, in the copy:
1. ``kqlint check --fix --unsafe-fixes`` (the Python API, no cache), timed;
2. every changed file still loads (no new KQ001) and kubectl decodes it
   (``kubectl label --local -f FILE x=y -o json``; skipped when kubectl is absent);
3. only fixed findings disappeared: the findings after are the findings before minus the
   fixed ones (keyed on code, file, object, field path and message), nothing new;
4. a second ``--fix --unsafe-fixes`` changes nothing;
and prints the fixes per rule, the changed files and lines.
"""
from __future__ import annotations

import argparse
import difflib
import os
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any


def _snapshot(root: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file() and ".git" not in p.parts}


def _key(finding: Any) -> tuple[Any, ...]:
    return (finding.code, finding.location.file, finding.obj, finding.location.path, finding.message)


def _kubectl_refusals(files: list[Path]) -> list[str]:
    if shutil.which("kubectl") is None:
        print("kubectl not installed: decoding not checked")
        return []
    refused = []
    for path in files:
        result = subprocess.run(["kubectl", "label", "--local", "-f", str(path), "x=y", "-o", "json"],
                                capture_output=True, text=True, check=False)
        if result.returncode != 0:
            refused.append(f"{path}: {result.stderr.strip()[:200]}")
    return refused


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("source")
    parser.add_argument("--work", default="/tmp/kqlint-fix-proof")
    parser.add_argument("--profile", default=None)
    args = parser.parse_args()
    from kqlint.config import Config
    from kqlint.engine.pipeline import lint
    from kqlint.fix.passes import fix_run

    work = Path(args.work)
    if work.exists():
        shutil.rmtree(work)
    shutil.copytree(args.source, work, symlinks=True)
    (work / ".git").mkdir(exist_ok=True)
    os.chdir(work)
    config = Config(profile=args.profile)

    def lint_once() -> Any:
        return lint(["."], config)

    original = _snapshot(work)
    before = lint_once()
    started = time.perf_counter()
    outcome = fix_run(lint_once, unsafe=True, write=True, namespace=config.namespace)
    seconds = time.perf_counter() - started
    after = outcome.report
    changed = [p for p, raw in original.items() if p.read_bytes() != raw]
    problems: list[str] = []
    new_load = {f.location.file for f in after.findings if f.code == "KQ001"} - \
        {f.location.file for f in before.findings if f.code == "KQ001"}
    problems += [f"{file}: no longer loads" for file in sorted(new_load)]
    problems += _kubectl_refusals(changed)
    before_keys, after_keys = Counter(map(_key, before.findings)), Counter(map(_key, after.findings))
    new = after_keys - before_keys
    problems += [f"new finding: {key}" for key in new]
    gone = Counter(key[0] for key in (before_keys - after_keys).elements())
    if gone != outcome.fixed:
        problems.append(f"findings gone per rule {dict(gone)} differ from fixes applied {dict(outcome.fixed)}")
    second = fix_run(lint_once, unsafe=True, write=True, namespace=config.namespace)
    if second.fixed or second.files:
        problems.append(f"a second run changed {sorted(second.files)}")
    lines = sum(1 for p in changed for line in difflib.unified_diff(
        original[p].decode("utf-8", "replace").splitlines(), p.read_text("utf-8", "replace").splitlines(), n=0)
        if line[:1] in "+-" and not line.startswith(("+++", "---")))
    print(f"files: {len(original)}, changed: {len(changed)}, changed lines (+/-): {lines}")
    print(f"fixes applied per rule: {dict(sorted(outcome.fixed.items()))} in {seconds:.2f} s (lint passes included)")
    print(f"findings before: {len(before.findings)}, after: {len(after.findings)}; notes: {outcome.notes[:5]}")
    for problem in problems:
        print("PROBLEM:", problem)
    print("OK" if not problems else f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
