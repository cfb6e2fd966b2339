"""One exception hierarchy (kqlint.errors): the CLI sorts errors by class alone, and no module
imports another to reach an exception class (the cycles config <-> custom and config <-> profiles)."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest
from kqlint import errors
from kqlint.cli import _handle

LINTER = Path(__file__).resolve().parent.parent / "linter"


@pytest.mark.parametrize("error", [errors.ConfigError, errors.UsageError, errors.RegistryError,
                                   errors.CrdError, errors.BaselineError])
def test_user_errors_are_one_line_and_exit_2(error: type[Exception], capsys: pytest.CaptureFixture[str]) -> None:
    assert issubclass(error, errors.UserError) and issubclass(error, errors.KqlintError)
    assert _handle(error("something the user can fix")) == 2
    assert capsys.readouterr().err == "kqlint: something the user can fix\n"


def test_internal_errors_exit_3_naming_where(capsys: pytest.CaptureFixture[str]) -> None:
    assert _handle(errors.InternalError("m.yaml", ZeroDivisionError("boom"))) == 3
    assert capsys.readouterr().err.startswith(
        "kqlint: internal error while processing m.yaml: ZeroDivisionError: boom; this is a bug in kqlint")


def _imports(module: str) -> set[str]:
    """What ``module`` (a file, or every file of a package folder) imports from."""
    package = LINTER / module
    files = sorted(package.glob("*.py")) if package.is_dir() else [LINTER / f"{module}.py"]
    trees = [ast.parse(file.read_text(encoding="utf-8")) for file in files]
    return {node.module or "" for tree in trees for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}


@pytest.mark.parametrize("module", ["engine/custom", "config/profiles", "config/per_file", "engine/jmespath_budget",
                                    "schema", "engine/baseline"])
def test_modules_raising_config_errors_do_not_import_config(module: str) -> None:
    assert "kqlint.config" not in _imports(module)
