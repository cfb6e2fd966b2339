"""The rule catalogue agrees with itself: the registry (linter/engine/registry.py), the rule module
files under rules/, the fixture folders under tests/fixtures/rules/, each rule's
`kqlint explain` docstring, and the public contract in ../shared/spec/rules.md.

Rules not implemented yet are simply absent from the registry; every registered rule must
be complete. Each docstring's Bad example must trigger its rule and the Good one must not.
"""
from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import shared_dir
from kqlint.config import Config
from kqlint.domain.kinds import GroupKind
from kqlint.engine.pipeline import lint
from kqlint.engine.registry import builtin_rules
from kqlint.engine.rule import DOC_HEADINGS, ModuleRule
from kqlint.model import Severity
from kqlint.reporters.explain import explain_text
from kqlint.rules import BUILTIN

ROOT = Path(__file__).resolve().parent.parent
RULES_DIR = ROOT / "rules"
FIXTURES = ROOT / "tests" / "fixtures" / "rules"
FAMILIES = {"0": "engine", "1": "priority", "2": "queues", "3": "gang", "4": "podtemplate", "5": "kakaocloud"}
MODULE_RE = re.compile(r"^kq(\d{3})_([a-z0-9_]+)$")
HEADING_RE = re.compile(r"^## (.*?)\s*$", re.MULTILINE)
YAML_BLOCK_RE = re.compile(r"^```yaml[ \t]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
SEVERITY_RE = re.compile(r"\b(error|warning|info)\b")

RULES = builtin_rules()
IDS = [rule.code for rule in RULES]


# ------------------------------------------------------------------ rules.md

@dataclass(frozen=True)
class SpecRow:
    code: str
    slug: str
    severity: Severity
    profile: str | None


def spec_rows() -> dict[str, SpecRow]:
    """Every `| KQnnn | slug | sev | fires when |` row of rules.md, by code."""
    text = (shared_dir("spec") / "rules.md").read_text(encoding="utf-8")
    rows: dict[str, SpecRow] = {}
    profile: str | None = None
    for line in text.splitlines():
        if line.startswith("## "):
            match = re.search(r"Profile `([^`]+)`", line)
            profile = match.group(1) if match else None
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) < 4 or not re.fullmatch(r"KQ\d{3}", cells[0]):
            continue
        severity = SEVERITY_RE.search(cells[2])  # "info (error when no longer served)" -> info
        assert severity, f"rules.md: {cells[0]} has no default severity in {cells[2]!r}"
        assert cells[0] not in rows, f"rules.md lists {cells[0]} twice"
        rows[cells[0]] = SpecRow(cells[0], cells[1], Severity.parse(severity.group(1)), profile)
    return rows | cli_md_rows()


def cli_md_rows() -> dict[str, SpecRow]:
    """Rules defined by cli.md rather than rules.md: "reported as info `KQ000 unused-suppression`"."""
    text = (shared_dir("spec") / "cli.md").read_text(encoding="utf-8")
    return {code: SpecRow(code, slug, Severity.parse(severity), None) for severity, code, slug
            in re.findall(r"as (error|warning|info) `(KQ\d{3}) ([a-z0-9-]+)`", text)}


def test_rules_md_parses() -> None:
    rows = spec_rows()
    assert len(rows) >= 40, "rules.md tables not recognised"
    assert rows["KQ005"].severity is Severity.INFO and rows["KQ301"].severity is Severity.ERROR
    assert rows["KQ501"].profile == "kakaocloud" and rows["KQ101"].profile is None


@pytest.mark.parametrize("rule", RULES, ids=IDS)
def test_rule_matches_rules_md(rule: ModuleRule) -> None:
    row = spec_rows().get(rule.code)
    assert row is not None, f"{rule.code} is registered but not in rules.md"
    assert rule.slug == row.slug, f"{rule.code}: slug {rule.slug!r}, rules.md says {row.slug!r}"
    assert rule.meta.severity is row.severity, (
        f"{rule.code}: default severity {rule.meta.severity.label}, rules.md says {row.severity.label}")
    assert rule.meta.profile == row.profile, (
        f"{rule.code}: profile {rule.meta.profile!r}, rules.md says {row.profile!r}")


# ------------------------------------------------------------------ registry and module files

def _module_files() -> list[Path]:
    return sorted(p for p in RULES_DIR.glob("*/kq*.py"))


def test_registry_is_sorted_by_code_without_duplicates() -> None:
    codes = [rule.code for rule in RULES]
    assert codes == sorted(codes), "BUILTIN must be sorted by code"
    assert len(set(codes)) == len(codes), "a code is registered twice"
    assert len(set(BUILTIN)) == len(BUILTIN), "a module is registered twice"


def test_every_rule_module_on_disk_is_registered() -> None:
    registered = set(BUILTIN)
    unregistered = [p.relative_to(ROOT).as_posix() for p in _module_files()
                    if f"kqlint.rules.{p.parent.name}.{p.stem}" not in registered]
    assert not unregistered, f"rule modules not in BUILTIN: {unregistered}"


