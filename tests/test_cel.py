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
