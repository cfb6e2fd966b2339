"""The loader (cli.md "Inputs"): streams, JSON, List expansion, non-Kubernetes documents,
Helm templates (KQ006), bad input (KQ001, one per file, with line/column, never a crash),
and exact positions of keys, values and sequence items."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import shared_dir
from kqlint.config import Config
from kqlint.domain.objects import objects_from_file
from kqlint.engine.pipeline import lint
from kqlint.loader import Map, Seq, iter_paths, load_file, parse_bytes, position, unpack
from kqlint.model import Location, Report
from unprivileged import python

LOADER = Path(__file__).parent / "fixtures" / "loader"
ENGINE = Config(select=("KQ001", "KQ006"))
CONFIGMAP = b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ok\ndata:\n  key: value\n"


def lint_here(paths: list[str], config: Config = ENGINE, **kwargs: Any) -> Report:
    return lint(paths, config, **kwargs)


def findings(report: Report) -> list[tuple[str, int, int, str]]:
    return [(f.location.file, f.location.line, f.location.column, f.code) for f in report.findings]


def lc(location: Location) -> tuple[int, int]:
    return location.line, location.column


@pytest.fixture
def loader_tree(in_tmp_cwd: Path) -> Path:
    """The loader fixtures copied outside the repository: linting single files inside the
    repository would load the whole repository as context (pre-commit mode), slowly."""
    shutil.copytree(LOADER, in_tmp_cwd, dirs_exist_ok=True)
    return in_tmp_cwd


def load(name: str) -> Any:
    return load_file(str(LOADER / name), name)


# ------------------------------------------------------------------ streams, JSON, lists

def test_multi_document_stream() -> None:
    source = load("multi-doc.yaml")
    assert source.problems == []
    objects, documents, skipped = objects_from_file(source, "default")
    assert [(o.kind, o.namespace, o.name) for o in objects] == [
        ("ConfigMap", "default", "first"), ("Service", "web", "second"), ("PriorityClass", None, "third")]
    assert (documents, skipped) == (3, 0)  # empty and comment-only documents are not documents
    service = objects[1]
    assert (service.at("spec", "ports", 0, "targetPort").line, service.at("spec", "ports", 0).column) == (20, 7)
    assert lc(service.at_value("metadata", "namespace")) == (16, 14)
    priority = objects[2]
    assert (priority.at("metadata", "name").line, priority.at("metadata", "name").column) == (24, 12)
    assert (priority.at_value("value").line, priority.at_value("value").column) == (25, 8)


def test_json_file() -> None:
    source = load("object.json")
    assert source.problems == []
    [job] = objects_from_file(source, "default")[0]
    assert (job.kind, job.namespace, job.name, job.get("spec", "parallelism")) == ("Job", "team-a", "from-json", 2)
    assert lc(job.at("metadata", "name")) == (5, 5)
    assert lc(job.at_value("spec", "parallelism")) == (9, 20)
    container = job.at("spec", "template", "spec", "containers", 0, "image")
    assert (container.line, container.column) == (10, 59)


def test_list_kinds_are_expanded() -> None:
    source = load("lists.yaml")
    objects, documents, skipped = objects_from_file(source, "default")
    assert [(o.kind, o.namespace, o.name) for o in objects] == [
        ("ConfigMap", "default", "list-a"), ("ConfigMap", "other", "list-b"),
        ("ConfigMap", "default", "typed-list-item")]
    assert (documents, skipped) == (3, 0)
    list_b, typed = objects[1], objects[2]
    assert (list_b.location().line, list_b.location().column) == (8, 5)  # the item, not the List
    assert lc(list_b.at("metadata", "namespace")) == (12, 7)
    assert lc(typed.at("metadata", "name")) == (21, 5)


def test_non_kubernetes_documents_are_skipped_and_counted(loader_tree: Path) -> None:
    report = lint_here(["not-kubernetes.yaml"], Config())
    assert report.findings == ()
    assert (report.summary.documents, report.summary.skipped_documents, report.summary.objects) == (5, 5, 0)


def test_whole_fixture_folder_summary(loader_tree: Path) -> None:
    report = lint_here(["."])
    # chart templates are not read; Chart.yaml and values.yaml are read and skipped as non-Kubernetes
    assert report.summary.files == 11
    assert report.summary.skipped_documents == 7
    assert findings(report) == [
        ("chart/Chart.yaml", 1, 1, "KQ006"),
        ("duplicate-keys.yaml", 6, 3, "KQ001"),
        ("python-tag.yaml", 4, 9, "KQ001"),
        ("stray-template.yaml", 6, 5, "KQ006"),
    ]


# ------------------------------------------------------------------ templates (KQ006)

def test_helm_chart_is_one_kq006_at_chart_yaml(loader_tree: Path) -> None:
    report = lint_here(["chart"])
    direct = lint_here(["chart/templates/job.yaml", "chart/templates/sub/cm.yaml"])
    assert findings(report) == [("chart/Chart.yaml", 1, 1, "KQ006")]
    [finding] = report.findings
    assert "2 unrendered template file(s)" in finding.message
    assert "so nothing in them is linted" in finding.message
    assert finding.remedy == "Lint the rendered output instead: `helm template chart | kqlint check -`"
    assert report.summary.files == 2  # Chart.yaml, values.yaml
    assert findings(direct) == [("chart/Chart.yaml", 1, 1, "KQ006")]  # as pre-commit passes them


def test_stray_template_is_kq006_at_the_first_template_expression(loader_tree: Path) -> None:
    report = lint_here(["stray-template.yaml"])
    assert findings(report) == [("stray-template.yaml", 6, 5, "KQ006")]
    assert "helm template" in (report.findings[0].remedy or "")
    assert report.summary.objects == 0


@pytest.mark.parametrize(("text", "expected"), [
    ("kind: Job\nmetadata:\n  name: ${job}\n%{ if gpu ~}\n  labels: {}\n%{ endif ~}\n", (3, 9, "KQ006")),
    ("kind: Job\nmetadata:\n  name: a\n  labels:\n    ip: ${v6 ? \"IPv6\" : \"IPv4\"}\n", (5, 9, "KQ006")),
    ("kind: Job\nmetadata:\n  name: ${job}\n  labels: [\n", (4, 12, "KQ001")),  # broken, no Terraform syntax
    ("kind: Job\nmetadata:\n  name: a\n%{x}\n", (4, 2, "KQ001")),  # `%{` that is no directive
])
def test_terraform_template_syntax_makes_broken_yaml_an_unrendered_template(
        text: str, expected: tuple[int, int, str], in_tmp_cwd: Path) -> None:
    (in_tmp_cwd / "job.yaml").write_text(text)
    report = lint_here(["job.yaml"])
    assert [(f.location.line, f.location.column, f.code) for f in report.findings] == [expected]
    if expected[2] == "KQ006":
        assert "Terraform" in report.findings[0].message and "templatefile()" in (report.findings[0].remedy or "")


def test_braces_inside_valid_yaml_are_linted_normally(loader_tree: Path) -> None:
    report = lint_here(["braces-in-strings.yaml"])
    assert report.findings == ()
    assert report.summary.objects == 2
    source = load("braces-in-strings.yaml")
    workflow = objects_from_file(source, "default")[0][0]
    assert workflow.get("spec", "arguments", "parameters", 0, "value") == "{{workflow.name}}"


def test_templates_under_a_folder_named_templates_without_chart_are_linted(in_tmp_cwd: Path) -> None:
    (in_tmp_cwd / "templates").mkdir()
    (in_tmp_cwd / "templates" / "cm.yaml").write_bytes(CONFIGMAP)
    report = lint_here(["."])
    assert report.findings == () and report.summary.objects == 1


# ------------------------------------------------------------------ bad input (KQ001)

def test_every_bad_file_is_one_kq001_and_the_rest_is_linted(in_tmp_cwd: Path) -> None:
    files = {
        "a-malformed.yaml": b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [x\n  labels: {}\n",
        "b-binary.yaml": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
        "c-latin1.yaml": b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: caf\xe9\n",
        "d-oversized.yaml": CONFIGMAP + b"# " + b"x" * 400 + b"\n",
        "e-tab.yaml": b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n\tname: tab\n",
        "f-utf16-broken.yaml": b"\xff\xfea\x00\x00\xd8",
        "g-unclosed-quote.json": b'{"apiVersion": "v1", "kind": "ConfigMap",\n "metadata": {"name": "x}}\n',
        "ok.yaml": CONFIGMAP,
        "ok2.json": b'{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "ok2"}}',
    }
    for name, data in files.items():
        (in_tmp_cwd / name).write_bytes(data)
    report = lint_here(["."], Config(select=("KQ001",), max_file_size=len(CONFIGMAP) + 100))
    assert findings(report) == [
        ("a-malformed.yaml", 5, 9, "KQ001"),
        ("b-binary.yaml", 3, 1, "KQ001"),
        ("c-latin1.yaml", 4, 12, "KQ001"),
        ("d-oversized.yaml", 1, 1, "KQ001"),
        ("e-tab.yaml", 4, 1, "KQ001"),
        ("f-utf16-broken.yaml", 1, 1, "KQ001"),
        ("g-unclosed-quote.json", 2, 27, "KQ001"),  # at the end of the last line, the line kubectl names
    ]
    messages = {f.location.file: f.message for f in report.findings}
    assert "binary" in messages["b-binary.yaml"] and "UTF-8" in messages["c-latin1.yaml"]
    assert "size limit" in messages["d-oversized.yaml"]
    assert report.summary.objects == 2 and report.summary.files == 9


def test_tags_are_read_as_kubectl_reads_them_and_never_executed(in_tmp_cwd: Path) -> None:
    (in_tmp_cwd / "tagged.yaml").write_bytes((LOADER / "python-tag.yaml").read_bytes())
    (in_tmp_cwd / "more.yaml").write_bytes(
        b"a: !!python/name:os.system\n---\nb: !!python/object:os.mkdir {}\n---\nc: !Custom x\n---\n"
        b"d: !!set {x}\n---\n" + CONFIGMAP)
    report = lint_here(["."])
    assert not (in_tmp_cwd / "PWNED-BY-YAML").exists()
    # kubectl reads `name: !!python/object/apply:os.mkdir [...]` as a list: not a valid ObjectMeta
    assert findings(report) == [("tagged.yaml", 4, 9, "KQ001")]
    assert "metadata.name` must be a string, not a list" in report.findings[0].message
    assert report.summary.objects == 1 and report.summary.skipped_documents == 4
    docs = parse_bytes("more.yaml", (in_tmp_cwd / "more.yaml").read_bytes()).documents
    assert docs[:4] == [{"a": ""}, {"b": {}}, {"c": "x"}, {"d": {"x": None}}]


def test_scalars_and_tags_as_go_yaml_v2_reads_them() -> None:
    data = (b"a: !Ref Foo\nb: !!python/object:os.system ls\nc: !!binary aGVsbG8=\nd: 1:30\ne: 0o17\n"
            b"f: =\ng: !Ref 5\nh: !!str 12\ni: 08\nj: 1e3\nk: 0x_1F\nl: 1e400\nm: 18446744073709551616\n"
            b"ts: 2001-01-01\no: !!int '12'\np: !!float 3\nq: -0b101\ny: 1\n3: x\n1.5: z\nlast: |\n  no final break")
    [doc] = parse_bytes("s.yaml", data).documents
    assert doc == {"a": "Foo", "b": "ls", "c": "hello", "d": "1:30", "e": 15, "f": "=", "g": "5", "h": "12",
                   "i": 8.0, "j": 1000.0, "k": 31, "l": "1e400", "m": 18446744073709551616.0, "ts": "2001-01-01",
                   "o": 12, "p": 3.0, "q": -5, "true": 1, "3": "x", "1.5": "z", "last": "no final break\n"}


@pytest.mark.parametrize("value,decoded", [
    ("QUJD", "ABC"), ("QUJDRA==", "ABCD"), ("QUJDREU=", "ABCDE"), ("|\n    QUJD\n    RA==", "ABCD"), ("", ""),
    ("QUJD=", None), ("QUJD==", None), ("QUJDRA=", None), ("QUJDRA", None), ("QU=D", None), ("QU JD", None),
])
def test_binary_scalars_decode_as_kubectl_decodes_them(value: str, decoded: str | None) -> None:
    # Measured: `kubectl create --dry-run=client` refuses each None case with "!!binary value
    # contains invalid base64 data" (Go's base64.StdEncoding), and decodes the others.
    source = parse_bytes("b.yaml", CONFIGMAP + f"extra:\n  a: !!binary {value}\n".encode())
    if decoded is None:
        [problem] = source.problems
        assert (problem.code, problem.line) == ("KQ001", 8)
        assert "!!binary value contains invalid base64 data" in problem.message
    else:
        assert not source.problems and source.documents[0]["extra"] == {"a": decoded}


def test_huge_integers_never_crash_and_read_as_kubectl(in_tmp_cwd: Path) -> None:
    digits = "7" * 5000
    data = f"a: {digits}\nb: 0x{'f' * 5000}\nc: 0o{digits}\nd: 0{digits}\ne: {digits[:300]}\n".encode()
    started = time.monotonic()
    [doc] = parse_bytes("big.yaml", data).documents
    assert time.monotonic() - started < 2
    # go-yaml: no 64-bit integer, ParseFloat out of range (or not decimal): the string stays
    assert doc["a"] == digits and doc["b"] == "0x" + "f" * 5000 and doc["c"] == "0o" + digits
    assert doc["d"] == "0" + digits and doc["e"] == float(digits[:300])


def test_alias_bomb_is_bounded(in_tmp_cwd: Path) -> None:
    lines = [b'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 10):
        name, prev = chr(97 + i).encode(), chr(96 + i).encode()
        lines.append(name + b": &" + name + b" [" + b",".join([b"*" + prev] * 9) + b"]")
    (in_tmp_cwd / "bomb.yaml").write_bytes(b"\n".join(lines) + b"\n---\n" + CONFIGMAP)
    started = time.monotonic()
    report = lint_here(["bomb.yaml"], Config())
    assert time.monotonic() - started < 10
    assert findings(report) == [("bomb.yaml", 1, 1, "KQ001")]
    assert "alias" in report.findings[0].message
    assert report.summary.objects == 1


def test_shared_aliases_below_the_budget_load(in_tmp_cwd: Path) -> None:
    data = b"defaults: &d {image: busybox, name: main}\nitems: [*d, *d, *d]\n"
    source = parse_bytes("x.yaml", data)
    assert source.problems == [] and source.documents[0]["items"][2]["image"] == "busybox"


@pytest.mark.parametrize("data,where", [
    (b"a: " + b"[" * 100_000 + b"]" * 100_000, (1, 203)),          # flow: deeper than the C stack
    (b"- " * 50_000 + b"x\n", (1, 401)),                           # compact block sequences
    (b"".join(b" " * i + b"k:\n" for i in range(300)), (1, 1)),     # plain indentation
])
def test_deep_nesting_is_one_kq001_and_never_crashes(tmp_path: Path, data: bytes, where: tuple[int, int]) -> None:
    # In a subprocess: a regression here would be a segfault, not an exception.
    (tmp_path / "deep.yaml").write_bytes(data)
    (tmp_path / "ok.yaml").write_bytes(CONFIGMAP)
    result = subprocess.run([sys.executable, "-m", "kqlint.cli", "check", ".", "--select", "KQ001", "-f", "github"],
                            cwd=tmp_path, capture_output=True, timeout=120, check=False, stdin=subprocess.DEVNULL)
    assert result.returncode == 1, result.stderr.decode()
    lines = result.stdout.decode().splitlines()
    assert len(lines) == 1 and "deeper than 200 levels" in lines[0]
    assert lines[0].startswith(f"::error file=deep.yaml,line={where[0]},col={where[1]},")


def test_duplicate_keys_point_at_the_second_and_keep_the_last(in_tmp_cwd: Path) -> None:
    source = load("duplicate-keys.yaml")
    [problem] = source.problems
    assert (problem.line, problem.column) == (6, 3) and "first at line 4" in problem.message
    [obj] = objects_from_file(source, "default")[0]
    assert obj.name == "second-name"
    assert lc(obj.at("metadata", "name")) == (6, 3)
    assert lc(obj.at("metadata", "namespace")) == (5, 3)


def test_fifo_does_not_block(tmp_path: Path) -> None:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs on this platform")
    os.mkfifo(tmp_path / "pipe.yaml")
    (tmp_path / "ok.yaml").write_bytes(CONFIGMAP)
    result = subprocess.run([sys.executable, "-m", "kqlint.cli", "check", ".", "-f", "github", "--select", "KQ001"],
                            cwd=tmp_path, capture_output=True, timeout=60, check=False, stdin=subprocess.DEVNULL)
    assert result.returncode == 1
    [line] = result.stdout.decode().splitlines()
    assert line.startswith("::error file=pipe.yaml,line=1,col=1,title=KQ001::not a regular file")


def test_dangling_symlink_is_one_kq001(in_tmp_cwd: Path) -> None:
    (in_tmp_cwd / "ok.yaml").write_bytes(CONFIGMAP)
    os.symlink(in_tmp_cwd / "gone.yaml", in_tmp_cwd / "dangling.yaml")
    report = lint_here(["."])
    assert findings(report) == [("dangling.yaml", 1, 1, "KQ001")]
    assert "cannot read file" in report.findings[0].message
    assert report.summary.objects == 1


def test_unreadable_file_is_one_kq001(in_tmp_cwd: Path) -> None:
    target = in_tmp_cwd / "secret.yaml"
    target.write_bytes(CONFIGMAP)
    (in_tmp_cwd / "ok.yaml").write_bytes(CONFIGMAP)
    target.chmod(0)
    try:  # in a child process, which the file mode binds even under root (tests/unprivileged.py)
        result = python(["-m", "kqlint", "check", ".", "--no-config", "--select", "KQ001,KQ006", "-f", "json"],
                        in_tmp_cwd)
    finally:
        target.chmod(0o644)
    report = json.loads(result.stdout)
    assert [(f["file"], f["line"], f["column"], f["code"]) for f in report["findings"]] == [
        ("secret.yaml", 1, 1, "KQ001")], result.stderr
    assert "cannot read file" in report["findings"][0]["message"] and report["summary"]["objects"] == 1


def test_empty_and_comment_only_files(in_tmp_cwd: Path) -> None:
    (in_tmp_cwd / "empty.yaml").write_bytes(b"")
    (in_tmp_cwd / "comments.yaml").write_bytes(b"# nothing here\n---\n# still nothing\n")
    (in_tmp_cwd / "blank.json").write_bytes(b"\n\n")
    report = lint_here(["."], Config())
    assert report.findings == ()
    assert (report.summary.files, report.summary.documents, report.summary.objects) == (3, 0, 0)


# ------------------------------------------------------------------ encodings and line endings

def _name_position(data: bytes) -> tuple[int, int]:
    source = parse_bytes("x.yaml", data)
    assert source.problems == []
    [obj] = objects_from_file(source, "default")[0]
    assert obj.name == "ok"
    return lc(obj.at_value("metadata", "name"))


def test_bom_utf16_and_crlf_keep_positions() -> None:
    expected = _name_position(CONFIGMAP)
    assert expected == (4, 9)
    assert _name_position(b"\xef\xbb\xbf" + CONFIGMAP) == expected
    assert _name_position(b"\xff\xfe" + CONFIGMAP.decode().encode("utf-16-le")) == expected
    assert _name_position(b"\xfe\xff" + CONFIGMAP.decode().encode("utf-16-be")) == expected
    assert _name_position(CONFIGMAP.replace(b"\n", b"\r\n")) == expected


def test_crlf_error_positions(in_tmp_cwd: Path) -> None:
    (in_tmp_cwd / "crlf.yaml").write_bytes(
        b"apiVersion: v1\r\nkind: ConfigMap\r\nmetadata:\r\n  name: [x\r\n  a: b\r\n")
    (in_tmp_cwd / "lf.yaml").write_bytes(b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [x\n  a: b\n")
    report = lint_here(["."])
    assert [f[1:] for f in findings(report)] == [(5, 4, "KQ001"), (5, 4, "KQ001")]


def test_non_ascii_columns_count_characters() -> None:
    data = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ok, labels: {é: ü, x: z}}\n".encode()
    [obj] = objects_from_file(parse_bytes("x.yaml", data), "default")[0]
    assert lc(obj.at("metadata", "labels", "x")) == (3, 37)


# ------------------------------------------------------------------ positions

def test_positions_of_keys_values_and_items() -> None:
    source = load("positions.yaml")
    [job] = objects_from_file(source, "default")[0]
    container = ("spec", "template", "spec", "containers")
    cases = {
        ("metadata", "labels", "app"): (5, 12), ("metadata", "labels", "quoted key"): (5, 23),
        ("metadata", "annotations", "long"): (7, 5),
        container + (0,): (15, 11), container + (0, "args", 0): (18, 15),
        container + (0, "args", 1): (19, 17), container + (0, "args", 2): (20, 15),
        container + (0, "args", 2, 1): (21, 17), container + (0, "env", 0, "value"): (23, 25),
        container + (1, "env"): (26, 11), ("spec", "quoted"): (28, 3), ("spec", "explicit"): (29, 5),
    }
    for path, expected in cases.items():
        assert lc(job.at(*path)) == expected, path
    values = {("metadata", "labels", "quoted key"): (5, 37), ("metadata", "annotations", "long"): (7, 11),
              ("spec", "parallelism"): (11, 16), container + (0, "env"): (22, 16),
              ("spec", "explicit"): (30, 5),
              # an alias value is the anchored node itself (as in ruamel): it points at the anchor
              container + (1, "env"): (22, 16)}
    for path, expected in values.items():
        assert lc(job.at_value(*path)) == expected, path
    # the alias shares the anchored data and its positions
    assert job.get(*container, 1, "env", 0, "name") == "A"
    assert lc(job.at(*container, 1, "env", 0, "value")) == (23, 25)


def test_missing_paths_point_at_the_nearest_ancestor() -> None:
    [job] = objects_from_file(load("positions.yaml"), "default")[0]
    assert lc(job.at("spec", "template", "spec", "priorityClassName")) == (13, 5)
    assert lc(job.at("spec", "template", "spec", "containers", 7, "image")) == (14, 7)
    line, column, depth = position(job.root, ("spec", "nope", "deeper"))
    assert (line, column, depth) == (10, 1, 1)


def _compare_with_ruamel(ours: Any, theirs: Any, path: tuple[Any, ...], mismatches: list[Any]) -> int:
    """Compare our packed positions with ruamel's round-trip ``.lc``; returns nodes compared.
    Null values are not compared: ruamel puts them at the next token, we at the key's line."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    compared = 0
    if isinstance(theirs, CommentedMap) and isinstance(ours, Map) and not getattr(theirs, "merge", None):
        for index, (key, value) in enumerate(ours.items()):
            key_line, key_col, value_line, value_col = theirs.lc.data[key]
            if unpack(ours.pos[2 * index]) != (key_line + 1, key_col + 1):
                mismatches.append((path + (key,), "key", unpack(ours.pos[2 * index]), (key_line + 1, key_col + 1)))
            if value is not None and unpack(ours.pos[2 * index + 1]) != (value_line + 1, value_col + 1):
                mismatches.append((path + (key,), "value", unpack(ours.pos[2 * index + 1])))
            compared += 2 + _compare_with_ruamel(value, theirs[key], path + (key,), mismatches)
    elif isinstance(theirs, CommentedSeq) and isinstance(ours, Seq):
        for index, value in enumerate(ours):
            line, col = theirs.lc.data[index]
            if unpack(ours.pos[index]) != (line + 1, col + 1):
                mismatches.append((path + (index,), "item", unpack(ours.pos[index]), (line + 1, col + 1)))
            compared += 1 + _compare_with_ruamel(value, theirs[index], path + (index,), mismatches)
    return compared


