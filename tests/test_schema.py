"""KQ002 (schema-violation): schemas, validator, suggestions, --crd, corpus, generator."""
from __future__ import annotations

import filecmp
import json
import re
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import kubectl_oracle
import pytest
from conftest import ROOT, shared_dir
from helpers import chdir, lint_case
from kqlint.cli import main
from kqlint.config import Config
from kqlint.engine.pipeline import lint
from kqlint.engine.registry import builtin_rules, rule_from_module
from kqlint.engine.rule import RuleMeta
from kqlint.errors import CrdError, UsageError
from kqlint.model import Finding, Severity
from kqlint.schema import NOT_IN_ENUM, UNKNOWN_FIELD, WRONG_TYPE, SchemaCatalog, Validator, catalog, dotted
from kqlint.schema.crd import convert, crd_versions, to_schema

FIXTURES = ROOT / "tests" / "fixtures" / "rules" / "KQ002"
KINDS = ROOT / "schemas" / "kinds"
HINT_RE = re.compile(r"#\s*hint:\s*(.*?)\s*#\s*expect:")

# Upstream manifests (outside invalid/) that really are invalid against the CRD copied at the
# same commit; KQ002 must report exactly these in the corpus and nothing else.
KNOWN_UPSTREAM_ERRORS = {
    # `spec.workload.kvCacheOffloading`: the v1alpha2 CRD has `spec.kvCacheOffloading`.
    ("kserve__kserve/docs/samples/llmisvc/kv-cache-offloading/llm-inference-service-kv-cache-offloading.yaml", 25),
    # `router.scheduler.config.inline` is a YAML string; the CRD declares an object.
    ("kserve__kserve/docs/samples/llmisvc/latency-predictor/llm-inference-service-latency-predictor.yaml", 13),
    # `apiVersion`/`kind` inside a PodTemplateSpec: not fields of the template.
    ("kubeflow__training-operator/examples/xgboost/smoke-dist/xgboostjob_v1alpha1_rabit_test.yaml", 11),
    ("kubeflow__training-operator/examples/xgboost/smoke-dist/xgboostjob_v1alpha1_rabit_test.yaml", 12),
    ("kubeflow__training-operator/examples/xgboost/smoke-dist/xgboostjob_v1alpha1_rabit_test.yaml", 25),
    ("kubeflow__training-operator/examples/xgboost/smoke-dist/xgboostjob_v1alpha1_rabit_test.yaml", 26),
    # `cpu: 0.5` in a custom resource: the API server rejects a float for an int-or-string
    # Quantity ("must be of type integer,string"); core Pods accept it.
    ("kubernetes-sigs__kueue/site/static/examples/jobs/sample-xgboostjob.yaml", 20),
    ("kubernetes-sigs__kueue/site/static/examples/jobs/sample-xgboostjob.yaml", 43),
    # `priorityClass` in a pod spec: the field is `priorityClassName` (the pods get no priority).
    ("volcano-sh__volcano/example/kubecon-2019-china/task-priority/elastic-job.yaml", 16),
    ("volcano-sh__volcano/example/kubecon-2019-china/task-priority/elastic-job.yaml", 29),
}

SCHEMA = {
    "type": "object", "additionalProperties": False,
    "properties": {
        "spec": {"type": "object", "additionalProperties": False, "properties": {
            "minMember": {"type": "integer"},
            "preemption": {"type": "object", "additionalProperties": False, "properties": {
                "withinClusterQueue": {"type": "string", "enum": ["Never", "LowerPriority"]}}},
            "labels": {"type": "object", "additionalProperties": {"type": "string"}},
            "items": {"type": "array", "items": {"type": "string"}},
            "quota": {"type": ["integer", "number", "string"]},
            "open": {"type": "object", "x-kubernetes-preserve-unknown-fields": True,
                     "properties": {"known": {"type": "boolean"}}},
            "flag": {"type": "boolean"},
        }},
    },
}


def violations(data: dict[str, Any], schema: dict[str, Any] = SCHEMA) -> list[tuple[str, str, str]]:
    return [(dotted(v.path), v.problem, v.hint) for v in Validator(schema).validate(data)]


# ------------------------------------------------------------------ suggestions

