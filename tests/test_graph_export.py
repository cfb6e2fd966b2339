"""`kqlint graph` (cli.md): tree, DOT, Mermaid and JSON renderings of the resolved object
graph, pinned by golden files; unresolved references shown distinctly; findings overlaid
with --with-findings; the DOT renders with Graphviz (when installed) and the Mermaid text is
checked by structure."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from ci_helpers import EXAMPLES, GOLDEN, check_golden, cli

EDGE_CASES = GOLDEN / "graph"
SUFFIX = {"tree": "txt", "dot": "dot", "mermaid": "mmd", "json": "json"}


def graph(cwd: Path, *args: str) -> str:
    code, out, err = cli("graph", ".", *args, cwd=cwd)
    assert code == 0 and err == "", err
    return out


@pytest.mark.parametrize("fmt", sorted(SUFFIX))
def test_examples_golden(fmt: str, update_golden: bool) -> None:
    check_golden(f"examples/graph.{SUFFIX[fmt]}", graph(EXAMPLES, "-f", fmt), update_golden)


@pytest.mark.parametrize("fmt", sorted(SUFFIX))
def test_edge_cases_golden(fmt: str, update_golden: bool) -> None:
    check_golden(f"graph-edge-cases.{SUFFIX[fmt]}", graph(EDGE_CASES, "-f", fmt, "--with-findings"), update_golden)


def test_examples_tree_with_findings_golden(update_golden: bool) -> None:
    check_golden("examples/graph.findings.txt", graph(EXAMPLES, "--with-findings"), update_golden)


def _edges(data: dict[str, object]) -> set[tuple[str, str, str]]:
    return {(e["from"], e["to"], e["relation"]) for e in data["edges"]}  # type: ignore[index, union-attr]


def test_examples_edges_follow_the_routing_chain() -> None:
    data = json.loads(graph(EXAMPLES, "-f", "json"))
    edges = _edges(data)
    kueue = "kueue.x-k8s.io"
    llama = "TrainJob.trainer.kubeflow.org/nlp/llama-pretrain"
    assert (llama, f"LocalQueue.{kueue}/nlp/training", "queue") in edges
    assert (f"LocalQueue.{kueue}/nlp/training", f"ClusterQueue.{kueue}/nlp", "cluster-queue") in edges
    assert (f"ClusterQueue.{kueue}/nlp", f"ResourceFlavor.{kueue}/h100-ib", "flavor") in edges
    assert (f"ClusterQueue.{kueue}/nlp", f"Cohort.{kueue}/gpu-pool", "cohort") in edges
    assert (llama, f"WorkloadPriorityClass.{kueue}/normal", "workload-priority") in edges
    assert (llama, "ClusterTrainingRuntime.trainer.kubeflow.org/torch-distributed-volcano", "runtime") in edges
    job = "Job.batch/research/allreduce-bench"
    assert (job, "PodGroup.scheduling.volcano.sh/research/allreduce-bench", "pod-group") in edges
    assert (job, "PriorityClass.scheduling.k8s.io/gpu-gang", "priority") in edges
    leak = ("Job.batch/vision/embed-precompute", "PriorityClass.scheduling.k8s.io/default-priority", "priority")
    assert leak in edges  # the global default a template without priorityClassName inherits
    assert data["summary"]["unresolved"] == 0  # type: ignore[index]
    ids = {node["id"] for node in data["nodes"]}  # type: ignore[union-attr]
    assert all(e[0] in ids and e[1] in ids for e in edges)


def test_unresolved_references_are_nodes_of_their_own() -> None:
    data = json.loads(graph(EDGE_CASES, "-f", "json"))
    status = {node["id"]: node["status"] for node in data["nodes"]}  # type: ignore[union-attr]
    unresolved = {i for i, s in status.items() if s == "unresolved"}
    assert unresolved == {  # what `kqlint check` reports as unknown (tests/test_graph_agrees.py)
        "ClusterQueue.kueue.x-k8s.io/gone",
        "LocalQueue.kueue.x-k8s.io/team-a/nowhere", "WorkloadPriorityClass.kueue.x-k8s.io/urgent",
        "PriorityClass.scheduling.k8s.io/missing-class", "PodGroup.scheduling.run.ai/team-a/kai-group"}
    # other units of this repository (its .kqlint.yaml) define a flavor `a100`: check does not guess
    assert status["ResourceFlavor.kueue.x-k8s.io/a100"] == "ambiguous"
    # no rule reports an unknown training runtime: not found, and not called unresolved
    assert status["ClusterTrainingRuntime.trainer.kubeflow.org/torch-missing"] == "unchecked"
    assert status["Cohort.kueue.x-k8s.io/shared"] == "implicit"
    assert status["Cohort.kueue.x-k8s.io/root-cohort"] == "implicit"
    assert status['PodGroup.scheduling.volcano.sh/team-a/train "quoted" <x>'] == "operator"
    for node in data["nodes"]:  # type: ignore[union-attr]
        assert (node["file"] is None) == (node["status"] in ("unresolved", "ambiguous", "unchecked", "implicit",
                                                             "operator"))
    dot = graph(EDGE_CASES, "-f", "dot")
    assert re.search(r'"ClusterQueue\.kueue\.x-k8s\.io/gone" \[label="ClusterQueue\\ngone\\n\(unresolved\)".*'
                     r'style="dashed,bold", color="#c62828"', dot)
    tree = graph(EDGE_CASES)
    assert "5 unresolved:" in tree and "ClusterQueue gone  (unresolved)" in tree


def test_findings_overlay() -> None:
    data = json.loads(graph(EXAMPLES, "-f", "json", "--with-findings"))
    marked = {node["id"]: [f["code"] for f in node.get("findings", [])] for node in data["nodes"]}  # type: ignore[union-attr]
    assert marked["Job.batch/vision/embed-precompute"] == ["KQ102"]
    assert marked["ClusterQueue.kueue.x-k8s.io/research"] == ["KQ201"]
    assert marked["PodGroup.scheduling.volcano.sh/research/allreduce-bench"] == ["KQ301"]
    assert "findings" not in json.dumps(json.loads(graph(EXAMPLES, "-f", "json"))["nodes"])
    dot = graph(EXAMPLES, "-f", "dot", "--with-findings")
    assert re.search(r'"Job\.batch/vision/embed-precompute" \[label="Job\\nvision/embed-precompute\\nKQ102", '
                     r'shape=box, color="#c62828", penwidth=2, tooltip="KQ102: ', dot)
    assert "class n" in graph(EXAMPLES, "-f", "mermaid", "--with-findings")


# ------------------------------------------------------------------ DOT and Mermaid syntax

@pytest.mark.parametrize("where", [EXAMPLES, EDGE_CASES], ids=["examples", "edge-cases"])
def test_dot_renders_with_graphviz(where: Path, tmp_path: Path) -> None:
    if shutil.which("dot") is None:
        pytest.skip("Graphviz `dot` is not installed (.ci/run installs it when apt can)")
    source = tmp_path / "graph.dot"
    source.write_text(graph(where, "-f", "dot", "--with-findings"))
    result = subprocess.run(["dot", "-Tsvg", str(source)], capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0 and "Warning" not in result.stderr and "Error" not in result.stderr, result.stderr
    data = json.loads(graph(where, "-f", "json"))
    titles = re.findall(r"<title>(.*?)</title>", result.stdout)
    import html

    titles = [html.unescape(t) for t in titles]
    for node in data["nodes"]:
        assert node["id"] in titles
    assert sum("&#45;&gt;" in t or "->" in t for t in titles) == len(data["edges"])


NODE = re.compile(r'^  (n\d+)(\[\["|\(\("|\[/"|\{\{"|\(\["|\[")(?P<label>[^"]*)("\]\]|"\)\)|"/\]|"\}\}|"\]\)|"\])$')
EDGE = re.compile(r'^  (n\d+) (-->|-\.->)\|"(?P<label>[^"|]*)"\| (n\d+)$')
CLASSDEF = re.compile(r"^  classDef (\w+) [\w#:.,% -]+$")
CLASS = re.compile(r"^  class (n\d+(?:,n\d+)*) (\w+)$")
BRACKETS = {'[["': '"]]', '(("': '"))', '[/"': '"/]', '{{"': '"}}', '(["': '"])', '["': '"]'}


@pytest.mark.parametrize("where", [EXAMPLES, EDGE_CASES], ids=["examples", "edge-cases"])
def test_mermaid_structure(where: Path) -> None:
    lines = graph(where, "-f", "mermaid", "--with-findings").splitlines()
    assert lines[0] == "flowchart LR"
    nodes, edges, defined, used = set(), 0, set(), set()
    for line in lines[1:]:
        if match := NODE.match(line):
            assert BRACKETS[match.group(2)] == match.group(4), line
            assert match.group(1) not in nodes, f"node defined twice: {line}"
            nodes.add(match.group(1))
            assert not re.search(r'["<>]', match.group("label").replace("<br/>", "")), line
        elif match := EDGE.match(line):
            assert {match.group(1), match.group(4)} <= nodes, f"edge to an undefined node: {line}"
            edges += 1
        elif match := CLASSDEF.match(line):
            defined.add(match.group(1))
        elif match := CLASS.match(line):
            assert set(match.group(1).split(",")) <= nodes and match.group(2) in defined, line
            used.add(match.group(2))
        elif line.startswith("  %% platform: "):  # the platform model, as comments
            continue
        else:
            pytest.fail(f"not a Mermaid flowchart statement kqlint writes: {line!r}")
    data = json.loads(graph(where, "-f", "json"))
    assert len(nodes) == len(data["nodes"]) and edges == len(data["edges"])
    assert used == defined


# ------------------------------------------------------------------ CLI

def test_graph_cli_errors_and_output(tmp_path: Path) -> None:
    code, _, err = cli("graph", ".", "-f", "png", cwd=EXAMPLES)
    assert code == 2 and "tree, dot, mermaid, json" in err
    code, _, err = cli("graph", "no-such-dir", cwd=tmp_path)
    assert code == 2 and "does not exist" in err
    target = tmp_path / "g.dot"
    code, out, _ = cli("graph", ".", "-f", "dot", "-o", str(target), cwd=EXAMPLES)
    assert code == 0 and out == "" and target.read_text() == graph(EXAMPLES, "-f", "dot")
    code, out, _ = cli("graph", cwd=tmp_path)  # nothing to show: still a summary line
    assert code == 0 and out == "0 objects, 0 references, 0 unresolved\n"


def test_graph_and_check_pick_formats_from_their_maps(tmp_path: Path) -> None:
    """One mechanism for both commands: --format is one of the package's FORMATS names."""
    from kqlint.reporters import FORMATS as REPORT_FORMATS
    from kqlint.reporters.graph import FORMATS as GRAPH_FORMATS

    assert set(SUFFIX) == set(GRAPH_FORMATS)  # every graph format is pinned by golden files
    for command, names in (("graph", GRAPH_FORMATS), ("check", REPORT_FORMATS)):
        code, _, err = cli(command, ".", "-f", "png", cwd=tmp_path)
        assert code == 2 and f"unknown --format 'png' (choose from {', '.join(names)}" in err, err