def _ruamel_documents(data: bytes) -> list[Any] | None:
    from ruamel.yaml import YAML

    try:
        return list(YAML(typ="rt").load_all(data))
    except Exception:
        return None


def _assert_positions_match(files: list[Path]) -> int:
    total, mismatches = 0, []
    for file in files:
        data = file.read_bytes()
        source = parse_bytes(file.name, data)
        theirs = _ruamel_documents(data)
        if source.problems or theirs is None:
            continue
        assert len(theirs) == len(source.documents), file
        for ours_doc, their_doc in zip(source.documents, theirs, strict=True):
            found: list[Any] = []
            total += _compare_with_ruamel(ours_doc, their_doc, (), found)
            mismatches += [(file.name, *m) for m in found]
    assert mismatches == []
    return total


def test_positions_match_ruamel_round_trip_on_fixtures() -> None:
    files = sorted(p for p in LOADER.rglob("*") if p.suffix in (".yaml", ".json") and "templates" not in p.parts)
    assert _assert_positions_match(files) > 100


def test_positions_match_ruamel_round_trip_on_the_corpus() -> None:
    corpus = shared_dir("corpus")
    files = sorted(p for p in corpus.rglob("*") if p.suffix in (".yaml", ".yml", ".json"))
    sample = [p for p in files[::7] if p.stat().st_size < 200_000]
    assert _assert_positions_match(sample) > 10_000


