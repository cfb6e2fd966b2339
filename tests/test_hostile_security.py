"""Issue 14: kqlint on a hostile pull request. Each test is one attack, run as CI runs
kqlint (a subprocess, see tests/capped.py) under an address-space cap and a timeout, with
bounds on time, memory and output, not just "no crash".

Run against another build with KQLINT_UNDER_TEST=/path/to/bin/kqlint (the unchanged main
branch fails every test here)."""
from __future__ import annotations

import io
import json
import os
import stat
import threading
from pathlib import Path

import pytest
from capped import run

ROOT = Path(__file__).resolve().parent.parent

CONFIGMAP = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n"
BROKEN = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [broken\n"
JOB_WITHOUT_QUEUE = """apiVersion: batch/v1
kind: Job
metadata:
  name: train
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: main
          image: busybox
          resources: {limits: {nvidia.com/gpu: 1}}
"""


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / ".git").mkdir()
    return root


def _findings(text: str) -> list[dict]:
    return json.loads(text)["findings"]  # type: ignore[no-any-return]


# ------------------------------------------------------------------ writing

def test_write_baseline_never_replaces_an_input(tree: Path) -> None:
    (tree / "a.yaml").write_text(BROKEN)
    result = run(["check", "a.yaml", "--write-baseline", "a.yaml"], tree)
    assert result.code == 2 and "reads that file" in result.stderr, result
    assert (tree / "a.yaml").read_text() == BROKEN


def test_output_never_replaces_the_config_or_the_baseline(tree: Path) -> None:
    (tree / "a.yaml").write_text(CONFIGMAP.format(name="a"))
    (tree / ".kqlint.yaml").write_text("fail-on: error\n")
    result = run(["check", ".", "-f", "json", "-o", ".kqlint.yaml"], tree)
    assert result.code == 2 and "reads that file" in result.stderr, result
    assert (tree / ".kqlint.yaml").read_text() == "fail-on: error\n"


