"""Rule plugins: config `plugins` (module names), the entry-point group `kqlint.rules`
(faked, and through a real dist-info on sys.path), options of plugin rules, and the error
boundary: a crashing plugin rule is one stderr line naming rule and file, exit 3, while
the other rules still report."""
from __future__ import annotations

import importlib.metadata
import json
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import chdir
from kqlint.cli import main
from kqlint.config import Config, load_config
from kqlint.engine.pipeline import lint
from kqlint.engine.registry import ENTRY_POINT_GROUP, all_rules, plugin_rules
from kqlint.errors import ConfigError, RegistryError

NAME_RULE = '''
"""
## What it catches
ConfigMaps with a forbidden name (a test plugin).
"""
from dataclasses import dataclass

from kqlint.model import Severity
from kqlint.engine.rule import RuleMeta

META = RuleMeta(code="P001", slug="forbidden-configmap-name", severity=Severity.WARNING,
                summary="a ConfigMap has a forbidden name", kinds=frozenset({"ConfigMap"}))


@dataclass(frozen=True)
class Options:
    forbidden_names: tuple[str, ...] = ("bad",)


def check(obj, ctx):
    if obj.name in ctx.options.forbidden_names:
        yield ctx.finding(at=obj.at_value("metadata", "name"), message=f"{obj.display()}: forbidden name")
'''

CRASH_RULE = '''
from kqlint.model import Severity
from kqlint.engine.rule import RuleMeta

META = RuleMeta(code="P002", slug="always-crashes", severity=Severity.ERROR, summary="a buggy rule")


def check(obj, ctx):
    raise KeyError("spec")
'''

PACKAGE_INIT = '''
RULE_MODULES = ["kqtest_pkg.names", "kqtest_pkg.crash"]
'''

MANIFEST = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: bad
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: good
"""


@pytest.fixture
def plugin_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A folder on sys.path holding test plugin modules; they leave sys.modules afterwards."""
    site = tmp_path / "site"
    (site / "kqtest_pkg").mkdir(parents=True)
    (site / "kqtest_names.py").write_text(NAME_RULE, encoding="utf-8")
    (site / "kqtest_crash.py").write_text(CRASH_RULE, encoding="utf-8")
    (site / "kqtest_broken.py").write_text("import does_not_exist_anywhere\n", encoding="utf-8")
    (site / "kqtest_nometa.py").write_text("def check(obj, ctx):\n    return []\n", encoding="utf-8")
    (site / "kqtest_pkg" / "__init__.py").write_text(PACKAGE_INIT, encoding="utf-8")
    (site / "kqtest_pkg" / "names.py").write_text(NAME_RULE, encoding="utf-8")
    (site / "kqtest_pkg" / "crash.py").write_text(CRASH_RULE, encoding="utf-8")
    (tmp_path / "m.yaml").write_text(MANIFEST, encoding="utf-8")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("KQLINT_ALLOW_PLUGINS", "1")  # the opt-in (test_hostile_security.py: without it)
    yield tmp_path
    for name in [n for n in sys.modules if n.startswith(("kqtest_", "kqdist_"))]:
        del sys.modules[name]


def config_file(path: Path, text: str) -> str:
    (path / "kq.yaml").write_text(textwrap.dedent(text), encoding="utf-8")
    return "kq.yaml"


# ------------------------------------------------------------------ config `plugins`

def test_config_plugin_module(plugin_dir: Path) -> None:
    config = load_config(config_file(plugin_dir, "plugins: [kqtest_names]\n"))
    report = lint(["m.yaml"], config)
    assert [(f.code, f.location.line, f.location.column) for f in report.findings] == [("P001", 4, 9)]
    assert report.findings[0].message == "ConfigMap default/bad: forbidden name"


def test_plugin_options_are_validated_and_used(plugin_dir: Path) -> None:
    config = load_config(config_file(plugin_dir, """\
        plugins: [kqtest_names]
        rules:
          forbidden-configmap-name: {forbidden-names: [good]}
        """))
    assert [f.obj.name for f in lint(["m.yaml"], config).findings if f.obj] == ["good"]
    bad = load_config(config_file(plugin_dir, """\
        plugins: [kqtest_names]
        rules:
          P001: {forbidden-names: good}
        """))
    with pytest.raises(ConfigError, match=r"^kq.yaml:3:27: rules.P001.forbidden-names: must be a list"):
        lint(["m.yaml"], bad)


def test_plugin_package_with_rule_modules(plugin_dir: Path) -> None:
    rules = plugin_rules(["kqtest_pkg"])
    assert [r.code for r in rules] == ["P001", "P002"]


def test_plugin_rules_are_selectable_by_prefix(plugin_dir: Path) -> None:
    config = load_config(config_file(plugin_dir, "plugins: [kqtest_names]\nselect: [P]\n"))
    assert {f.code for f in lint(["m.yaml"], config).findings} == {"P001"}
    assert lint(["m.yaml"], config.with_overrides(ignore=("P0",))).findings == ()