def test_every_path_has_a_position_inside_the_file() -> None:
    for name in ("positions.yaml", "multi-doc.yaml", "lists.yaml", "object.json"):
        data = (LOADER / name).read_bytes()
        lines = data.split(b"\n")
        for document in parse_bytes(name, data).documents:
            for path in iter_paths(document):
                line, column, depth = position(document, path)
                assert depth == len(path) and 1 <= line <= len(lines)
                assert 1 <= column <= len(lines[line - 1]) + 1


def test_flow_colons_fall_back_to_the_pure_parser_with_exact_positions(tmp_path: Path) -> None:
    # ruamel.yaml.clib's libyaml refuses `:` inside a plain scalar of a flow collection; kubectl reads it.
    data = ("apiVersion: batch/v1\nkind: Job\nmetadata: {name: ddp, labels: {a: b}}\nspec:\n  template:\n"
            "    spec:\n      containers:\n      - {name: c, image: registry.example.com/ml/ddp:1.4,"
            " args: [--master, ddp-0.ddp:29500]}\n      - {name: é, image: x}\n").encode()
    source = parse_bytes("flow.yaml", data)
    assert source.problems == []
    [obj] = objects_from_file(source, "default")[0]
    containers = ("spec", "template", "spec", "containers")
    assert obj.get(*containers, 0, "image") == "registry.example.com/ml/ddp:1.4"
    assert obj.get(*containers, 0, "args") == ["--master", "ddp-0.ddp:29500"]
    assert lc(obj.at(*containers, 0, "args")) == (8, 59)
    assert lc(obj.at_value(*containers, 0, "args", 1)) == (8, 76)
    assert lc(obj.at_value(*containers, 1, "image")) == (9, 26)
    (tmp_path / "flow.yaml").write_bytes(data)
    assert _assert_positions_match([tmp_path / "flow.yaml"]) > 20