@pytest.mark.parametrize("rule", RULES, ids=IDS)
def test_module_file_is_named_after_code_and_slug(rule: ModuleRule) -> None:
    assert rule.module is not None
    prefix, family, stem = rule.module.__name__.rsplit(".", 2)
    assert prefix == "kqlint.rules", rule.module.__name__
    path = RULES_DIR / family / f"{stem}.py"
    assert path.is_file(), f"{rule.code}: registered module {rule.module.__name__} has no file {path}"
    match = MODULE_RE.match(stem)
    assert match, f"{path.name}: rule modules are named kqNNN_<slug>.py"
    assert f"KQ{match.group(1)}" == rule.code, f"{path.name} holds {rule.code}"
    assert match.group(2) == rule.slug.replace("-", "_"), f"{path.name}: slug is {rule.slug}"
    assert family == FAMILIES[rule.code[2]], f"{rule.code} belongs in rules/{FAMILIES[rule.code[2]]}/"


@pytest.mark.parametrize("rule", RULES, ids=IDS)
def test_meta_is_complete(rule: ModuleRule) -> None:
    meta = rule.meta
    assert meta.summary.strip() and "\n" not in meta.summary, f"{rule.code}: summary must be one line"
    assert meta.scope in ("object", "graph", "engine")
    # built-in rules scope by (group, kind): a bare kind name would match every API group
    assert meta.kinds is None or (isinstance(meta.kinds, frozenset) and meta.kinds
                                  and all(isinstance(k, GroupKind) for k in meta.kinds)), rule.code
    if meta.scope == "engine":
        assert rule.code in ("KQ000", "KQ001", "KQ006"), \
            f"{rule.code}: only the loader's findings and the suppression audit are engine-scope"
        assert rule.has("check_sources") or rule.has("check_suppressions"), f"{rule.code}: engine rule without a hook"


# ------------------------------------------------------------------ fixtures

@pytest.mark.parametrize("rule", RULES, ids=IDS)
def test_rule_has_bad_and_good_fixtures(rule: ModuleRule) -> None:
    folder = FIXTURES / rule.code
    assert folder.is_dir(), f"{rule.code}: no fixture folder tests/fixtures/rules/{rule.code}/"
    names = [p.name for p in folder.iterdir()]
    assert any(n.startswith("bad") for n in names), f"{rule.code}: no bad case"
    assert any(n.startswith("good") for n in names), f"{rule.code}: no good case"


def test_every_fixture_folder_belongs_to_a_registered_rule() -> None:
    registered = {rule.code for rule in RULES}
    orphans = sorted(p.name for p in FIXTURES.iterdir() if p.is_dir() and p.name not in registered)
    assert not orphans, f"fixture folders without a registered rule: {orphans}"


# ------------------------------------------------------------------ explain docs

def doc_sections(rule: ModuleRule) -> dict[str, str]:
    doc = rule.doc
    headings = HEADING_RE.findall(doc)
    assert headings == list(DOC_HEADINGS), (
        f"{rule.code}: docstring headings {headings}, expected exactly {list(DOC_HEADINGS)} in order")
    parts = HEADING_RE.split(doc)  # [preamble, heading, body, heading, body, ...]
    assert not parts[0].strip(), f"{rule.code}: text before `## What it catches`"
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def yaml_example(rule: ModuleRule, heading: str) -> str:
    blocks = YAML_BLOCK_RE.findall(doc_sections(rule)[heading])
    assert len(blocks) == 1, f"{rule.code}: `## {heading}` needs exactly one ```yaml block, found {len(blocks)}"
    return blocks[0]


@pytest.mark.parametrize("rule", RULES, ids=IDS)
def test_doc_has_the_headings_and_examples(rule: ModuleRule) -> None:
    sections = doc_sections(rule)
    for heading in DOC_HEADINGS:
        assert sections[heading].strip(), f"{rule.code}: `## {heading}` is empty"
    yaml_example(rule, "Bad")
    yaml_example(rule, "Good")
    text = explain_text(rule.code)
    assert text is not None and sections["How to fix"].strip() in text


def _lint_example(rule: ModuleRule, source: str, directory: Path, select: tuple[str, ...] | None) -> set[str]:
    (directory / "example.yaml").write_text(source, encoding="utf-8")
    config = Config(profile=rule.meta.profile).with_overrides(select=select)
    report = lint(["."], config)
    assert not report.internal_errors, report.internal_errors
    return {finding.code for finding in report.findings}


@pytest.mark.parametrize("rule", RULES, ids=IDS)
def test_doc_bad_example_triggers_the_rule(rule: ModuleRule, in_tmp_cwd: Path) -> None:
    codes = _lint_example(rule, yaml_example(rule, "Bad"), in_tmp_cwd, (rule.code, "KQ001"))
    assert rule.code in codes, f"{rule.code}: the Bad example yields {sorted(codes) or 'nothing'}"
    if rule.code != "KQ001":
        assert "KQ001" not in codes, f"{rule.code}: the Bad example is not valid YAML"


@pytest.mark.parametrize("rule", RULES, ids=IDS)
def test_doc_good_example_stays_silent(rule: ModuleRule, in_tmp_cwd: Path) -> None:
    # A Good example trips no rule that runs by default (with the rule's profile), nor the rule
    # itself when it is off by default.
    good = yaml_example(rule, "Good")
    codes = _lint_example(rule, good, in_tmp_cwd, None) | _lint_example(rule, good, in_tmp_cwd, (rule.code, "KQ001"))
    assert not codes, f"{rule.code}: the Good example yields {sorted(codes)}"


def test_rule_modules_import_cleanly() -> None:
    for path in _module_files():
        importlib.import_module(f"kqlint.rules.{path.parent.name}.{path.stem}")