@pytest.mark.parametrize("data,expected", [
    ({"spec": {"minmember": 1}}, ("spec.minmember", UNKNOWN_FIELD, "field names are case-sensitive: `minMember`")),
    ({"spec": {"minMembr": 1}}, ("spec.minMembr", UNKNOWN_FIELD, "did you mean `minMember`?")),
    ({"spec": {"withinClusterQueue": "Never"}},
     ("spec.withinClusterQueue", UNKNOWN_FIELD, "did you mean `spec.preemption.withinClusterQueue`?")),
    ({"spec": {"preemption": {"withinClusterQueue": "never"}}},
     ("spec.preemption.withinClusterQueue", NOT_IN_ENUM, "values are case-sensitive: `Never`")),
    ({"spec": {"preemption": {"withinClusterQueue": "LowerPriorty"}}},
     ("spec.preemption.withinClusterQueue", NOT_IN_ENUM, "did you mean `LowerPriority`?")),
    ({"spec": {"preemption": {"withinClusterQueue": "Sometimes"}}},
     ("spec.preemption.withinClusterQueue", NOT_IN_ENUM, "")),
    ({"spec": {"minMember": "4"}}, ("spec.minMember", WRONG_TYPE, "write the number without quotes: `4`")),
    ({"spec": {"flag": "True"}}, ("spec.flag", WRONG_TYPE, "write the boolean without quotes: `true`")),
    ({"spec": {"labels": {"gpu": True}}}, ("spec.labels.gpu", WRONG_TYPE,
                                           "YAML reads an unquoted true/false/yes/no/on/off as a boolean: "
                                           "quote the value, e.g. `\"true\"`")),
    ({"spec": {"items": "a"}}, ("spec.items", WRONG_TYPE, "it takes a list: `[\"a\"]`, or one `- item` per line")),
    ({"spec": {"items": ["a", 3]}}, ("spec.items[1]", WRONG_TYPE, "quote the value: `\"3\"`")),
    ({"spec": {"quota": [1]}}, ("spec.quota", WRONG_TYPE, "it takes a single value, not a list")),
    ({"spec": {"preemption": ["x"]}}, ("spec.preemption", WRONG_TYPE, "it takes a mapping (key: value), not a list")),
    ({"spec": {"completely": 1}}, ("spec.completely", UNKNOWN_FIELD, "")),
])
def test_suggestion(data: dict[str, Any], expected: tuple[str, str, str]) -> None:
    assert violations(data) == [expected]


@pytest.mark.parametrize("data", [
    {"spec": {"minMember": 4, "quota": "10Gi", "labels": {"a": "b"}, "items": ["x"]}},
    {"spec": {"minMember": 4.0, "quota": 0.5}},                      # integral float, float quantity
    {"spec": {"minMember": None, "preemption": None, "items": [None]}},  # null = unset
    {"spec": {"open": {"known": True, "anything": {"goes": [1]}}}},  # preserve-unknown-fields
    {"spec": {"$patch": "replace"}},                                 # strategic-merge directive
])
def test_valid_data(data: dict[str, Any]) -> None:
    assert violations(data) == []


def test_preserve_unknown_fields_still_types_known_fields() -> None:
    assert violations({"spec": {"open": {"known": "yes"}}}) == [("spec.open.known", WRONG_TYPE, "")]


def test_booleans_are_not_integers_and_violations_keep_document_order() -> None:
    found = violations({"spec": {"minMember": True, "flag": 1, "zz": 0}})
    assert [(p, k) for p, k, _ in found] == [("spec.minMember", WRONG_TYPE), ("spec.flag", WRONG_TYPE),
                                             ("spec.zz", UNKNOWN_FIELD)]


@pytest.mark.parametrize("data", [[], "text", 3, {"spec": "x"}, {"spec": {1: 2, None: 3}},
                                  {"spec": {"preemption": {"withinClusterQueue": {"a": 1}}}}])
def test_odd_input_never_crashes(data: Any) -> None:
    Validator(SCHEMA).validate(data)


def _told(finding: Finding) -> str:
    """What a finding tells (message and remedy), lower-cased: a hint may open the remedy."""
    return f"{finding.message} {finding.remedy or ''}".lower()