def test_report_is_never_written_through_a_symlink(tree: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("precious\n")
    os.symlink(outside, tree / "kqlint.sarif")  # committed by the pull request
    (tree / "a.yaml").write_text(CONFIGMAP.format(name="a"))
    for args in (["check", ".", "-f", "sarif", "-o", "kqlint.sarif"],
                 ["check", ".", "--write-baseline", "kqlint.sarif"],
                 ["graph", ".", "-o", "kqlint.sarif"]):
        result = run(args, tree)
        assert result.code == 2 and "symlink" in result.stderr, (args, result)
        assert outside.read_text() == "precious\n"
        assert os.path.islink(tree / "kqlint.sarif")


def test_report_is_never_written_through_a_symlinked_folder(tree: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    os.symlink(outside, tree / "reports")
    (tree / "a.yaml").write_text(CONFIGMAP.format(name="a"))
    result = run(["check", ".", "-f", "json", "-o", "reports/r.json"], tree)
    assert result.code == 2 and "symlink" in result.stderr, result
    assert list(outside.iterdir()) == []


def test_reports_are_atomic_and_keep_a_sensible_mode(tree: Path) -> None:
    for index in range(300):
        (tree / f"m{index:03d}.yaml").write_text(BROKEN)
    report = tree / "report.json"
    report.write_text("old\n")
    os.chmod(report, 0o640)
    results: list = []
    seen_broken: list[bytes] = []
    threads = [threading.Thread(target=lambda: results.append(
        run(["check", ".", "--exclude", "report.json", "-f", "json", "-o", "report.json", "-j", "1"], tree)))
        for _ in range(6)]
    for thread in threads:
        thread.start()
    while any(thread.is_alive() for thread in threads):  # a reader never sees a partial report
        content = report.read_bytes()
        if content != b"old\n":
            try:
                json.loads(content)
            except ValueError:
                seen_broken.append(content[:100])
    for thread in threads:
        thread.join()
    assert not seen_broken, seen_broken[:3]
    assert all(r.code == 1 for r in results), results
    assert json.loads(report.read_text())["summary"]["files"] == 300  # whole: one run's report
    assert stat.S_IMODE(report.stat().st_mode) == 0o640
    assert not [p for p in tree.iterdir() if p.name.startswith(".report.json")]  # no temporary left


@pytest.mark.parametrize("fmt", ["json", "sarif", "text", "junit", "github"])
def test_non_utf8_file_names_are_reported_safely(tree: Path, fmt: str) -> None:
    (tree / os.fsdecode(b"bad\xff\x1b[2J.yaml")).write_text(BROKEN)
    (tree / "r.out").write_text("previous\n")
    result = run(["check", ".", "-f", fmt, "-o", "r.out", "-f", "text"], tree)
    assert result.code == 1, result
    written = (tree / "r.out").read_bytes().decode("utf-8")  # valid UTF-8, never truncated
    if fmt in ("json", "sarif"):
        json.loads(written)
    assert "\\xff" in result.stdout and "\x1b" not in result.stdout + written


def test_baseline_round_trips_a_non_utf8_file_name(tree: Path) -> None:
    (tree / os.fsdecode(b"bad\xff.yaml")).write_text(BROKEN)
    written = run(["check", ".", "--write-baseline", ".baseline.yaml"], tree)
    assert written.code == 0, written
    assert run(["check", ".", "--baseline", ".baseline.yaml"], tree).code == 0


# ------------------------------------------------------------------ never run repository code

PLUGIN_CONFIG = "plugins: [kq_evil_plugin]\n"
EVIL_PLUGIN = "import pathlib\npathlib.Path('PWNED').write_text('ran')\nraise SystemExit(0)\n"


def test_repository_plugins_need_the_opt_in(tree: Path) -> None:
    (tree / ".kqlint.yaml").write_text(PLUGIN_CONFIG)
    (tree / "kq_evil_plugin.py").write_text(EVIL_PLUGIN)
    (tree / "a.yaml").write_text(BROKEN)
    env = {"PYTHONPATH": str(tree)}
    result = run(["check", "."], tree, env=env)
    assert result.code == 2 and "--allow-plugins" in result.stderr, result
    assert not (tree / "PWNED").exists()


@pytest.mark.parametrize("opt_in", [["--allow-plugins"], []])
def test_system_exit_in_an_allowed_plugin_is_an_error(tree: Path, opt_in: list[str]) -> None:
    (tree / ".kqlint.yaml").write_text(PLUGIN_CONFIG)
    (tree / "kq_evil_plugin.py").write_text(EVIL_PLUGIN)
    (tree / "a.yaml").write_text(BROKEN)
    env = {"PYTHONPATH": str(tree), **({} if opt_in else {"KQLINT_ALLOW_PLUGINS": "1"})}
    result = run(["check", ".", *opt_in], tree, env=env)
    assert result.code == 2 and "SystemExit" in result.stderr, result
    assert len(result.stderr.splitlines()) == 1


def test_hook_entry_treats_file_names_as_paths(tree: Path) -> None:
    """The command pre-commit runs: the hook's entry, then the file names (the real
    pre-commit run is tests/test_precommit.py::test_pre_commit_file_names_are_paths)."""
    import shlex

    clientlib = pytest.importorskip("pre_commit.clientlib")
    [hook] = clientlib.load_manifest(str(ROOT / ".pre-commit-hooks.yaml"))
    entry = shlex.split(hook["entry"]) + list(hook["args"])
    assert entry[0] == "kqlint"
    (tree / "--exclude=*.yaml").write_text(BROKEN)
    (tree / "--write-baseline=x.yaml").write_text(BROKEN)
    (tree / "x.yaml").write_text(CONFIGMAP.format(name="x"))
    result = run([*entry[1:], "--exclude=*.yaml", "--write-baseline=x.yaml", "x.yaml"], tree,
                 env={"GITHUB_ACTIONS": "false"})
    assert result.code == 1, result
    assert "--exclude=*.yaml" in result.stdout and "--write-baseline=x.yaml" in result.stdout
    assert (tree / "x.yaml").read_text() == CONFIGMAP.format(name="x")


# ------------------------------------------------------------------ bounded on every input

def _alias_bomb(key: bool) -> str:
    big = "x" * 8_000_000
    aliases = ", ".join(["*a"] * 2000)
    if key:
        return f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  ? [&a {big}, {aliases}]\n  : v\n"
    return f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [&a {big}, {aliases}]\n"


@pytest.mark.parametrize("key", [False, True], ids=["metadata.name", "complex-key"])
def test_alias_budget_counts_bytes(tree: Path, key: bool) -> None:
    (tree / "bomb.yaml").write_text(_alias_bomb(key))
    result = run(["check", ".", "-f", "json"], tree, timeout=60)
    assert result.code == 1, result
    [finding] = _findings(result.stdout)
    # a collection as a key is refused as kubectl refuses it, before or instead of the budget
    assert finding["code"] == "KQ001" and ("alias bomb" in finding["message"]
                                           or (key and "cannot be a key" in finding["message"]))
    assert result.seconds < 20 and result.peak_mb < 600 and result.stdout_bytes < 10_000, result


def test_baseline_error_quotes_a_short_excerpt(tree: Path) -> None:
    laughs = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for level in "bcdefghi":
        previous = chr(ord(level) - 1)
        laughs.append(f"{level}: &{level} [" + ", ".join([f"*{previous}"] * 10) + "]")
    (tree / "baseline.yaml").write_text("version: 1\nfindings:\n  - " + "\n    ".join(laughs) + "\n")
    (tree / "a.yaml").write_text(CONFIGMAP.format(name="a"))
    result = run(["check", ".", "--baseline", "baseline.yaml"], tree, timeout=60)
    assert result.code == 2, result
    assert result.stderr_bytes < 2_500 and result.seconds < 20, result


def test_stdin_is_bounded(tree: Path) -> None:
    result = run(["check", "-f", "json", "-"], tree, stdin=b"# x\n" * (5 * 1024 * 1024), timeout=60)
    assert result.code == 1, result
    [finding] = _findings(result.stdout)
    assert "size limit" in finding["message"]


def test_pyproject_is_bounded_and_deep_toml_is_a_config_error(tree: Path) -> None:
    (tree / "a.yaml").write_text(CONFIGMAP.format(name="a"))
    (tree / "pyproject.toml").write_text("[tool.kqlint]\nx = " + "[" * 50_000 + "]" * 50_000 + "\n")
    result = run(["check", "."], tree)
    assert result.code == 2 and "pyproject.toml" in result.stderr and "nested" in result.stderr, result
    (tree / "pyproject.toml").write_text("[tool.kqlint]\n" + "# padding\n" * 2_000_000)
    result = run(["check", "."], tree)
    assert result.code == 2 and "size limit" in result.stderr, result


def _custom_rule(expression: str) -> str:
    return ("custom-rules:\n  - code: X001\n    slug: x\n    severity: warning\n    message: m\n"
            f"    assert: {json.dumps(expression)}\n")


def test_custom_jmespath_rule_has_a_budget(tree: Path) -> None:
    (tree / ".kqlint.yaml").write_text(_custom_rule("to_string(@" + "|[@,@]" * 50 + ")"))
    (tree / "a.yaml").write_text(CONFIGMAP.format(name="a"))
    result = run(["check", "."], tree, timeout=60)
    assert result.code == 2 and "budget" in result.stderr and "X001" in result.stderr, result
    assert len(result.stderr.splitlines()) == 1
    assert result.seconds < 15 and result.peak_mb < 500, result


@pytest.mark.parametrize("config", [
    _custom_rule("(" * 3000 + "a" + ")" * 3000),
    "max-file-size: 50000000000\n",
    "namespace: 0x" + "f" * 4000 + "\n",
], ids=["deep-jmespath", "max-file-size", "4000-digit-namespace"])
def test_config_values_never_crash(tree: Path, config: str) -> None:
    (tree / ".kqlint.yaml").write_text(config)
    (tree / "a.yaml").write_text(CONFIGMAP.format(name="a"))
    result = run(["check", "."], tree)
    assert result.code == 2 and result.stderr.startswith("kqlint: .kqlint.yaml:"), result
    assert result.stderr_bytes < 400, result


def test_forty_thousand_exclude_globs_fail_fast(tree: Path) -> None:
    (tree / ".kqlint.yaml").write_text("exclude:\n" + "".join(f"  - 'x{i}/**/*.y*ml'\n" for i in range(40_000)))
    for index in range(200):
        (tree / f"m{index}.yaml").write_text(CONFIGMAP.format(name=f"m{index}"))
    result = run(["check", "."], tree, timeout=60)
    assert result.code == 2 and "exclude" in result.stderr, result
    assert result.seconds < 15 and result.stderr_bytes < 400, result


# ------------------------------------------------------------------ reading

def test_symlink_out_of_the_tree_is_skipped_with_a_note(tree: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [token-4f2a9c\n")
    os.symlink("../outside/secret.yaml", tree / "innocent.yaml")
    (tree / "ok.yaml").write_text(CONFIGMAP.format(name="ok"))
    for args in (["check", "-f", "github", "."], ["check", "-f", "github", "innocent.yaml", "ok.yaml"]):
        result = run(args, tree)
        assert result.code == 0 and "token-4f2a9c" not in result.stdout + result.stderr, result
        assert "skipped innocent.yaml" in result.stderr and "--follow-external-symlinks" in result.stderr
    followed = run(["check", "-f", "github", "--follow-external-symlinks", "."], tree)
    assert followed.code == 1 and "innocent.yaml" in followed.stdout


def test_config_context_and_crds_outside_the_repository_are_skipped(tree: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [token-4f2a9c\n")
    (tree / ".kqlint.yaml").write_text("context: ['../outside']\ncrds: ['../outside/secret.yaml']\n")
    (tree / "ok.yaml").write_text(CONFIGMAP.format(name="ok"))
    result = run(["check", "-f", "github", "."], tree)
    assert result.code == 0 and "token-4f2a9c" not in result.stdout + result.stderr, result
    assert "skipped context entry" in result.stderr and "skipped crds entry" in result.stderr


def test_a_file_swapped_for_a_fifo_after_it_was_checked_does_not_hang(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Simulates the race: every check before opening saw a regular file, the open gets a FIFO."""
    from kqlint.loader import load_file

    fifo = tmp_path / "swapped.yaml"
    os.mkfifo(fifo)
    regular = tmp_path / "regular.yaml"
    regular.write_text(CONFIGMAP.format(name="r"))
    real_stat = os.stat

    def stat_before_the_swap(path, *args, **kwargs):  # type: ignore[no-untyped-def]
        return real_stat(regular if os.fspath(path) == str(fifo) else path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", stat_before_the_swap)
    result: list = []
    worker = threading.Thread(target=lambda: result.append(load_file(str(fifo), "swapped.yaml")), daemon=True)
    worker.start()
    worker.join(5)
    if worker.is_alive():  # release the blocked open before failing
        with open(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK), "wb"):
            pass
        worker.join(5)
        pytest.fail("reading a FIFO blocked the run")
    [problem] = result[0].problems
    assert "not a regular file" in problem.message


# ------------------------------------------------------------------ output

HOSTILE_NAME = "evil\\u001b]0;owned\\u0007\\u001b[2J\\r\\u202edlrow\\u0000\\n::error file=x::pwned"
HOSTILE = f"""apiVersion: batch/v1
kind: Job
metadata:
  name: "{HOSTILE_NAME}"
  labels: {{"\\u001b[31mkey": v}}
spec:
  template:
    spec:
      priorityClassName: "##[error]missing\\n::warning::x"
      restartPolicy: Never
      containers:
        - name: main
          image: busybox
"""
FORBIDDEN = ("\x1b", "\r", "\x00", "\u202e", "\x07")


def _assert_harmless(text: str) -> None:
    for char in FORBIDDEN:
        assert char not in text, (char, text[:2000])
    for line in text.splitlines():
        assert not line.lstrip().startswith("::"), line
        assert "##[" not in line, line


@pytest.mark.parametrize("fmt", ["text", "junit", "json", "sarif"])
def test_output_cannot_drive_a_terminal_or_ci(tree: Path, fmt: str) -> None:
    (tree / "job.yaml").write_text(HOSTILE)
    (tree / ".kqlint.yaml").write_text(_custom_rule("metadata.labels.team").replace(
        "message: m", 'message: "needs a team\\n::error::injected \\u001b[1mbold"'))
    result = run(["check", ".", "-f", fmt, "--fail-on", "never"], tree, tail=10**8)
    assert result.code == 0 and result.stdout, result
    assert "X001" in result.stdout
    _assert_harmless(result.stdout)
    _assert_harmless(result.stderr)


def test_github_annotations_drop_raw_control_characters(tree: Path) -> None:
    (tree / "job.yaml").write_text(HOSTILE)
    (tree / ".kqlint.yaml").write_text(_custom_rule("metadata.labels.team"))
    result = run(["check", ".", "-f", "github", "--fail-on", "never"], tree)
    assert result.code == 0 and result.stdout.startswith("::"), result
    for char in FORBIDDEN:
        assert char not in result.stdout
    assert all(line.startswith(("::error ", "::warning ", "::notice ")) for line in result.stdout.splitlines())


def test_config_errors_on_stderr_are_escaped(tree: Path) -> None:
    (tree / ".kqlint.yaml").write_text('"\\u001b]0;x\\u0007\\n::error::pwned\\u202e": 1\n')  # an unknown key
    (tree / "a.yaml").write_text(CONFIGMAP.format(name="a"))
    result = run(["check", "."], tree)
    assert result.code == 2 and len(result.stderr.splitlines()) == 1, result
    _assert_harmless(result.stderr)


def test_stdout_full_is_one_line_and_exit_2(tree: Path) -> None:
    (tree / "a.yaml").write_text(BROKEN)
    result = run(["check", "."], tree, stdout_path="/dev/full")
    assert result.code == 2 and result.stderr.startswith("kqlint: cannot write to stdout"), result
    assert len(result.stderr.splitlines()) == 1


def test_stdout_closed_is_one_line_and_exit_2(tree: Path) -> None:
    import subprocess

    from capped import KQLINT

    (tree / "a.yaml").write_text(BROKEN)
    process = subprocess.Popen([KQLINT, "check", "."], cwd=tree, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env={**os.environ, "NO_COLOR": "1"})
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # `| head -c0`: the reader is gone before kqlint writes
    stderr = process.stderr.read().decode()
    assert process.wait(timeout=60) == 2, stderr
    assert stderr.startswith("kqlint: cannot write to stdout") and len(stderr.splitlines()) == 1, stderr


# ------------------------------------------------------------------ signals, workers, memory

def _slow_tree(root: Path) -> None:
    documents = "".join(JOB_WITHOUT_QUEUE.replace("name: train", f"name: t{i}") + "---\n" for i in range(40))
    for index in range(1000):
        (root / f"m{index:04d}.yaml").write_text(documents)


def _wait_for_workers(session: int) -> None:
    """Until the run's session holds a forked worker beside the main process (its signal
    handlers are set before it forks), at most 60 s."""
    import subprocess
    import time

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = subprocess.run(["pgrep", "-s", str(session)], capture_output=True, text=True).stdout.split()
        if len(found) >= 2:
            return
        time.sleep(0.1)
    raise AssertionError("no worker started within 60 s")


@pytest.mark.parametrize("name, code", [("SIGINT", 130), ("SIGTERM", 143), ("SIGHUP", 129)])
def test_signals_end_every_worker_at_once(tree: Path, name: str, code: int) -> None:
    import signal
    import subprocess
    import time

    from capped import KQLINT

    _slow_tree(tree)
    process = subprocess.Popen([KQLINT, "check", ".", "-j", "2", "-q"], cwd=tree, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, start_new_session=True, env={**os.environ, "NO_COLOR": "1"})
    _wait_for_workers(process.pid)  # under load the start alone can take seconds: signal a run at work
    signum = getattr(signal, name)
    if name == "SIGINT":
        os.killpg(process.pid, signum)  # Ctrl-C reaches the whole foreground process group
    else:
        os.kill(process.pid, signum)
    start = time.perf_counter()
    assert process.stderr is not None
    stderr = process.stderr.read().decode()
    assert process.wait(timeout=30) == code, stderr
    assert time.perf_counter() - start < 5
    assert len(stderr.splitlines()) == 1 and "Traceback" not in stderr, stderr
    time.sleep(1)
    left = subprocess.run(["pgrep", "-s", str(process.pid)], capture_output=True, text=True).stdout.split()
    for pid in left:
        os.kill(int(pid), signal.SIGKILL)
    assert not left, "workers kept running after the main process ended"


def test_out_of_memory_is_one_line_naming_memory(tree: Path) -> None:
    (tree / "big.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  k: ["
                                   + ",".join(["a"] * 7_000_000) + "]\n")
    result = run(["check", "."], tree, memory=250 * 1024 * 1024, timeout=120)
    assert result.code == 2 and "out of memory" in result.stderr, result
    assert len(result.stderr.splitlines()) == 1 and "bug" not in result.stderr


@pytest.mark.slow
def test_pre_commit_passes_file_names_as_paths(tmp_path: Path) -> None:
    """pre-commit itself, with committed files named like options."""
    from test_precommit import make_repo, pre_commit, pre_commit_source

    source = pre_commit_source(tmp_path)
    work = make_repo(tmp_path / "work", {"--exclude=*.yaml": BROKEN, "--write-baseline=x.yaml": BROKEN,
                                         "x.yaml": CONFIGMAP.format(name="x")})
    result = pre_commit(work, tmp_path / "home", "try-repo", str(source), "kqlint", "--all-files")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "--exclude=*.yaml" in result.stdout and "KQ001" in result.stdout
    assert (work / "x.yaml").read_text() == CONFIGMAP.format(name="x")


@pytest.mark.parametrize("fmt", ["tree", "dot", "mermaid", "json"])
def test_graph_output_cannot_drive_a_terminal_or_ci(tree: Path, fmt: str) -> None:
    with_scheduler = HOSTILE.replace("      priorityClassName", "      schedulerName: x\n      priorityClassName")
    (tree / "job.yaml").write_text(with_scheduler)
    result = run(["graph", ".", "-f", fmt], tree)
    assert result.code == 0 and "evil" in result.stdout, result
    _assert_harmless(result.stdout)


class _Recorded(io.BytesIO):
    """A stream that records the sizes asked of it."""

    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        self.asked: list[int] = []

    def read(self, size: int | None = -1) -> bytes:
        self.asked.append(-1 if size is None else size)
        return super().read(size)


@pytest.mark.parametrize("size", [0, 10, 300_000])
def test_a_read_to_the_end_probes_for_it_without_a_megabyte(size: int) -> None:
    """A file read to its size needs only a small read to see its end (a 1 MiB one per file
    was served with mmap and munmap); a stream that keeps giving reads on in full chunks."""
    from kqlint.project.bounded import CHUNK, EOF_PROBE, read_stream

    stream = _Recorded(b"x" * size)
    assert read_stream(stream, 16 << 20, first=size + 1) == b"x" * size
    assert stream.asked == [size + 1, EOF_PROBE][:1 if size == 0 else 2]
    endless = _Recorded(b"y" * (3 * CHUNK))
    assert read_stream(endless, 16 << 20, first=10) == b"y" * (3 * CHUNK)
    assert endless.asked[:3] == [10, CHUNK, CHUNK]
