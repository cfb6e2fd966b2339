"""Path edits (kqlint.fix.model) written as exact text edits (kqlint.fix): every byte outside
the edits is kept, the result parses to exactly the intended data, overlaps wait."""
from __future__ import annotations

from typing import Any

import pytest
from kqlint.domain.objects import objects_from_file
from kqlint.fix import fix_file, plain_ok, scalar_text
from kqlint.fix.model import Edit, Fix
from kqlint.loader import parse_bytes
from kqlint.model import Finding, Severity

JOB = """\
# leading comment
apiVersion: batch/v1   # trailing comment
kind: Job
metadata:
  name: train
  labels: {team: ml, 'tier': "gold"}
spec:
  parallelism: "2"
  template:
    spec:
      containers:
        - name: main   # the main one
          image: 'ghcr.io/x:1'
          args: [--a, --b, --c]
        - name: side
          image: busybox
      restartPolicy: Never
"""


def _finding(text: str, name: str, *edits: Edit, at: tuple[Any, ...] = ()) -> Finding:
    source = parse_bytes("f.yaml", text.encode("utf-8"))
    objects, _, _ = objects_from_file(source, "default")
    obj = next(o for o in objects if o.name == name)
    return Finding("KQ999", "test", Severity.ERROR, "m", obj.at(*at), fix=Fix.safe("t", *edits))


def _fix(text: str, *edits: Edit, name: str = "train", encoding: str = "utf-8") -> str:
    result = fix_file(text.encode(encoding), "f.yaml", [_finding(text, name, *edits)])
    assert result.applied, (result.failed, result.deferred)
    return result.text


def _changed_lines(before: str, after: str) -> list[tuple[str, str]]:
    return [(a, b) for a, b in zip(before.splitlines(), after.splitlines(), strict=False) if a != b]


@pytest.mark.parametrize(("path", "value", "line"), [
    (("spec", "parallelism"), "4", '  parallelism: "4"'),          # double quotes kept
    (("spec", "parallelism"), 4, "  parallelism: 4"),              # an int is written plain
    (("spec", "template", "spec", "containers", 0, "image"), "busybox:2", "          image: 'busybox:2'"),
    (("spec", "template", "spec", "restartPolicy"), "OnFailure", "      restartPolicy: OnFailure"),
    (("spec", "template", "spec", "restartPolicy"), "true", '      restartPolicy: "true"'),  # would be a bool
    (("metadata", "labels", "team"), "a,b", '  labels: {team: "a,b", \'tier\': "gold"}'),  # flow: quoted
])
def test_replace_keeps_the_quoting_style_while_it_means_the_value(path: tuple[Any, ...], value: Any,
                                                                   line: str) -> None:
    after = _fix(JOB, Edit.replace(path, value))
    assert [b for _, b in _changed_lines(JOB, after)] == [line]


def test_rename_changes_only_the_key() -> None:
    after = _fix(JOB, Edit.rename(("spec", "parallelism"), "completions"))
    assert _changed_lines(JOB, after) == [('  parallelism: "2"', '  completions: "2"')]


def test_remove_block_entry_is_whole_lines_and_keeps_comments() -> None:
    after = _fix(JOB, Edit.remove(("spec", "template", "spec", "restartPolicy")))
    assert after == JOB.replace("      restartPolicy: Never\n", "")


def test_remove_list_item_and_first_key_of_an_item() -> None:
    after = _fix(JOB, Edit.remove(("spec", "template", "spec", "containers", 1)))
    assert after == JOB.replace("        - name: side\n          image: busybox\n", "")
    after = _fix(JOB, Edit.remove(("spec", "template", "spec", "containers", 0, "name")))
    assert "        - image: 'ghcr.io/x:1'\n" in after and "the main one" not in after


@pytest.mark.parametrize(("path", "line"), [
    (("metadata", "labels", "team"), "  labels: {'tier': \"gold\"}"),
    (("metadata", "labels", "tier"), "  labels: {team: ml}"),
    (("spec", "template", "spec", "containers", 0, "args", 1), "          args: [--a, --c]"),
    (("spec", "template", "spec", "containers", 0, "args", 2), "          args: [--a, --b]"),
])
def test_remove_in_flow_style_takes_the_comma(path: tuple[Any, ...], line: str) -> None:
    after = _fix(JOB, Edit.remove(path))
    assert [b for _, b in _changed_lines(JOB, after)] == [line]


def test_insert_into_a_block_mapping_at_the_siblings_indentation() -> None:
    after = _fix(JOB, Edit.insert(("spec", "template", "spec"), "priorityClassName", "low"),
                 Edit.insert(("metadata",), "annotations", {"a/b": "true", "c": "x y"}),
                 Edit.insert(("spec", "template"), "metadata", {"labels": {"c": ["x", {"k": 1}]}}))
    assert "      restartPolicy: Never\n      priorityClassName: low\n" in after
    assert '  labels: {team: ml, \'tier\': "gold"}\n  annotations:\n    a/b: "true"\n    c: x y\nspec:\n' in after
    assert "    metadata:\n      labels:\n        c:\n          - x\n          - k: 1\n" in after


