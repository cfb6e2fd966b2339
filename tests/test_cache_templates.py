"""What a cache entry keeps with each object besides its identity, so that the graph rules
read a cached object without decoding its body: its pod templates
(kqlint.domain.workloads.template_facts), a Kubeflow job's runPolicy and a PodGroup's minMember
(IDENTITY_SPEC). Every answer equals what the decoded object gives (template fields, pod
counts, priorityClassName, pod metadata; gang sizes and the class under runPolicy, a Job's
annotations), on every example, rule fixture and corpus manifest."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import shared_dir
from kqlint.cache.entries import decode_entry, encode_entry
from kqlint.domain.graph import ObjectGraph
from kqlint.domain.kueue.priority import RUN_POLICY_CLASS
from kqlint.domain.objects import INPUT, objects_from_file
from kqlint.domain.workloads import batch_min_member_sites, pod_templates
from kqlint.domain.workloads.gang import KUBEFLOW_MIN_AVAILABLE_PATH
from kqlint.loader import parse_bytes

ROOT = Path(__file__).resolve().parent.parent


def _manifests(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.suffix in (".yaml", ".yml", ".json") and p.is_file())


def _seen(template: Any) -> tuple[Any, ...]:
    return (template.role, template.path, template.spec_path, template.meta_path, template.pods,
            template.generated, template.via is None, template.trainer_step, template.priority_class_name,
            dict(template.metadata), template.labels, template.annotations)


def mismatches(path: Path) -> tuple[list[str], int]:
    """(what differs between the cached objects' templates and the decoded ones', how many
    cached objects answered without decoding)."""
    raw = path.read_bytes()
    source = parse_bytes(str(path), raw)
    entry = decode_entry(encode_entry(source, raw))
    cached = entry.lazy_source(str(path), str(path))
    lazy = cached.objects("default", INPUT)[0]
    plain = objects_from_file(source, "default", INPUT)[0]
    graph, cached_graph = ObjectGraph(list(plain)), ObjectGraph(list(lazy))
    wrong, unread = [], 0
    for cached_obj, obj in zip(lazy, plain, strict=True):
        kept = [_seen(t) for t in pod_templates(cached_obj, cached_graph)]
        if cached_obj._body is not None:  # type: ignore[attr-defined]
            unread += bool(kept)
        kept_policy = [cached_obj.get(*KUBEFLOW_MIN_AVAILABLE_PATH), cached_obj.get(*RUN_POLICY_CLASS),
                       cached_obj.get("spec", "minMember")]
        if obj.kind == "Job":
            kept_policy.append(batch_min_member_sites(cached_obj))
        if kept != [_seen(t) for t in pod_templates(obj, graph)]:
            wrong.append(f"{path}: {obj.display()}")
        policy = [obj.get(*KUBEFLOW_MIN_AVAILABLE_PATH), obj.get(*RUN_POLICY_CLASS), obj.get("spec", "minMember")]
        if kept_policy != policy + ([batch_min_member_sites(obj)] if obj.kind == "Job" else []):
            wrong.append(f"{path}: {obj.display()} (runPolicy, batch-min-member)")
    return wrong, unread


def _check(files: list[Path]) -> int:
    wrong, unread = [], 0
    for path in files:
        found, answered = mismatches(path)
        wrong += found
        unread += answered
    assert not wrong, wrong[:5]
    return unread


def test_cached_templates_equal_the_decoded_ones_on_examples_and_fixtures() -> None:
    files = _manifests(ROOT / "examples") + _manifests(ROOT / "tests" / "fixtures")
    assert len(files) > 300
    assert _check(files) > 100  # workloads answered from the entry alone


def test_cached_templates_equal_the_decoded_ones_on_the_corpus() -> None:
    assert _check(_manifests(shared_dir("corpus"))) > 100


def test_a_cached_job_is_routed_and_ranked_without_decoding() -> None:
    """Kueue's routing and ranking read a cached workload's labels and templates' classes from
    the entry: its body stays undecoded until a finding needs a position."""
    from kqlint.domain.kueue import managed_workloads, pod_profile, workload_priority

    raw = b"""\
apiVersion: batch/v1
kind: Job
metadata:
  name: train
  namespace: ml
  labels: {kueue.x-k8s.io/queue-name: q, kueue.x-k8s.io/priority-class: high}
spec:
  parallelism: 4
  template:
    metadata:
      labels: {scheduling.x-k8s.io/pod-group: g}
    spec:
      priorityClassName: pods-low
      containers: [{name: main, image: trainer:1}]
"""
    source = parse_bytes("a.yaml", raw)
    entry = decode_entry(encode_entry(source, raw))
    cached = entry.lazy_source("a.yaml", "a.yaml")
    job = cached.objects("default", INPUT)[0][0]
    classes = b"apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: pods-low}\nvalue: 10\n"
    graph = ObjectGraph([job, *objects_from_file(parse_bytes("b.yaml", classes), "default", INPUT)[0]])
    unit, = managed_workloads(job, graph)
    assert unit.queue == "q" and unit.priority_label() == "high"
    template, = unit.templates
    assert (template.pods, template.priority_class_name, template.labels) == (4, "pods-low", {
        "scheduling.x-k8s.io/pod-group": "g"})
    assert workload_priority(unit, graph).class_name == "high" and pod_profile(unit, graph) is not None
    assert batch_min_member_sites(job) == []
    assert job._body is not None  # type: ignore[attr-defined]  # never decoded
    assert template.at("priorityClassName").line == 13  # a position: decoded now
    assert job._body is None  # type: ignore[attr-defined]


@pytest.mark.parametrize("kind", ["TrainJob", "AppWrapper"])
def test_templates_from_elsewhere_are_not_kept(kind: str) -> None:
    """A TrainJob's templates are its runtime's, an AppWrapper's may be inferred: read from the graph."""
    from kqlint.domain.workloads import template_facts

    group = "trainer.kubeflow.org/v1alpha1" if kind == "TrainJob" else "workload.codeflare.dev/v1beta2"
    raw = f"apiVersion: {group}\nkind: {kind}\nmetadata: {{name: a}}\nspec: {{}}\n".encode()
    obj = objects_from_file(parse_bytes("a.yaml", raw), "default", INPUT)[0][0]
    assert template_facts(obj, []) is None
