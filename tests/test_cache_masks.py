"""The guard of kqlint.cache.masks: no rule whose findings the cache reuses (``RuleMeta.reads``)
reads the masked values of another object (plain label values, container images, ClusterQueue
quotas), except KQ210, which reads the quotas of the ClusterQueues kqlint.domain.kueue.quota.quota_scope
names. On every example and rule fixture case, each such rule finds the same (same findings,
positions, messages, fixes) with every other object's masked values changed, twice over."""
from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from helpers import ReuseGuard, declared_reads, graph_like, lint_case, lint_everything_guarded
from kqlint.cache.masks import mask_paths
from kqlint.config import Config
from kqlint.domain.graph import ObjectGraph, from_manifest
from kqlint.domain.kueue.quota import QUOTA_FIELDS
from kqlint.domain.objects import dig
from kqlint.engine import analysis, runner
from kqlint.loader import parse_bytes

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "rules"
# what masked values become: each label, image and quota, two ways
PERTURBATIONS = ({"labels": "kqlint-perturbed", "image": "example.invalid/perturbed:1", "quota": 0},
                 {"labels": "", "image": "", "quota": "100000"})


def _value(path: tuple[Any, ...], perturbation: dict[str, Any]) -> Any:
    if path[-1] in QUOTA_FIELDS:
        return perturbation["quota"]
    return perturbation["image"] if path[-1] == "image" else perturbation["labels"]


def perturbed(graph: ObjectGraph, perturbation: dict[str, Any], keep: Any = None,
              keep_quotas: frozenset[int] = frozenset()) -> ObjectGraph:
    """``graph`` with the masked values of every manifest object but ``keep`` changed (the
    quotas of the ClusterQueues whose ids are in ``keep_quotas`` left as they are)."""
    roots: dict[tuple[str, int], Any] = {}
    objects = []
    for obj in graph.objects:
        if obj is keep or not from_manifest(obj) or obj.root is None:
            objects.append(obj)
            continue
        root = roots.setdefault((obj.file, obj.doc), copy.deepcopy(obj.root))
        for path in mask_paths(obj):
            if not (id(obj) in keep_quotas and path[-1] in QUOTA_FIELDS):
                dig(root, path[:-1])[path[-1]] = _value(path, perturbation)
        changed = copy.copy(obj)
        changed.root, changed.data = root, dig(root, obj.base)
        objects.append(changed)
    return graph_like(graph, objects)  # type: ignore[no-any-return]


READS = declared_reads()


class Guard(ReuseGuard):
    """Every reused rule judged with and without perturbed values; ``scoped``: the scoped reads
    the guard believes (default: what the rules declare)."""

    def __init__(self, scoped: dict[str, Any] | None = None) -> None:
        super().__init__(READS)
        self.scoped = scoped if scoped is not None else {code: meta.scoped_reads for code, meta in READS.items()
                                                         if meta.scoped_reads is not None}

    def judge(self, rules: list[Any], graph: ObjectGraph, config: Config, states: Any) -> None:
        reused = [rule for rule in rules if rule.code in READS]
        for perturbation in PERTURBATIONS:
            self._graph_rules([r for r in reused if r.meta.scope == "graph"], graph, config, states, perturbation)
            self._object_rules([r for r in reused if r.meta.scope != "graph"], graph, config, states, perturbation)

    def _graph_rules(self, rules: list[Any], graph: ObjectGraph, config: Config, states: Any,
                     perturbation: dict[str, Any]) -> None:
        changed = perturbed(graph, perturbation) if rules else graph
        for rule in rules:
            self.same(rule.code, "the graph", *(list(rule.check_graph(g, runner.rule_context(rule, g, config, states)))
                                                for g in (graph, changed)))

    def _object_rules(self, rules: list[Any], graph: ObjectGraph, config: Config, states: Any,
                      perturbation: dict[str, Any]) -> None:
        for obj in graph.inputs:
            applying = [rule for rule in rules if self.visits(rule, obj)]
            changed = perturbed(graph, perturbation, keep=obj) if applying else graph
            for rule in applying:
                other = changed
                if rule.code in self.scoped:
                    scoped_kind, scope = self.scoped[rule.code]
                    by_kind = {name: [o for o in graph.objects if o.kind == name]
                               for name in ("LocalQueue", scoped_kind)}
                    other = perturbed(graph, perturbation, keep=obj,
                                      keep_quotas=frozenset(id(o) for o in scope(obj, by_kind)))
                self.same(rule.code, f"{obj.file}: {obj.display()}",
                          *(list(rule.check(obj, runner.rule_context(rule, g, config, states)))
                            for g in (graph, other)))


def test_no_reused_rule_reads_masked_values_of_other_objects(monkeypatch: pytest.MonkeyPatch) -> None:
    guard = Guard()
    lint_everything_guarded(guard, monkeypatch)
    assert not guard.mismatches, guard.mismatches[:3]
    assert all(count > 0 for count in guard.compared.values()), guard.compared