def test_insert_into_a_flow_mapping_inline() -> None:
    after = _fix(JOB, Edit.insert(("metadata", "labels"), "kai.scheduler/enabled", "true"))
    assert '  labels: {team: ml, \'tier\': "gold", kai.scheduler/enabled: "true"}\n' in after


def test_crlf_bom_and_missing_final_newline_are_kept() -> None:
    text = "\ufeff" + JOB.replace("\n", "\r\n").rstrip("\r\n")
    raw = text.encode("utf-8")
    finding = _finding(text[1:], "train", Edit.insert(("spec", "template", "spec"), "x", "z"),
                       Edit.replace(("spec", "parallelism"), "3"))
    result = fix_file(raw, "f.yaml", [finding])
    assert result.applied
    assert result.text == text[1:].replace('"2"', '"3"') + "\r\n      x: z\r\n"


def test_multi_document_edits_target_their_document() -> None:
    text = JOB + "---\n" + JOB.replace("name: train", "name: other")
    after = _fix(text, Edit.replace(("spec", "parallelism"), "9"), name="other")
    first, second = after.split("---\n")
    assert first == JOB and '  parallelism: "9"' in second


def test_overlapping_fixes_wait_for_the_next_pass() -> None:
    one = _finding(JOB, "train", Edit.insert(("spec",), "a", "1"))
    two = _finding(JOB, "train", Edit.insert(("spec",), "b", "2"))
    result = fix_file(JOB.encode(), "f.yaml", [one, two])
    assert len(result.applied) == 1 and len(result.deferred) == 1


def test_an_edit_that_would_not_parse_as_intended_is_refused() -> None:
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: train\ndata: &d {a: '1'}\nother: *d\n"
    finding = _finding(text, "train", Edit.replace(("other", "a"), "2"))  # through an alias
    result = fix_file(text.encode(), "f.yaml", [finding])
    assert not result.applied and result.failed and result.text == text


def test_a_file_changed_since_the_findings_is_stale() -> None:
    finding = _finding(JOB, "train", Edit.replace(("spec", "parallelism"), "3"), at=("spec", "parallelism"))
    moved = "# one more line\n" + JOB
    result = fix_file(moved.encode(), "f.yaml", [finding])
    assert result.stale and not result.applied


def test_idempotent_when_the_edit_is_already_there() -> None:
    after = _fix(JOB, Edit.insert(("spec",), "backoffLimit", 0))
    result = fix_file(after.encode(), "f.yaml", [_finding(after, "train", Edit.insert(("spec",), "backoffLimit", 0))])
    assert not result.applied and result.text == after


@pytest.mark.parametrize(("value", "plain"), [
    ("Never", True), ("true", False), ("1", False), ("a: b", False), ("- x", False), ("", False),
    ("x #y", False), ("nvidia.com/gpu", True), ("~", False), ("0x1F", False), ("a,b", True),
])
def test_plain_only_when_go_yaml_reads_the_same_string(value: str, plain: bool) -> None:
    assert plain_ok(value) is plain
    assert scalar_text(value) == (value if plain else __import__("json").dumps(value))


def test_insert_into_an_empty_flow_mapping() -> None:
    text = JOB.replace("  labels: {team: ml, 'tier': \"gold\"}", "  labels: {}")
    after = _fix(text, Edit.insert(("metadata", "labels"), "a", "b"))
    assert [b for _, b in _changed_lines(text, after)] == ["  labels: {a: b}"]


CONFIG_MAP = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: cfg
data:
  config.yaml: |
    a: 1
    b:
      c: 2
  other.yaml: |-
    x: 1
"""


@pytest.mark.parametrize(("key", "value"), [
    ("config.yaml", "a: 1\nb:\n  c: 3\n\nd: [x]\n"),   # a blank line inside, clip chomping
    ("config.yaml", "a: 2"),                           # no final line break: |-
    ("other.yaml", "x: 2\ny: 3\n"),                    # the last block of the file
])
def test_a_literal_block_is_replaced_by_a_literal_block_at_its_indentation(key: str, value: str) -> None:
    fixed = _fix(CONFIG_MAP, Edit.replace(("data", key), value), name="cfg")
    document = parse_bytes("f.yaml", fixed.encode()).documents[0]
    assert document["data"][key] == value and "\\n" not in fixed
    assert fixed.endswith("\n") and f"  {key}: |" in fixed


def test_a_value_a_literal_block_cannot_hold_is_quoted() -> None:
    fixed = _fix(CONFIG_MAP, Edit.replace(("data", "config.yaml"), "  indented first\nline\n"), name="cfg")
    assert '  config.yaml: "  indented first\\nline\\n"' in fixed