def test_fixture_hints_are_in_the_messages() -> None:
    """Every `# hint: TEXT # expect: KQ002:col` marker: the finding on that line says TEXT."""
    messages: dict[tuple[str, int], str] = {}
    files = sorted(p.name for p in FIXTURES.glob("bad*.yaml"))
    with chdir(FIXTURES):
        report = lint(files, Config(select=("KQ002",)))
    messages.update({(f.location.file, f.location.line): _told(f) for f in report.findings})
    for case in sorted(p for p in FIXTURES.iterdir() if p.is_dir() and p.name.startswith("bad")):
        report = lint_case(case, "KQ002")
        messages.update({(f"{case.name}/{f.location.file}", f.location.line): _told(f) for f in report.findings})
    checked = 0
    for file in sorted(FIXTURES.rglob("bad*/**/*.yaml")) + sorted(FIXTURES.glob("bad*.yaml")):
        shown = file.relative_to(FIXTURES).as_posix()
        for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), 1):
            match = HINT_RE.search(line)
            if match:
                assert match.group(1).lower() in messages[(shown, number)], (shown, number)
                checked += 1
    assert checked >= 30


def test_fixture_battery_covers_the_kinds() -> None:
    kinds = set()
    for file in FIXTURES.glob("bad*.yaml"):
        text = file.read_text(encoding="utf-8")
        for document in text.split("\n---\n"):
            if "# expect: KQ002" in document:
                kinds.add(re.search(r"^kind: (\w+)", document, re.M).group(1))  # type: ignore[union-attr]
    assert kinds >= {"ClusterQueue", "LocalQueue", "ResourceFlavor", "WorkloadPriorityClass", "Cohort",
                     "Topology", "AdmissionCheck", "PriorityClass", "PodGroup", "Queue", "Job", "JobSet",
                     "PyTorchJob", "TFJob", "MPIJob", "TrainJob", "ClusterTrainingRuntime", "LeaderWorkerSet",
                     "LLMInferenceService", "DynamoGraphDeployment", "RayJob", "RayCluster", "Deployment", "Pod"}


# ------------------------------------------------------------------ positions and messages

def test_positions_key_for_fields_and_collections_value_for_scalars(tmp_path: Path) -> None:
    (tmp_path / "cq.yaml").write_text(textwrap.dedent("""\
        apiVersion: kueue.x-k8s.io/v1beta2
        kind: ClusterQueue
        metadata:
          name: team-a
        spec:
          namespaceSelector: []
          preemption:
            withinClusterQueue:   lowerPriority
            reclaimWithinCohort: Any
            bogus: 1
        """))
    with chdir(tmp_path):
        report = lint(["cq.yaml"], Config(select=("KQ002",)))
    assert [(f.location.line, f.location.column) for f in report.findings] == [(6, 3), (8, 27), (10, 5)]
    enum = report.findings[1]
    assert enum.severity == Severity.ERROR and enum.obj is not None and enum.obj.name == "team-a"
    assert enum.location.path == ("spec", "preemption", "withinClusterQueue")
    assert "ClusterQueue team-a" in enum.message and enum.remedy == "Values are case-sensitive: `LowerPriority`"


def test_list_items_are_located(tmp_path: Path) -> None:
    (tmp_path / "list.yaml").write_text(textwrap.dedent("""\
        apiVersion: v1
        kind: List
        items:
        - apiVersion: scheduling.k8s.io/v1
          kind: PriorityClass
          metadata: {name: a}
          value: 1
          preemptionPolicy: never
        """))
    with chdir(tmp_path):
        report = lint(["list.yaml"], Config(select=("KQ002",)))
    assert [(f.location.line, f.location.column) for f in report.findings] == [(8, 21)]


def test_schema_errors_do_not_stop_other_rules(tmp_path: Path) -> None:
    probe = ModuleType("probe_rule")
    probe.META = RuleMeta(code="X900", slug="probe", severity=Severity.INFO, summary="every object",  # type: ignore[attr-defined]
                          kinds=frozenset({"PriorityClass"}))
    probe.check = lambda obj, ctx: iter([ctx.finding(obj.at("value"), "seen")])  # type: ignore[attr-defined]
    kq002 = next(r for r in builtin_rules() if r.code == "KQ002")
    (tmp_path / "pc.yaml").write_text("apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\n"
                                      "metadata: {name: a}\nvalue: \"1\"\nbogus: true\n")
    with chdir(tmp_path):
        report = lint(["pc.yaml"], Config(), rules=[kq002, rule_from_module(probe)])
    assert sorted(f.code for f in report.findings) == ["KQ002", "KQ002", "X900"]
    assert not report.internal_errors


# ------------------------------------------------------------------ catalog

