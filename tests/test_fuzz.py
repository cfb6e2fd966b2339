"""Property/fuzz suite: mutated real manifests through the whole pipeline.

Seeds: the upstream corpus (when ../shared is present), the project's examples and rule
fixtures. Mutations: truncation, byte flips, deleted/duplicated lines, random indentation,
random scalars in every field. Properties: no internal error (no traceback), every finding
has a position inside its file. The long run (20,000 cases, seeded) is marked slow;
set KQLINT_FUZZ_EXAMPLES to change it. Every case lints with the rules ``lint`` would load for
``Config()``, loaded once (loading them is two thirds of a case's cost, and not what is fuzzed).
"""
from __future__ import annotations

import functools
import os
import random
import re
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kqlint.config import Config
from kqlint.engine.pipeline import lint
from kqlint.engine.registry import RuleSet, load_rules

ROOT = Path(__file__).resolve().parent.parent
SHARED_CORPUS = ROOT.parent / "shared" / "corpus"


def _seed_files() -> list[Path]:
    seeds = sorted((ROOT / "examples").rglob("*.y*ml")) + sorted((ROOT / "tests" / "fixtures").rglob("*.y*ml"))
    if SHARED_CORPUS.is_dir():
        corpus = sorted(p for p in SHARED_CORPUS.rglob("*") if p.suffix in (".yaml", ".yml", ".json")
                        and p.stat().st_size < 60_000 and "crds" not in p.parts)
        seeds += corpus
    return [p for p in seeds if p.is_file()]


SEEDS = _seed_files()
SCALARS = ["0", "-1", "2147483648", "yes", "on", "Never", "never", "", "~", "null", "[]", "{}", "1.5",
           "nvidia.com/gpu", "'{{ x }}'", "&a x", "*a", "!!python/object:os.system", "\"\\x00\"", "0755"]


def _mutate(data: bytes, ops: list[tuple[int, int, int]]) -> bytes:
    lines = data.split(b"\n")
    for op, a, b in ops:
        if not lines:
            break
        i = a % len(lines)
        if op == 0:  # truncate the file
            return b"\n".join(lines)[: b % (len(data) + 1)]
        if op == 1 and lines[i]:  # flip a byte
            line = bytearray(lines[i])
            line[b % len(line)] ^= 1 << (b % 8)
            lines[i] = bytes(line)
        elif op == 2:
            del lines[i]
        elif op == 3:
            lines.insert(i, lines[i])
        elif op == 4:
            lines[i] = b" " * (b % 7) + lines[i].lstrip()
        elif op == 5 and b":" in lines[i]:  # replace a value with a random scalar
            key = lines[i].split(b":", 1)[0]
            lines[i] = key + b": " + SCALARS[b % len(SCALARS)].encode()
    return b"\n".join(lines)


# YAML line breaks (what the parser counts): CRLF, CR, LF, NEL, LS, PS.
LINE_BREAKS = re.compile(rb"\r\n|\r|\n|\xc2\x85|\xe2\x80\xa8|\xe2\x80\xa9")


def _check_positions(report, files: dict[str, bytes]) -> None:
    for finding in list(report.findings) + [r for f in report.findings for r in f.related]:
        loc = finding.location if hasattr(finding, "location") else finding
        assert loc.line >= 1 and loc.column >= 1
        if loc.file in files:
            lines = LINE_BREAKS.split(files[loc.file])
            assert loc.line <= len(lines) + 1, (loc, len(lines))


@functools.cache
def _default_rules() -> RuleSet:
    """What ``lint([...], Config())`` loads on every call."""
    return load_rules(Config())


def _run_case(tmp: Path, data: bytes, name: str) -> None:
    target = tmp / name
    target.write_bytes(data)
    cwd = os.getcwd()
    os.chdir(tmp)
    try:
        report = lint([name], Config(), auto_context=False, rules=_default_rules())
    finally:
        os.chdir(cwd)
    assert not report.internal_errors, report.internal_errors
    _check_positions(report, {name: data})


MUTATION = st.lists(st.tuples(st.integers(0, 5), st.integers(0, 10_000), st.integers(0, 10_000)),
                    min_size=1, max_size=6)