def test_fallback_reports_the_first_real_error() -> None:
    data = b"a: {image: reg.example.com/a:1.4}\nb: [x\nc: 1\n"
    [problem] = parse_bytes("bad.yaml", data).problems
    assert (problem.line, problem.column) == (3, 2) and problem.code == "KQ001"


def test_a_redefined_anchor_is_read_as_kubectl_reads_it() -> None:
    # ruamel.yaml.clib refuses a second `&x`; go-yaml (kubectl) lets the later one win
    source = parse_bytes("a.yaml", b"a: &x 1\nb: *x\nc: &x 2\nd: *x\n")
    assert source.problems == [] and source.documents == [{"a": 1, "b": 1, "c": 2, "d": 2}]


@pytest.mark.parametrize("data,where", [
    (b"%YAML 1.1\n---\n" + CONFIGMAP, (1, 1)),
    (CONFIGMAP + b"--- !tagged\n" + CONFIGMAP, (len(CONFIGMAP.splitlines()) + 1, 1)),
])
def test_what_kubectls_document_splitter_refuses_is_kq001(data: bytes, where: tuple[int, int]) -> None:
    [problem] = parse_bytes("s.yaml", data).problems
    assert (problem.line, problem.column) == where and "kubectl refuses this file" in problem.message


def test_separator_comments_and_non_kubernetes_streams_are_fine() -> None:
    assert parse_bytes("c.yaml", b"--- # first\n" + CONFIGMAP + b"---   \n" + CONFIGMAP).problems == []
    assert parse_bytes("cf.yaml", b"%YAML 1.1\n--- !Template\nResources: {}\n").problems == []


