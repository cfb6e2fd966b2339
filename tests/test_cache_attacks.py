"""Attacks on the cache, as a hostile pull request's author would make them (issue 28): kqlint
deletes, moves or rewrites only what it made inside its own folder, a cache that comes with
the repository never changes what is reported, and every cache read is bounded."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import cache_folder
from kqlint.cli import main

ROOT = Path(__file__).resolve().parent.parent
# the command, not `python -m kqlint`: a project holding a folder named kqlint/ would shadow the package
KQLINT = str(Path(sys.executable).parent / "kqlint")
CLEAN_JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: clean
  namespace: ml
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: main
          image: busybox
"""
BAD_JOB = CLEAN_JOB.replace("kind: Job", "kind: Job\nkind: Job")  # KQ001: a duplicate key


def _tree(folder: Path) -> list[str]:
    """Every path below ``folder`` with its kind and content: what must not change."""
    found = []
    for path in sorted(folder.rglob("*")):
        kind = "link" if path.is_symlink() else "dir" if path.is_dir() else "file"
        body = path.read_bytes().hex() if kind == "file" else os.readlink(path) if kind == "link" else ""
        found.append(f"{path.relative_to(folder)} {kind} {body}")
    return found


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "repo"
    shutil.copytree(ROOT / "examples", project)
    (project / ".git").mkdir()
    return project


def _precious(tmp_path: Path) -> Path:
    """Someone else's folders, as a symlinked cache would point at them."""
    precious = tmp_path / "precious"
    for name in ("pip", "mypy", "0123456789abcdef", "fedcba9876543210aa"):
        (precious / name).mkdir(parents=True)
        (precious / name / "keep.txt").write_text(name)
    old = time.time() - 3600
    for child in precious.iterdir():
        os.utime(child, (old, old))  # stale by the age rule that prunes other settings folders
    return precious


