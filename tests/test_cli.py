"""The `kqlint` command: exit codes, flags, formats, stdin, colors, determinism, crash
handling and lazy imports (cli.md "Commands", "kqlint check options", "Exit status")."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from helpers import validate_json_report
from kqlint import __version__
from kqlint.cli import BUG_HINT, main

PROJECT = Path(__file__).parent / "fixtures" / "golden" / "project"
ANSI = re.compile(r"\x1b\[[0-9;]*m")

CONFIGMAP = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ok\n  namespace: default\ndata:\n  k: v\n"
BROKEN = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [broken\n"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def run_process(*args: str, cwd: Path, env: dict[str, str] | None = None,
                stdin: Any = subprocess.DEVNULL) -> subprocess.CompletedProcess[bytes]:
    full_env = {k: v for k, v in os.environ.items() if k not in ("GITHUB_ACTIONS", "NO_COLOR", "FORCE_COLOR")}
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-m", "kqlint.cli", *args], cwd=cwd, env=full_env,
                          stdin=stdin, capture_output=True, timeout=120, check=False)


@pytest.fixture
def tree(in_tmp_cwd: Path) -> Path:
    """A clean manifest, a broken one and an unrendered chart (engine findings only)."""
    (in_tmp_cwd / "ok.yaml").write_text(CONFIGMAP)
    (in_tmp_cwd / "bad").mkdir()
    (in_tmp_cwd / "bad" / "broken.yaml").write_text(BROKEN)
    chart = in_tmp_cwd / "chart"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\n")
    (chart / "templates" / "cm.yaml").write_text("metadata:\n  name: {{ .Release.Name }}\n")
    return in_tmp_cwd


def assert_no_traceback(err: str) -> None:
    assert "Traceback" not in err and 'File "' not in err, err


# ------------------------------------------------------------------ basics

def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "--version") == (0, f"kqlint {__version__}\n", "")


@pytest.mark.parametrize("command", [[], ["check"], ["rules"], ["explain"]])
def test_help_on_every_command(capsys: pytest.CaptureFixture[str], command: list[str]) -> None:
    code, out, _ = run(capsys, *command, "--help")
    assert code == 0
    assert out.startswith("Usage: kqlint")
    for word in {"check": ["--format", "--fail-on", "--select", "--output"], "rules": ["--format"],
                 "explain": ["RULE"]}.get(command[0] if command else "", ["check", "rules", "explain"]):
        assert word in out


def test_no_arguments_prints_usage(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys)
    assert code in (0, 2)  # click < 8.2 exits 0 here, later versions 2
    assert "Usage: kqlint" in out + err and "check" in out + err


# ------------------------------------------------------------------ exit status

def test_clean_tree_exits_0(capsys: pytest.CaptureFixture[str], in_tmp_cwd: Path) -> None:
    (in_tmp_cwd / "ok.yaml").write_text(CONFIGMAP)
    code, out, err = run(capsys, "check", "--select", "KQ0")
    assert (code, err) == (0, "")
    assert out == "0 findings (0 errors, 0 warnings, 0 info) in 1 file, 1 object\n"


def test_findings_exit_1_and_fail_on(capsys: pytest.CaptureFixture[str], tree: Path) -> None:
    assert run(capsys, "check", "--select", "KQ001,KQ006")[0] == 1
    only_info = ["check", "--select", "KQ006", "."]
    assert run(capsys, *only_info)[0] == 0                      # default fail-on warning
    assert run(capsys, *only_info, "--fail-on", "info")[0] == 1
    assert run(capsys, "check", "--select", "KQ001", "--fail-on", "never")[0] == 0
    assert run(capsys, "check", "--select", "KQ001", "--fail-on", "error")[0] == 1


def test_fail_on_from_config(capsys: pytest.CaptureFixture[str], tree: Path) -> None:
    (tree / ".kqlint.yaml").write_text("fail-on: info\n")
    assert run(capsys, "check", "--select", "KQ006")[0] == 1
    assert run(capsys, "check", "--select", "KQ006", "--fail-on", "warning")[0] == 0


@pytest.mark.parametrize("args,needle", [
    (["check", "missing-dir"], "path does not exist: missing-dir"),
    (["check", "--no-such-flag"], "No such option"),
    (["check", "--fail-on", "sometimes"], "--fail-on must be one of"),
    (["check", "--format", "xml"], "unknown --format 'xml'"),
    (["check", "--select", "KQ9"], "'KQ9' matches no rule"),
    (["check", "--ignore", "no-such-rule"], "'no-such-rule' matches no rule"),
    (["check", "--config", "nope.yaml"], "config file not found: nope.yaml"),
    (["check", "-o", "report.out"], "cannot tell the report format of --output report.out"),
    (["check", "-f", "json", "-f", "text"], "only one report can go to stdout"),
    (["check", "-f", "json", "-o", "no/such/dir/r.json"], "cannot write no/such/dir/r.json"),
    (["explain", "KQ999"], "unknown rule 'KQ999'"),
    (["rules", "--format", "yaml"], "unknown --format 'yaml'"),
])
def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str], in_tmp_cwd: Path, args: list[str],
                             needle: str) -> None:
    (in_tmp_cwd / "ok.yaml").write_text(CONFIGMAP)
    code, _, err = run(capsys, *args)
    assert code == 2
    assert needle in err
    assert_no_traceback(err)


@pytest.mark.parametrize("config", [
    "fail-on: [unclosed\n",                       # not YAML
    "fail-on: sometimes\n",                       # bad value
])
def test_bad_config_exits_2(capsys: pytest.CaptureFixture[str], in_tmp_cwd: Path, config: str) -> None:
    (in_tmp_cwd / "ok.yaml").write_text(CONFIGMAP)
    (in_tmp_cwd / ".kqlint.yaml").write_text(config)
    code, out, err = run(capsys, "check")
    assert code == 2 and out == ""
    assert err.startswith("kqlint: ") and ".kqlint.yaml" in err and err.count("\n") == 1
    assert_no_traceback(err)


# ------------------------------------------------------------------ internal errors (exit 3)

def _crashing_rule() -> Any:
    from kqlint.engine.rule import ModuleRule, RuleMeta
    from kqlint.model import Severity

    def check(obj: Any, ctx: Any) -> Any:
        raise ZeroDivisionError("boom")

    meta = RuleMeta(code="KQ998", slug="always-crashes", severity=Severity.ERROR, summary="crashes")
    return ModuleRule(meta, SimpleNamespace(check=check), None, "")


def test_crash_in_a_rule_exits_3_naming_the_file(capsys: pytest.CaptureFixture[str], in_tmp_cwd: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    import kqlint.engine.registry

    (in_tmp_cwd / "ok.yaml").write_text(CONFIGMAP)
    monkeypatch.setattr(kqlint.engine.registry, "load_rules", lambda config=None: [_crashing_rule()])
    code, _, err = run(capsys, "check", "ok.yaml")
    assert code == 3
    err = "".join(line for line in err.splitlines(keepends=True) if "no project root" not in line)
    assert err.splitlines() == [err.strip()]
    assert "ok.yaml" in err and "KQ998" in err and "ZeroDivisionError: boom" in err and BUG_HINT in err
    assert_no_traceback(err)


def test_crash_while_loading_exits_3_naming_the_file(capsys: pytest.CaptureFixture[str], tree: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    import kqlint.loader

    real = kqlint.loader.parse_bytes

    def parse(display: str, raw: bytes, *rest: Any) -> Any:
        if display.endswith("ok.yaml"):
            raise KeyError("parser bug")
        return real(display, raw, *rest)

    monkeypatch.setattr(kqlint.loader, "parse_bytes", parse)
    code, out, err = run(capsys, "check", ".")
    assert code == 3 and out == ""
    assert err == f"kqlint: internal error while processing ok.yaml: KeyError: 'parser bug'; {BUG_HINT}\n"


def test_crash_in_a_reporter_exits_3(capsys: pytest.CaptureFixture[str], tree: Path,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    import kqlint.reporters.json

    def explode(*_: Any, **__: Any) -> str:
        raise RuntimeError("reporter bug")

    monkeypatch.setattr(kqlint.reporters.json, "render", explode)
    code, _, err = run(capsys, "check", "-f", "json")
    assert code == 3
    assert err == f"kqlint: internal error while processing the json report: RuntimeError: reporter bug; {BUG_HINT}\n"


def test_crash_anywhere_else_names_the_paths(capsys: pytest.CaptureFixture[str], tree: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    import kqlint.engine.analysis

    monkeypatch.setattr(kqlint.engine.analysis, "ObjectGraph", None)  # graph construction fails
    code, _, err = run(capsys, "check", "bad", "ok.yaml")
    assert code == 3
    assert err.startswith("kqlint: internal error while processing bad, ok.yaml: TypeError")
    assert_no_traceback(err)


def test_crash_while_reading_the_config_names_it(capsys: pytest.CaptureFixture[str], tree: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    import kqlint.config

    def broken(path: Any) -> Any:
        raise AttributeError("config bug")

    (tree / ".kqlint.yaml").write_text("fail-on: error\n")
    monkeypatch.setattr(kqlint.config, "load_config", broken)
    code, _, err = run(capsys, "check")
    assert code == 3
    assert err.startswith(f"kqlint: internal error while processing {tree / '.kqlint.yaml'}: AttributeError")


def test_crash_in_a_real_process_prints_no_traceback(tree: Path) -> None:
    script = ("import sys, kqlint.loader as l\n"
              "def boom(*a, **k): raise ValueError('kaputt')\n"
              "l.parse_bytes = boom\n"
              "from kqlint.cli import main\nsys.exit(main(['check', '.']))\n")
    result = subprocess.run([sys.executable, "-c", script], cwd=tree, capture_output=True, timeout=60,
                            stdin=subprocess.DEVNULL, check=False)
    err = result.stderr.decode()
    assert result.returncode == 3
    assert err.count("\n") == 1 and "internal error while processing" in err and "kaputt" in err
    assert_no_traceback(err)


def test_the_command_flushes_its_report_then_exits_without_freeing(tree: Path) -> None:
    """``python -m kqlint`` (the console script's entry) ends with os._exit (kqlint.engine.lifetime):
    the whole report is still written and the exit status kept."""
    for _ in range(200):  # a report longer than any pipe buffer
        (tree / f"broken-{_}.yaml").write_text(BROKEN)
    result = subprocess.run([sys.executable, "-m", "kqlint", "check", ".", "--format", "json", "--no-cache"],
                            cwd=tree, capture_output=True, timeout=120, stdin=subprocess.DEVNULL, check=False)
    assert result.returncode == 1, result.stderr
    assert len(validate_json_report(result.stdout.decode())["findings"]) > 200
    assert_no_traceback(result.stderr.decode())


def test_the_command_exits_as_usual_under_a_profiler(tree: Path) -> None:
    """``python -m cProfile -m kqlint``: the profiler still writes what it measured."""
    stats = tree / "run.prof"
    result = subprocess.run([sys.executable, "-m", "cProfile", "-o", str(stats), "-m", "kqlint", "check", "ok.yaml",
                             "--no-cache"], cwd=tree, capture_output=True, timeout=120, stdin=subprocess.DEVNULL,
                            check=False)
    assert stats.is_file() and stats.stat().st_size > 0, result.stderr


# ------------------------------------------------------------------ selection and output flags

def _codes(out: str) -> list[str]:
    return [f["code"] for f in validate_json_report(out)["findings"]]


def test_select_and_ignore(capsys: pytest.CaptureFixture[str], tree: Path) -> None:
    code, out, _ = run(capsys, "check", "-f", "json", "--select", "KQ001,KQ006")
    assert sorted(_codes(out)) == ["KQ001", "KQ006"]
    assert _codes(run(capsys, "check", "-f", "json", "--select", "unrendered-template")[1]) == ["KQ006"]
    assert _codes(run(capsys, "check", "-f", "json", "--select", "KQ0", "--ignore", "KQ006")[1]) == ["KQ001"]
    assert _codes(run(capsys, "check", "-f", "json", "--select", "KQ0", "--ignore", "invalid-yaml,KQ006")[1]) == []


def test_exclude(capsys: pytest.CaptureFixture[str], tree: Path) -> None:
    _, out, _ = run(capsys, "check", "-f", "json", "--select", "KQ0", "--exclude", "bad", "--exclude", "chart/**")
    data = validate_json_report(out)
    assert data["findings"] == [] and data["summary"]["files"] == 1


def test_quiet(capsys: pytest.CaptureFixture[str], tree: Path) -> None:
    assert run(capsys, "check", "-q", "ok.yaml") == (0, "", "")
    code, out, _ = run(capsys, "check", "--quiet", "--select", "KQ001")
    assert code == 1 and "bad/broken.yaml" in out


def test_statistics(capsys: pytest.CaptureFixture[str], tree: Path) -> None:
    _, out, _ = run(capsys, "check", "--statistics", "--select", "KQ001,KQ006")
    assert "     1  KQ001 invalid-yaml" in out.splitlines()
    assert "     1  KQ006 unrendered-template" in out.splitlines()


def test_format_output_pairs(capsys: pytest.CaptureFixture[str], tree: Path) -> None:
    (tree / ".out").mkdir()  # a dot folder: the reports written there are not linted themselves
    code, out, err = run(capsys, "check", "--select", "KQ0", "-f", "json", "-o", ".out/report.json",
                         "-f", "github", "-o", ".out/gh.txt", "--format", "text")
    assert code == 1 and err == ""
    assert out.startswith("bad/broken.yaml\n")          # the unpaired text report goes to stdout
    validate_json_report((tree / ".out" / "report.json").read_text())
    assert (tree / ".out" / "gh.txt").read_text().startswith("::error file=bad/broken.yaml,line=")
    code, out, _ = run(capsys, "check", "--select", "KQ0", "-f", "text", "-o", "-",
                       "-f", "json", "-o", ".out/r2.json")
    assert out.startswith("bad/broken.yaml\n")
    assert (tree / ".out" / "r2.json").read_text() == (tree / ".out" / "report.json").read_text()


def test_output_without_format_writes_text(capsys: pytest.CaptureFixture[str], tree: Path) -> None:
    code, out, _ = run(capsys, "check", "--select", "KQ001", "-o", "out.txt")
    assert code == 1 and out == ""
    assert (tree / "out.txt").read_text().startswith("bad/broken.yaml\n")  # .txt is never linted


def test_github_actions_env_selects_github_format(capsys: pytest.CaptureFixture[str], tree: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    _, out, _ = run(capsys, "check", "--select", "KQ001")
    assert out.startswith("::error file=bad/broken.yaml,line=4,col=16,title=KQ001::")  # the end of the last line
    _, out, _ = run(capsys, "check", "--select", "KQ001", "--format", "text")
    assert out.startswith("bad/broken.yaml\n")
    monkeypatch.setenv("GITHUB_ACTIONS", "false")
    assert run(capsys, "check", "--select", "KQ001")[1].startswith("bad/broken.yaml\n")


def test_stdin(tree: Path) -> None:
    stream = (CONFIGMAP + "---\n" + "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  name: z\n").encode()
    result = subprocess.run([sys.executable, "-m", "kqlint.cli", "check", "-", "-f", "json", "--select", "KQ0"],
                            cwd=tree, input=stream, capture_output=True, timeout=60, check=False)
    data = validate_json_report(result.stdout)
    assert result.returncode == 1
    assert data["summary"]["files"] == 1 and data["summary"]["objects"] == 2
    assert [(f["file"], f["line"], f["column"], f["code"]) for f in data["findings"]] == \
        [("<stdin>", 13, 3, "KQ001")]  # the second `name:`


def test_stdin_absent_is_a_usage_error(tree: Path) -> None:
    result = subprocess.run([sys.executable, "-c",
                             "import sys; sys.stdin = None\n"
                             "from kqlint.cli import main\nsys.exit(main(['check', '-']))"],
                            cwd=tree, capture_output=True, timeout=60, check=False)
    assert result.returncode == 2 and b"no stdin" in result.stderr


# ------------------------------------------------------------------ color

def _run_in_pty(args: list[str], cwd: Path, env: dict[str, str]) -> bytes:
    pty = pytest.importorskip("pty")
    import select

    master, slave = pty.openpty()
    full_env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "GITHUB_ACTIONS")}
    full_env.update(env)
    process = subprocess.Popen([sys.executable, "-m", "kqlint.cli", *args], cwd=cwd, env=full_env,
                               stdin=subprocess.DEVNULL, stdout=slave, stderr=subprocess.DEVNULL)
    os.close(slave)
    chunks = []
    while True:
        ready, _, _ = select.select([master], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    process.wait(timeout=60)
    os.close(master)
    return b"".join(chunks)


def test_color_only_on_a_terminal(tree: Path) -> None:
    args = ["check", "--select", "KQ001"]
    assert ANSI.search(_run_in_pty(args, tree, {}).decode())
    assert not ANSI.search(_run_in_pty(args + ["--no-color"], tree, {}).decode())
    assert not ANSI.search(_run_in_pty(args, tree, {"NO_COLOR": "1"}).decode())
    assert not ANSI.search(run_process(*args, cwd=tree).stdout.decode())  # a pipe


# ------------------------------------------------------------------ determinism, laziness

@pytest.mark.parametrize("fmt", ["text", "json", "github"])
def test_output_is_byte_identical_across_runs(fmt: str) -> None:
    first = run_process("check", ".", "-f", fmt, cwd=PROJECT)
    second = run_process("check", ".", "-f", fmt, cwd=PROJECT)
    assert first.returncode == second.returncode == 1
    assert first.stdout == second.stdout and first.stdout
    if fmt == "json":
        validate_json_report(first.stdout)


def test_plain_check_does_not_import_jsonschema(tree: Path) -> None:
    probe = ("import sys\nfrom kqlint.cli import main\ncode = main(['check', '.'])\n"
             "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('jsonschema', 'referencing', 'jmespath'))\n"
             "print(code, heavy)\n")
    result = subprocess.run([sys.executable, "-c", probe], cwd=tree, capture_output=True, timeout=60,
                            stdin=subprocess.DEVNULL, check=False, env={**os.environ, "NO_COLOR": "1"})
    assert result.stdout.decode().splitlines()[-1] == "1 []", result.stderr.decode()


# ------------------------------------------------------------------ rules / explain

def test_rules_text_and_json(capsys: pytest.CaptureFixture[str], in_tmp_cwd: Path) -> None:
    code, out, _ = run(capsys, "rules", "--format", "json")
    rows = json.loads(out)
    assert code == 0 and rows == sorted(rows, key=lambda r: r["code"])
    [kq001] = [row for row in rows if row["code"] == "KQ001"]
    assert kq001 == {"code": "KQ001", "slug": "invalid-yaml", "severity": "error", "enabled": True,
                     "profile": None, "fix": None, "summary": "a file cannot be read or parsed"}
    code, out, _ = run(capsys, "rules")
    assert code == 0 and out.split()[:6] == ["code", "slug", "severity", "enabled", "fix", "summary"]
    assert all(row["code"] in out and row["slug"] in out for row in rows)


def test_explain_by_code_and_slug(capsys: pytest.CaptureFixture[str], in_tmp_cwd: Path) -> None:
    code, by_code, _ = run(capsys, "explain", "KQ001")
    assert code == 0 and by_code.startswith("KQ001 invalid-yaml (default severity: error)")
    assert "\nFix: none" in by_code and "\nFix: safe: `kqlint check --fix`" in run(capsys, "explain", "KQ005")[1]
    for heading in ("## What it catches", "## Why it breaks on a cluster", "## Bad", "## Good",
                    "## How to fix", "## How to suppress"):
        assert heading in by_code
    assert run(capsys, "explain", "invalid-yaml")[1] == by_code
    assert run(capsys, "explain", "kq001")[1] == by_code
