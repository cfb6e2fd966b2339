"""docs/architecture.md (linked from the README's Development section) is a map a newcomer can
trust: every path it names exists, and every engine module (a file or package directly under
linter/) is named in it."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PATH = re.compile(r"`((?:linter|rules|schemas|tests)/[^`<>*]*)`")


def _section() -> str:
    return (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")


def test_every_path_in_the_map_exists() -> None:
    named = [path for path in PATH.findall(_section()) if "NNN" not in path]  # KQNNN: a pattern
    assert len(named) > 40
    missing = [path for path in named if not (ROOT / path).exists()]
    assert not missing, f"docs/architecture.md names paths that do not exist: {missing}"


def test_every_engine_module_is_on_the_map() -> None:
    named = {path.rstrip("/") for path in PATH.findall(_section())}
    modules = {f"linter/{entry.name}" for entry in (ROOT / "linter").iterdir()
               if (entry.suffix == ".py" and entry.name not in ("__init__.py", "__main__.py"))
               or (entry.is_dir() and (entry / "__init__.py").exists())}
    absent = sorted(modules - named)
    assert not absent, f"docs/architecture.md does not name these engine modules: {absent}"
