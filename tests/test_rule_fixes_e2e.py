"""Rule fixes applied end to end (issue 11): every rule fixture case with a `fixable` marker is
copied, fixed with `kqlint check --fix` (`--unsafe-fixes` for rules whose fixes are unsafe),
and then: the file changed, a new check no longer reports the fixed findings and reports
nothing new (any rule), a second `--fix` changes nothing, and kubectl still decodes it.

Markers: `# expect: KQ005:13 fixable` says the finding carries a fix; a finding of a fixable
rule without the word carries none (the cases where a fix must not be offered). For a few
file cases, tests/fixtures/fixes/<CODE>/<case>.fixed holds the exact bytes after the fix.
"""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from helpers import EXPECT_RE, chdir, lint_case, rule_profile
from kqlint.cli import main
from kqlint.config import Config, load_config
from kqlint.engine.pipeline import lint
from kqlint.engine.registry import builtin_rules
from kqlint.model import Finding, Report

RULE_FIXTURES = Path(__file__).parent / "fixtures" / "rules"
FIXES = Path(__file__).parent / "fixtures" / "fixes"
FIXABLE_RULES = {rule.code: rule.meta.fix for rule in builtin_rules() if rule.meta.fix}


def fixable_markers(case: Path) -> set[tuple[str, int, str]]:
    """(file relative to the case, line, code) of every marker followed by `fixable`."""
    found = set()
    files = [case] if case.is_file() else sorted(p for p in case.rglob("*") if p.is_file())
    base = case.parent if case.is_file() else case
    for file in files:
        if file.name.startswith("."):
            continue
        for number, line in enumerate(file.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            match = EXPECT_RE.search(line)
            for item in match.group(1).split(",") if match else ():
                words = item.split()
                if len(words) > 1 and "fixable" in words[1:]:
                    found.add((file.relative_to(base).as_posix(), number, words[0].split(":")[0]))
    return found


def _cases() -> list[tuple[str, Path]]:
    return [(rule_dir.name, case) for rule_dir in sorted(RULE_FIXTURES.iterdir())
            if rule_dir.name in FIXABLE_RULES for case in sorted(rule_dir.iterdir())
            if case.name.startswith("bad")]


CASES = _cases()
FIX_CASES = [(code, case) for code, case in CASES if fixable_markers(case)]


@pytest.mark.parametrize("code,case", CASES, ids=[f"{c}/{p.name}" for c, p in CASES])
def test_fix_offered_exactly_where_marked(code: str, case: Path) -> None:
    report = lint_case(case, code)
    offered = {(f.location.file, f.location.line, f.code) for f in report.findings if f.fix is not None}
    assert offered == fixable_markers(case)
    for finding in report.findings:
        if finding.fix is not None:
            # META.fix is the riskiest applicability the rule offers (KQ223: safe but in two cases)
            assert finding.fix.applicability.value in (FIXABLE_RULES[code], "safe"), finding.fix
            assert finding.fix.title and finding.fix.edits


def _copy(case: Path, into: Path) -> tuple[Path, str]:
    """The case copied into ``into`` (with the rule folder's config for a file case); returns
    the folder to run in and the target to lint."""
    if case.is_dir():
        shutil.copytree(case, into / case.name)
        return into / case.name, "."
    shutil.copy(case, into / case.name)
    config = case.parent / ".kqlint.yaml"
    if config.is_file():
        shutil.copy(config, into / ".kqlint.yaml")
    return into, case.name


def _config(code: str | None) -> Config:
    config = load_config(".kqlint.yaml") if Path(".kqlint.yaml").is_file() else Config()
    profile = config.profile or (rule_profile(code) if code else None)
    return config.with_overrides(select=(code,), profile=profile) if code else \
        config.with_overrides(profile=profile)


def _check(target: str, code: str | None, profile_of: str) -> Report:
    config = _config(code)
    if code is None and config.profile is None and rule_profile(profile_of):
        config = config.with_overrides(profile=rule_profile(profile_of))
    return lint([target], config, auto_context=False)


# Findings an unsafe fix may bring on other nodes, because it changes what the cluster does.
CONSEQUENCES = {
    "KQ201": {"KQ108": "withinClusterQueue: LowerPriority makes the queue preempt: workloads "
                       "without a WorkloadPriorityClass label are now the first to go (info)"},
}


def _written(finding: Finding) -> list[tuple[Any, ...]]:
    """(file, path) of every node a fix writes: the renamed key, the replaced or inserted value."""
    assert finding.fix is not None
    paths = []
    for edit in finding.fix.edits:
        if edit.op == "rename":
            paths.append(edit.path[:-1] + (edit.key,))
        elif edit.op == "insert":
            paths.append(edit.path + (edit.key,))
        elif edit.op == "replace":
            paths.append(edit.path)
    return [(finding.location.file, path) for path in paths]


def _revealed(identity: tuple[Any, ...], written: list[tuple[Any, ...]]) -> bool:
    """A finding on a node the fix wrote: kqlint now reads a field it could not read before
    (a misspelt priorityClassName names a class that does not exist). True on the cluster
    too; the fix did not break it."""
    file, path = identity[1], identity[-1]
    return any(file == at and path[:len(node)] == node for at, node in written)


def _identity(finding: Finding) -> tuple[Any, ...]:
    """A finding across a fix: lines shift and apiVersions change, the object and path do not."""
    obj = finding.obj
    return (finding.code, finding.location.file, obj.kind if obj else None, obj.namespace if obj else None,
            obj.name if obj else None, finding.location.path)


def _fix(target: str, code: str, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["check", "--fix-only", "--no-cache", "--select", code]
    if FIXABLE_RULES[code] == "unsafe":
        args.append("--unsafe-fixes")
    if rule_profile(code):
        args += ["--profile", str(rule_profile(code))]
    assert main([*args, target]) == 0
    capsys.readouterr()


def _contents(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("code,case", FIX_CASES, ids=[f"{c}/{p.name}" for c, p in FIX_CASES])
def test_fix_applies_and_leaves_nothing_new(code: str, case: Path, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    folder, target = _copy(case, tmp_path)
    with chdir(folder):
        before_rule = _check(target, code, code)
        before_all = _check(target, None, code)
        original = _contents(folder)
        _fix(target, code, capsys)
        fixed = _contents(folder)
        assert fixed != original, "no fix was applied"
        after_all = _check(target, None, code)
        fixed_ids = {_identity(f) for f in before_rule.findings if f.fix is not None}
        after_ids = {_identity(f) for f in after_all.findings}
        assert not fixed_ids & after_ids, f"still reported after --fix: {fixed_ids & after_ids}"
        written = [path for f in before_rule.findings if f.fix is not None for path in _written(f)]
        new = {i for i in after_ids - {_identity(f) for f in before_all.findings}
               if not _revealed(i, written) and i[0] not in CONSEQUENCES.get(code, {})}
        assert not new, f"new findings after --fix: {new}"
        assert not after_all.internal_errors
        _fix(target, code, capsys)
        assert _contents(folder) == fixed, "a second --fix changed the files again"
    changed = [folder / name for name in fixed if fixed[name] != original.get(name)]
    _kubectl_decodes(changed)
    expected = FIXES / code / f"{case.name}.fixed"
    if expected.is_file():  # the exact bytes for a few cases: comments, order and quoting kept
        assert (folder / target).read_bytes() == expected.read_bytes()


def _kubectl_decodes(files: list[Path]) -> None:
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        pytest.skip("kubectl is not installed: the decode check needs it")
    for file in files:
        result = subprocess.run([kubectl, "label", "--local", "-f", str(file), "x=y", "-o", "json"],
                                capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, f"{file.name}: kubectl cannot decode the fixed file: {result.stderr}"