def test_catalog_is_built_once_and_compiles_only_kinds_in_use(tmp_path: Path) -> None:
    (tmp_path / "pc.yaml").write_text("apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\n"
                                      "metadata: {name: a}\nvalue: 1\n")
    fresh = SchemaCatalog()
    assert fresh.knows("kueue.x-k8s.io/v1beta2", "ClusterQueue") and not fresh.knows("v1", "ConfigMap")
    assert fresh.validator("scheduling.k8s.io/v1", "PriorityClass") is fresh.validator("scheduling.k8s.io/v1",
                                                                                      "PriorityClass")
    assert fresh.validator("v1", "ConfigMap") is None
    assert set(fresh._validators) == {("scheduling.k8s.io/v1", "PriorityClass"), ("v1", "ConfigMap")}
    assert catalog(()) is catalog(())


def test_lint_does_not_import_jsonschema() -> None:
    code = ("import sys; from kqlint.engine.pipeline import lint; from kqlint.config import Config; "
            f"r = lint([{str(FIXTURES / 'bad-priorityclass.yaml')!r}], Config(select=('KQ002',))); "
            "assert len(r.findings) == 4, r.findings; print('jsonschema' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# ------------------------------------------------------------------ --crd

WIDGET_CRD = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.acme.io}
spec:
  group: acme.io
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer}
              mode: {type: string, enum: [Fast, Safe]}
              raw: {type: object, x-kubernetes-preserve-unknown-fields: true}
              port: {x-kubernetes-int-or-string: true, anyOf: [{type: integer}, {type: string}]}
"""
WIDGET = """\
apiVersion: acme.io/v1
kind: Widget
metadata: {name: w, namespace: ns}
spec:
  sise: 3
  mode: fast
  raw: {anything: [1]}
  port: http
