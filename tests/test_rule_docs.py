"""One page per built-in rule, docs/rules/KQNNN.md, generated from its docstring
(scripts/rule_docs.py) and checked in: the pages stay in step with the docstrings, and
SARIF's helpUri, the language server's codeDescription.href and `kqlint explain` point at
them. Plugins and custom rules have no page, so nothing points anywhere for them."""
from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path
from types import ModuleType

import pytest
from kqlint.engine.registry import builtin_rules, load_rules
from kqlint.model import Finding, Location, Report, Severity, Summary
from kqlint.reporters import render
from kqlint.reporters.explain import DOCS_URL, code_doc_url, doc_url, explain_text, rule_page

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "rules"
RULES = builtin_rules()


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("rule_docs", ROOT / "scripts" / "rule_docs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_built_in_rule_has_its_page_in_step_with_its_docstring() -> None:
    pages = sorted(p.name for p in DOCS.glob("KQ*.md"))
    assert pages == sorted(f"{rule.code}.md" for rule in RULES)
    for rule in RULES:
        assert (DOCS / f"{rule.code}.md").read_text(encoding="utf-8") == rule_page(rule), \
            f"docs/rules/{rule.code}.md is stale: run python scripts/rule_docs.py"
    assert _script().main(["--check"]) == 0


def test_a_page_says_what_explain_says_as_markdown() -> None:
    rule = next(r for r in RULES if r.code == "KQ301")
    page = rule_page(rule)
    assert page.startswith("# KQ301 min-member-mismatch\n")
    assert "rules/gang/kq301_min_member_mismatch.py" in page  # where to edit it
    for heading in ("## What it catches", "## Why it breaks on a cluster", "## Bad", "## Good", "## How to fix",
                    "## How to suppress"):
        assert heading in page
    assert rule.doc.strip() in page and rule.meta.summary in page


def test_the_script_rewrites_a_stale_page_and_removes_only_its_own_left_over_pages(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    script = _script()
    docs = tmp_path / "rules"
    shutil.copytree(DOCS, docs)
    monkeypatch.setattr(script, "DOCS", docs)
    (docs / "KQ301.md").write_text("old\n", encoding="utf-8")
    (docs / "KQ999.md").write_text((docs / "KQ101.md").read_text(encoding="utf-8"), encoding="utf-8")
    (docs / "KQ998.md").write_text("a page someone wrote by hand\n", encoding="utf-8")
    assert script.differences(script.expected_pages()) == ["stale KQ301.md", "left over KQ999.md"]
    assert script.main(["--check"]) == 1
    assert script.main([]) == 0
    assert script.differences(script.expected_pages()) == []
    assert not (docs / "KQ999.md").exists() and (docs / "KQ998.md").exists()


def test_sarif_help_uri_points_at_the_page_of_built_in_rules_only() -> None:
    finding = Finding("KQ301", "min-member-mismatch", Severity.ERROR, "m", Location("a.yaml", 1, 1))
    rule = next(r for r in load_rules() if r.code == "KQ301")
    sarif = json.loads(render("sarif", Report((finding,), Summary(files=1)), rules=[rule]))
    [descriptor] = sarif["runs"][0]["tool"]["driver"]["rules"]
    assert descriptor["helpUri"] == f"{DOCS_URL}KQ301.md"
    assert (DOCS / "KQ301.md").is_file()


def test_explain_says_where_the_page_lives() -> None:
    text = explain_text("KQ205")
    assert text is not None
    assert text.rstrip().endswith(f"Documentation: docs/rules/KQ205.md in the repository, {DOCS_URL}KQ205.md")


def test_custom_and_plugin_rules_have_no_page() -> None:
    assert code_doc_url("X001") is None and code_doc_url("KQ999") is None
    assert code_doc_url("KQ101") == f"{DOCS_URL}KQ101.md"
    assert all(doc_url(rule) == f"{DOCS_URL}{rule.code}.md" for rule in RULES)
