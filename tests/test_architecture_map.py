"""docs/architecture.md (linked from the README's Development section) is the map a newcomer can
trust: the layout is the map. At most eight modules sit directly in linter/, every other module
lives in a package named after its stage whose __init__.py opens with its one-line purpose, the
map names every package with that line, every path it names exists, and pyproject.toml lists
exactly the packages the folders hold."""
from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LINTER = ROOT / "linter"
PATH = re.compile(r"`((?:linter|rules|schemas|tests)/[^`<>*]*)`")
ROW = re.compile(r"^\| `linter/(\w+)/` \| (.+?) \|$", re.M)
MOST_TOP_LEVEL_MODULES = 8

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib


def _map() -> str:
    return (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")


def _packages() -> list[Path]:
    return sorted(entry for entry in LINTER.iterdir() if (entry / "__init__.py").is_file())


def purpose(package: Path) -> str:
    """The first line of a package's docstring: its one-line purpose."""
    doc = ast.get_docstring(ast.parse((package / "__init__.py").read_text(encoding="utf-8"))) or ""
    return doc.splitlines()[0].strip() if doc else ""


def test_every_path_in_the_map_exists() -> None:
    named = [path for path in PATH.findall(_map()) if "NNN" not in path]  # KQNNN: a pattern
    assert len(named) > 10
    missing = [path for path in named if not (ROOT / path).exists()]
    assert not missing, f"docs/architecture.md names paths that do not exist: {missing}"


def test_at_most_eight_modules_sit_directly_in_linter() -> None:
    modules = sorted(entry.name for entry in LINTER.glob("*.py"))
    assert len(modules) <= MOST_TOP_LEVEL_MODULES, modules


@pytest.mark.parametrize("package", _packages(), ids=lambda p: p.name)
def test_every_package_opens_with_its_purpose_and_the_map_says_it(package: Path) -> None:
    line = purpose(package)
    assert line.endswith("."), f"linter/{package.name}/__init__.py must open with a one-line purpose"
    rows = dict(ROW.findall(_map()))
    assert rows.get(package.name) == line, f"docs/architecture.md's row for linter/{package.name}/ is not {line!r}"


def test_the_map_names_no_package_that_is_gone() -> None:
    assert set(dict(ROW.findall(_map()))) == {package.name for package in _packages()}


def test_the_tree_names_every_top_level_module() -> None:
    text = _map()
    for module in LINTER.glob("*.py"):
        assert module.name in text, f"docs/architecture.md's tree does not name linter/{module.name}"


def _folders(base: Path, name: str) -> set[str]:
    return {".".join([name, *init.parent.relative_to(base).parts]) for init in base.rglob("__init__.py")
            if "__pycache__" not in init.parts}


def test_pyproject_lists_exactly_the_packages_the_folders_hold() -> None:
    setup = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    folders = _folders(LINTER, "kqlint") | _folders(ROOT / "rules", "kqlint.rules") | {"kqlint.schemas"}
    assert set(setup["packages"]) == folders