"""


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_crd_flag_validates_a_kind_the_project_does_not_ship(in_tmp_cwd: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    (in_tmp_cwd / "crds").mkdir()
    (in_tmp_cwd / "crds" / "widget.yaml").write_text(WIDGET_CRD)
    (in_tmp_cwd / "w.yaml").write_text(WIDGET)
    code, out, _ = run_cli(["check", "--select", "KQ002", "--format", "json", "w.yaml"], capsys)
    assert code == 0 and json.loads(out)["findings"] == []  # unknown kind: skipped
    code, out, _ = run_cli(["check", "--select", "KQ002", "--format", "json", "--crd", "crds", "w.yaml"], capsys)
    findings = json.loads(out)["findings"]
    assert code == 1
    assert [(f["line"], f["column"]) for f in findings] == [(5, 3), (6, 9)]
    assert findings[0]["remedy"] == "Did you mean `size`?" and "schema from crds/widget.yaml" in findings[0]["message"]
    assert findings[1]["remedy"] == "Values are case-sensitive: `Fast`"


def test_crd_from_config_file_relative_to_it(in_tmp_cwd: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (in_tmp_cwd / "platform").mkdir()
    (in_tmp_cwd / "platform" / "widget-crd.yaml").write_text(WIDGET_CRD)
    (in_tmp_cwd / "platform" / ".kqlint.yaml").write_text("crds: [widget-crd.yaml]\n")
    (in_tmp_cwd / "platform" / "w.yaml").write_text(WIDGET)
    code, out, _ = run_cli(["check", "--select", "KQ002", "--format", "json", "--config",
                            "platform/.kqlint.yaml", "platform/w.yaml"], capsys)
    assert code == 1 and len(json.loads(out)["findings"]) == 2


def test_user_crd_wins_over_the_shipped_schema(in_tmp_cwd: Path, capsys: pytest.CaptureFixture[str]) -> None:
    crd = WIDGET_CRD.replace("acme.io", "kueue.x-k8s.io").replace("Widget", "LocalQueue").replace(
        "widgets", "localqueues").replace("- name: v1\n", "- name: v1beta2\n")
    (in_tmp_cwd / "lq-crd.yaml").write_text(crd)
    (in_tmp_cwd / "lq.yaml").write_text("apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\n"
                                        "metadata: {name: q, namespace: a}\nspec: {size: 1}\n")
    assert run_cli(["check", "--select", "KQ002", "-q", "lq.yaml"], capsys)[0] == 1
    assert run_cli(["check", "--select", "KQ002", "-q", "--crd", "lq-crd.yaml", "lq.yaml"], capsys)[0] == 0


@pytest.mark.parametrize("content,message", [
    (None, "--crd missing: no such file or folder"),
    ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n", "no CustomResourceDefinition"),
    ("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec: [\n", "bad.yaml:"),
])
def test_bad_crd_path_is_a_usage_error(in_tmp_cwd: Path, capsys: pytest.CaptureFixture[str],
                                       content: str | None, message: str) -> None:
    (in_tmp_cwd / "w.yaml").write_text(WIDGET)
    target = "missing"
    if content is not None:
        (in_tmp_cwd / "bad.yaml").write_text(content)
        target = "bad.yaml"
    code, _, err = run_cli(["check", "--crd", target, "w.yaml"], capsys)
    assert code == 2 and message in err
    with pytest.raises(UsageError):
        lint(["w.yaml"], Config(crds=(target,)))


def test_crd_versions_layouts_and_lists() -> None:
    v1beta1 = {"apiVersion": "apiextensions.k8s.io/v1beta1", "kind": "CustomResourceDefinition",
               "spec": {"group": "a.io", "names": {"kind": "Thing"}, "version": "v1",
                        "validation": {"openAPIV3Schema": {"type": "object"}}}}
    assert [(v, k) for v, k, _ in crd_versions(v1beta1)] == [("a.io/v1", "Thing")]
    served = {"spec": {"group": "a.io", "names": {"kind": "T"}, "versions": [
        {"name": "v2", "served": True, "schema": {"openAPIV3Schema": {}}},
        {"name": "v1", "served": False, "schema": {"openAPIV3Schema": {}}}]}}
    assert [v for v, _, _ in crd_versions(served)] == ["a.io/v2"]
    assert list(crd_versions({"spec": "broken"})) == []


def test_conversion_keeps_crd_semantics() -> None:
    schema = to_schema({"type": "object", "properties": {"spec": {"type": "object", "properties": {
        "q": {"x-kubernetes-int-or-string": True, "anyOf": [{"type": "integer"}, {"type": "string"}]},
        "open": {"type": "object", "x-kubernetes-preserve-unknown-fields": True,
                 "properties": {"a": {"type": "string"}}},
        "embedded": {"type": "object", "x-kubernetes-embedded-resource": True,
                     "x-kubernetes-preserve-unknown-fields": True},
        "template": {"type": "object", "properties": {"metadata": {"type": "object", "properties": {
            "labels": {"type": "object", "additionalProperties": {"type": "string"}}}}}},
        "s": {"type": "string", "description": "dropped", "pattern": "^x$", "maxLength": 3},
    }, "required": ["q"]}}})
    spec = schema["properties"]["spec"]
    assert schema["additionalProperties"] is False and schema["properties"]["status"] == {}
    assert spec["properties"]["q"] == {"type": ["integer", "string"]}
    assert "additionalProperties" not in spec["properties"]["open"]
    assert set(spec["properties"]["embedded"]["properties"]) == {"apiVersion", "kind", "metadata"}
    assert "additionalProperties" not in spec["properties"]["template"]["properties"]["metadata"]
    # a --crd file's pattern is not run (tests/test_schema_bounds.py); its sizes are kept
    assert spec["properties"]["s"] == {"type": "string", "maxLength": 3} and "required" not in spec
    pod = convert({"type": "object", "properties": {n: {"type": "string"} for n in (
        "restartPolicy", "dnsPolicy", "preemptionPolicy")} | {
        "containers": {"type": "array"}, "terminationGracePeriodSeconds": {"type": "integer"}}})
    assert pod["properties"]["restartPolicy"]["enum"] == ["Always", "OnFailure", "Never"]


# ------------------------------------------------------------------ shipped schemas

def test_index_lists_every_schema_file_with_its_source() -> None:
    index = json.loads((KINDS / "index.json").read_text(encoding="utf-8"))["kinds"]
    files = {entry["file"] for by_kind in index.values() for entry in by_kind.values()}
    assert files == {p.name for p in KINDS.glob("*.json")} - {"index.json"}
    for api_version, by_kind in index.items():
        for kind, entry in by_kind.items():
            source = entry["source"]
            assert ("repository" in source and re.fullmatch(r"[0-9a-f]{40}", source["commit"])) \
                or "hand-written" in source, (api_version, kind)
    for kind in ("ClusterQueue", "LocalQueue", "ResourceFlavor", "WorkloadPriorityClass", "Cohort",
                 "Topology", "AdmissionCheck"):
        assert kind in index["kueue.x-k8s.io/v1beta1"] and kind in index["kueue.x-k8s.io/v1beta2"]
    expected = {("scheduling.k8s.io/v1", "PriorityClass"), ("scheduling.volcano.sh/v1beta1", "PodGroup"),
                ("scheduling.volcano.sh/v1beta1", "Queue"), ("batch.volcano.sh/v1alpha1", "Job"),
                ("scheduling.run.ai/v2alpha2", "PodGroup"), ("scheduling.run.ai/v2", "Queue"),
                ("jobset.x-k8s.io/v1alpha2", "JobSet"), ("kubeflow.org/v1", "PyTorchJob"),
                ("kubeflow.org/v1", "TFJob"), ("kubeflow.org/v2beta1", "MPIJob"),
                ("trainer.kubeflow.org/v1alpha1", "TrainJob"), ("trainer.kubeflow.org/v1alpha1", "TrainingRuntime"),
                ("trainer.kubeflow.org/v1alpha1", "ClusterTrainingRuntime"),
                ("leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet"),
                ("serving.kserve.io/v1alpha2", "LLMInferenceService"),
                ("nvidia.com/v1alpha1", "DynamoGraphDeployment"), ("ray.io/v1", "RayJob"), ("ray.io/v1", "RayCluster"),
                ("v1", "Pod"), ("batch/v1", "Job"), ("apps/v1", "Deployment"), ("apps/v1", "StatefulSet")}
    assert expected <= {(v, k) for v, by_kind in index.items() for k in by_kind}


KEYWORDS = {"type", "enum", "properties", "additionalProperties", "items", "$ref",
            "x-kubernetes-preserve-unknown-fields",
            "default", "x-kubernetes-validations",  # read by KQ002's CEL pass; JSON Schema validation ignores both
            "x-kqlint-null-items",  # false: a null item is invalid (an annotation to JSON Schema, read by KQ002)
            # the bounds the API server checks (kqlint.schema.compile.bound_test)
            "maxItems", "minItems", "maxLength", "minLength", "maxProperties", "minProperties", "minimum", "maximum",
            "exclusiveMinimum", "exclusiveMaximum", "pattern"}
TYPES = {"object", "array", "string", "integer", "number", "boolean"}


def _check_node(node: Any, defs: dict[str, Any]) -> None:
    assert isinstance(node, dict) and set(node) <= KEYWORDS, node
    types = node.get("type", "object")
    assert set(types if isinstance(types, list) else [types]) <= TYPES
    if "$ref" in node:
        assert node["$ref"].startswith("#/$defs/") and node["$ref"][len("#/$defs/"):] in defs
    for child in (node.get("properties") or {}).values():
        _check_node(child, defs)
    for key in ("items", "additionalProperties"):
        if isinstance(node.get(key), dict):
            _check_node(node[key], defs)
        else:
            assert node.get(key, False) is False


def test_schemas_use_only_the_supported_subset_and_are_small() -> None:
    """KQ002 implements type/enum/properties/additionalProperties/items/local $ref and the bounds:
    the shipped files must use nothing else (descriptions, formats and `required` are stripped),
    apart from the markers the CEL pass reads (a default, CEL rules: annotations to JSON Schema)."""
    total = 0
    for path in sorted(KINDS.glob("*.json")):
        total += path.stat().st_size
        if path.name == "index.json":
            continue
        document = json.loads(path.read_text(encoding="utf-8"))
        defs = document.get("$defs", {})
        body = {k: v for k, v in document.items() if k not in ("$schema", "title", "x-kqlint-source", "$defs")}
        _check_node(body, defs)
        for definition in defs.values():
            _check_node(definition, defs)
    assert total < 1_500_000


@pytest.mark.parametrize("name", ["kueue.x-k8s.io_v1beta2_ClusterQueue.json", "scheduling.k8s.io_v1_PriorityClass.json",
                                  "scheduling.run.ai_v2alpha2_PodGroup.json"])
def test_schemas_are_valid_json_schema(name: str) -> None:
    from jsonschema import Draft202012Validator

    Draft202012Validator.check_schema(json.loads((KINDS / name).read_text(encoding="utf-8")))


def test_pyproject_ships_the_schemas() -> None:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert '"kinds/*.json"' in text and '"*.md"' in text


def _strip(node: Any, schemas: Validator, path: tuple[Any, ...] = ()) -> Any:
    """Instance as JSON Schema sees it under kqlint's semantics: null fields and map values are
    unset, `$` keys are directives, and a null list item is unset too, except in a list marked
    `x-kqlint-null-items: false` (a CRD's: there JSON Schema rejects it as kqlint does)."""
    if isinstance(node, dict):
        return {k: _strip(v, schemas, (*path, k)) for k, v in node.items()
                if v is not None and not (isinstance(k, str) and k.startswith("$"))}
    if isinstance(node, list):
        schema = schemas.schema_at(path) or {}
        kept = schema.get("x-kqlint-null-items") is False
        return [_strip(v, schemas, (*path, i)) for i, v in enumerate(node) if v is not None or kept]
    return node


def _objects(paths: list[Path]) -> Iterator[Any]:
    from kqlint.domain.objects import objects_from_file
    from kqlint.loader import load_file

    for path in paths:
        yield from objects_from_file(load_file(str(path), path.name), "default")[0]


def test_validator_agrees_with_jsonschema() -> None:
    """The schema files mean what KQ002 checks: same verdict as jsonschema on every fixture object."""
    from jsonschema import Draft202012Validator

    schemas = SchemaCatalog()
    compared = 0
    for obj in _objects(sorted(FIXTURES.rglob("*.yaml"))):
        ours = schemas.validator(obj.api_version, obj.kind)
        if ours is None:
            continue
        theirs = Draft202012Validator(ours.document)
        assert (not ours.validate(obj.data)) == theirs.is_valid(_strip(obj.data, ours)), obj
        compared += 1
    assert compared >= 50


# ------------------------------------------------------------------ workspace (../shared)

def test_corpus_has_no_kq002_outside_invalid_but_known_upstream_errors() -> None:
    corpus = shared_dir("corpus")
    with chdir(corpus):
        report = lint(["."], Config(select=("KQ002",), exclude=("invalid", "crds", "helm-unrendered")))
    assert report.summary.objects > 1000 and not report.internal_errors
    assert {(f.location.file, f.location.line) for f in report.findings} == KNOWN_UPSTREAM_ERRORS


def test_corpus_objects_agree_with_jsonschema() -> None:
    from jsonschema import Draft202012Validator

    corpus = shared_dir("corpus")
    schemas = SchemaCatalog()
    paths = [p for p in sorted(corpus.rglob("*.yaml"))
             if p.relative_to(corpus).parts[0] not in ("crds", "invalid", "helm-unrendered")]
    compared = 0
    for obj in _objects(paths):
        ours = schemas.validator(obj.api_version, obj.kind)
        if ours is not None:
            valid = Draft202012Validator(ours.document).is_valid(_strip(obj.data, ours))
            assert (not ours.validate(obj.data)) == valid, obj
            compared += 1
    assert compared > 300


def test_generator_reproduces_the_committed_schemas(tmp_path: Path) -> None:
    shared_dir("corpus")
    subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_schemas.py"), "--out", str(tmp_path)],
                   check=True, capture_output=True)
    generated = sorted(p.name for p in tmp_path.iterdir())
    assert generated == sorted(p.name for p in KINDS.iterdir())
    match, mismatch, errors = filecmp.cmpfiles(KINDS, tmp_path, generated, shallow=False)
    assert not mismatch and not errors


