"""Hostile inputs beyond tests/test_loader.py: nothing crashes, nothing blocks, nothing is
written, no network is touched. (Alias bombs, deep nesting, binary, non-UTF-8, UTF-16/BOM,
CRLF, duplicate keys, unknown tags, FIFOs, dangling symlinks, empty files: test_loader.py.)"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import socket
import time
from pathlib import Path

import pytest
from helpers import chdir
from kqlint.cli import main
from kqlint.config import Config
from kqlint.engine.pipeline import lint
from kqlint.loader import FAST_PATH

ROOT = Path(__file__).resolve().parent.parent
CONFIGMAP = b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n"


def _lint(path: Path, **config: object) -> list[tuple[str, int, int, str]]:
    with chdir(path):
        report = lint(["."], Config(**config), auto_context=False)  # type: ignore[arg-type]
    assert not report.internal_errors
    return [(f.location.file, f.location.line, f.location.column, f.code) for f in report.findings]


def test_c_parser_fast_path_is_active() -> None:
    assert FAST_PATH, "ruamel.yaml.clib is missing: install 'ruamel.yaml[oldlibyaml]'"


def test_oversized_file_is_refused_without_reading_it(tmp_path: Path) -> None:
    huge = tmp_path / "huge.yaml"
    with open(huge, "wb") as handle:  # sparse: 64 MiB on paper, nothing on disk
        handle.truncate(64 * 1024 * 1024)
    (tmp_path / "ok.yaml").write_bytes(CONFIGMAP)
    start = time.perf_counter()
    assert _lint(tmp_path) == [("huge.yaml", 1, 1, "KQ001")]
    assert time.perf_counter() - start < 5


def test_symlink_to_itself_and_dangling_link(tmp_path: Path) -> None:
    os.symlink("self.yaml", tmp_path / "self.yaml")
    os.symlink("missing.yaml", tmp_path / "dangling.yaml")
    (tmp_path / "ok.yaml").write_bytes(CONFIGMAP)
    assert _lint(tmp_path) == [("dangling.yaml", 1, 1, "KQ001"), ("self.yaml", 1, 1, "KQ001")]


def test_unreadable_file_from_any_os_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Root ignores file modes, so simulate EACCES where the loader opens files."""
    (tmp_path / "secret.yaml").write_bytes(CONFIGMAP)
    (tmp_path / "ok.yaml").write_bytes(CONFIGMAP.replace(b"name: c", b"name: d"))
    real_open = os.open  # the loader opens without blocking (os.open, O_NONBLOCK)

    def guarded_open(file, *args, **kwargs):  # type: ignore[no-untyped-def]
        if str(file).endswith("secret.yaml"):
            raise PermissionError(13, "Permission denied")
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr("os.open", guarded_open)
    assert _lint(tmp_path) == [("secret.yaml", 1, 1, "KQ001")]


def _snapshot(root: Path) -> dict[str, tuple[str, int]]:
    state = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and not path.is_symlink():
            state[path.relative_to(root).as_posix()] = (hashlib.sha256(path.read_bytes()).hexdigest(),
                                                        path.stat().st_mtime_ns)
        else:
            state[path.relative_to(root).as_posix()] = ("", 0)
    return state


def test_never_writes_inputs_and_never_uses_the_network(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    tree = tmp_path / "repo"
    shutil.copytree(ROOT / "examples", tree)
    before = _snapshot(tree)

    def no_network(*args: object, **kwargs: object) -> None:
        raise AssertionError("kqlint opened a network connection")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    with chdir(tree):
        for args in (["check", "."], ["check", ".", "--format", "sarif"], ["graph", ".", "--format", "dot"]):
            assert main(args) in (0, 1)
    capsys.readouterr()
    assert _snapshot(tree) == before


@pytest.mark.slow
def test_a_hundred_thousand_tiny_files(tmp_path: Path) -> None:
    folder = tmp_path / "many"
    folder.mkdir()
    for index in range(100_000):
        (folder / f"cm-{index:06d}.yaml").write_bytes(CONFIGMAP.replace(b"name: c", b"name: c%d" % index))
    with chdir(tmp_path):
        report = lint(["many"], Config(select=("KQ001", "KQ003")), auto_context=False, jobs=2)
    assert report.summary.files == 100_000 and report.summary.objects == 100_000
    assert report.findings == ()


def test_one_rule_gives_at_most_a_hundred_findings_per_object(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    # A ClusterQueue naming 3,000 ResourceFlavors that do not exist: KQ206 reports one per flavor,
    # so a 3.6 MB file of 50,000 made 50,000 findings (359 MB). The engine keeps 100 per rule and
    # object, the last one counting the rest; another object's findings are not affected.
    flavors = "".join(f"    - name: missing-{i}\n      resources: [{{name: cpu, nominalQuota: 1}}]\n"
                      for i in range(3000))
    queue = ("apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {{name: {name}}}\n"
             "spec:\n  namespaceSelector: {{}}\n  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n")
    (tmp_path / "flavor.yaml").write_text("apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\n"
                                          "metadata: {name: default}\n")
    (tmp_path / "cq.yaml").write_text(queue.format(name="big") + flavors)
    (tmp_path / "small.yaml").write_text(queue.format(name="small") + "".join(
        f"    - name: absent-{i}\n      resources: [{{name: cpu, nominalQuota: 1}}]\n" for i in range(5)))
    main(["check", str(tmp_path), "--select", "KQ206", "--format", "json", "--no-cache", "--no-config"])
    findings = json.loads(capsys.readouterr().out)["findings"]
    big = [f for f in findings if f["file"].endswith("cq.yaml")]
    small = [f for f in findings if f["file"].endswith("small.yaml")]
    assert len(big) == 100
    assert sum("(2900 more KQ206 findings of this object are not listed)" in f["message"] for f in big) == 1
    assert len(small) == 5 and not any("not listed" in f["message"] for f in small)
