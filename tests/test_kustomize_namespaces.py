"""A file a kustomization lists is applied in the namespace the kustomization's `namespace:`
sets (the outermost one rendering it wins, over the file's own `metadata.namespace`), as
`kubectl kustomize` renders it. Project tests/fixtures/projects/kustomize-namespaces, copied
with a `.git` (the project root):

- queues/: the LocalQueue `user-queue` exists in team-a only.
- apps/train: `namespace: team-a` over a Job without one: silent. Its unlisted.yaml is not
  rendered by the kustomization: the default namespace, KQ203.
- apps/wrong: `namespace: team-b` over a Job that says team-a: KQ203 in team-b.
- apps/shared-base: a base overlays/dev (team-a) and overlays/prod (team-c) render in two
  namespaces: no lookup is certain, silent (`--kustomize overlays/prod` reports it).
- apps/nested: base team-x, its overlay team-a: the overlay wins, silent.
"""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from helpers import chdir
from kqlint.cli import main
from ruamel.yaml import YAML

PROJECT = Path(__file__).parent / "fixtures" / "projects" / "kustomize-namespaces"
RENDERINGS = {"apps/train/job.yaml": ["apps/train"], "apps/wrong/job.yaml": ["apps/wrong"],
              "apps/shared-base/job.yaml": ["overlays/dev", "overlays/prod"],
              "apps/nested/base/job.yaml": ["apps/nested/overlay"]}


def project(tmp_path: Path) -> Path:
    root = tmp_path / "kustomize-namespaces"
    shutil.copytree(PROJECT, root)
    (root / ".git").mkdir()
    return root


def findings(capsys: pytest.CaptureFixture[str], *args: str) -> list[dict[str, Any]]:
    try:
        main(["check", "-f", "json", *args])
    except SystemExit as exc:
        assert exc.code in (0, 1), capsys.readouterr().err
    found: list[dict[str, Any]] = json.loads(capsys.readouterr().out)["findings"]
    return found


def unknown_queues(found: list[dict[str, Any]]) -> list[tuple[str, int, int, str]]:
    return [(f["file"], f["line"], f["column"], f["message"].split(":")[0]) for f in found if f["code"] == "KQ203"]


def test_a_listed_file_is_applied_in_its_kustomizations_namespace(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    with chdir(project(tmp_path)):
        found = findings(capsys, "--no-cache", ".")
    assert unknown_queues(found) == [("apps/train/unlisted.yaml", 6, 32, "Job default/unlisted"),
                                     ("apps/wrong/job.yaml", 7, 32, "Job team-b/wrong")]
    [wrong] = [f for f in found if f["file"] == "apps/wrong/job.yaml"]
    assert "in namespace team-b" in wrong["message"]


def test_a_base_rendered_in_several_namespaces_is_judged_per_rendering_by_kustomize(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    if shutil.which("kubectl") is None:
        pytest.skip("kubectl is not installed: --kustomize needs it")
    with chdir(project(tmp_path)):
        dev = findings(capsys, "--no-cache", "--kustomize", "overlays/dev")
        prod = findings(capsys, "--no-cache", "--kustomize", "overlays/prod")
    assert unknown_queues(dev) == []
    assert unknown_queues(prod) == [("apps/shared-base/job.yaml", 6, 32, "Job team-c/shared")]


def test_the_namespaces_are_those_kubectl_kustomize_renders(tmp_path: Path) -> None:
    if shutil.which("kubectl") is None:
        pytest.skip("kubectl is not installed: it is the oracle of what a kustomization renders")
    from kqlint.config import Config
    from kqlint.project.scope.units import Scope

    root = project(tmp_path)
    with chdir(root):
        scope = Scope(sorted(RENDERINGS), Config(), str(root))
        for file, overlays in RENDERINGS.items():
            rendered = set()
            for overlay in overlays:
                out = subprocess.run(["kubectl", "kustomize", overlay], capture_output=True, text=True,
                                     check=True).stdout
                rendered.add(YAML(typ="safe").load(out)["metadata"]["namespace"])
            assert scope.rendered_namespaces(file) == rendered, file
        assert scope.rendered_namespaces("apps/train/unlisted.yaml") == frozenset()
        assert scope.rendered_namespaces("queues/queues.yaml") == frozenset()


def test_a_changed_kustomization_namespace_changes_cached_findings(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    root = project(tmp_path)
    for copy in range(12):  # enough input files that findings are stored per object
        shutil.copy(root / "apps/train/job.yaml", root / f"apps/train/copy-{copy}.yaml")
    kustomization = root / "apps/train/kustomization.yaml"
    kustomization.write_text("namespace: team-a\nresources:\n" + "".join(
        f"  - {name}\n" for name in ["job.yaml"] + [f"copy-{c}.yaml" for c in range(12)]), encoding="utf-8")
    cache = ["--cache-dir", str(tmp_path / "cache")]
    with chdir(root):
        findings(capsys, *cache, ".")
        findings(capsys, *cache, ".")  # warm: stored per object
        kustomization.write_text(kustomization.read_text(encoding="utf-8").replace("team-a", "team-b"),
                                 encoding="utf-8")
        reports = list((tmp_path / "cache").rglob("report-*"))
        assert reports and list((tmp_path / "cache").rglob("results-*"))
        for report in reports:
            report.unlink()  # the per-object tables answer, not the whole report
        cached = findings(capsys, *cache, ".")
        uncached = findings(capsys, "--no-cache", ".")
    assert cached == uncached
    assert ("apps/train/job.yaml", 6, 32, "Job team-b/train") in unknown_queues(cached)