def test_handwritten_pod_spec_lists_every_field_of_the_crd_copies() -> None:
    """The compact core schemas are closed: they must name every field the CRD-embedded copies
    of PodSpec, Container, Probe and JobSpec have (else a valid field would be flagged)."""
    sys.path.insert(0, str(ROOT / "scripts"))
    import handwritten_schemas as hand

    pod = hand.pod_spec()["properties"]
    container = pod["containers"]["items"]["properties"]
    ours = {"pod": set(pod), "container": set(container), "job": set(hand.job_spec()["properties"]),
            "probe": set(container["livenessProbe"]["properties"])}
    shapes = {"pod": {"containers", "restartPolicy", "terminationGracePeriodSeconds", "dnsPolicy"},
              "container": {"image", "imagePullPolicy", "livenessProbe", "stdin"},
              "job": {"parallelism", "completions", "template", "backoffLimit"},
              "probe": {"initialDelaySeconds", "periodSeconds", "failureThreshold"}}
    seen = {name: set() for name in shapes}  # type: dict[str, set[str]]
    for path in KINDS.glob("*.json"):
        document = json.loads(path.read_text(encoding="utf-8"))
        if path.name == "index.json" or "hand-written" in document["x-kqlint-source"]:
            continue
        for node in _nodes(document):
            names = set(node.get("properties") or {})
            for shape, required in shapes.items():
                if required <= names:
                    seen[shape] |= names
    # Look-alikes that are not the core type: Dynamo's extraPodSpec (PodSpec + mainContainer)
    # and ephemeral containers (Container + targetContainerName) are typed loosely.
    not_core = {"pod": {"mainContainer"}, "container": {"targetContainerName"}, "job": set(), "probe": set()}
    for shape in shapes:
        assert seen[shape], shape
        assert seen[shape] - not_core[shape] <= ours[shape], (shape, seen[shape] - ours[shape])


