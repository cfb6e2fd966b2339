"""Real upstream manifests (../shared/corpus): no crash, and every finding justified.

The corpus is a collection of independent samples from eleven upstream repositories, not
one cluster: samples that are alternatives to each other define the same objects. So each
file is linted on its own, the way pre-commit lints a changed file, with the rest of its
upstream repository as context (references across that repository's files resolve).
Files under `invalid/` and `helm-unrendered/` are expected to give KQ001/KQ006 or skips;
`crds/` are schema sources, linted like any other file.

Every finding must be listed in tests/corpus_expected.yaml with a one-line reason why it is
a true positive. Regenerate the skeleton of that file (reasons to be written by a human)
with: KQLINT_CORPUS_DUMP=/tmp/corpus.yaml pytest tests/test_corpus.py
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import ROOT, shared_dir
from helpers import chdir
from kqlint.config import Config
from kqlint.domain.objects import CONTEXT, INPUT
from kqlint.engine.analysis import analyze
from kqlint.engine.inputs import load_paths
from kqlint.engine.pipeline import prepare
from kqlint.loader import parse_bytes

EXPECTED = ROOT / "tests" / "corpus_expected.yaml"
# Sample folders upstream applies on their own, declared as units (README "What is applied
# together"): files in no unit are shared, applied together across folders. kueueviz's demo
# (its own WorkloadPriorityClasses) is never applied with site/static/examples' queues (KQ201);
# jobset's preemption classes never meet the multislice JobSet of tpu-multislice (KQ107).
# (Volcano's API artifacts, a Queue `default` capped at 2 CPUs beside a PodGroup and a Job, need no
# unit: KQ309 counts a manifest of Volcano's own `default` queue only in the job's folder or unit.)
UNITS = ("kubernetes-sigs__kueue/cmd/kueueviz/examples",
         "kubernetes-sigs__jobset/site/static/examples/tpu-multislice",
         "kubernetes-sigs__jobset/site/static/examples/workload-aware-scheduling/preemption")


def _repositories(corpus: Path) -> list[Path]:
    return sorted(p for p in corpus.iterdir() if p.is_dir())


def _lint_repository(repo: Path, corpus: Path, config: Config, rules: list) -> list[dict]:
    """Lint each file of ``repo`` alone, with the repository's other files as context."""
    with chdir(corpus):
        relative = repo.relative_to(corpus).as_posix()
        context, _ = load_paths([relative], config, CONTEXT)
        rows = []
        for source in context.sources:
            inputs, found = load_paths([source.path], config, INPUT)
            others = [o for o in context.objects if o.file != source.path]
            report = analyze(inputs, found, others, config, rules)
            assert not report.internal_errors, report.internal_errors
            rows += [{"file": f.location.file, "line": f.location.line, "column": f.location.column,
                      "code": f.code, "message": f.message} for f in report.findings]
        return rows


@pytest.fixture(scope="module")
def corpus_findings() -> list[dict]:
    corpus = shared_dir("corpus")
    config, rules = prepare(Config(units=UNITS))  # relative to the corpus (the current folder)
    rows: list[dict] = []
    for repo in _repositories(corpus):
        rows += _lint_repository(repo, corpus, config, rules)
    return sorted(rows, key=lambda r: (r["file"], r["line"], r["column"], r["code"]))


def _expected() -> dict[tuple[str, int, int, str], str]:
    source = parse_bytes(str(EXPECTED), EXPECTED.read_bytes())
    assert not source.problems, source.problems
    entries = source.documents[0]["findings"] if source.documents and source.documents[0] else []
    return {(e["file"], e["line"], e["column"], e["code"]): e["reason"] for e in entries or []}


def _dump(rows: list[dict], target: str) -> None:
    lines = ["findings:"]
    for r in rows:
        message = r["message"].replace('"', "'")
        lines += [f"- {{file: {r['file']}, line: {r['line']}, column: {r['column']}, code: {r['code']},",
                  f'   reason: "TODO {message}"}}']
    Path(target).write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_corpus_findings_are_all_justified(corpus_findings: list[dict]) -> None:
    if os.environ.get("KQLINT_CORPUS_DUMP"):
        _dump(corpus_findings, os.environ["KQLINT_CORPUS_DUMP"])
    expected = _expected()
    found = {(r["file"], r["line"], r["column"], r["code"]) for r in corpus_findings}
    unexplained = sorted(found - set(expected))
    stale = sorted(set(expected) - found)
    assert not unexplained, f"findings without a justification in {EXPECTED.name}: {unexplained[:20]}"
    assert not stale, f"entries in {EXPECTED.name} that no longer fire (remove them): {stale[:20]}"
    assert all(reason.strip() and not reason.startswith("TODO") for reason in expected.values())