def _fuzz(tmp_path_factory: pytest.TempPathFactory, seed_index: int, ops: list[tuple[int, int, int]]) -> None:
    if not SEEDS:
        pytest.skip("no seed manifests found")
    seed = SEEDS[seed_index % len(SEEDS)]
    data = _mutate(seed.read_bytes(), ops)
    _run_case(tmp_path_factory.mktemp("fuzz"), data, "case" + (seed.suffix or ".yaml"))


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed_index=st.integers(0, 100_000), ops=MUTATION)
def test_fuzz_quick(tmp_path_factory: pytest.TempPathFactory, seed_index: int, ops: list[tuple[int, int, int]]) -> None:
    _fuzz(tmp_path_factory, seed_index, ops)


def _random_case(rng: random.Random) -> tuple[int, list[tuple[int, int, int]]]:
    """A seed and mutations drawn as MUTATION draws them (uniformly: hypothesis also favours edges)."""
    ops = [(rng.randint(0, 5), rng.randint(0, 10_000), rng.randint(0, 10_000)) for _ in range(rng.randint(1, 6))]
    return rng.randint(0, 100_000), ops


@pytest.mark.slow
def test_fuzz_long(tmp_path: Path) -> None:
    """The long run: a seeded loop rather than hypothesis, whose bookkeeping per example costs
    more than the lint it drives; a failure names the case, which test_fuzz_quick's
    ``_fuzz`` replays."""
    if not SEEDS:
        pytest.skip("no seed manifests found")
    rng = random.Random(20_000)
    for number in range(int(os.environ.get("KQLINT_FUZZ_EXAMPLES", "20000"))):
        seed_index, ops = _random_case(rng)
        seed = SEEDS[seed_index % len(SEEDS)]
        try:
            _run_case(tmp_path, _mutate(seed.read_bytes(), ops), "case" + (seed.suffix or ".yaml"))
        except Exception as exc:
            raise AssertionError(f"case {number}: seed {seed} (seed_index={seed_index}), ops={ops}") from exc


def test_random_bytes_never_crash(tmp_path: Path) -> None:
    rng = random.Random(7)
    for index in range(200):
        data = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 400)))
        _run_case(tmp_path, data, f"noise{index}.yaml")


def _jobset_with_a_list_as_job_name() -> bytes:
    pod = {"restartPolicy": "Never", "containers": [{"name": "leader", "image": "busybox"}]}
    return yaml.safe_dump({
        "apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "failure-policy"},
        "spec": {"failurePolicy": {"maxRestarts": 3, "rules": [{"action": "RestartJobSetAndIgnoreMaxRestarts",
                                                                "targetReplicatedJobs": ["leader"]}]},
                 "replicatedJobs": [{"name": [], "replicas": 1,
                                     "template": {"spec": {"template": {"spec": pod}}}}]}}).encode()


def test_a_replicated_job_named_by_a_list_is_no_internal_error(tmp_path: Path) -> None:
    """Found by test_fuzz_long: KQ004's JobSet failure-policy check hashed every replicatedJob's
    name, and a list is not hashable."""
    _run_case(tmp_path, _jobset_with_a_list_as_job_name(), "case.yaml")


def test_a_covered_resource_written_as_a_mapping_is_no_internal_error(tmp_path: Path) -> None:
    """Found by test_fuzz_long (case 19967 on the corpus of 2026-12-05): KQ217's and KQ218's
    group lookup put `coveredResources` items in a set, and a mapping is not hashable."""
    queue = ("apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: cq}\n"
             "spec:\n  namespaceSelector: {}\n  resourceGroups:\n  - coveredResources: [{cpu: 1}, cpu]\n"
             "    flavors:\n    - name: default\n      resources: [{name: cpu, nominalQuota: 8}]\n---\n"
             "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: default}\n"
             "spec: {nodeLabels: {pool: a}}\n---\n"
             "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: lq, namespace: ns}\n"
             "spec: {clusterQueue: cq}\n---\n"
             "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\n  namespace: ns\n"
             "  labels: {kueue.x-k8s.io/queue-name: lq}\nspec:\n  template:\n    spec:\n"
             "      restartPolicy: Never\n      nodeSelector: {pool: b}\n"
             "      containers: [{name: c, image: busybox, resources: {requests: {cpu: 1}}}]\n")
    _run_case(tmp_path, queue.encode(), "case.yaml")