def _nodes(node: Any) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _nodes(value)
    elif isinstance(node, list):
        for value in node:
            yield from _nodes(value)


def test_crd_error_type() -> None:
    with pytest.raises(CrdError):
        catalog(("/definitely/missing/path",))


# ------------------------------------------------------------------ null list items

def test_a_crd_list_of_typed_items_refuses_a_null_item_unless_nullable_or_defaulted() -> None:
    """kube-openapi's type check refuses null where the item schema has a type and is not
    nullable; PruneNonNullableNullsWithoutDefaults prunes null fields and map values, never a
    list item; an item schema with a default is left to defaulting."""
    def marked(items: dict[str, Any]) -> bool:
        return convert({"type": "array", "items": items}).get("x-kqlint-null-items") is False

    assert marked({"type": "string"}) and marked({"type": "object", "properties": {"a": {"type": "string"}}})
    assert marked({"x-kubernetes-int-or-string": True})
    assert not marked({"type": "string", "nullable": True}) and not marked({"type": "string", "default": "x"})
    assert not marked({}) and not marked({"x-kubernetes-preserve-unknown-fields": True})
    assert "x-kqlint-null-items" not in convert({"type": "object", "additionalProperties": {"type": "string"}})


def test_a_null_item_of_a_marked_list_is_a_wrong_type_and_elsewhere_null_is_unset() -> None:
    validator = Validator({"type": "object", "properties": {
        "strict": {"type": "array", "items": {"type": "string"}, "x-kqlint-null-items": False},
        "objects": {"type": "array", "items": {"$ref": "#/$defs/o"}, "x-kqlint-null-items": False},
        "loose": {"type": "array", "items": {"type": "string"}},
        "map": {"type": "object", "additionalProperties": {"type": "string"}},
        "field": {"type": "string"}}, "$defs": {"o": {"type": "object", "properties": {"a": {"type": "string"}}}}})
    found = validator.validate({"strict": ["a", None, 3], "objects": [None], "loose": ["a", None],
                                "map": {"k": None}, "field": None})
    assert [(v.path, v.problem, v.value, v.expected) for v in found] == [
        (("strict", 1), WRONG_TYPE, None, ("string",)), (("strict", 2), WRONG_TYPE, 3, ("string",)),
        (("objects", 0), WRONG_TYPE, None, ("object",))]
    assert "remove the empty item" in found[0].hint


