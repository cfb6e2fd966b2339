"""The guard of ``RuleMeta.reads``: a rule declared to read only some kinds finds the
same with the whole graph as with a graph of only its object and the objects of those kinds
(same platform model, unit, layout and declared objects), on every example and every rule
fixture case, each linted the way the fixture tests lint it (its own config, profile, units)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers import ReuseGuard, cache_folder, declared_reads, graph_like, lint_everything_guarded, pure_codes
from kqlint.cache.reads import read_kinds
from kqlint.config import Config
from kqlint.domain.graph import ObjectGraph, from_manifest
from kqlint.engine import runner

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "rules"
READS = declared_reads()


def _reduced(graph: ObjectGraph, kinds: frozenset[str], own: Any = None) -> ObjectGraph:
    """``graph`` with only ``own``, the objects of ``kinds`` and the declared objects, in order."""
    kept = [obj for obj in graph.objects if obj is own or obj.kind in kinds or not from_manifest(obj)]
    return graph_like(graph, kept, {key: found for key, found in graph.elsewhere.items() if key[0] in kinds})  # type: ignore[no-any-return]


class Guard(ReuseGuard):
    """Every declared rule judged twice per graph: whole, and reduced to what it declares."""

    def __init__(self) -> None:
        super().__init__(READS)

    def judge(self, rules: list[Any], graph: ObjectGraph, config: Config, states: Any) -> None:
        for rule in rules:
            if rule.code in READS:
                self._compare(rule, graph, config, states)

    def _compare(self, rule: Any, graph: ObjectGraph, config: Config, states: Any) -> None:
        kinds = read_kinds(rule.meta)
        if rule.meta.scope == "graph":
            self.same(rule.code, "the graph", *(list(rule.check_graph(g, runner.rule_context(rule, g, config, states)))
                                                for g in (graph, _reduced(graph, kinds))))
            return
        for obj in graph.inputs:
            if self.visits(rule, obj):
                self.same(rule.code, f"{obj.file}: {obj.display()}",
                          *(list(rule.check(obj, runner.rule_context(rule, g, config, states)))
                            for g in (graph, _reduced(graph, kinds, obj))))


def test_declared_reads_are_all_a_rule_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    guard = Guard()
    lint_everything_guarded(guard, monkeypatch)
    assert not guard.mismatches, guard.mismatches[:3]
    assert all(count > 0 for count in guard.compared.values()), guard.compared  # every rule found something


def test_every_declared_rule_has_a_scope_and_a_reason() -> None:
    for code, meta in READS.items():
        assert meta.scope in ("object", "graph") and code not in pure_codes() and meta.reads
        source = (ROOT / "rules").rglob(f"{code.lower()}_*.py")
        assert "# findings cache: reads " in next(source).read_text(encoding="utf-8")  # why, beside META


# ------------------------------------------------------------------ warm runs end to end

FORMATS = ("text", "json")
CLUSTER_QUEUES = "platform/kueue/cluster-queues.yaml"
NLP_QUEUES = "tenants/nlp/queues/local-queues.yaml"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The examples as a project (``.git`` marks its root), the cache at its root, forking
    even for a few objects."""
    import shutil

    from kqlint.engine import parallel

    project = tmp_path / "project"
    shutil.copytree(ROOT / "examples", project)
    (project / ".git").mkdir()
    monkeypatch.delenv("KQLINT_CACHE_DIR", raising=False)
    monkeypatch.setattr(parallel, "MIN_ITEMS_PER_JOB", 1)
    monkeypatch.chdir(project)
    return project


def _outputs(capsys: pytest.CaptureFixture[str], *args: str) -> list[tuple[int, str, str]]:
    from kqlint.cli import main

    found = []
    for name in FORMATS:
        status = main(["check", ".", *args, "--format", name])
        captured = capsys.readouterr()
        found.append((status, captured.out, captured.err))
    return found


def _assert_warm_as_uncached(capsys: pytest.CaptureFixture[str], jobs: str, *args: str) -> None:
    """Stored reports removed, so the rules' stored findings are what is reused."""
    expected = _outputs(capsys, "--jobs", jobs, "--no-cache", *args)
    for report in cache_folder(Path.cwd()).glob("*/report-*"):
        report.unlink()
    assert _outputs(capsys, "--jobs", jobs, *args) == expected


def _edit(path: str, old: str, new: str) -> None:
    text = Path(path).read_text()
    assert old in text, (path, old)
    Path(path).write_text(text.replace(old, new, 1))