def test_the_guard_sees_a_rule_that_reads_quotas(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without its scoped reads, KQ210 would read masked quotas: the guard must see that."""
    guard = Guard(scoped={"KQ210": ("ClusterQueue", lambda obj, by_kind: [])})
    monkeypatch.setattr(analysis, "run_rules", guard.run_rules)
    for case in sorted((FIXTURES / "KQ210").iterdir()):
        if case.name.startswith("bad"):
            lint_case(case, None)
    assert any(code == "KQ210" for code, *_ in guard.mismatches)


def test_the_guard_sees_a_rule_that_reads_a_masked_label(monkeypatch: pytest.MonkeyPatch) -> None:
    """Kueue's queue-name masked (it must not be): the rules routing workloads read it."""
    from kqlint.cache import masks as cache_masks

    monkeypatch.setattr(cache_masks, "MASKED_LABEL_PREFIXES", (*cache_masks.MASKED_LABEL_PREFIXES, "kueue.x-k8s.io/"))
    guard = Guard()
    monkeypatch.setattr(analysis, "run_rules", guard.run_rules)
    lint_case(FIXTURES / "KQ105" / "bad-three-workloads", None)
    assert any(code == "KQ105" for code, *_ in guard.mismatches)


# ------------------------------------------------------------------ the entry's documents

DOCUMENT = b"""\
apiVersion: batch/v1
kind: Job
metadata:
  name: train
  labels: {app: train, app.kubernetes.io/version: "1.4", kueue.x-k8s.io/queue-name: q}
spec:
  template:
    metadata:
      labels:
        app: train
        scheduling.x-k8s.io/pod-group: g
    spec:
      containers:
        - name: main
          image: trainer:1
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: gpu
spec:
  resourceGroups:
    - coveredResources: [nvidia.com/gpu]
      flavors:
        - name: a100
          resources:
            - name: nvidia.com/gpu
              nominalQuota: 8
              borrowingLimit: 4
"""


def test_masked_values_are_the_plain_labels_images_and_quotas() -> None:
    from kqlint.domain.objects import INPUT, objects_from_file

    objects = objects_from_file(parse_bytes("a.yaml", DOCUMENT), "default", INPUT)[0]
    assert [mask_paths(obj) for obj in objects] == [
        [("metadata", "labels", "app"), ("metadata", "labels", "app.kubernetes.io/version"),
         ("spec", "template", "metadata", "labels", "app"), ("spec", "template", "spec", "containers", 0, "image")],
        [("spec", "resourceGroups", 0, "flavors", 0, "resources", 0, "nominalQuota"),
         ("spec", "resourceGroups", 0, "flavors", 0, "resources", 0, "borrowingLimit")]]


def test_entry_digests_see_every_change_projections_only_unmasked_ones() -> None:
    from kqlint.cache.entries import decode_entry, encode

    def digests(text: bytes) -> tuple[tuple[str, ...], tuple[str, ...]]:
        _, _, full, projections = encode(parse_bytes("a.yaml", text), text)
        return full, projections

    full, projections = digests(DOCUMENT)
    for old, new in ((b"image: trainer:1", b"image: trainer:2"), (b"nominalQuota: 8", b"nominalQuota: 9"),
                     (b"app: train\n", b"app: other\n"),
                     (b"image: trainer:1", b"image: trainer:10"),  # a longer value: nothing moves on its line
                     (b"nominalQuota: 8", b"nominalQuota: '8'  # quoted, with a comment")):
        changed = digests(DOCUMENT.replace(old, new, 1))
        assert changed[0][0] != full[0] or changed[0][1] != full[1], old
        assert changed[1] == projections, old
    for old, new in ((b"pod-group: g", b"pod-group: h"), (b"queue-name: q", b"queue-name: r"),
                     (b'version: "1.4"', b'version: "1.5"'),  # in a flow mapping: never blanked
                     (b"labels: {app: train,", b"labels: {app: training,"),  # the keys after it move
                     (b"image: trainer:1", b"image: trainer:1 # a comment\n          imagePullPolicy: Always"),
                     (b"nominalQuota: 8", b"nominalQuota: 0x9")):  # written otherwise: never blanked
        changed = digests(DOCUMENT.replace(old, new, 1))
        assert changed[0] != full and changed[1] != projections, old
    crlf = DOCUMENT.replace(b"\n", b"\r\n")
    assert digests(crlf.replace(b"image: trainer:1", b"image: trainer:22"))[1] == digests(crlf)[1]
    entry = decode_entry(encode(parse_bytes("a.yaml", DOCUMENT), DOCUMENT)[0])
    assert entry.documents() == parse_bytes("a.yaml", DOCUMENT).documents
