"""KQ002's bounds: the sizes, ranges and patterns of a CRD's schema the API server checks."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from kqlint.cli import main
from kqlint.schema import OUT_OF_BOUNDS, Validator
from kqlint.schema.crd import go_compatible, to_schema

BOUNDED = {
    "type": "object",
    "properties": {
        "spec": {
            "type": "object",
            "properties": {
                "levels": {"type": "array", "minItems": 1, "maxItems": 2, "items": {"type": "string", "maxLength": 5}},
                "labels": {"type": "object", "maxProperties": 1, "additionalProperties": {"type": "string"}},
                "weight": {"type": "integer", "minimum": 1, "exclusiveMaximum": True, "maximum": 10},
                "quota": {"x-kubernetes-int-or-string": True, "pattern": "^[0-9]+(m|Gi)?$"},
                "name": {"type": "string", "pattern": "^[a-z]+$", "minLength": 2},
            },
        },
    },
}


def _problems(data: dict[str, Any], patterns: bool = True) -> list[tuple[tuple[Any, ...], str]]:
    validator = Validator(to_schema(BOUNDED, patterns=patterns))
    return [(v.path, v.expected[0]) for v in validator.validate(data) if v.problem == OUT_OF_BOUNDS]


def test_each_bound_is_checked_on_its_own_type() -> None:
    assert _problems({"spec": {"levels": ["a"], "labels": {"a": "1"}, "weight": 9, "quota": 4, "name": "ab"}}) == []
    assert _problems({"spec": {"quota": "500m"}}) == []  # int-or-string: the pattern reads strings only
    found = _problems({"spec": {"levels": [], "labels": {"a": "1", "b": "2"}, "weight": 10, "quota": "1Gb",
                                "name": "a"}})
    assert found == [
        (("spec", "levels"), "Invalid value: 0: should have at least 1 items"),
        (("spec", "labels"), "Too many: 2: must have at most 1 items"),
        (("spec", "weight"), "Invalid value: 10: should be less than 10"),  # exclusiveMaximum: true
        (("spec", "quota"), 'Invalid value: "1Gb": should match \'^[0-9]+(m|Gi)?$\''),
        (("spec", "name"), 'Invalid value: "a": should be at least 2 chars long'),
    ]
    assert _problems({"spec": {"levels": ["a", "b", "toolong"], "weight": 0}}) == [
        (("spec", "levels"), "Too many: 3: must have at most 2 items"),
        (("spec", "levels", 2), "Too long: may not be more than 5 characters (7)"),
        (("spec", "weight"), "Invalid value: 0: should be greater than or equal to 1"),
    ]
    assert _problems({"spec": {"weight": True, "name": 3}}) == []  # wrong types are KQ002's type findings
    assert _problems({"spec": {"labels": {"a": "1", "b": None}}}) == []  # a null map value is pruned, not counted


def test_a_crd_files_patterns_are_not_run() -> None:
    """``--crd`` files come with the repository: their patterns are dropped (no ReDoS), the sizes kept."""
    assert _problems({"spec": {"quota": "1Gb", "name": "B"}}, patterns=False) == [
        (("spec", "name"), 'Invalid value: "B": should be at least 2 chars long')]


@pytest.mark.parametrize(("pattern", "portable"), [
    ("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", True), ("^(?:[a-z]|[%][0-9a-f]{2})+$", True),
    ("^[[:alpha:]]+$", False), ("(?i)^abc$", False), (r"^\pL+$", False), (r"^a\z", False), ("^(a", False),
])
def test_patterns_python_reads_as_go_does(pattern: str, portable: bool) -> None:
    assert go_compatible(pattern) is portable


# a CRD (JSON is YAML) whose one field carries a pattern that backtracks exponentially
HOSTILE_CRD = json.dumps({
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.example.com"},
    "spec": {"group": "example.com", "names": {"kind": "Widget", "plural": "widgets"}, "scope": "Namespaced",
             "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                 "type": "object", "properties": {"spec": {"type": "object", "properties": {
                     "name": {"type": "string", "pattern": "^(a+)+$", "maxLength": 100}}}}}}}]},
})


def test_a_backtracking_pattern_from_the_repository_is_never_run(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    # `(a+)+$` against 40 `a`s and a `!` backtracks for hours in Python's matcher; a --crd pattern
    # is not kept, so a value is only held to its length. `b` fails the pattern at once: were the
    # pattern run, it would be a finding (a test that fails, where the hostile value would hang)
    (tmp_path / "crd.yaml").write_text(HOSTILE_CRD)
    for name in ("b", "a" * 101):
        (tmp_path / "w.yaml").write_text("apiVersion: example.com/v1\nkind: Widget\n"
                                         f"metadata: {{name: w, namespace: ns}}\nspec:\n  name: {name}\n")
        main(["check", str(tmp_path / "w.yaml"), "--crd", str(tmp_path / "crd.yaml"), "--select", "KQ002",
              "--format", "json", "--no-cache", "--no-config"])
        findings = json.loads(capsys.readouterr().out)["findings"]
        assert [f["message"].split("`: ", 1)[-1][:8] for f in findings] == ([] if name == "b" else ["Too long"])


def test_one_object_gives_at_most_a_hundred_findings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # 5,000 flavors with a bad name and a bad quota each: 10,001 violations (the list is too long
    # too), reported as 100 findings, the last one counting the rest (a hostile file made 150,000)
    flavor = "    - name: Bad_{}\n      resources: [{{name: cpu, nominalQuota: 1Gb}}]\n"
    flavors = "".join(flavor.format(i) for i in range(5000))
    (tmp_path / "cq.yaml").write_text("apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: cq}\n"
                                      "spec:\n  namespaceSelector: {}\n  resourceGroups:\n"
                                      "  - coveredResources: [cpu]\n    flavors:\n" + flavors)
    main(["check", str(tmp_path / "cq.yaml"), "--select", "KQ002", "--format", "json", "--no-cache", "--no-config"])
    findings = json.loads(capsys.readouterr().out)["findings"]
    assert len(findings) == 100
    assert findings[-1]["message"].endswith("(9901 more violations of this object are not listed)")


def test_a_negative_gang_size_is_the_schema_s_alone(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`minAvailable: -2` is below the schema's minimum (KQ002, at the value); KQ301 does not also
    compare it with the replicas: the gang's size means nothing until it is a count."""
    (tmp_path / "job.yaml").write_text(
        "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: vj, namespace: ns}\nspec:\n"
        "  minAvailable: -2\n  schedulerName: volcano\n  tasks:\n  - name: worker\n    replicas: 2\n"
        "    template:\n      spec:\n        restartPolicy: Never\n        containers: [{name: c, image: busybox}]\n")
    main(["check", str(tmp_path / "job.yaml"), "--format", "json", "--no-cache", "--no-config"])
    findings = json.loads(capsys.readouterr().out)["findings"]
    assert [(f["code"], f["line"], f["column"]) for f in findings] == [("KQ002", 5, 17)]
