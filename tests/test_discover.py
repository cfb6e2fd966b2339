"""Which files a run reads (cli.md "Inputs", `--exclude`): sorted recursive walk, dot-folders
and node_modules skipped, manifest suffixes only when walking, excludes, Helm charts set aside."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from kqlint.project.discover import STDIN, chart_of, discover, display_path
from kqlint.project.root import repository_root
from unprivileged import python


def touch(root: Path, *names: str) -> None:
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("a: 1\n")


def shown(paths: list[str]) -> list[str]:
    return [display_path(p) for p in paths]


def test_walk_is_sorted_recursive_and_filters_suffixes(in_tmp_cwd: Path) -> None:
    touch(in_tmp_cwd, "b.yaml", "a.yml", "c.json", "z/y.yaml", "z/a/b.yaml", "README.md", "x.yaml.bak",
          "script.py", "Z.yaml")
    found = discover(["."])
    assert shown(found.files) == ["Z.yaml", "a.yml", "b.yaml", "c.json", "z/a/b.yaml", "z/y.yaml"]
    assert found.missing == [] and found.problems == [] and found.charts == {}


def test_dot_folders_node_modules_and_dot_files_are_skipped(in_tmp_cwd: Path) -> None:
    touch(in_tmp_cwd, ".git/config.yaml", ".venv/lib/x.yaml", ".github/workflows/ci.yaml", "node_modules/p/a.yaml",
          "__pycache__/x.yaml", ".kqlint.yaml", ".pre-commit-config.yaml", "keep/me.yaml")
    assert shown(discover(["."]).files) == ["keep/me.yaml"]


def test_explicit_files_are_read_whatever_their_name(in_tmp_cwd: Path) -> None:
    touch(in_tmp_cwd, "manifest.txt", ".hidden.yaml", ".dot/inside.yaml")
    found = discover(["manifest.txt", ".hidden.yaml", ".dot/inside.yaml", ".dot"])
    assert shown(found.files) == ["manifest.txt", ".hidden.yaml", ".dot/inside.yaml"]


def test_explicit_dot_folder_is_walked(in_tmp_cwd: Path) -> None:
    touch(in_tmp_cwd, ".config/a.yaml", ".config/.inner/b.yaml")
    assert shown(discover([".config"]).files) == [".config/a.yaml"]


def test_duplicates_are_read_once_in_argument_order(in_tmp_cwd: Path) -> None:
    touch(in_tmp_cwd, "a.yaml", "b.yaml")
    assert shown(discover(["b.yaml", ".", "./a.yaml", "b.yaml"]).files) == ["b.yaml", "a.yaml"]


def test_missing_paths_and_stdin(in_tmp_cwd: Path) -> None:
    touch(in_tmp_cwd, "a.yaml")
    found = discover(["a.yaml", "nope.yaml", STDIN, "gone/"])
    assert found.missing == ["nope.yaml", "gone/"]
    assert found.files[-1] == STDIN and display_path(STDIN) == "<stdin>"


@pytest.mark.parametrize("pattern,expected", [
    ("vendor", ["app/a.yaml", "b.yaml"]),                     # a bare name matches any path part
    ("vendor/", ["app/a.yaml", "b.yaml"]),
    ("app/*", ["b.yaml", "vendor/c.yaml", "x/vendor/d.yaml"]),
    ("*.yaml", []),
    ("x/**", ["app/a.yaml", "b.yaml", "vendor/c.yaml"]),
    ("b.yaml", ["app/a.yaml", "vendor/c.yaml", "x/vendor/d.yaml"]),
    ("**/d.yaml", ["app/a.yaml", "b.yaml", "vendor/c.yaml"]),
])
def test_exclude_globs(in_tmp_cwd: Path, pattern: str, expected: list[str]) -> None:
    touch(in_tmp_cwd, "app/a.yaml", "b.yaml", "vendor/c.yaml", "x/vendor/d.yaml")
    assert shown(discover(["."], (pattern,)).files) == expected


def test_exclude_applies_to_explicit_files_too(in_tmp_cwd: Path) -> None:
    touch(in_tmp_cwd, "charts/c/templates/a.yaml", "ok.yaml")
    found = discover(["charts/c/templates/a.yaml", "ok.yaml"], ("charts/**/templates/**",))
    assert shown(found.files) == ["ok.yaml"]


def test_helm_chart_templates_are_set_aside(in_tmp_cwd: Path) -> None:
    touch(in_tmp_cwd, "charts/demo/Chart.yaml", "charts/demo/values.yaml", "charts/demo/templates/a.yaml",
          "charts/demo/templates/deep/b.yaml", "charts/demo/charts/sub/Chart.yaml",
          "charts/demo/charts/sub/templates/c.yaml", "templates/not-a-chart.yaml")
    found = discover(["."])
    assert shown(found.files) == ["charts/demo/Chart.yaml", "charts/demo/charts/sub/Chart.yaml",
                                  "charts/demo/values.yaml", "templates/not-a-chart.yaml"]
    charts = {display_path(k): shown(v) for k, v in found.charts.items()}
    assert charts == {"charts/demo/Chart.yaml": ["charts/demo/templates/a.yaml", "charts/demo/templates/deep/b.yaml"],
                      "charts/demo/charts/sub/Chart.yaml": ["charts/demo/charts/sub/templates/c.yaml"]}


def test_chart_of(tmp_path: Path) -> None:
    touch(tmp_path, "c/Chart.yaml", "c/templates/x/y.yaml", "c/other/z.yaml")
    cache: dict[str, str | None] = {}
    assert chart_of(str(tmp_path / "c/templates/x/y.yaml"), cache) == str(tmp_path / "c" / "Chart.yaml")
    assert chart_of(str(tmp_path / "c/other/z.yaml"), cache) is None


def test_symlink_loops_do_not_hang(in_tmp_cwd: Path) -> None:
    touch(in_tmp_cwd, "d/a.yaml")
    os.symlink(in_tmp_cwd / "d", in_tmp_cwd / "d" / "loop")
    assert shown(discover(["."]).files) == ["d/a.yaml"]


def test_unreadable_folder_is_a_problem_not_a_crash(in_tmp_cwd: Path) -> None:
    touch(in_tmp_cwd, "locked/a.yaml", "ok.yaml")
    (in_tmp_cwd / "locked").chmod(0)
    code = ("import json\nfrom kqlint.project.discover import discover, display_path\nfound = discover(['.'])\n"
            "print(json.dumps([[display_path(p) for p in found.files], [display_path(p) for p, _ in found.problems]]))")
    try:  # in a child process, which the folder mode binds even under root (tests/unprivileged.py)
        result = python(["-c", code], in_tmp_cwd)
    finally:
        (in_tmp_cwd / "locked").chmod(0o755)
    assert json.loads(result.stdout) == [["ok.yaml"], ["locked"]], result.stderr


def test_display_path(in_tmp_cwd: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    touch(in_tmp_cwd, "a/b.yaml")
    assert display_path(str(in_tmp_cwd / "a" / "b.yaml")) == "a/b.yaml"
    assert display_path("./a/../a/b.yaml") == "a/b.yaml"
    outside = tmp_path_factory.mktemp("elsewhere") / "x.yaml"
    assert display_path(str(outside)) == str(outside)


def test_repository_root(tmp_path: Path) -> None:
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    (tmp_path / "repo" / "sub" / "deeper").mkdir(parents=True)
    assert repository_root(str(tmp_path / "repo" / "sub" / "deeper")) == str(tmp_path / "repo")
    (tmp_path / "plain").mkdir()
    root = repository_root(str(tmp_path / "plain"))
    assert root is None or not str(tmp_path / "plain").startswith(root + os.sep + "plain")
