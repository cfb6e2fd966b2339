"""`kqlint explain` / `kqlint rules` output, the README's generated rules table, and the
README quick start that CI (.ci/run) runs verbatim."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from kqlint.cli import main
from kqlint.engine.registry import builtin_rules, load_rules
from kqlint.engine.rule import DOC_HEADINGS
from kqlint.reporters.explain import (
    README_END,
    README_START,
    README_UPDATE_COMMAND,
    explain_text,
    readme_rules_table,
    readme_with_rules_table,
    rule_rows,
    rules_json,
    rules_markdown,
    rules_table,
)

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
RULES = builtin_rules()


# ------------------------------------------------------------------ explain

@pytest.mark.parametrize("rule", RULES, ids=[r.code for r in RULES])
def test_explain_by_code_or_slug(rule) -> None:  # type: ignore[no-untyped-def]
    text = explain_text(rule.code)
    assert text is not None
    assert text == explain_text(rule.slug) == explain_text(rule.code.lower()) == explain_text(f" {rule.slug} ")
    first = text.splitlines()[0]
    assert first.startswith(f"{rule.code} {rule.slug} (default severity: {rule.meta.severity.label}")
    if rule.meta.profile:
        assert f"profile {rule.meta.profile}" in first
    headings = re.findall(r"^## (.+)$", text, flags=re.M)
    assert headings == [*DOC_HEADINGS, "How to suppress"]
    assert f"kqlint.io/ignore: \"{rule.code}\"" in text and f"# kqlint: ignore[{rule.code}]" in text
    assert text.endswith("\n") and rule.meta.summary in text


def test_explain_unknown_rule() -> None:
    assert explain_text("KQ999") is None and explain_text("no-such-rule") is None


# ------------------------------------------------------------------ rules listings

def test_rule_rows_follow_the_registry() -> None:
    rows = rule_rows()
    assert [r["code"] for r in rows] == [r.code for r in RULES] == sorted(r.code for r in RULES)
    for row, rule in zip(rows, RULES, strict=True):
        assert row == {"code": rule.code, "slug": rule.slug, "severity": rule.meta.severity.label,
                       "enabled": rule.meta.enabled and rule.meta.profile is None,
                       "profile": rule.meta.profile, "fix": rule.meta.fix, "summary": rule.meta.summary}
    assert json.loads(rules_json()) == rows


def test_rules_text_table_lists_every_rule() -> None:
    table = rules_table()
    lines = table.splitlines()
    assert lines[0].split() == ["code", "slug", "severity", "enabled", "fix", "summary"]
    for rule in RULES:
        [line] = [x for x in lines if x.startswith(rule.code + " ")]
        assert rule.slug in line and rule.meta.severity.label in line
        assert f" {rule.meta.fix or '-'} " in line
    assert "\x1b[" not in table


def test_rules_markdown() -> None:
    text = rules_markdown()
    lines = text.splitlines()
    assert lines[:2] == ["| code | slug | severity | enabled | fix | summary |",
                         "| --- | --- | --- | --- | --- | --- |"]
    assert len(lines) == 2 + len(RULES)
    for line, rule in zip(lines[2:], RULES, strict=True):
        assert line.startswith(f"| {rule.code} | `{rule.slug}` | {rule.meta.severity.label} | ")
        assert f" | {rule.meta.fix or '-'} | " in line
        assert line.count(" | ") - line.count("\\|") == 5  # pipes in summaries are escaped


def test_cli_rules_markdown_is_the_same_table(capsys: pytest.CaptureFixture[str], in_tmp_cwd: Path) -> None:
    assert main(["rules", "--format", "markdown"]) == 0
    assert capsys.readouterr().out == rules_markdown()


def test_loaded_rules_include_custom_rules_from_config(in_tmp_cwd: Path) -> None:
    from kqlint.config import load_config

    (in_tmp_cwd / ".kqlint.yaml").write_text(
        "custom-rules:\n  - code: X001\n    slug: gpu-jobs-need-team-label\n    severity: warning\n"
        "    message: GPU workloads must carry a team label\n    match: {kinds: [Job]}\n"
        "    assert: metadata.labels.team\n")
    config = load_config(".kqlint.yaml")
    codes = [r.code for r in load_rules(config)]
    assert "X001" in codes and codes == sorted(codes)
    assert "X001 gpu-jobs-need-team-label" in (explain_text("X001", config) or "")


# ------------------------------------------------------------------ README

def test_readme_rules_table_is_up_to_date() -> None:
    readme = README.read_text(encoding="utf-8")
    assert README_START in readme and README_END in readme
    assert readme_rules_table(readme) == rules_markdown(), (
        f"README.md's rules table differs from the rule registry; update it with `{README_UPDATE_COMMAND}`")


def test_readme_table_update_round_trip(tmp_path: Path) -> None:
    stale = f"# x\n\n{README_START}\n| old |\n{README_END}\n\nafter\n"
    updated = readme_with_rules_table(stale, rules_markdown())
    assert readme_rules_table(updated) == rules_markdown()
    assert updated.startswith("# x\n\n") and updated.endswith(f"{README_END}\n\nafter\n")
    assert readme_with_rules_table(updated, rules_markdown()) == updated
    with pytest.raises(ValueError):
        readme_with_rules_table("no markers", rules_markdown())
    target = tmp_path / "README.md"
    target.write_text(stale)
    subprocess.run([sys.executable, "-m", "kqlint.reporters.explain", str(target)], check=True, capture_output=True,
                   timeout=60)
    assert target.read_text() == updated


def _quick_start_commands() -> list[str]:
    readme = README.read_text(encoding="utf-8")
    section = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```sh\n(.*?)```", section, flags=re.S)
    return [line for block in blocks for line in block.splitlines() if line.strip()]


def test_readme_quick_start_is_two_commands() -> None:
    assert _quick_start_commands() == [
        "python3 -m venv .venv && .venv/bin/pip install . && .venv/bin/kqlint check examples/",
        "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && .venv/bin/ruff check "
        "&& .venv/bin/python scripts/typecheck.py && .venv/bin/pytest",
    ]


def test_quick_start_names_the_python_version_and_who_the_test_command_is_for() -> None:
    from kqlint import __version__

    readme = README.read_text(encoding="utf-8")
    section = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    first, second = (section.index(command) for command in _quick_start_commands())
    assert "Python 3.10 or later" in section[:first]  # beside the first command
    assert "For contributors" in section[first:second] and "not needed to use kqlint" in section[first:second]
    assert "on 2 cores" in section[second:]
    requires = re.search(r'requires-python = ">=(\d+\.\d+)"', (ROOT / "pyproject.toml").read_text())
    assert requires is not None and f"Python {requires.group(1)} or later" in section
    assert f'version = "{__version__}"' not in (ROOT / "pyproject.toml").read_text()  # one place: kqlint.__version__


def test_ci_runs_the_readme_test_command() -> None:
    script = ROOT / ".ci" / "run"
    text = script.read_text(encoding="utf-8")
    assert text.startswith("#!/usr/bin/env bash\n") and "set -euo pipefail" in text
    assert script.stat().st_mode & 0o111, ".ci/run must be executable"
    pattern = re.search(r"grep -E '([^']+)' \"\$repo/README.md\"", text)
    assert pattern, ".ci/run must take its test command from README.md"
    matching = [c for c in _quick_start_commands() if re.search(pattern.group(1), c)]
    assert matching == [_quick_start_commands()[1]]
    assert "</dev/null" in text and "5)" in text  # no stdin; pytest's exit 5 (no tests) handled
    subprocess.run(["bash", "-n", str(script)], check=True, timeout=60)


def test_readme_documents_the_public_api() -> None:
    import kqlint

    readme = README.read_text(encoding="utf-8")
    for name in kqlint.__all__:
        assert f"`{name}`" in readme, name
