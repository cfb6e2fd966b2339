"""One notion of "applied together" for every command, rule and fix (issue 24; README "What is
applied together"): units, never folder locality. Files in no unit are shared and are applied
with each other across folders; a unit sees the shared files and itself, never another unit.

Projects in tests/fixtures/projects/ are copied to a temporary folder with a `.git` (the
project root) before each run:
- platform-teams: platform/ (PriorityClasses, WorkloadPriorityClasses, queues) beside teams/:
  team-a is a kustomize base with a prod overlay that patches the Job, team-b plain files.
- platform-repo: priorities/ and queues/ of a platform repository, and samples/ of two
  kustomize units.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from helpers import chdir
from kqlint.cli import main

PROJECTS = Path(__file__).parent / "fixtures" / "projects"
NEVER_FIX = {"title": "Set priorityClassName: gang-never", "applicability": "unsafe",
             "edits": [{"start": {"line": 14, "column": 26}, "end": {"line": 14, "column": 36},
                        "content": "gang-never"}]}


def project(tmp_path: Path, name: str) -> Path:
    root = tmp_path / name
    shutil.copytree(PROJECTS / name, root)
    (root / ".git").mkdir()
    return root


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    try:
        main(["check", "--no-cache", "-f", "json", *args])
    except SystemExit as exc:
        assert exc.code in (0, 1), capsys.readouterr().err
    report: dict[str, Any] = json.loads(capsys.readouterr().out)
    return report


def spots(report: dict[str, Any]) -> list[tuple[str, int, int, str]]:
    return [(f["file"], f["line"], f["column"], f["code"]) for f in report["findings"]]


def needs_kubectl() -> None:
    if shutil.which("kubectl") is None:
        pytest.skip("kubectl is not installed: --kustomize cannot render (nothing to compare)")


# ------------------------------------------------------------------ --kustomize keeps the project context

def test_a_rendered_overlay_resolves_with_the_project_context(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    needs_kubectl()
    root = project(tmp_path, "platform-teams")
    refs = ("--select", "KQ1,KQ2")
    with chdir(root):
        plain = run_json(capsys, "teams/team-a/base", *refs)
        rendered = run_json(capsys, "--kustomize", "teams/team-a/base", *refs)
        prod = run_json(capsys, "--kustomize", "teams/team-a/prod", *refs)
    # the queue, the WorkloadPriorityClass and both PriorityClasses are in platform/: no KQ202/203/205
    assert spots(plain) == spots(rendered) == [("teams/team-a/base/train.yaml", 14, 7, "KQ101")]
    assert prod["findings"] == []  # prod's patch moves the gang to the non-preempting class


def test_explicit_context_still_replaces_the_project_context_of_an_overlay(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    needs_kubectl()
    root = project(tmp_path, "platform-teams")
    with chdir(root):
        report = run_json(capsys, "--kustomize", "teams/team-a/base", "--context", "platform/queues.yaml",
                          "--select", "KQ2")
    assert spots(report) == [("teams/team-a/base/train.yaml", 8, 36, "KQ202"),
                             ("teams/team-a/base/train.yaml", 14, 26, "KQ205")]


def test_an_overlay_without_a_project_root_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    needs_kubectl()
    shutil.copytree(PROJECTS / "platform-teams" / "teams", tmp_path / "teams")
    with chdir(tmp_path / "teams"):
        report = run_json(capsys, "--kustomize", "team-a/base", "--select", "KQ205")
    assert spots(report) == [("team-a/base/train.yaml", 14, 26, "KQ205")]
    with chdir(tmp_path / "teams"):
        try:
            main(["check", "--no-cache", "--kustomize", "team-a/base", "--select", "KQ205"])
        except SystemExit:
            pass
    assert capsys.readouterr().err.count("no project root above the inputs") == 1


# ------------------------------------------------------------------ one notion for rules and fixes

def test_the_non_preempting_class_of_another_folder_is_offered(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    root = project(tmp_path, "platform-teams")
    with chdir(root):
        whole = run_json(capsys, ".", "--select", "KQ101")
        team_a = run_json(capsys, "teams/team-a/base/train.yaml", "--select", "KQ101")
    # team-a is a unit (kustomize) that sees the shared platform/; team-b is shared like platform/
    assert spots(whole) == [("teams/team-a/base/train.yaml", 14, 7, "KQ101"),
                            ("teams/team-b/evaluate.yaml", 15, 7, "KQ101")]
    assert whole["findings"][0]["fix"] == team_a["findings"][0]["fix"] == NEVER_FIX
    assert whole["findings"][1]["fix"]["edits"] == [{"start": {"line": 15, "column": 26},
                                                     "end": {"line": 15, "column": 36}, "content": "gang-never"}]


def test_workload_priority_classes_of_a_sibling_folder_count_for_kq201(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = project(tmp_path, "platform-repo")
    with chdir(root):
        report = run_json(capsys, ".", "--select", "KQ201")
        queues = run_json(capsys, "queues", "--select", "KQ201")
    expected = [("queues/cluster-queues.yaml", 5, 1, "KQ201"), ("samples/demo-queue/cluster-queue.yaml", 5, 1, "KQ201")]
    assert spots(report) == expected and spots(queues) == expected[:1]
    # a unit resolves into the shared priorities/, never into the other unit's demo-high/demo-low
    for finding in report["findings"]:
        assert [(r["file"], r["line"], r["column"]) for r in finding["related"]] == [
            ("priorities/workload-priorities.yaml", 4, 3), ("priorities/workload-priorities.yaml", 10, 3)]
        assert finding["fix"]["edits"] == [{"start": {"line": 14, "column": 1}, "end": {"line": 14, "column": 1},
                                            "content": "  preemption:\n    withinClusterQueue: LowerPriority\n"}]


def test_classes_of_another_unit_are_not_applied_with_a_queue(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    root = project(tmp_path, "platform-repo")
    shutil.rmtree(root / "priorities")
    with chdir(root):
        assert run_json(capsys, ".", "--select", "KQ201")["findings"] == []


# ------------------------------------------------------------------ kqlint graph discovers like check

def test_graph_skips_kustomize_patch_fragments(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = project(tmp_path, "platform-teams")
    with chdir(root):
        for args in (["teams/team-a/prod"], ["teams"]):
            try:
                main(["graph", "-f", "json", *args])
            except SystemExit as exc:
                assert exc.code == 0
            graph = json.loads(capsys.readouterr().out)
            inputs = [(n["id"], n["file"], n["line"]) for n in graph["nodes"] if n["status"] == "input"]
            expected = [] if args == ["teams/team-a/prod"] else [
                ("Job.batch/team-a/evaluate", "teams/team-b/evaluate.yaml", 2),
                ("Job.batch/team-a/train", "teams/team-a/base/train.yaml", 1)]
            assert sorted(inputs) == expected, args
            assert all(e["from"] != "Job.batch/team-a/train" or e["to"] != "PriorityClass.scheduling.k8s.io/gang-never"
                       for e in graph["edges"])


# ------------------------------------------------------------------ paths from a subfolder

def test_from_a_subfolder_context_locations_stay_relative(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    root = project(tmp_path, "platform-teams")
    with chdir(root / "teams"):
        report = run_json(capsys, ".", "--select", "KQ101")
        try:
            main(["check", "--no-cache", "-f", "sarif", "--select", "KQ101", "."])
        except SystemExit:
            pass
        sarif = json.loads(capsys.readouterr().out)["runs"][0]
    # text/json: relative to the current directory, as `--context ..` prints them
    assert [(f["file"], [(r["file"], r["line"], r["column"]) for r in f["related"]]) for f in report["findings"]] == [
        ("team-a/base/train.yaml", [("../platform/priority.yaml", 12, 3)]),
        ("team-b/evaluate.yaml", [("../platform/priority.yaml", 12, 3)])]
    # SARIF: every URI relative to the project root (SRCROOT), as code scanning resolves them
    uris = [a["location"] for a in sarif["artifacts"]]
    assert all(u["uriBaseId"] == "SRCROOT" for u in uris)
    assert [u["uri"] for u in uris][:3] == ["platform/priority.yaml", "teams/team-a/base/kustomization.yaml",
                                            "teams/team-a/base/train.yaml"]
    first = sarif["results"][0]
    assert first["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "teams/team-a/base/train.yaml"
    assert first["relatedLocations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "platform/priority.yaml"


def test_from_a_subfolder_ci_annotations_name_files_from_the_repository_root(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """GitHub and GitLab attach an annotation to a file by its path from the repository root,
    wherever the job's working-directory is."""
    root = project(tmp_path, "platform-teams")
    outputs = {}
    with chdir(root / "teams"):
        for name in ("github", "gitlab"):
            try:
                main(["check", "--no-cache", "-f", name, "--select", "KQ101", "."])
            except SystemExit:
                pass
            outputs[name] = capsys.readouterr().out
    github = outputs["github"].splitlines()
    assert [line.split(",line=")[0] for line in github if line.startswith("::")] == [
        "::error file=teams/team-a/base/train.yaml", "::error file=teams/team-b/evaluate.yaml"]
    assert "related: platform/priority.yaml:12:3" in outputs["github"].replace("%0A", "\n")
    assert [issue["location"]["path"] for issue in json.loads(outputs["gitlab"])] == [
        "teams/team-a/base/train.yaml", "teams/team-b/evaluate.yaml"]