def test_go_template_read_as_a_flow_mapping_is_kq006_only_in_manifests() -> None:
    manifest = parse_bytes("t.yaml", b"apiVersion: v1\nkind: {{ .Values.kind }}\nmetadata: {name: x}\n")
    assert [(p.line, p.column, p.code) for p in manifest.problems] == [(2, 7, "KQ006")]
    assert manifest.documents == []
    other = parse_bytes("ci.yaml", b"steps:\n- run: {{ build }}\n")
    assert other.problems == [] and len(other.documents) == 1


@pytest.mark.parametrize("name,data,says", [
    ("job.yaml", CONFIGMAP + b"extra: {a: 1, a: 2, b: 1, b: 2}\n",
     "1 more repeated key(s) in this mapping): `kubectl apply` rejects"),
    ("values-prod.yaml", b"replicas: 1\nreplicas: 2\n", "Helm reads values files with the last value"),
])
def test_duplicate_keys_name_the_consuming_tool(name: str, data: bytes, says: str) -> None:
    [problem] = parse_bytes(name, data).problems
    assert says in problem.message and problem.code == "KQ001"


def test_duplicate_keys_in_other_documents_are_not_findings() -> None:
    assert parse_bytes(".github/ci.yaml", b"on: push\non: pull_request\n").problems == []