def test_unimportable_plugin_exits_2(plugin_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config_file(plugin_dir, "plugins: [kqtest_broken]\n")
    assert main(["check", "--config", "kq.yaml", "m.yaml"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("kqlint: cannot load rule plugin 'kqtest_broken': ModuleNotFoundError")
    assert err.count("\n") == 1


def test_plugin_without_meta_exits_2(plugin_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config_file(plugin_dir, "plugins: [kqtest_nometa]\n")
    assert main(["check", "--config", "kq.yaml", "m.yaml"]) == 2
    assert "rule module kqtest_nometa has no META" in capsys.readouterr().err


def test_missing_plugin_module_exits_2(plugin_dir: Path) -> None:
    config_file(plugin_dir, "plugins: [kqtest_no_such_module]\n")
    assert main(["check", "--config", "kq.yaml", "m.yaml"]) == 2


# ------------------------------------------------------------------ entry points

def _fake_entry_points(monkeypatch: pytest.MonkeyPatch, *pairs: tuple[str, str]) -> None:
    real = importlib.metadata.entry_points
    points = [importlib.metadata.EntryPoint(name=name, value=value, group=ENTRY_POINT_GROUP)
              for name, value in pairs]

    def entry_points(**selection: str) -> object:
        if selection.get("group") == ENTRY_POINT_GROUP:
            return points
        return real(**selection)

    monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)


def test_entry_point_plugin(plugin_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_entry_points(monkeypatch, ("acme", "kqtest_names"))
    assert "P001" in [r.code for r in all_rules()]
    assert [f.code for f in lint(["m.yaml"], Config()).findings] == ["P001"]


def test_entry_point_and_config_naming_the_same_module_load_once(plugin_dir: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_entry_points(monkeypatch, ("acme", "kqtest_names"))
    assert [r.code for r in all_rules(["kqtest_names"])].count("P001") == 1


def test_broken_entry_point_exits_2(plugin_dir: Path, monkeypatch: pytest.MonkeyPatch,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    _fake_entry_points(monkeypatch, ("acme-broken", "kqtest_broken"))
    assert main(["check", "m.yaml"]) == 2
    assert "cannot load rule plugin 'acme-broken'" in capsys.readouterr().err


def test_installed_distribution_entry_point(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A real dist-info folder on sys.path, as `pip install` leaves it."""
    site = tmp_path / "dist-site"
    dist_info = site / "kqdist_rules-0.1.dist-info"
    dist_info.mkdir(parents=True)
    (dist_info / "METADATA").write_text("Metadata-Version: 2.1\nName: kqdist-rules\nVersion: 0.1\n")
    (dist_info / "entry_points.txt").write_text(f"[{ENTRY_POINT_GROUP}]\nkqdist = kqdist_rules\n")
    (site / "kqdist_rules.py").write_text(NAME_RULE.replace("P001", "D001"), encoding="utf-8")
    (tmp_path / "m.yaml").write_text(MANIFEST, encoding="utf-8")
    monkeypatch.syspath_prepend(str(site))
    try:
        with chdir(tmp_path):
            report = lint(["m.yaml"], Config())
        assert [f.code for f in report.findings] == ["D001"]
    finally:
        sys.modules.pop("kqdist_rules", None)


# ------------------------------------------------------------------ the error boundary

def test_crashing_plugin_rule_is_one_line_and_exit_3(plugin_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config_file(plugin_dir, "plugins: [kqtest_pkg]\n")
    assert main(["check", "--config", "kq.yaml", "--format", "json", "m.yaml"]) == 3
    captured = capsys.readouterr()
    lines = [line for line in captured.err.splitlines() if "no project root" not in line]  # tmp: no .git
    assert len(lines) == 1, lines  # one line for the broken rule, not one per object
    assert "P002 (always-crashes, plugin module kqtest_pkg.crash)" in lines[0]
    assert "m.yaml" in lines[0] and "KeyError" in lines[0]
    assert "Traceback" not in captured.err
    findings = json.loads(captured.out)["findings"]
    assert [(f["code"], f["line"]) for f in findings] == [("P001", 4)]  # the other rule still ran


def test_crashing_rule_in_the_python_api(plugin_dir: Path) -> None:
    report = lint(["m.yaml"], load_config(config_file(plugin_dir, "plugins: [kqtest_crash, kqtest_names]\n")))
    assert len(report.internal_errors) == 1 and "P002" in report.internal_errors[0]
    assert [f.code for f in report.findings] == ["P001"]


def test_plugin_slug_clashing_with_a_builtin_exits_2(plugin_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (plugin_dir / "site" / "kqtest_clash.py").write_text(
        NAME_RULE.replace("forbidden-configmap-name", "invalid-yaml"), encoding="utf-8")
    config_file(plugin_dir, "plugins: [kqtest_clash]\n")
    assert main(["check", "--config", "kq.yaml", "m.yaml"]) == 2
    assert "clashes with KQ001" in capsys.readouterr().err


@pytest.mark.parametrize("code,slug,message", [
    ("KQ901", "forbidden-configmap-name", "code KQ901 starts with KQ, which is reserved for built-in rules"),
    ("p001", "forbidden-configmap-name", "code 'p001' is not upper-case letters followed by digits"),
    ("ACME", "forbidden-configmap-name", "code 'ACME' is not upper-case letters followed by digits"),
    ("P001", "Forbidden_Name", "(P001): slug 'Forbidden_Name' is not lower-case words joined by '-'"),
])
def test_plugin_codes_and_slugs_are_checked(plugin_dir: Path, capsys: pytest.CaptureFixture[str],
                                            code: str, slug: str, message: str) -> None:
    """Like flake8's code-prefix check: a plugin cannot take a built-in's KQ code or a malformed name."""
    (plugin_dir / "site" / "kqtest_form.py").write_text(
        NAME_RULE.replace("P001", code).replace("forbidden-configmap-name", slug), encoding="utf-8")
    config_file(plugin_dir, "plugins: [kqtest_form]\n")
    assert main(["check", "--config", "kq.yaml", "m.yaml"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("kqlint: rule module kqtest_form") and message in err, err


def test_plugin_registry_error_type() -> None:
    with pytest.raises(RegistryError):
        plugin_rules(["kqtest_definitely_missing"])