def test_from_a_subfolder_config_globs_mean_the_paths_they_mean_at_the_root(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`exclude` and `per-file-*` globs of the configuration are relative to its folder, as
    ruff reads them: the same files are skipped from a subfolder as from the root."""
    root = tmp_path / "repo"
    copies = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\n" * 2
    for folder in ("generated", "apps", "apps/legacy"):
        (root / folder).mkdir(parents=True, exist_ok=True)
        (root / folder / "dup.yaml").write_text(copies, encoding="utf-8")
    (root / ".git").mkdir()
    (root / ".kqlint.yaml").write_text('exclude: ["generated/**"]\nper-file-ignores: {"apps/legacy/**": [KQ003]}\n',
                                       encoding="utf-8")
    files = {}
    for where, paths in (("", ["."]), ("generated", ["."]), ("apps", ["."]), ("apps", ["../generated"])):
        with chdir(root / where):
            files[(where, *paths)] = sorted(f["file"] for f in run_json(capsys, *paths)["findings"])
    assert files == {("", "."): ["apps/dup.yaml"], ("generated", "."): [], ("apps", "."): ["dup.yaml"],
                     ("apps", "../generated"): []}
    with chdir(root / "apps"):  # --exclude on the command line: relative to where it runs
        assert run_json(capsys, ".", "--exclude", "dup.yaml")["findings"] == []


def test_a_rendered_base_above_the_current_folder_is_reported_relative(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    needs_kubectl()
    root = project(tmp_path, "platform-teams")
    (root / "teams" / "team-a" / "prod" / "train-never.yaml").unlink()
    (root / "teams" / "team-a" / "prod" / "kustomization.yaml").write_text("resources:\n- ../base\n")
    with chdir(root / "teams" / "team-a" / "prod"):
        report = run_json(capsys, "--kustomize", ".", "--select", "KQ101")
    assert spots(report) == [("../base/train.yaml", 14, 7, "KQ101")]
    related = [(r["file"], r["line"]) for r in report["findings"][0]["related"]]
    assert related == [("../../../platform/priority.yaml", 12)]