def _checked(monkeypatch: pytest.MonkeyPatch, code: str) -> list[str]:
    """The files ``code``'s check() meets from now on, in this process (run with --jobs 1)."""
    from kqlint.engine.registry import builtin_rules

    module = next(rule.module for rule in builtin_rules() if rule.code == code)
    calls: list[str] = []
    real = module.check
    monkeypatch.setattr(module, "check", lambda obj, ctx: calls.append(obj.file) or real(obj, ctx))
    return calls


# Rules not yet declared to the findings-reuse tier run again on every object of their kinds
# (and decode it): the gang schedulers' queue rules. The guard measures the rules it knows.
NOT_REUSED = ("--ignore", "KQ310,KQ311")


def test_a_comment_appended_checks_nothing_again(repo: Path, capsys: pytest.CaptureFixture[str],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    _assert_warm_as_uncached(capsys, "1", *NOT_REUSED)
    for path in ("tenants/nlp/training/llama-pretrain.yaml", CLUSTER_QUEUES, NLP_QUEUES):
        Path(path).write_text(Path(path).read_text() + "# edited\n")
    expected = _outputs(capsys, "--no-cache", *NOT_REUSED)
    for report in cache_folder(Path.cwd()).glob("*/report-*"):
        report.unlink()
    quota = _checked(monkeypatch, "KQ210")
    from kqlint.cache import entries as cache_entry

    decoded: list[str] = []
    real_fill = cache_entry._Body.fill
    monkeypatch.setattr(cache_entry._Body, "fill", lambda body: decoded.append(body.path) or real_fill(body))
    assert _outputs(capsys, "--jobs", "1", *NOT_REUSED) == expected
    assert quota == []  # every object and every ClusterQueue/LocalQueue read as before
    files = len(list(Path(".").rglob("*.yaml")))
    assert len(set(decoded)) < files / 2  # inputs whose objects no rule ran on again stay encoded


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_queue_and_class_edits_change_other_files_findings(repo: Path, capsys: pytest.CaptureFixture[str],
                                                           jobs: str) -> None:
    _assert_warm_as_uncached(capsys, jobs)
    before = _outputs(capsys, "--jobs", jobs, "--no-cache")
    _edit(CLUSTER_QUEUES, "nominalQuota: 64", "nominalQuota: 1")  # nlp's GPUs: KQ210 on nlp's jobs
    _assert_warm_as_uncached(capsys, jobs)
    assert _outputs(capsys, "--jobs", jobs, "--no-cache") != before
    _edit(CLUSTER_QUEUES, '"nvidia.com/gpu", ', "")  # nlp covers no GPUs: KQ209
    _assert_warm_as_uncached(capsys, jobs)
    _edit(NLP_QUEUES, "clusterQueue: nlp", "clusterQueue: vision")
    _assert_warm_as_uncached(capsys, jobs)
    _edit("platform/priority/priority-classes.yaml", "preemptionPolicy: Never",
          "preemptionPolicy: PreemptLowerPriority")
    _assert_warm_as_uncached(capsys, jobs)
    _edit(CLUSTER_QUEUES, "name: nlp", "name: nlp-renamed")
    _assert_warm_as_uncached(capsys, jobs)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_added_removed_renamed_files_and_config(repo: Path, capsys: pytest.CaptureFixture[str], jobs: str) -> None:
    import os

    _assert_warm_as_uncached(capsys, jobs)
    os.rename(NLP_QUEUES, "tenants/nlp/queues-moved.yaml")  # referenced LocalQueues in another folder
    _assert_warm_as_uncached(capsys, jobs)
    os.unlink("tenants/nlp/queues-moved.yaml")  # gone: the nlp workloads route nowhere
    _assert_warm_as_uncached(capsys, jobs)
    Path("tenants/nlp/default-queue.yaml").write_text(  # LocalQueueDefaulting for unlabelled workloads
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata:\n  name: default\n  namespace: nlp\n"
        "spec:\n  clusterQueue: vision\n")
    _assert_warm_as_uncached(capsys, jobs)
    os.rename(CLUSTER_QUEUES, "platform/cluster-queues.yaml")
    _assert_warm_as_uncached(capsys, jobs)
    Path(".kqlint.yaml").write_text("rules:\n  KQ209:\n    exclude-resource-prefixes: [nvidia.com/]\n")
    _assert_warm_as_uncached(capsys, jobs)
    Path(".kqlint.yaml").write_text("namespace: nlp\nplatform:\n  kueue:\n    version: '0.9'\n")
    _assert_warm_as_uncached(capsys, jobs)


# a Job of two pods of {gpus} GPUs each in LocalQueue {queue}, and that queue (to {cluster_queue})
_JOB_AND_QUEUE = """apiVersion: batch/v1
kind: Job
metadata:
  name: {name}
  namespace: {namespace}
  labels:
    kueue.x-k8s.io/queue-name: {queue}
spec:
  parallelism: 2
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: trainer:1
        resources:
          limits:
            nvidia.com/gpu: {gpus}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  name: {queue}
  namespace: {namespace}
spec:
  clusterQueue: {cluster_queue}
"""


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_units_edited_apart(repo: Path, capsys: pytest.CaptureFixture[str], jobs: str) -> None:
    """Kustomize units (one graph each): an edit in one unit, a file moved between units."""
    for unit, cluster_queue in (("a", "nlp"), ("b", "vision")):
        folder = repo / "units" / unit
        folder.mkdir(parents=True)
        (folder / "kustomization.yaml").write_text("resources: [train.yaml]\n")
        (folder / "train.yaml").write_text(_JOB_AND_QUEUE.format(name="train", namespace="nlp", queue="unit-queue",
                                                                 gpus=80, cluster_queue=cluster_queue))
    _assert_warm_as_uncached(capsys, jobs)
    _edit("units/a/train.yaml", "clusterQueue: nlp", "clusterQueue: research")
    _assert_warm_as_uncached(capsys, jobs)
    _edit("units/b/train.yaml", "queue-name: unit-queue", "queue-name: missing")
    _assert_warm_as_uncached(capsys, jobs)
    (repo / "units" / "b" / "kustomization.yaml").unlink()  # unit b's files are shared now
    _assert_warm_as_uncached(capsys, jobs)


_SOLO = """apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: solo
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors:
    - name: h100-ib
      resources:
      - name: nvidia.com/gpu
        nominalQuota: 8
---
""" + _JOB_AND_QUEUE.format(name="solo-train", namespace="solo", queue="solo", gpus=8, cluster_queue="solo")


def _graph_checked(monkeypatch: pytest.MonkeyPatch, *codes: str) -> list[str]:
    """The graph rules among ``codes`` run from now on."""
    from kqlint.engine.registry import builtin_rules

    calls: list[str] = []
    for rule in builtin_rules():
        if rule.code in codes:
            real = rule.module.check_graph
            monkeypatch.setattr(rule.module, "check_graph",
                                lambda graph, ctx, real=real, code=rule.code: calls.append(code) or real(graph, ctx))
    return calls


def test_edits_of_masked_values_rerun_only_what_reads_them(repo: Path, capsys: pytest.CaptureFixture[str],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """A new image, a quota (kqlint.cache.masks): no graph rule runs again, and KQ210 only on the
    edited files and the workloads whose namespace routes to the edited queue's cohort."""
    Path("tenants/solo.yaml").write_text(_SOLO)
    _assert_warm_as_uncached(capsys, "1")
    _edit("tenants/nlp/training/llama-pretrain.yaml", "llama-train:2025.06", "llama-train:2025.07")
    _edit(CLUSTER_QUEUES, "nominalQuota: 64", "nominalQuota: 65")
    expected = _outputs(capsys, "--no-cache")
    for report in cache_folder(Path.cwd()).glob("*/report-*"):
        report.unlink()
    graph = _graph_checked(monkeypatch, "KQ105", "KQ106", "KQ107", "KQ301", "KQ211")
    quota = _checked(monkeypatch, "KQ210")
    assert _outputs(capsys, "--jobs", "1") == expected
    assert graph == []
    assert "tenants/nlp/training/llama-pretrain.yaml" in quota and "tenants/solo.yaml" not in quota
    assert _quota_findings(expected) == ["tenants/solo.yaml"]  # 16 GPUs > the 8 of ClusterQueue solo
    _edit("tenants/solo.yaml", "nominalQuota: 8", "nominalQuota: 16")  # longer: its end moves
    expected = _outputs(capsys, "--no-cache")
    for report in cache_folder(Path.cwd()).glob("*/report-*"):
        report.unlink()
    quota.clear()
    graph.clear()
    assert _outputs(capsys, "--jobs", "1") == expected
    assert _quota_findings(expected) == []
    assert set(quota) == {"tenants/solo.yaml"} and graph == []


def _quota_findings(outputs: list[tuple[int, str, str]]) -> list[str]:
    """The files of the KQ210 findings in the JSON report (FORMATS: text, json)."""
    import json

    return [f["file"] for f in json.loads(outputs[1][1])["findings"] if f["code"] == "KQ210"]
