"""Shared test helpers: lint a fixture case and read its `# expect:` markers."""
from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from kqlint.config import Config, load_config
from kqlint.engine import runner as runner_module
from kqlint.engine.pipeline import lint
from kqlint.model import Report

EXPECT_RE = re.compile(r"#\s*expect:\s*(.+)$")
RELATED_RE = re.compile(r"#\s*related:\s*(.+)$")
MARK_RE = re.compile(r"^(?P<code>[A-Z]+\d+):(?P<col>\d+)$")


@contextmanager
def chdir(path: Path) -> Iterator[None]:
    old = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


def markers(case: Path, regex: re.Pattern[str] = EXPECT_RE) -> set[tuple[str, int, int, str]]:
    """(file relative to the case, line, column, code) for every `# expect: KQnnn:col` marker."""
    found = set()
    files = [case] if case.is_file() else sorted(p for p in case.rglob("*") if p.is_file())
    base = case.parent if case.is_file() else case
    for file in files:
        if file.name.startswith("."):
            continue
        for number, line in enumerate(file.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            match = regex.search(line)
            if not match:
                continue
            for item in match.group(1).split(","):
                item = item.strip().split()[0] if item.strip() else ""
                mark = MARK_RE.match(item)
                assert mark, f"{file}:{number}: marker must look like `KQ102:7` (code:column), got {item!r}"
                found.add((file.relative_to(base).as_posix(), number, int(mark["col"]), mark["code"]))
    return found


def lint_case(case: Path, code: str | None, config: Config | None = None) -> Report:
    """Lint one fixture case (a file or folder) from its parent folder, only ``code`` enabled
    (and the rules its own ``.kqlint.yaml`` selects: KQ000's cases need the rule a comment meant)."""
    base = case.parent if case.is_file() else case
    with chdir(base):
        if config is None:
            config = load_config(".kqlint.yaml") if Path(".kqlint.yaml").is_file() else Config()
        if code is not None:
            config = config.with_overrides(select=(code, *config.select), profile=config.profile or rule_profile(code))
        target = case.name if case.is_file() else "."
        return lint([target], config, auto_context=False)


def lint_files(folder: Path, files: dict[str, str], codes: tuple[str, ...],
               config: Config | None = None) -> Report:
    """``files`` (name -> text) written into ``folder`` and linted there with only ``codes``
    selected; a run that hit an internal error fails the test."""
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    with chdir(folder):
        report = lint(["."], (config or Config()).with_overrides(select=codes), auto_context=False)
    assert not report.internal_errors, report.internal_errors
    return report


def rule_profile(code: str) -> str | None:
    """The profile a rule belongs to (its fixtures run with that profile active)."""
    from kqlint.engine.registry import builtin_rules

    return next((r.meta.profile for r in builtin_rules() if r.code == code), None)


def found(report: Report) -> set[tuple[str, int, int, str]]:
    return {(f.location.file, f.location.line, f.location.column, f.code) for f in report.findings}


def found_related(report: Report) -> set[tuple[str, int, int, str]]:
    return {(r.file, r.line, r.column, f.code) for f in report.findings for r in f.related}


# ------------------------------------------------------------------ JSON report validation

REPORT_SCHEMA = Path(__file__).resolve().parent.parent / "schemas" / "report.schema.json"


def validate_json_report(report: str | bytes | dict[str, object]) -> dict[str, object]:
    """Validate a ``--format json`` report (text or parsed) against schemas/report.schema.json,
    plus what a schema cannot say: counts agree and findings are sorted. Returns the dict."""
    import json

    import jsonschema

    data = json.loads(report) if isinstance(report, (str, bytes)) else report
    schema = json.loads(REPORT_SCHEMA.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(data)
    findings = data["findings"]  # suppressed ones too (--report-suppressed): the count matches the list
    summary = data["summary"]
    assert summary["findings"] == len(findings), "summary.findings != number of findings"  # type: ignore[index,arg-type]
    listed_suppressed = sum(1 for f in findings if "suppression" in f)  # type: ignore[union-attr]
    assert listed_suppressed in (0, summary.get("suppressed", 0)), "suppressed findings listed but not counted"  # type: ignore[union-attr]
    by_severity = summary["by_severity"]  # type: ignore[index]
    for severity in ("error", "warning", "info"):
        assert by_severity[severity] == sum(1 for f in findings if f["severity"] == severity)
    keys = [(f["file"], f["line"], f["column"], f["code"]) for f in data["findings"]]  # type: ignore[union-attr]
    assert keys == sorted(keys), "findings must be sorted by file, line, column, code"
    return data  # type: ignore[return-value]


# ------------------------------------------------------------------ guards of the cache's reuse

GUARD_ROOT = Path(__file__).resolve().parent.parent


def guard_cases() -> Iterator[Path]:
    """Every rule fixture case and every scope fixture (units): what the reuse guards lint
    (tests/test_cache_reads.py, tests/test_cache_masks.py), besides the examples."""
    rules = GUARD_ROOT / "tests" / "fixtures" / "rules"
    for rule_dir in sorted(p for p in rules.iterdir() if p.is_dir()):
        yield from sorted(case for case in rule_dir.iterdir() if case.name.startswith(("bad", "good")))
    yield from sorted(p for p in (GUARD_ROOT / "tests" / "fixtures" / "scope").iterdir() if p.is_dir())


def graph_like(graph: Any, objects: Iterable[Any], elsewhere: dict[Any, Any] | None = None) -> Any:
    """A graph of ``objects`` with ``graph``'s platform model, unit (and whether it is a test
    harness's), layout and (unless given) objects of other units."""
    from kqlint.domain.graph import ObjectGraph, Placement
    from kqlint.domain.platform import platform_of

    platform = platform_of(graph)
    placement = Placement(graph.unit, graph.elsewhere if elsewhere is None else elsewhere, graph.kustomize_dirs,
                          graph.applied_together, graph.unit_of, graph.open_world)
    made = ObjectGraph((), placement, platform=lambda _: platform)
    made.objects, made._by_kind, made._by_name = [], type(made._by_kind)(list), type(made._by_name)(list)
    made.add(objects)
    return made


_REAL_RUN_RULES = runner_module.run_rules


class ReuseGuard:
    """Wraps runner.run_rules for a guard of the cache's reuse: ``judge`` sees every graph
    before the real run; ``same`` records a pair of findings that must be equal (fixes too)."""

    def __init__(self, codes: Iterable[str]) -> None:
        self.compared = dict.fromkeys(codes, 0)
        self.mismatches: list[tuple[str, str, list[Any], list[Any]]] = []

    def run_rules(self, rules: list[Any], graph: Any, config: Any, *args: Any, **kwargs: Any) -> Any:
        states = kwargs.get("states") if "states" in kwargs else (args[2] if len(args) > 2 else None)
        self.judge(rules, graph, config, states)
        return _REAL_RUN_RULES(rules, graph, config, *args, **kwargs)

    def judge(self, rules: list[Any], graph: Any, config: Any, states: Any) -> None:
        raise NotImplementedError

    def same(self, code: str, where: str, whole: list[Any], other: list[Any]) -> None:
        self.compared[code] += bool(whole or other)
        if [(f, f.fix) for f in whole] != [(f, f.fix) for f in other]:  # a finding's fix is no part of ==
            self.mismatches.append((code, where, whole, other))

    @staticmethod
    def visits(rule: Any, obj: Any) -> bool:
        """``rule`` (per object) is run on ``obj``."""
        scope = runner_module._scope(rule)
        return scope is None or (obj.group, obj.kind) in scope[0] or obj.kind in scope[1]


def lint_everything_guarded(guard: Any, monkeypatch: Any) -> None:
    """Lint the examples and every guard case with ``guard.run_rules`` in place of the runner's."""
    from kqlint.engine import analysis

    monkeypatch.setattr(analysis, "run_rules", guard.run_rules)
    with chdir(GUARD_ROOT / "examples"):
        lint(["."], Config(), auto_context=False)
    for case in guard_cases():
        lint_case(case, None)


def cache_folder(project: Path) -> Path:
    """Where the default cache of ``project`` lives: kqlint/<project> in XDG_CACHE_HOME (every
    test has its own, tests/conftest.py)."""
    from kqlint.cache.home import owned_folder, project_folder

    return Path(project_folder(owned_folder(os.environ["XDG_CACHE_HOME"]), str(project)))


def declared_reads() -> dict[str, Any]:
    """Code -> RuleMeta of every built-in rule that declares what it reads (``RuleMeta.reads``)."""
    from kqlint.engine.registry import builtin_rules

    return {rule.code: rule.meta for rule in builtin_rules() if rule.meta.reads is not None}


def pure_codes() -> frozenset[str]:
    """The built-in rules that declare their findings depend on their object alone."""
    from kqlint.engine.registry import builtin_rules

    return frozenset(rule.code for rule in builtin_rules() if rule.meta.pure)
