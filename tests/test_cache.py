"""The persistent cache (kqlint/ in the cache home): warm output byte-identical to cold and to --no-cache,
edits/additions/deletions/renames/config changes seen, corrupt or planted entries ignored,
concurrent runs, a cache that cannot be written, and the key covering the loader's code."""
from __future__ import annotations

import json
import os
import pickle
import shutil
import subprocess
import sys
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import cache_folder
from kqlint import cache as cache_module
from kqlint import loader
from kqlint.cache import layout as cache_layout
from kqlint.cache import store as cache_store
from kqlint.cache.codec import framed
from kqlint.cli import main
from kqlint.engine import parallel

ROOT = Path(__file__).resolve().parent.parent
FORMATS = ("text", "json", "sarif", "github", "junit")
STAGED = "tenants/nlp/training/llama-pretrain.yaml"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git-like project (``.git`` marks its root) holding the examples, the cache at its root."""
    project = tmp_path / "project"
    shutil.copytree(ROOT / "examples", project)
    (project / ".git").mkdir()
    monkeypatch.delenv("KQLINT_CACHE_DIR", raising=False)
    monkeypatch.chdir(project)
    return project


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(["check", *args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def _all_outputs(capsys: pytest.CaptureFixture[str], *args: str) -> list[tuple[int, str, str]]:
    return [_run(capsys, *args, "--format", name) for name in FORMATS]


def _assert_same_as_uncached(capsys: pytest.CaptureFixture[str], *args: str) -> None:
    uncached = _all_outputs(capsys, *args, "--no-cache")
    assert _all_outputs(capsys, *args) == uncached          # cold, or whatever the cache holds
    assert _all_outputs(capsys, *args) == uncached          # warm: every report from the cache
    for report in cache_folder(Path.cwd()).glob("*/report-*"):
        report.unlink()
    assert _all_outputs(capsys, *args) == uncached          # warm parse cache, rules run again


SHAPES = {"whole repository": (".",), "pre-commit (auto context)": (STAGED, "platform/priority/priority-classes.yaml"),
          "explicit context": ("tenants", "--context", "platform")}


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_warm_output_is_byte_identical(repo: Path, capsys: pytest.CaptureFixture[str],
                                       monkeypatch: pytest.MonkeyPatch, shape: str, jobs: str) -> None:
    monkeypatch.setattr(parallel, "MIN_ITEMS_PER_JOB", 1)  # the examples are small: really fork
    args = (*SHAPES[shape], "--jobs", jobs)
    _assert_same_as_uncached(capsys, *args)
    assert (cache_folder(repo).parent / ".gitignore").read_text().strip().endswith("*")
    tag = (cache_folder(repo).parent / "CACHEDIR.TAG").read_bytes()
    assert tag.startswith(b"Signature: 8a477f597d28d172789f06886806bc55")


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_edits_additions_deletions_renames_and_config(repo: Path, capsys: pytest.CaptureFixture[str],
                                                      monkeypatch: pytest.MonkeyPatch, jobs: str) -> None:
    """Every format, parse cache and stored pure-rule findings both in play (see
    _assert_same_as_uncached), after each kind of change."""
    monkeypatch.setattr(parallel, "MIN_ITEMS_PER_JOB", 1)
    _assert_same_as_uncached(capsys, ".", "--jobs", jobs)
    staged = repo / STAGED
    staged.write_text(staged.read_text().replace("priorityClassName", "priorityClassName ", 1) + "\n# edited\n")
    _assert_same_as_uncached(capsys, ".", "--jobs", jobs)
    (repo / "tenants" / "new.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  bad: [\n")
    _assert_same_as_uncached(capsys, ".", "--jobs", jobs)
    (repo / "tenants" / "schema.yaml").write_text("apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: s\n"
                                                  "spec:\n  parallelism: many\n  template: {}\n")
    _assert_same_as_uncached(capsys, ".", "--jobs", jobs)
    os.rename(staged, repo / "tenants" / "renamed.yaml")
    os.rename(repo / "tenants" / "schema.yaml", repo / "schema-moved.yaml")
    _assert_same_as_uncached(capsys, ".", "--jobs", jobs)
    (repo / "platform" / "priority" / "priority-classes.yaml").unlink()
    _assert_same_as_uncached(capsys, ".", "tenants/renamed.yaml", "--jobs", jobs)
    (repo / ".kqlint.yaml").write_text("namespace: elsewhere\nignore: [KQ105]\n")
    _assert_same_as_uncached(capsys, ".", "--jobs", jobs)
    (repo / ".kqlint.yaml").write_text("max-file-size: 300\n")
    _assert_same_as_uncached(capsys, ".", "--jobs", jobs)


def test_same_size_rewrite_in_the_same_second_is_seen(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A rewrite that keeps size and mtime is still noticed (ctime, racy-clean rule)."""
    target = repo / STAGED
    _run(capsys, ".")
    stat = target.stat()
    text = target.read_text()
    target.write_text(text.replace("gang-no-preempt", "gang-nopreempt", 1) if "gang-no-preempt" in text
                      else text.replace("name:", "nome:", 1))
    os.utime(target, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert _run(capsys, ".") == _run(capsys, ".", "--no-cache")


def test_stat_fast_path_reads_nothing_and_still_sees_rewrites(repo: Path, capsys: pytest.CaptureFixture[str],
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Unchanged stat: no file is read. A same-size rewrite with the mtime put back changes the
    ctime (nanoseconds), so it is hashed again."""
    monkeypatch.setattr(cache_store, "RACY_NS", -10**12)  # trust even files written just now
    _run(capsys, ".")
    for report in cache_folder(repo).glob("*/report-*"):
        report.unlink()
    reads: list[str] = []
    real = loader.read_bytes
    monkeypatch.setattr(loader, "read_bytes", lambda path, *a: reads.append(path) or real(path, *a))
    _run(capsys, ".")
    assert reads == []
    target = repo / STAGED
    stat = target.stat()
    text = target.read_text()
    changed = text.replace("gang-no-preempt", "gang-nopreempt", 1).replace("name:", "nome:", 1)
    assert len(changed) == len(text) and changed != text
    target.write_text(changed)
    os.utime(target, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert reads == [] and target.stat().st_size == stat.st_size
    after = _run(capsys, ".")
    assert reads  # hashed again, not trusted from the index
    assert after == _run(capsys, ".", "--no-cache")


def test_deleted_files_are_pruned_and_the_cache_stays_small(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _run(capsys, ".")
    index = json.loads(next(cache_folder(repo).glob("*/index.json")).read_text())
    assert STAGED in index["files"]
    assert all(not os.path.isabs(path) and ".." not in path for path in index["files"])
    (repo / STAGED).unlink()
    _run(capsys, ".")
    index = json.loads(next(cache_folder(repo).glob("*/index.json")).read_text())
    assert STAGED not in index["files"]
    assert len(index["entries"]) == len({record[4] for record in index["files"].values()})


def test_files_outside_the_project_and_stdin_are_not_cached(repo: Path, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    outside = tmp_path / "outside.yaml"
    outside.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: outside\n")
    _run(capsys, str(outside))
    for index in cache_folder(repo).glob("*/index.json"):
        assert "outside" not in index.read_text()


@pytest.mark.parametrize("damage", ["truncate-pack", "garbage-pack", "garbage-index", "foreign-index",
                                    "delete-pack", "unreadable-pack", "flip-every-body"])
def test_damaged_cache_is_ignored_and_rebuilt(repo: Path, capsys: pytest.CaptureFixture[str], damage: str) -> None:
    expected = _run(capsys, ".", "--no-cache", "--format", "json")
    _run(capsys, ".", "--format", "json")
    folder = next(cache_folder(repo).glob("*/"))
    for report in folder.glob("report-*"):
        report.unlink()
    pack = next(folder.glob("pack-*"))
    index = folder / "index.json"
    if damage == "truncate-pack":
        pack.write_bytes(pack.read_bytes()[: pack.stat().st_size // 2])
    elif damage == "garbage-pack":
        pack.write_bytes(os.urandom(pack.stat().st_size))
    elif damage == "garbage-index":
        index.write_bytes(b"\x00{not json")
    elif damage == "foreign-index":
        index.write_text(json.dumps({"format": -1, "files": {}, "entries": {}}))
    elif damage == "flip-every-body":  # the last byte of every entry: inside its compressed body
        data = bytearray(pack.read_bytes())
        for _, offset, length in json.loads(index.read_text())["entries"].values():
            data[offset + length - 1] ^= 0xFF
        pack.write_bytes(bytes(data))
    elif damage == "delete-pack":
        pack.unlink()
    else:
        pack.unlink()
        pack.mkdir()  # open() fails even as root
    assert _run(capsys, ".", "--format", "json") == expected
    assert _run(capsys, ".", "--format", "json") == expected


def test_planted_entry_cannot_run_code(repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    expected = _run(capsys, ".", "--no-cache", "--format", "json")
    _run(capsys, ".", "--format", "json")
    folder = next(cache_folder(repo).glob("*/"))
    for report in folder.glob("report-*"):
        report.unlink()
    marker = tmp_path / "pwned"

    class Evil:
        def __reduce__(self) -> tuple[object, ...]:
            return (os.system, (f"touch {marker}",))

    evil = framed(pickle.dumps(Evil()), pickle.dumps(Evil()))  # checksums right: unpickled
    index = json.loads((folder / "index.json").read_text())
    for pack in folder.glob("pack-*"):
        pack.write_bytes(evil * 1000)
    index["entries"] = {digest: [next(folder.glob("pack-*")).name, 0, len(evil)] for digest in index["entries"]}
    (folder / "index.json").write_text(json.dumps(index))
    assert _run(capsys, ".", "--format", "json") == expected
    assert not marker.exists()


def test_unwritable_cache_means_no_cache_and_one_line(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """As root chmod does not stop writes: the cache folder sits under a regular file."""
    blocker = repo / "blocker"
    blocker.write_text("not a folder")
    expected = _run(capsys, ".", "--no-cache", "--format", "json")
    status, out, err = _run(capsys, ".", "--format", "json", "--cache-dir", str(blocker / "cache"))
    assert (status, out) == expected[:2]
    lines = [line for line in err.splitlines() if "cache" in line]
    assert len(lines) == 1 and lines[0].startswith("kqlint: cache disabled for this run")


def test_full_disk_means_no_cache_and_one_line(repo: Path, capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    expected = _run(capsys, ".", "--no-cache", "--format", "json")

    def full(target: str, blob: bytes) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(cache_layout, "atomic_write", full)
    status, out, err = _run(capsys, ".", "--format", "json")
    assert (status, out) == expected[:2]
    assert err.count("No space left on device") == 1


def test_concurrent_runs(repo: Path) -> None:
    """Two cold runs at once (two hooks, two CI jobs), then a warm one: same output, intact cache."""
    env = {k: v for k, v in os.environ.items() if k != "KQLINT_CACHE_DIR"}
    command = [sys.executable, "-m", "kqlint", "check", ".", "--format", "json"]
    expected = subprocess.run(command + ["--no-cache"], capture_output=True, env=env, cwd=repo).stdout
    for _ in range(2):
        runs = [subprocess.Popen(command + ["--jobs", str(j)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 env=env, cwd=repo) for j in (1, 2)]
        for run in runs:
            out, err = run.communicate(timeout=120)
            assert out == expected and b"cache" not in err
    assert subprocess.run(command, capture_output=True, env=env, cwd=repo).stdout == expected


def test_cache_clean(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _run(capsys, ".")
    assert (cache_folder(repo)).is_dir()
    assert main(["cache", "clean"]) == 0
    assert not (cache_folder(repo)).exists()
    assert "removed" in capsys.readouterr().out
    assert main(["cache", "clean"]) == 0


def test_cache_clean_refuses_a_folder_that_is_not_a_cache(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "keep.yaml").write_text("a: 1\n")
    assert main(["cache", "clean", "--cache-dir", str(precious)]) == 0  # no kqlint/ in it: nothing to remove
    (precious / "kqlint").mkdir()  # a folder of that name kqlint did not make (no CACHEDIR.TAG)
    (precious / "kqlint" / "keep.yaml").write_text("a: 1\n")
    assert main(["cache", "clean", "--cache-dir", str(precious)]) == 2
    assert (precious / "keep.yaml").exists() and (precious / "kqlint" / "keep.yaml").exists()


def test_cache_dir_option_and_environment(repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    _run(capsys, ".", "--cache-dir", str(tmp_path / "by-option"))
    monkeypatch.setenv("KQLINT_CACHE_DIR", str(tmp_path / "by-env"))
    _run(capsys, ".")
    _run(capsys, ".", "--no-cache")
    assert list((tmp_path / "by-option").glob("kqlint/*/*/pack-*"))
    assert list((tmp_path / "by-env").glob("kqlint/*/*/pack-*"))
    assert not (cache_folder(repo)).exists()


def test_key_changes_with_the_loader_source(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No version constant to forget: any edit of the loader (or objects.py, the cache modules)
    is a new settings folder, so entries written by another loader are never read."""
    before = cache_module.settings_key(loader.MAX_FILE_SIZE)
    copy = tmp_path / "loader.py"
    copy.write_bytes(Path(loader.__file__).read_bytes() + b"\n# a change\n")
    monkeypatch.setattr(loader, "__file__", str(copy))
    assert cache_module.settings_key(loader.MAX_FILE_SIZE) != before
    monkeypatch.undo()
    assert cache_module.settings_key(loader.MAX_FILE_SIZE) == before
    assert cache_module.settings_key(loader.MAX_FILE_SIZE + 1) != before
    monkeypatch.setattr(loader, "FAST_PATH", not loader.FAST_PATH)
    assert cache_module.settings_key(loader.MAX_FILE_SIZE) != before


def test_writes_wait_for_write_only_when_asked(repo: Path) -> None:
    """kqlint check writes the cache beside the workers that resolve fixes (writes_later); the
    Python API and --fix write before lint() returns."""
    from kqlint.cache import FileCache

    cache = FileCache(str(cache_folder(repo)))
    done: list[str] = []
    cache.write_later(lambda: done.append("now"))
    assert done == ["now"]
    cache.writes_later = True
    cache.write_later(lambda: done.append("later"))
    assert done == ["now"]
    cache.write()
    cache.write()
    assert done == ["now", "later"]


def test_what_the_writes_read_is_not_freed_by_write(repo: Path) -> None:
    """Freeing a run's findings tables and objects inside write(), beside the forked workers
    resolving fixes, copied most of the heap they share; they go with the cache instead."""
    import weakref

    from kqlint.cache import FileCache

    class Tables:
        pass

    def writes_reading(tables: Tables) -> Callable[[], None]:
        def write() -> None:  # a run's write: it reads the run's tables
            assert isinstance(tables, Tables)
        return write

    cache = FileCache(str(cache_folder(repo)))
    cache.writes_later = True
    tables = Tables()
    alive = weakref.ref(tables)
    cache.write_later(writes_reading(tables))
    del tables
    cache.write()
    cache.write()  # nothing left to write: what the last writes read stays
    assert alive() is not None
    del cache
    assert alive() is None
    eager = FileCache(str(cache_folder(repo)))  # writes done at once (the Python API): freed as usual
    tables = Tables()
    alive = weakref.ref(tables)
    eager.write_later(writes_reading(tables))
    del tables
    assert alive() is None


def test_check_writes_the_cache_beside_the_fix_workers(repo: Path, capsys: pytest.CaptureFixture[str],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The cache's writes run in the main process while a worker resolves the fixes' text
    (the examples have fixes in more than two files), and a warm run then reuses them."""
    from kqlint.fix import plan

    monkeypatch.setattr(plan, "FILES_PER_JOB", 1)
    monkeypatch.setattr(parallel, "MIN_ITEMS_PER_JOB", 1)
    written: list[bool] = []
    real = parallel.map_chunks

    def watched(function: object, items: object, jobs: int, *args: object, before: object = None,
                **kwargs: object) -> object:
        if getattr(before, "__name__", "") == "write":  # the cache's: beside the fixes' workers
            written.append(not any(cache_folder(repo).glob("*/index.json")))
        return real(function, items, jobs, *args, before=before, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(parallel, "map_chunks", watched)
    expected = _run(capsys, ".", "--no-cache", "--format", "json", "--jobs", "2")
    assert _run(capsys, ".", "--format", "json", "--jobs", "2") == expected
    assert written == [True], "the index was written before the fixes' workers started"
    assert any(cache_folder(repo).glob("*/index.json"))
    assert _run(capsys, ".", "--format", "json", "--jobs", "2") == expected


def test_entries_go_to_disk_as_they_arrive_and_become_a_pack_at_flush(repo: Path) -> None:
    """A cold run keeps no entry in memory: each is written to a temporary file of the
    settings folder when it arrives; flush gives that file a pack's name (no temporary file
    left), and a flush with no live entry (the file is gone) removes it."""
    from kqlint.cache import FileCache
    from kqlint.cache.entries import encode_entry
    from kqlint.loader import load_file

    cache = FileCache(str(cache_folder(repo)))
    blob = encode_entry(load_file(STAGED, STAGED), Path(STAGED).read_bytes())
    digest = cache.digest(STAGED)
    assert digest is not None
    cache.add(digest, blob)
    cache.add(digest, blob)  # once per content hash
    pending = list(cache_folder(repo).glob("*/.tmp-*"))
    assert len(pending) == 1  # its bytes may still sit in the writer's small buffer
    cache.flush()
    assert not list(cache_folder(repo).glob("*/.tmp-*"))
    packs = list(cache_folder(repo).glob("*/pack-*"))
    assert len(packs) == 1 and packs[0].read_bytes() == blob
    assert FileCache(str(cache_folder(repo))).lookup(STAGED, STAGED, lazy=False).__class__.__name__ == "KnownSource"

    gone = FileCache(str(cache_folder(repo)))
    gone.add("0" * 32, blob)  # no file of the index hashes to it: not live
    gone.flush()
    assert not list(cache_folder(repo).glob("*/.tmp-*"))
    assert len(list(cache_folder(repo).glob("*/pack-*"))) == 1


def test_context_objects_are_lazy_until_read(repo: Path) -> None:
    from kqlint.cache import FileCache
    from kqlint.cache.entries import CachedSource, LazyObject, objects_of
    from kqlint.loader import load_file

    cache = FileCache(str(cache_folder(repo)))
    source = load_file(STAGED, STAGED)
    from kqlint.cache.entries import encode_entry

    cache.add(cache.digest(STAGED), encode_entry(source, Path(STAGED).read_bytes()))
    cache.flush()
    warm = FileCache(str(cache_folder(repo)))
    cached = warm.lookup(STAGED, STAGED, lazy=True)
    assert isinstance(cached, CachedSource)
    lazy, _, _ = objects_of(cached, "default", "context")
    eager, _, _ = objects_of(source, "default", "context")
    assert all(isinstance(obj, LazyObject) and obj._body is not None for obj in lazy)
    assert [o.key for o in lazy] == [o.key for o in eager]
    assert [o.data for o in lazy] == [o.data for o in eager]
    assert [o.location() for o in lazy] == [o.location() for o in eager]


def test_a_changed_byte_anywhere_in_an_entry_is_caught(repo: Path) -> None:
    """One checksum over the header's size, the header and the body catches a flipped bit
    anywhere (a changed label value would unpickle as well as the right one)."""
    from kqlint.cache.entries import decode_entry, encode_entry
    from kqlint.loader import load_file

    blob = encode_entry(load_file(STAGED, STAGED), Path(STAGED).read_bytes())
    decode_entry(blob)
    for index in range(len(blob)):
        damaged = bytearray(blob)
        damaged[index] ^= 0x10
        with pytest.raises(Exception):  # noqa: B017 - whatever it raises, never a wrong entry
            decode_entry(bytes(damaged))


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_cold_run_stores_every_file_it_parses(repo: Path, capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch, jobs: str) -> None:
    """Encoding never fails silently: after one run every manifest is a hit (an entry that
    could not be encoded would only show as a slower next run)."""
    from kqlint.cache import FileCache
    from kqlint.loader import SourceFile

    monkeypatch.setattr(parallel, "MIN_ITEMS_PER_JOB", 1)
    _run(capsys, ".", "--jobs", jobs)
    warm = FileCache(str(cache_folder(repo)))
    from kqlint.project.discover import discover

    files = discover(["."]).files  # the manifests (Helm charts are rendered, not cached)
    assert len(files) > 20 and all(isinstance(warm.lookup(f, f, lazy=True), SourceFile) for f in files)


def test_an_entry_that_cannot_be_read_back_is_parsed_and_not_stored(repo: Path, capsys: pytest.CaptureFixture[str],
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A bug that made a worker's entry unreadable in the main process costs its file a parse
    there, not the run (nor a wrong result); nothing unreadable is stored."""
    import itertools

    from kqlint.cache import run as cache_run

    uncached = _run(capsys, ".", "--no-cache", "--format", "json")
    calls: list[str] = []
    with monkeypatch.context() as patch:
        patch.setattr(cache_run.os, "getpid", itertools.count().__next__)  # every file "parsed by a worker"
        patch.setattr(cache_store.FileCache, "source_of", lambda *args: calls.append(args[2]) or 1 / 0)
        assert _run(capsys, ".", "--format", "json") == uncached
    assert len(calls) > 20
    assert not list(cache_folder(repo).glob("*/pack-*"))  # no entry stored
    assert _run(capsys, ".", "--format", "json") == uncached


def test_lazy_objects_answer_identity_labels_and_annotations_unread_and_become_plain(repo: Path) -> None:
    from kqlint.cache import FileCache
    from kqlint.cache.entries import FilledObject, LazyObject, encode_entry, objects_of
    from kqlint.loader import load_file

    path = "tenants/research/training/allreduce-bench.yaml"
    source = load_file(path, path)
    eager, _, _ = objects_of(source, "default", "input")
    cache = FileCache(str(cache_folder(repo)))
    cache.add(cache.digest(path), encode_entry(source, Path(path).read_bytes()))
    cache.flush()
    lazy, _, _ = objects_of(FileCache(str(cache_folder(repo))).lookup(path, path, lazy=True), "default", "input")
    assert [(o.labels, o.annotations, o.get("metadata", "annotations")) for o in lazy] == \
        [(o.labels, o.annotations, o.get("metadata", "annotations")) for o in eager]
    assert all(type(o) is LazyObject and o._body is not None for o in lazy)  # nothing decoded yet
    assert [o.data for o in lazy] == [o.data for o in eager]
    assert all(type(o) is FilledObject and o._body is None for o in lazy)


def test_lazy_objects_locate_identity_fields_and_read_queue_routes_unread(repo: Path) -> None:
    """Positions of identity fields (KQ005 reports at apiVersion) and a LocalQueue's
    ClusterQueue, a ClusterQueue's cohort, come from the entry's head; other fields decode."""
    from kqlint.cache import FileCache
    from kqlint.cache.entries import LazyObject, encode_entry, objects_of
    from kqlint.loader import load_file

    paths = ["tenants/nlp/queues/local-queues.yaml", "platform/kueue/cluster-queues.yaml"]
    cache = FileCache(str(cache_folder(repo)))
    for path in paths:
        cache.add(cache.digest(path), encode_entry(load_file(path, path), Path(path).read_bytes()))
    cache.flush()
    warm = FileCache(str(cache_folder(repo)))
    kept = [[("metadata", "namespace"), ("spec", "clusterQueue")], [("spec", "cohortName")]]  # written there
    for path, own in zip(paths, kept, strict=True):
        eager, _, _ = objects_of(load_file(path, path), "default", "input")
        lazy, _, _ = objects_of(warm.lookup(path, path, lazy=True), "default", "input")
        asked = [("apiVersion",), ("kind",), ("metadata", "name"), *own]
        assert [[o.at_value(*p) for p in asked] + [o.at(*p) for p in asked] for o in lazy] == \
            [[o.at_value(*p) for p in asked] + [o.at(*p) for p in asked] for o in eager]
        assert [[o.get(*p) for p in asked] for o in lazy] == [[o.get(*p) for p in asked] for o in eager]
        assert all(type(o) is LazyObject and o._body is not None for o in lazy)  # nothing decoded
        assert [o.at("spec") for o in lazy] == [o.at("spec") for o in eager]  # not kept: decoded
        assert all(o._body is None for o in lazy)


def test_a_warm_run_decodes_no_input_whose_rules_are_all_reused(repo: Path, capsys: pytest.CaptureFixture[str],
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Inputs served from the cache are decoded only when something reads them: with only pure
    rules selected (their findings reused), editing one file decodes no other file."""
    from kqlint.cache import entries as cache_entry
    from kqlint.cache import findings as cache_results

    monkeypatch.setattr(cache_results, "MIN_INPUT_FILES", 1)
    args = (".", "--select", "KQ002,KQ004,KQ403", "--format", "json")
    uncached = _run(capsys, *args, "--no-cache")
    assert _run(capsys, *args) == uncached
    edited = repo / "platform" / "priority" / "priority-classes.yaml"  # nothing it holds reads other objects
    edited.write_text(edited.read_text() + "# edited\n")
    filled: list[str] = []
    real = cache_entry._Body.fill
    monkeypatch.setattr(cache_entry._Body, "fill", lambda body: (filled.append(body.path), real(body))[1])
    assert _run(capsys, *args) == _run(capsys, *args, "--no-cache")
    assert filled == []


def test_a_file_changed_during_the_run_keeps_its_report_out_of_the_cache(
        repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from kqlint.cache import FileCache

    _run(capsys, ".")
    cache = FileCache(str(cache_folder(repo)))
    before = cache.digest(STAGED)
    (repo / STAGED).write_text((repo / STAGED).read_text() + "# changed meanwhile\n")
    miss = cache.lookup(STAGED, STAGED, lazy=False)
    assert miss.digest != before and cache.changed_during_run


# ------------------------------------------------------------------ findings of pure rules

def _objects_with_graph(paths: list[str]) -> tuple[list[object], object]:
    from kqlint.config import Config
    from kqlint.domain.objects import INPUT
    from kqlint.engine.analysis import build_graph
    from kqlint.engine.inputs import load_paths

    loaded, _ = load_paths(paths, Config(), INPUT)
    return loaded.objects, build_graph(loaded, [], Config())


def test_pure_rules_read_nothing_but_their_object() -> None:
    """The guard of ``RuleMeta.pure``: on every example and rule fixture, a pure rule finds the same
    on an object with the whole graph around it as with a graph of that object alone (which
    has no platform model: reading it fails)."""
    from helpers import pure_codes
    from kqlint.config import Config
    from kqlint.domain.graph import ObjectGraph
    from kqlint.engine.registry import RuleSet, builtin_rules
    from kqlint.engine.runner import _scope, prepare_rules, rule_context

    paths = [str(ROOT / "examples")] + [str(p) for p in sorted((ROOT / "tests/fixtures/rules").iterdir())]
    objects, graph = _objects_with_graph(paths)
    config = Config()
    errors: list[str] = []
    pure = pure_codes()
    rules, states = prepare_rules(RuleSet(r for r in builtin_rules() if r.code in pure), config, errors)
    # KQ004 reads the platform model since Kueue's release and feature gates decide some webhook checks
    assert not errors and {rule.code for rule in rules} == set(pure) and len(pure) >= 11
    checked = 0
    for rule in rules:
        scope = _scope(rule)
        for obj in objects:
            if scope is not None and (obj.group, obj.kind) not in scope[0] and obj.kind not in scope[1]:
                continue
            found = [list(rule.check(obj, rule_context(rule, context_graph, config, states)) or ())
                     for context_graph in (graph, ObjectGraph([obj]))]
            assert found[0] == found[1], (rule.code, obj)
            checked += bool(found[0])
    assert checked > 20  # the fixtures give every pure rule findings to compare


def _count_checks(monkeypatch: pytest.MonkeyPatch, code: str) -> list[str]:
    from kqlint.engine.registry import builtin_rules

    module = next(rule.module for rule in builtin_rules() if rule.code == code)
    calls: list[str] = []
    real = module.check

    def counting(obj: object, ctx: object) -> object:
        calls.append(obj.file)  # type: ignore[attr-defined]
        return real(obj, ctx)

    monkeypatch.setattr(module, "check", counting)
    return calls


def test_pure_findings_of_unchanged_files_are_reused(repo: Path, capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """After an edit only the edited file's objects meet the pure rules again; graph-reading
    per-object rules (KQ005: the platform model) still see every object; output as --no-cache."""
    expected = _all_outputs(capsys, ".", "--no-cache")
    assert _all_outputs(capsys, ".") == expected
    staged = repo / STAGED
    staged.write_text(staged.read_text() + "# edited\n")
    expected = _all_outputs(capsys, ".", "--no-cache")
    pure, graph_reading = _count_checks(monkeypatch, "KQ002"), _count_checks(monkeypatch, "KQ005")
    assert _run(capsys, ".", "--format", "text") == expected[0]
    assert set(pure) == {STAGED} and len(set(graph_reading)) > 1
    for report in cache_folder(repo).glob("*/report-*"):
        report.unlink()
    pure.clear()
    assert _all_outputs(capsys, ".") == expected and pure == []


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_reused_findings_follow_config_crds_and_paths(repo: Path, capsys: pytest.CaptureFixture[str],
                                                      monkeypatch: pytest.MonkeyPatch, jobs: str) -> None:
    """Rule options, the default namespace, --crd content, the selection and the display path
    (run from a subfolder) are all part of what a stored finding is reused for."""
    monkeypatch.setattr(parallel, "MIN_ITEMS_PER_JOB", 1)
    crd = repo / "crd.yaml"
    crd.write_text(_WIDGET_CRD)
    (repo / "tenants" / "widget.yaml").write_text(_WIDGET.format(size=3))
    _assert_same_as_uncached(capsys, ".", "--jobs", jobs, "--crd", "crd.yaml")
    crd.write_text(crd.read_text().replace("type: integer", "type: string"))
    _assert_same_as_uncached(capsys, ".", "--jobs", jobs, "--crd", "crd.yaml")
    (repo / ".kqlint.yaml").write_text("namespace: elsewhere\nrules:\n  KQ302:\n    volcano-scheduler-names: [other]\n")
    _assert_same_as_uncached(capsys, ".", "--jobs", jobs)
    _assert_same_as_uncached(capsys, ".", "--jobs", jobs, "--select", "KQ002,KQ004,KQ201")
    monkeypatch.chdir(repo / "tenants")
    _assert_same_as_uncached(capsys, ".", "--jobs", jobs)


_WIDGET_CRD = """apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, plural: widgets, singular: widget}
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                size:
                  type: integer
"""
_WIDGET = "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  size: {size}\n"


@pytest.mark.parametrize("damage", ["garbage", "truncated", "planted"])
def test_damaged_or_planted_results_are_ignored(repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                damage: str) -> None:
    import zlib

    from kqlint.cache import stored

    expected = _all_outputs(capsys, ".", "--no-cache")
    _run(capsys, ".")
    folder = next(cache_folder(repo).glob("*/"))
    for report in folder.glob("report-*"):
        report.unlink()
    table = next(folder.glob("results-*"))
    marker = tmp_path / "pwned"

    class Evil:
        def __reduce__(self) -> tuple[object, ...]:
            return (os.system, (f"touch {marker}",))

    if damage == "garbage":
        table.write_bytes(os.urandom(table.stat().st_size))
    elif damage == "truncated":
        table.write_bytes(table.read_bytes()[: table.stat().st_size // 2])
    else:
        table.write_bytes(stored.MAGIC + zlib.compress(pickle.dumps((stored.FORMAT, Evil()))))
    assert _all_outputs(capsys, ".") == expected
    assert not marker.exists()


def test_reports_with_apply_time_namespaces_are_reused(repo: Path, capsys: pytest.CaptureFixture[str],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Findings on objects without a namespace carry an ApplyTimeNamespace: the stored report
    must still load (it used to be refused, so such repositories never got a warm report)."""
    (repo / "tenants" / "no-namespace.yaml").write_text(
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\n  labels:\n    kueue.x-k8s.io/queue-name: nowhere\n"
        "spec:\n  template:\n    spec:\n      containers: [{name: c, image: i}]\n      restartPolicy: Never\n")
    expected = _run(capsys, ".", "--no-cache", "--format", "json")
    assert '"namespace": "default"' in expected[1]
    assert _run(capsys, ".", "--format", "json") == expected
    from kqlint.engine import pipeline

    monkeypatch.setattr(pipeline, "analyze", lambda *a, **k: pytest.fail("the stored report was not reused"))
    assert _run(capsys, ".", "--format", "json") == expected


def test_placeholder_templates_stay_skipped_when_cached(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Every SourceFile field is cached (placeholder_hint was lost once: a cached envsubst
    template was linted as a manifest), for inputs and for context files."""
    for name in ("bad-envsubst", "bad-sed-token", "good-placeholders-in-strings"):
        shutil.copytree(ROOT / "tests/fixtures/rules/KQ006" / name, repo / "tenants" / name)
    _assert_same_as_uncached(capsys, ".")
    _assert_same_as_uncached(capsys, STAGED)


@pytest.mark.parametrize("damage", [None, "garbage", "wrong-shape"])
def test_placeholder_verdicts_are_kept_and_checked_again_only_when_needed(
        repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, damage: str | None) -> None:
    """A warm run takes each file's envsubst verdict from the cache (without decoding the file);
    an edited file, a damaged table or another --crd set is checked again."""
    from kqlint.cache import placeholders as cache_placeholders
    from kqlint.schema import placeholders

    for name in ("bad-envsubst", "bad-sed-token", "good-placeholders-in-strings"):
        shutil.copytree(ROOT / "tests/fixtures/rules/KQ006" / name, repo / "tenants" / name)
    uncached = _run(capsys, ".", "--format", "json", "--no-cache")
    assert '"KQ006"' in uncached[1]
    assert _run(capsys, ".", "--format", "json") == uncached
    checked: list[str] = []
    real = placeholders.unrendered_placeholders
    monkeypatch.setattr(placeholders, "unrendered_placeholders",
                        lambda source, objects, crds: (checked.append(source.path), real(source, objects, crds))[1])
    [table] = cache_folder(repo).glob("*/placeholders-*")
    if damage is not None:
        wrong = cache_placeholders._MAGIC + zlib.compress(pickle.dumps({"k": ("not", "a", "verdict")}))
        table.write_bytes(b"garbage" if damage == "garbage" else wrong)
    for report in cache_folder(repo).glob("*/report-*"):
        report.unlink()
    assert _run(capsys, ".", "--format", "json") == uncached
    assert (checked == []) if damage is None else bool(checked)  # damaged: nothing trusted
    checked.clear()
    bad = next(repo.glob("tenants/bad-envsubst/*.yaml"))
    bad.write_text(bad.read_text() + "# edited\n")
    warm = _run(capsys, ".", "--format", "json")
    assert [Path(path).name for path in checked] == [bad.name]  # only the edited file again
    assert warm == _run(capsys, ".", "--format", "json", "--no-cache")


def test_a_cold_run_checks_each_placeholder_file_once(repo: Path, capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """In an empty cache the file is hashed where it is parsed; its envsubst verdict, worked out
    there too, is recorded under that digest and not worked out again (kqlint.cache.run)."""
    from kqlint.schema import placeholders

    for name in ("bad-envsubst", "bad-sed-token", "good-placeholders-in-strings"):
        shutil.copytree(ROOT / "tests/fixtures/rules/KQ006" / name, repo / "tenants" / name)
    checked: list[str] = []
    real = placeholders.unrendered_placeholders
    monkeypatch.setattr(placeholders, "unrendered_placeholders",
                        lambda source, objects, crds: (checked.append(source.path), real(source, objects, crds))[1])
    _run(capsys, ".", "--format", "json", "--jobs", "1")
    assert checked and len(checked) == len(set(checked)), checked


def test_folders_of_other_versions_are_pruned_on_a_run(repo: Path, capsys: pytest.CaptureFixture[str],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Another kqlint version's folder goes once unused for a while (not after a day), so the
    cache stays bounded across upgrades; one in use by a concurrent run stays."""
    expected = _run(capsys, ".", "--format", "json")
    current = next(cache_folder(repo).glob("*/"))
    old, busy = cache_folder(repo) / "0123456789abcdef", cache_folder(repo) / "fedcba9876543210"
    for folder in (old, busy):
        shutil.copytree(current, folder)
    stale = os.stat(old).st_mtime - cache_module.STALE_SETTINGS_S - 10
    for path in [old, *old.iterdir()]:
        os.utime(path, (stale, stale))
    assert _run(capsys, ".", "--format", "json") == expected
    assert not old.exists() and busy.exists() and current.exists()


def test_a_pruned_folder_is_recreated_by_the_run_using_it(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from kqlint.cache import FileCache

    _run(capsys, ".")
    cache = FileCache(str(cache_folder(repo)))
    shutil.rmtree(cache.folder)  # another version's run pruned it meanwhile
    assert cache._write(os.path.join(cache.folder, "probe"), b"x") and cache.writable


def test_stored_findings_keep_fields_and_classes_added_later() -> None:
    """Serialisation is generic: any dataclass or enum of kqlint (a Fix with its Edits and
    Applicability, Finding fields added later) comes back equal; foreign classes do not."""
    import io

    from kqlint.cache.entries import ModelUnpickler
    from kqlint.domain.objects import ApplyTimeNamespace
    from kqlint.fix.model import Edit, Fix
    from kqlint.model import Finding, Location, ObjectRef, Severity

    ref = ObjectRef("v1", "Pod", ApplyTimeNamespace("default", "a.yaml"), "p")
    finding = Finding("KQ002", "schema-violation", Severity.ERROR, "m", Location("a.yaml", 3, 5, ("spec", 0), ref), ref)
    fix = Fix.safe("Set it", Edit.replace(("spec", "x"), 4), Edit.insert(("spec",), "y", {"z": [1]}))
    for value in (finding, fix, (finding, fix)):
        assert ModelUnpickler(io.BytesIO(pickle.dumps(value, protocol=5))).load() == value
    from kqlint.cache import Miss

    for foreign in (Path("x"), Miss("a", b"", "d")):  # not kqlint's, or not a value type
        with pytest.raises(pickle.UnpicklingError):
            ModelUnpickler(io.BytesIO(pickle.dumps(foreign, protocol=5))).load()


def test_a_pre_commit_run_neither_reads_nor_writes_stored_findings(repo: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """A few staged files are checked faster than the table of stored findings is read and
    rewritten: pre-commit keeps its latency."""
    _run(capsys, STAGED)
    assert list(cache_folder(repo).glob("*/pack-*")) and not list(cache_folder(repo).glob("*/results-*"))
    _run(capsys, ".")
    assert list(cache_folder(repo).glob("*/results-*"))


def test_key_hashes_every_module_encoding_runs() -> None:
    """An entry stores what kqlint's code made of a file (objects, requested resources, masked
    values, digests): every kqlint module that encoding a file imports is in the settings key."""
    import subprocess
    import sys

    script = (
        "import sys\n"
        "from kqlint import loader\n"
        "from kqlint.cache import keys\n"
        "from kqlint.cache.entries import encode\n"
        "raw = open(sys.argv[1], 'rb').read()\n"
        "encode(loader.parse_bytes('a.yaml', raw), raw)\n"
        "hashed = {m.__name__ for m in loader.SOURCE_MODULES} | set(keys.ENCODING_MODULES) | set(keys._CACHE_MODULES)\n"
        "print(sorted(m for m in sys.modules if m.startswith('kqlint.') and m not in hashed))\n")
    sample = ROOT / "tests" / "fixtures" / "rules" / "KQ105" / "bad-three-workloads" / "jobs.yaml"
    found = subprocess.run([sys.executable, "-c", script, str(sample)], capture_output=True, text=True, check=True)
    assert found.stdout.strip() == "[]", found.stdout


@pytest.mark.parametrize("fmt", ["json", "sarif", "text"])
def test_a_cold_run_reads_back_the_entries_workers_made(repo: Path, capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch, fmt: str) -> None:
    """In an empty cache, the entries workers made of the input files they parsed are all the
    main process gets; it decodes them at once (inputs are never kept encoded: measured, that
    bought nothing): the output equals --no-cache's."""
    monkeypatch.setattr(parallel, "MIN_ITEMS_PER_JOB", 1)  # the examples are small: really fork
    uncached = _run(capsys, ".", "--jobs", "2", "--no-cache", "--format", fmt)
    lazily: list[bool] = []
    source_of = cache_store.FileCache.source_of

    def recorded(self: cache_store.FileCache, blob: bytes, path: str, display: str, lazy: bool) -> loader.SourceFile:
        lazily.append(lazy)
        return source_of(self, blob, path, display, lazy)

    monkeypatch.setattr(cache_store.FileCache, "source_of", recorded)
    assert _run(capsys, ".", "--jobs", "2", "--format", fmt) == uncached
    assert lazily and not any(lazily)