def _check(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(["check", *args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.mark.parametrize("target", [".", "../precious"])
def test_a_committed_cache_link_deletes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch, target: str) -> None:
    """A committed `.kqlint_cache -> .` or `-> ../elsewhere`: check, check --fix and the old
    prune of stale settings folders delete nothing there (the cache lives outside the tree)."""
    project, precious = _project(tmp_path), _precious(tmp_path)
    (project / ".kqlint_cache").symlink_to(target)
    monkeypatch.delenv("KQLINT_CACHE_DIR", raising=False)
    monkeypatch.chdir(project)
    before = _tree(project), _tree(precious)
    for args in ((".",), (".", "--fix"), (".", "--fix", "--unsafe-fixes", "--diff")):
        _check(capsys, *args)
    assert main(["cache", "clean"]) == 0
    capsys.readouterr()
    assert _tree(precious) == before[1]
    assert (project / ".kqlint_cache").is_symlink() and os.readlink(project / ".kqlint_cache") == target
    assert {line.split()[0] for line in _tree(project)} == {line.split()[0] for line in before[0]}  # nothing removed


def test_a_cache_folder_that_is_a_link_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    project, precious = _project(tmp_path), _precious(tmp_path)
    home = tmp_path / "home"
    home.mkdir()
    (home / "kqlint").symlink_to(precious)
    monkeypatch.chdir(project)
    before = _tree(precious)
    uncached = _check(capsys, ".", "--no-cache", "--format", "json")
    status, out, err = _check(capsys, ".", "--cache-dir", str(home), "--format", "json")
    assert (status, out) == uncached[:2]
    assert err.count("cache disabled for this run") == 1 and "symbolic link" in err
    assert main(["cache", "clean", "--cache-dir", str(home)]) == 2
    assert _tree(precious) == before and (home / "kqlint").is_symlink()


def test_a_kqlint_folder_not_made_by_kqlint_is_refused_and_untouched(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """A folder named kqlint/ in the cache home without kqlint's CACHEDIR.TAG (another tool's,
    or planted): no cache for the run, one stderr line, nothing in it read, changed or removed."""
    project, home = _project(tmp_path), tmp_path / "home"
    foreign = home / "kqlint"
    for name in ("0123456789abcdef", "notes"):
        (foreign / name).mkdir(parents=True)
        (foreign / name / "keep.txt").write_text(name)
    (foreign / "CACHEDIR.TAG").write_text("Signature: 8a477f597d28d172789f06886806bc55\n# another tool's\n")
    old = time.time() - 3600
    for child in foreign.iterdir():
        os.utime(child, (old, old))
    monkeypatch.chdir(project)
    before = _tree(home)
    uncached = _check(capsys, ".", "--no-cache", "--format", "json")
    status, out, err = _check(capsys, ".", "--cache-dir", str(home), "--format", "json")
    assert (status, out) == uncached[:2]
    assert err.count("\n") == 1 and "cache disabled for this run" in err and "not made by kqlint" in err
    assert main(["cache", "clean", "--cache-dir", str(home)]) == 2
    assert _tree(home) == before


def test_a_link_below_kqlints_folder_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    project, precious = _project(tmp_path), _precious(tmp_path)
    monkeypatch.delenv("KQLINT_CACHE_DIR", raising=False)
    monkeypatch.chdir(project)
    _check(capsys, ".")  # makes kqlint's folder and this project's
    folder = cache_folder(project)
    shutil.rmtree(folder)
    folder.symlink_to(precious)
    before = _tree(precious)
    uncached = _check(capsys, ".", "--no-cache", "--format", "json")
    status, out, err = _check(capsys, ".", "--format", "json")
    assert (status, out) == uncached[:2] and "symbolic link" in err
    assert _tree(precious) == before


def test_cache_dir_keeps_its_own_folder_and_clean_removes_only_it(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """`--cache-dir ~/.cache`: kqlint's folder goes inside it, other tools' folders stay, even
    those named like a settings folder and unused for an hour; `cache clean` removes kqlint/ alone."""
    project, shared = _project(tmp_path), _precious(tmp_path)
    monkeypatch.chdir(project)
    before = _tree(shared)
    for _ in range(2):
        _check(capsys, ".", "--cache-dir", str(shared))
    assert (shared / "kqlint" / "CACHEDIR.TAG").is_file()
    assert [line for line in _tree(shared) if not line.startswith("kqlint")] == before
    assert main(["cache", "clean", "--cache-dir", str(shared)]) == 0
    assert _tree(shared) == before


def _forged_project(tmp_path: Path) -> Path:
    """A project whose committed cache maps the bad file's content to the clean file's entry."""
    project = tmp_path / "forged"
    (project / ".git").mkdir(parents=True)
    job = project / "job.yaml"
    job.write_text(CLEAN_JOB)
    forge = tmp_path / "forge-home"
    subprocess.run([KQLINT, "check", ".", "--cache-dir", str(forge), "--fail-on", "never"],
                   cwd=project, check=True, capture_output=True)
    job.write_text(BAD_JOB)
    from kqlint.cache.keys import content_hash

    bad = content_hash(BAD_JOB.encode())
    for index_path in forge.glob("kqlint/*/*/index.json"):
        index = json.loads(index_path.read_text())
        [(clean_digest, where)] = index["entries"].items()
        index["entries"][bad] = where
        stat = job.stat()
        index["files"]["job.yaml"] = [stat.st_mtime_ns, stat.st_size, stat.st_ino, stat.st_ctime_ns, bad]
        index_path.write_text(json.dumps(index))
    for report in forge.glob("kqlint/*/*/report-*"):
        report.unlink()
    shutil.copytree(forge, project / ".kqlint_cache")  # committed, in every spelling a run might use
    shutil.copytree(forge / "kqlint", project / "kqlint")
    return project


def test_a_forged_committed_cache_changes_nothing(tmp_path: Path) -> None:
    project = _forged_project(tmp_path)
    env = {k: v for k, v in os.environ.items() if k != "KQLINT_CACHE_DIR"}

    def run(*args: str) -> tuple[int, bytes]:
        done = subprocess.run([KQLINT, "check", ".", "--format", "json", *args],
                              cwd=project, env=env, capture_output=True)
        return done.returncode, done.stdout

    uncached = run("--no-cache")
    assert uncached[0] == 1 and b"KQ001" in uncached[1]
    assert run() == uncached  # the default cache home: the committed files are never read
    for inside in (".kqlint_cache", "."):  # a cache folder inside the project is refused
        assert run("--cache-dir", str(project / inside)) == uncached


def _cached_project(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                    monkeypatch: pytest.MonkeyPatch) -> tuple[Path, tuple[int, str, str]]:
    """A project linted once into the default cache home, and its report without a cache."""
    project = _project(tmp_path)
    monkeypatch.delenv("KQLINT_CACHE_DIR", raising=False)
    monkeypatch.chdir(project)
    uncached = _check(capsys, ".", "--no-cache", "--format", "json")
    _check(capsys, ".", "--format", "json")
    return project, uncached


def test_a_cache_file_linked_to_dev_zero_is_not_read(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero on this system")
    project, uncached = _cached_project(tmp_path, capsys, monkeypatch)
    for path in cache_folder(project).glob("*/*"):
        if path.is_file():
            path.unlink()
            path.symlink_to("/dev/zero")
    started = time.monotonic()
    status, out, _ = _check(capsys, ".", "--format", "json")
    assert (status, out) == uncached[:2]
    assert time.monotonic() - started < 60


def test_an_oversized_cache_file_is_not_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from kqlint.cache import home

    big = tmp_path / "index.json"
    big.write_bytes(b"{" + b" " * 2048)
    with pytest.raises(OSError):
        home.read_owned(str(big), limit=1024)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(OSError):
        home.read_owned(str(fifo))  # never blocks on a FIFO


def test_no_project_root_puts_no_cache_in_the_current_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "loose"
    shutil.copytree(ROOT / "examples" / "platform", folder)
    monkeypatch.delenv("KQLINT_CACHE_DIR", raising=False)
    monkeypatch.chdir(folder)
    before = _tree(folder)
    _check(capsys, ".")
    assert _tree(folder) == before
    assert any(Path(os.environ["XDG_CACHE_HOME"]).glob("kqlint/*/*/index.json"))


def test_the_server_writes_no_cache_beside_a_buffer_outside_every_folder(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from kqlint.server.workspace import Folders

    monkeypatch.delenv("KQLINT_CACHE_DIR", raising=False)
    workspace, outside = tmp_path / "workspace", tmp_path / "elsewhere"
    workspace.mkdir()
    outside.mkdir()
    buffer = outside / "job.yaml"
    buffer.write_text(CLEAN_JOB)
    before = _tree(outside)
    folders = Folders([str(workspace)])
    folders.of(str(buffer)).lint(str(buffer), CLEAN_JOB.encode())
    assert _tree(outside) == before


def test_kqlints_folder_never_appears_without_its_tag(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two first runs at once: the one that finds kqlint/ made by the other must find it marked
    (it refused it while the tag was not yet written), so the folder gets its name complete."""
    from kqlint.cache import home

    owned = tmp_path / "home" / "kqlint"
    seen: list[bool] = []
    real = home.atomic_write
    monkeypatch.setattr(home, "atomic_write", lambda target, blob: (seen.append(owned.exists()), real(target, blob))[1])
    home.check_owned(str(owned), None)
    assert seen == [False, False] and (owned / home.TAG_NAME).read_bytes() == home.TAG
    assert [path.name for path in owned.parent.iterdir()] == ["kqlint"]  # no temporary folder left
    home.check_owned(str(owned), None)  # the second run's check: kqlint's, used


@pytest.mark.parametrize("pack", ["link", "fifo", "sparse"])
def test_a_pack_that_is_a_link_a_fifo_or_huge_is_not_read(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                          monkeypatch: pytest.MonkeyPatch, pack: str) -> None:
    """Entries are read one at a time from their pack: a pack replaced by a link (to
    /dev/zero), a FIFO, or a sparse 2 GiB file whose index entries claim 1.5 GiB each, is never
    read (the run parses again and reports as without a cache), and never blocks."""
    project, uncached = _cached_project(tmp_path, capsys, monkeypatch)
    for report in cache_folder(project).glob("*/report-*"):
        report.unlink()  # the entries must be looked up
    packs = list(cache_folder(project).glob("*/pack-*"))
    assert packs
    for path in packs:
        path.unlink()
        if pack == "link":
            path.symlink_to("/dev/zero")
        elif pack == "fifo":
            os.mkfifo(path)
        else:
            with open(path, "wb") as out:
                out.truncate(2 << 30)
    if pack == "sparse":
        for index in cache_folder(project).glob("*/index.json"):
            data = json.loads(index.read_text())
            data["entries"] = {digest: [where[0], 0, 3 << 29] for digest, where in data["entries"].items()}
            index.write_text(json.dumps(data))
    started = time.monotonic()
    status, out, _ = _check(capsys, ".", "--format", "json")
    assert (status, out) == uncached[:2]
    assert time.monotonic() - started < 60
