"""`kqlint graph` agrees with `kqlint check` (issue 31 item 8): it resolves each reference in the
graph of its unit as check does, shows an object whose namespace kustomize decides elsewhere
as undetermined (never `default`), calls a reference unresolved only where check reports it
(ambiguous where the answer depends on where the files are applied), and `graph --kustomize`
renders an overlay as `check --kustomize` does."""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from ci_helpers import EXAMPLES, cli
from helpers import chdir, rule_profile
from kqlint.config import Config, load_config
from kqlint.engine.pipeline import Pipeline, lint
from kqlint.reporters.graph.build import build
from kqlint.reporters.graph.elements import UNRESOLVED

FIXTURES = Path(__file__).parent / "fixtures"
PROJECT = FIXTURES / "projects" / "kustomize-namespaces"
KUBECTL = shutil.which("kubectl")


def _project(tmp_path: Path) -> Path:
    root = tmp_path / "kustomize-namespaces"
    shutil.copytree(PROJECT, root)
    (root / ".git").mkdir()
    return root


def test_a_base_its_overlays_place_is_shown_in_their_namespaces_not_default(tmp_path: Path) -> None:
    """apps/shared-base: overlays/dev puts it in team-a, overlays/prod in team-c; the queue
    exists in team-a only. check says nothing (no answer holds for both); neither does graph."""
    repo = _project(tmp_path)
    code, out, err = cli("check", "--no-cache", "apps/shared-base", cwd=repo)
    assert code == 0 and out.startswith("0 findings"), out + err
    code, tree, err = cli("graph", "apps/shared-base", cwd=repo)
    assert code == 0, err
    assert "Job (team-a|team-c)/shared  apps/shared-base/job.yaml:1:1" in tree
    assert "LocalQueue (team-a|team-c)/user-queue  (ambiguous: depends on where it is applied)" in tree
    assert "default/" not in tree and "0 unresolved" in tree
    code, out, err = cli("graph", "apps/shared-base", "-f", "json", cwd=repo)
    data = json.loads(out)
    nodes = {node["kind"]: node for node in data["nodes"]}
    assert nodes["Job"]["namespace"] == "(team-a|team-c)" and nodes["Job"]["namespaces"] == ["team-a", "team-c"]
    assert nodes["LocalQueue"]["status"] == "ambiguous" and data["summary"]["unresolved"] == 0


def test_a_file_its_kustomization_places_is_shown_in_that_namespace(tmp_path: Path) -> None:
    """apps/wrong says team-a, its kustomization renders it in team-b: graph and check agree."""
    repo = _project(tmp_path)
    code, out, _ = cli("check", "--no-cache", "-f", "json", "apps/wrong", cwd=repo)
    assert [f["message"].split(":")[0] for f in json.loads(out)["findings"]] == ["Job team-b/wrong"]
    code, tree, _ = cli("graph", "apps/wrong", cwd=repo)
    assert "LocalQueue team-b/user-queue  (unresolved)" in tree and "1 unresolved" in tree


@pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed: --kustomize renders with it")
def test_graph_kustomize_renders_an_overlay_as_check_does(tmp_path: Path) -> None:
    repo = _project(tmp_path)
    code, out, err = cli("check", "--kustomize", "overlays/prod", "-f", "json", cwd=repo)
    assert code == 1, err
    assert [(f["code"], f["file"]) for f in json.loads(out)["findings"]] == [("KQ203", "apps/shared-base/job.yaml")]
    code, tree, err = cli("graph", "--kustomize", "overlays/prod", "--with-findings", cwd=repo)
    assert code == 0, err
    assert "Job team-c/shared  apps/shared-base/job.yaml:1:1" in tree  # placed in its source file
    assert "LocalQueue team-c/user-queue  (unresolved)" in tree and "KQ203 error 6:32" in tree
    code, out, _ = cli("graph", "--kustomize", "overlays/dev", "-f", "json", cwd=repo)
    data = json.loads(out)
    assert data["summary"]["unresolved"] == 0
    queue = next(node for node in data["nodes"] if node["kind"] == "LocalQueue")
    assert (queue["namespace"], queue["status"], queue["file"]) == ("team-a", "context", "queues/queues.yaml")


def _cases() -> list[Path]:
    rules = sorted(case for family in ("KQ2", "KQ3", "KQ5") for rule in sorted((FIXTURES / "rules").glob(family + "*"))
                   for case in rule.iterdir() if case.name.startswith(("bad", "good")))
    return [*rules, *sorted((FIXTURES / "scope").iterdir()), *sorted((FIXTURES / "projects").iterdir()),
            FIXTURES / "golden" / "graph", EXAMPLES]


CASES = _cases()


@pytest.mark.parametrize("case", CASES, ids=[str(c.relative_to(FIXTURES.parent.parent)) for c in CASES])
def test_every_unresolved_reference_graph_shows_is_one_check_reports(case: Path) -> None:
    """Two separate runs over the same files and context (the case itself): each node graph calls
    unresolved is named by a finding of check in the file of an object that references it."""
    base = case.parent if case.is_file() else case
    target = case.name if case.is_file() else "."
    code = case.parent.name if case.parent.parent.name == "rules" else None
    with chdir(base):
        config = load_config(".kqlint.yaml") if Path(".kqlint.yaml").is_file() else Config()
        config = config.with_overrides(profile=config.profile or (rule_profile(code) if code else None))
        view = Pipeline(config).graph([target], context=[target])
        shown = build(view.graphs, judged_by=view.report.findings + view.report.suppressed)
        report = lint([target], config, context=[target])
    findings = report.findings + report.suppressed
    for node in shown.sorted_nodes():
        if node.status != UNRESOLVED:
            continue
        files = {shown.nodes[edge.source].file for edge in shown.edges if edge.target == node.id}
        named = re.compile(rf"(?<![\w.-]){re.escape(node.name)}(?![\w-])")
        assert any(f.location.file in files and named.search(f.message) for f in findings), \
            f"{node.display()} shown unresolved, check reports nothing about it"