@pytest.mark.parametrize("name,data", [
    ("kustomization.yaml", b"namePrefix: a-\nnamePrefix: b-\n"),
    ("kustomization-prod.yaml", b"apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n"
                                b"namespace: a\nnamespace: b\n"),
])
def test_duplicate_keys_in_a_kustomization_are_not_kq001(name: str, data: bytes) -> None:
    """rules.md KQ001: a kustomization is not an object; kustomize reads it (the last value wins)."""
    assert parse_bytes(name, data).problems == []


def test_the_cache_key_covers_every_loader_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each module of the loader package decides what a file loads to: an edit of any of them
    must change the cache's settings key, so cached entries of another loader are never read."""
    import pkgutil

    import kqlint.loader
    from kqlint.cache import settings_key

    names = {info.name for info in pkgutil.iter_modules(kqlint.loader.__path__)}
    hashed = {module.__name__ for module in kqlint.loader.SOURCE_MODULES}
    assert {f"kqlint.loader.{name}" for name in names} <= hashed and len(names) >= 5
    walker = sys.modules["kqlint.loader.walker"]
    before = settings_key(kqlint.loader.MAX_FILE_SIZE)
    edited = tmp_path / "walker.py"
    edited.write_bytes(Path(str(walker.__file__)).read_bytes() + b"\n# a change\n")
    monkeypatch.setattr(walker, "__file__", str(edited))
    assert settings_key(kqlint.loader.MAX_FILE_SIZE) != before