def test_kq002_reports_a_null_item_of_a_custom_resource_list_at_the_item(tmp_path: Path) -> None:
    manifest = tmp_path / "flavor.yaml"
    manifest.write_text(textwrap.dedent("""\
        apiVersion: kueue.x-k8s.io/v1beta2
        kind: ResourceFlavor
        metadata:
          name: spot
        spec:
          nodeLabels: {pool: spot, zone: null}
          nodeTaints:
          - {key: spot, value: "true", effect: NoSchedule}
          -
        ---
        apiVersion: batch/v1
        kind: Job
        metadata:
          name: train
        spec:
          template:
            spec:
              restartPolicy: Never
              containers:
              - {name: main, image: busybox, args: ["--x", null]}
        """), encoding="utf-8")
    with chdir(tmp_path):
        report = lint(["flavor.yaml"], Config(select=("KQ002",)))
    assert [(f.location.line, f.location.column, f.message) for f in report.findings] == [
        (9, 4, "ResourceFlavor spot: `spec.nodeTaints[1]` must be a mapping, not null: the API server rejects "
               "the object")]
    if kubectl_oracle.kubectl():  # what the API server receives: the null item is there, as kqlint reads it
        flavor, job = kubectl_oracle.decode_files([manifest], {manifest: 2})[manifest].objects
        assert flavor["spec"]["nodeTaints"][1] is None
        assert job["spec"]["template"]["spec"]["containers"][0]["args"] == ["--x", None]
