"""Shell completion of option values, through typer's own completion machinery (the
environment a shell's completion script sets)."""
from __future__ import annotations

import pytest
from kqlint.cli import app
from typer.testing import CliRunner


def _bash(line: str) -> list[str]:
    """What bash's completion script gets for the last word of ``line``."""
    words = line.split(" ")
    env = {"_KQLINT_COMPLETE": "complete_bash", "COMP_WORDS": line, "COMP_CWORD": str(len(words) - 1)}
    result = CliRunner().invoke(app, [], env=env, prog_name="kqlint")
    assert result.exit_code == 0, result.output
    return result.output.split()


def _zsh(line: str) -> str:
    result = CliRunner().invoke(app, [], env={"_KQLINT_COMPLETE": "complete_zsh", "_TYPER_COMPLETE_ARGS": line},
                                prog_name="kqlint")
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.parametrize(("line", "expected"), [
    ("kqlint check --format ", ["text", "concise", "json", "sarif", "github", "junit", "gitlab"]),
    ("kqlint check -f j", ["json", "junit"]),
    ("kqlint check --output-format ", ["full", "concise", "text", "json", "sarif", "github", "junit", "gitlab"]),
    ("kqlint check --fail-on ", ["error", "warning", "info", "never"]),
    ("kqlint check --fail-on w", ["warning"]),
    ("kqlint check --color a", ["auto", "always"]),
    ("kqlint rules --color ", ["auto", "always", "never"]),
    ("kqlint rules --format ", ["text", "json", "markdown"]),
    ("kqlint graph --format ", ["tree", "dot", "mermaid", "json"]),
])
def test_option_values_complete(line: str, expected: list[str]) -> None:
    assert _bash(line) == expected


def test_explain_completes_codes_and_slugs() -> None:
    assert _bash("kqlint explain KQ10") == [f"KQ10{n}" for n in range(1, 10)]
    assert _bash("kqlint explain pod-preemption-en") == ["pod-preemption-enabled"]
    assert _bash("kqlint explain kq20") == [f"kq20{n}" for n in range(1, 10)]  # the case typed is kept


def test_select_and_ignore_complete_the_last_name_of_a_list() -> None:
    assert _bash("kqlint check --select KQ101,KQ40")[:2] == ["KQ101,KQ401", "KQ101,KQ402"]
    assert _bash("kqlint check --ignore unused-supp") == ["unused-suppression"]
    assert "KQ000" in _bash("kqlint check --ignore ") and "invalid-yaml" in _bash("kqlint check --ignore ")
    assert _bash("kqlint check --select NOPE") == []


def test_zsh_shows_what_a_rule_catches() -> None:
    assert '"KQ101":"gang pods of a Kueue-managed workload' in _zsh("kqlint explain KQ101")


def test_paths_still_complete_as_files() -> None:
    # no value list on PATH: the shell's own file completion applies (typer returns nothing)
    assert _bash("kqlint check ex") == []