@pytest.mark.parametrize("tag", ["tag:yaml.org,2002:str", "!custom"])
@pytest.mark.parametrize("extra", [(), ("|",), ("|", ["comment"], "anchor")])
def test_lean_node_constructors_set_what_ruamels_do(tag: str, extra: tuple[object, ...]) -> None:
    """kqlint.loader.compose flattens ruamel's node __init__ chains (speed): same attributes."""
    from kqlint.loader.compose import ORIGINAL_INITS
    from ruamel.yaml.error import StreamMark

    marks = (StreamMark("f", 0, 0, 0), StreamMark("f", 3, 0, 3))
    for cls, original in ORIGINAL_INITS.items():
        lean, reference = cls.__new__(cls), cls.__new__(cls)
        cls.__init__(lean, tag, "value", *marks, *extra)
        original(reference, tag, "value", *marks, *extra)
        slots = {name for klass in cls.__mro__ for name in getattr(klass, "__slots__", ())}
        assert {s: getattr(lean, s) for s in slots} == {s: getattr(reference, s) for s in slots}


JSON_LINES = (b'{"text": "first record", "label": 2}\n'
              b'{"text": "second: record", "label": 1, "extra": [1, 2]}\n'
              b'\n{"text": "third"}\n')


def test_a_json_lines_dataset_is_no_invalid_yaml(tmp_path: Path) -> None:
    """kubectl decodes a stream that starts with `{` value by value, and none of these values is
    a Kubernetes object: skipped like any other non-object document, not KQ001 (a dataset of
    JSON Lines beside the manifests of an ML repository gave KQ001 at its second line)."""
    (tmp_path / "data.json").write_bytes(JSON_LINES)
    (tmp_path / "broken.json").write_bytes(b'{"text": "a"}\n{"text": \n')
    report = lint([str(tmp_path)], Config(), auto_context=False)
    assert [(f.location.file.rsplit("/", 1)[-1], f.code) for f in report.findings] == [("broken.json", "KQ001")]
    assert parse_bytes("data.json", JSON_LINES).documents == []
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        pytest.skip("kubectl is not installed: the oracle part is skipped")
    done = subprocess.run([kubectl, "label", "--local", "-f", str(tmp_path / "data.json"), "x=y", "-o", "json"],
                          capture_output=True, text=True, timeout=60)
    assert done.stderr.count("Object 'Kind' is missing") == 3  # read value by value, each one not an object
