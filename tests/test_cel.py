"""KQ002's CEL pass (kqlint.schema.cel): the x-kubernetes-validations rules of CRD schemas,
evaluated on create after the schema's defaults, as the API server does."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from kqlint.schema import catalog, cel, cel_runtime
from kqlint.schema.catalog import _shipped_index
from kqlint.schema.cel import CelSchema
from kqlint.schema.crd import to_schema

FIXTURES = Path(__file__).parent / "fixtures" / "rules" / "KQ002"


def _schema(spec: dict[str, Any], source: str = "a test CRD") -> CelSchema:
    document = to_schema({"type": "object", "properties": {"spec": spec}})
    return CelSchema(document, lambda node: node if isinstance(node, dict) else {}, source)


def _object(spec: Any, name: str | None = "x") -> dict[str, Any]:
    metadata = {"name": name} if name else {"generateName": "x-"}
    return {"apiVersion": "example.com/v1", "kind": "Trainer", "metadata": metadata, "spec": spec}


def test_every_create_time_rule_of_the_bundled_crds_compiles() -> None:
    schemas = catalog(())
    expressions = {rule.rule for api_version, kind in _shipped_index()
                   if (found := schemas.cel(api_version, kind)) is not None for rule in found.rules}
    assert expressions, "the bundled Kueue, JobSet, Trainer, KServe and Dynamo CRDs carry CEL rules"
    assert not any("oldSelf" in text for text in expressions)
    failed = {text: compiled for text in expressions if isinstance(compiled := cel_runtime.program(text), str)}
    assert failed == {}


def test_a_default_counts_as_set_and_an_explicit_null_as_absent() -> None:
    rules = _schema({"type": "object", "properties": {
        "mode": {"type": "string", "default": "Never"},
        "policy": {"type": "string"}},
        "x-kubernetes-validations": [{"rule": "!(self.mode == 'Never' && has(self.policy))", "message": "m"}]})
    assert [v.message for v in rules.violations(_object({"policy": "Any"}))] == ["m"]
    assert [v.message for v in rules.violations(_object({"mode": None, "policy": "Any"}))] == ["m"]
    assert rules.violations(_object({"mode": "Any", "policy": "Any"})) == []


def test_an_evaluation_error_is_a_rejection_worded_as_the_api_server_words_it() -> None:
    rules = _schema({"type": "object", "properties": {"topologyName": {"type": "string"},
                                                      "nodeLabels": {"type": "object"}},
                     "x-kubernetes-validations": [{"rule": "!has(self.topologyName) || self.nodeLabels.size() >= 1",
                                                   "message": "nodeLabels required"}]})
    found = rules.violations(_object({"topologyName": "t"}))
    assert [v.message for v in found] == ["no such key: nodeLabels evaluating rule: nodeLabels required"]
    assert [v.path for v in found] == [("spec",)]


def test_message_expression_field_path_and_reason() -> None:
    rules = _schema({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                     "x-kubernetes-validations": [
                         {"rule": "self.a < self.b", "messageExpression": "'a is ' + string(self.a)",
                          "message": "plain", "fieldPath": "['a']", "reason": "FieldValueForbidden"},
                         {"rule": "self.a != 7", "messageExpression": "''", "message": "fallback",
                          "fieldPath": ".missing"}]})
    first, second = rules.violations(_object({"a": 7, "b": 1}))
    assert (first.message, first.field, first.reason) == ("a is 7", ("a",), "Forbidden")
    assert (second.message, second.field, second.reason) == ("fallback", None, "Invalid value")


def test_transition_rules_status_rules_and_null_nodes_are_skipped() -> None:
    document = to_schema({"type": "object", "properties": {
        "spec": {"type": "object", "properties": {"n": {"type": "integer",
                 "x-kubernetes-validations": [{"rule": "self > 100"}]}},
                 "x-kubernetes-validations": [{"rule": "self.n == oldSelf.n"}]},
        "status": {"type": "object", "x-kubernetes-validations": [{"rule": "false"}]}}})
    rules = CelSchema(document, lambda node: node, "a test CRD")
    assert [r.rule for r in rules.rules] == ["self > 100"]
    assert rules.violations({"spec": {"n": None}, "status": {"x": 1}}) == []
    assert [v.path for v in rules.violations({"spec": {"n": 1}})] == [("spec", "n")]


def test_root_rules_see_only_name_and_generate_name_and_skip_a_generated_name() -> None:
    document = to_schema({"type": "object", "x-kubernetes-validations": [
        {"rule": "size(self.metadata.name) <= 5", "message": "short"},
        {"rule": "!has(self.metadata.labels)", "message": "labels are not visible to rules"}]})
    rules = CelSchema(document, lambda node: node, "a test CRD")
    labelled = {"metadata": {"name": "too-long-name", "labels": {"a": "b"}}}
    assert [v.message for v in rules.violations(labelled)] == ["short"]
    assert rules.violations({"metadata": {"generateName": "too-long-name-"}}) == []


def test_list_items_and_map_values_are_each_judged() -> None:
    rules = _schema({"type": "object", "properties": {
        "items": {"type": "array", "items": {"type": "object", "properties": {"n": {"type": "integer"}},
                                              "x-kubernetes-validations": [{"rule": "self.n > 0"}]}},
        "labels": {"type": "object", "additionalProperties": {
            "type": "string", "x-kubernetes-validations": [{"rule": "self != ''"}]}}}})
    found = rules.violations(_object({"items": [{"n": 1}, {"n": 0}], "labels": {"a": "x", "b": ""}}))
    assert [(v.path, v.message) for v in found] == [(("spec", "items", 1), "failed rule: self.n > 0"),
                                                    (("spec", "labels", "b"), "failed rule: self != ''")]


def test_a_rule_the_evaluator_cannot_run_is_counted_and_named_once_never_a_finding(
        capsys: pytest.CaptureFixture[str]) -> None:
    rules = _schema({"type": "object", "x-kubernetes-validations": [
        {"rule": "self.a ==", "message": "cannot compile"},
        {"rule": "isQuantity(self.q)", "message": "a Kubernetes library function kqlint does not add"}]},
        source="the CRD in \x1b[31mcrds/x.yaml")
    for _ in range(3):
        assert rules.violations(_object({"a": 1, "q": "1Gi"})) == []
    skipped = {rule: why for (source, rule), why in cel.not_evaluated().items() if source.endswith("x.yaml")}
    assert set(skipped) == {"self.a ==", "isQuantity(self.q)"}
    err = capsys.readouterr().err
    assert err.count("kqlint: note: a CEL rule") == 2 and "\x1b" not in err


def test_a_hostile_rule_never_crashes() -> None:
    deep = "(" * 400 + "true" + ")" * 400
    rules = _schema({"type": "object", "x-kubernetes-validations": [
        {"rule": deep}, {"rule": "x" * (cel_runtime.MAX_TEXT + 1)}, {"rule": "1 / 0 == 1", "message": "z"},
        {"rule": "[1][5] == 1", "message": "i"}, {"rule": "9223372036854775807 + 1 > 0", "message": "o"}]})
    messages = [v.message for v in rules.violations(_object({"a": 1}))]
    assert messages == ["division by zero evaluating rule: z", "index out of bounds evaluating rule: i",
                        "integer overflow evaluating rule: o"]


def test_the_library_is_imported_only_when_a_kind_with_rules_is_checked(tmp_path: Path) -> None:
    plain = tmp_path / "plain.yaml"
    plain.write_text("apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata:\n  name: p\nvalue: 1\n")
    code = ("import sys; from kqlint.engine.pipeline import lint; lint([sys.argv[1]]); "
            "print('celpy' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code, str(plain)], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"
    result = subprocess.run([sys.executable, "-c", code, str(FIXTURES / "bad-cel-kueue.yaml")],
                            capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "True"


def test_the_same_value_is_judged_once_per_process(monkeypatch: pytest.MonkeyPatch) -> None:
    rules = _schema({"type": "object", "properties": {"n": {"type": "integer"}},
                     "x-kubernetes-validations": [{"rule": "self.n > 0", "message": "m"}]})
    calls: list[Any] = []
    real = cel_runtime.evaluate
    monkeypatch.setattr(cel_runtime, "evaluate", lambda *a, **k: calls.append(a) or real(*a, **k))
    for _ in range(5):
        assert [v.message for v in rules.violations(_object({"n": 0, "other": 1}))] == ["m"]
    assert len(calls) == 1


def test_the_cel_rules_of_the_inputs_kinds_are_compiled_before_workers_fork() -> None:
    """KQ002's prepare compiles the CEL programs of the kinds the run holds, in the process
    that forks the --jobs workers (they inherit them); kinds the run does not hold are left."""
    from kqlint.config import Config
    from kqlint.engine.rule import Run
    from kqlint.rules.engine import kq002_schema_violation as kq002
    from kqlint.schema import cel_runtime

    cel_runtime._PROGRAMS.clear()
    schemas = kq002.prepare(Run(Config(), (), (), frozenset({("jobset.x-k8s.io/v1alpha2", "JobSet")})))
    rules = schemas.cel("jobset.x-k8s.io/v1alpha2", "JobSet")
    assert rules is not None and {rule.rule for rule in rules.rules} <= set(cel_runtime._PROGRAMS)
    trainer = schemas.cel("trainer.kubeflow.org/v1alpha1", "TrainJob")
    assert trainer is not None and not {rule.rule for rule in trainer.rules} <= set(cel_runtime._PROGRAMS)


_JOBS = {"type": "object", "properties": {
    "startupPolicy": {"type": "object", "properties": {"order": {"type": "string"}}},
    "jobs": {"type": "array", "items": {"type": "object", "properties": {
        "name": {"type": "string"}, "dependsOn": {"type": "array"}, "template": {"type": "object"}}}}},
    "x-kubernetes-validations": [{
        "rule": "!(has(self.startupPolicy) && self.startupPolicy.order == 'InOrder' && "
                "self.jobs.exists(x, has(x.dependsOn)))", "message": "in order"}]}
_LABELS = {"type": "object", "properties": {"labels": {"type": "object", "additionalProperties": {"type": "string"}},
                                            "mode": {"type": "string", "default": "Never"}},
           "x-kubernetes-validations": [{"rule": "self.labels.size() <= 1", "message": "size"},
                                        {"rule": "'a' in self.labels", "message": "in"},
                                        {"rule": "self.labels != {'a': 'x'}", "message": "equal"},
                                        {"rule": "self.mode == 'Never' || self.labels.all(k, k != 'b')",
                                         "message": "all"}]}
_ITEMS = {"type": "object", "properties": {"items": {"type": "array", "items": {
    "type": "object", "properties": {"n": {"type": "integer"}, "m": {"type": "integer"}}}}},
    "x-kubernetes-validations": [{"rule": "self.items.all(x, x.n > 0)", "message": "n",
                                  "messageExpression": "'n of ' + string(size(self.items)) + ' items'"}]}


@pytest.mark.parametrize(("spec", "values"), [
    (_JOBS, [{"jobs": [{"name": "a", "template": {"spec": {"containers": [{"name": "a"}]}}}]},
             {"jobs": [{"name": "b", "template": {"spec": {"containers": [{"name": "b"}]}}}]},
             {"startupPolicy": {"order": "InOrder"},
              "jobs": [{"name": "a"}, {"name": "b", "dependsOn": [{"name": "a"}]}]},
             {"startupPolicy": {"order": "InOrder"},
              "jobs": [{"name": "c"}, {"name": "d", "dependsOn": [{"name": "c"}]}]},
             {"startupPolicy": {"order": "InOrder"}, "jobs": [{"name": "a"}, {"name": "b"}]},
             {"startupPolicy": {"order": "AnyOrder"}, "jobs": [{"name": "a"}, {"name": "b", "dependsOn": []}]}]),
    (_LABELS, [{"labels": {"a": "x"}}, {"labels": {"a": "y"}}, {"labels": {"a": "x", "b": "y"}},
               {"labels": {"b": "y"}}, {"labels": {"b": "y"}, "mode": "Always"},
               {"labels": {"c": "y"}, "mode": "Always"},
               {"labels": {"a": "x"}, "mode": None}, {"labels": {}}]),
    (_ITEMS, [{"items": [{"n": 1, "m": 1}]}, {"items": [{"n": 1, "m": 2}]}, {"items": [{"n": 0, "m": 1}]},
              {"items": [{"n": 1}, {"n": 0}]}, {"items": [{"n": 2}, {"n": 0, "m": 5}]}, {"items": [{"m": 1}]}]),
])
def test_a_verdict_is_reused_only_for_a_value_alike_in_every_part_the_rule_read(
        monkeypatch: pytest.MonkeyPatch, spec: dict[str, Any], values: list[Any]) -> None:
    """The memo keys a verdict by what the rule read of the value (keys looked up or tested,
    items of lists, a mapping iterated/sized/compared whole): every verdict and message equals a
    fresh evaluation's, in any order; values alike in what was read (a pod template, an unread
    field aside) are not evaluated again; messageExpression words each failing value."""
    def judged(rules: CelSchema, value: Any) -> list[tuple[Any, str]]:
        return [(v.path, v.message) for v in rules.violations(_object(value))]

    expected = [judged(_schema(spec), value) for value in values]
    assert any(expected) and not all(expected), "each case holds a value that passes and one that fails"
    first_rule = cel_runtime.program(spec["x-kubernetes-validations"][0]["rule"])
    calls: list[Any] = []
    real = cel_runtime.evaluate
    monkeypatch.setattr(cel_runtime, "evaluate", lambda *a, **k: calls.append(a[0]) or real(*a, **k))
    rules = _schema(spec)
    assert [judged(rules, value) for value in values] == expected
    assert calls.count(first_rule) < len(values), "values alike in what the first rule read share its verdict"
    assert [judged(rules, value) for value in reversed(values)] == expected[::-1]
    calls.clear()
    assert [judged(rules, value) for value in values] == expected
    assert calls == [], "once what the rules read stops growing, every value seen is remembered"
    backwards = _schema(spec)
    assert [judged(backwards, value) for value in reversed(values)] == expected[::-1]


def test_what_a_rule_read_keys_its_verdicts() -> None:
    reads = cel_runtime.Reads()
    spec = {"replicatedJobs": [{"name": "a", "template": {"big": 1}}], "startupPolicy": None}
    reads.key("startupPolicy")
    reads.key("replicatedJobs").item().key("dependsOn")
    assert reads.of(spec) == {"replicatedJobs": [{}], "startupPolicy": None}
    assert reads.of({"replicatedJobs": [{"dependsOn": [{"x": 1}]}, {}]}) == \
        {"replicatedJobs": [{"dependsOn": [{}]}, {}]}
    before = reads.changes
    reads.key("replicatedJobs").everything()
    assert reads.changes == before + 1 and reads.of(spec)["replicatedJobs"] == spec["replicatedJobs"]
    assert reads.key(1) is not reads and reads.whole and reads.of(spec) == spec


def test_verdicts_are_remembered_per_schema_never_across_schemas_of_the_same_name() -> None:
    """Two schemas named alike (a --crd file edited while the server runs) that differ in a
    default give each its own verdict for the same value."""
    def rules(default: str) -> CelSchema:
        return _schema({"type": "object", "properties": {"mode": {"type": "string", "default": default}},
                        "x-kubernetes-validations": [{"rule": "self.mode == 'Never'", "message": "m"}]})

    assert rules("Never").violations(_object({})) == []
    assert [v.message for v in rules("Always").violations(_object({}))] == ["m"]


def test_an_evaluator_error_is_named_plainly_in_the_note(monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """cel-python's CELEvalError repr spells out its class arguments; the note gives its name
    and message only."""
    from celpy.evaluation import CELEvalError
    from kqlint.schema import cel_runtime

    rules = _schema({"type": "object", "x-kubernetes-validations": [{"rule": "self.a == 1"}]},
                    source="the CRD in crds/plain.yaml")
    monkeypatch.setattr(cel_runtime, "evaluate", lambda compiled, value, want=bool: CELEvalError(
        "None with type <class 'NoneType'>", TypeError, ("self",)))
    assert rules.violations(_object({"a": 1})) == []
    err = capsys.readouterr().err
    assert "evaluation: CELEvalError: None with type <class 'NoneType'>" in err
    assert "CELEvalError(*" not in err and "<class 'TypeError'>" not in err


def test_a_rule_walking_its_own_list_twice_is_not_run_on_a_hostile_list() -> None:
    """`self.filter(i, size(self.filter(j, j == i)) > 1)` costs n^2 evaluations: 600 Topology levels
    took 20 s. Past MAX_NESTED_STEPS the rule is not evaluated (a note says so); on the short lists
    the CRD allows it still finds duplicates, and a rule walking nested lists once is always run."""
    unique = "size(self.filter(i, size(self.filter(j, j == i)) > 1)) == 0"
    nested = "self.all(g, g.all(x, x > 0))"  # walks each inner list once: linear
    rules = _schema({"type": "object", "properties": {
        "levels": {"type": "array", "items": {"type": "string"},
                   "x-kubernetes-validations": [{"rule": unique, "message": "must be unique"}]},
        "groups": {"type": "array", "items": {"type": "array", "items": {"type": "integer"}},
                   "x-kubernetes-validations": [{"rule": nested, "message": "positive"}]}}}, "a hostile CRD")
    assert [v.message for v in rules.violations(_object({"levels": ["a", "b", "a"]}))] == ["must be unique"]
    hostile = [f"l{i}" for i in range(600)] + ["l0"]
    assert rules.violations(_object({"levels": hostile})) == []
    assert "601^2" in cel.not_evaluated()[("a hostile CRD", unique)]
    groups = [[1] * 300 for _ in range(300)] + [[0]]
    assert [v.message for v in rules.violations(_object({"groups": groups}))] == ["positive"]
