"""kqlint reads every manifest exactly as kubectl does (issue 9 part 1, proof).

For every file of ../shared/corpus and of a generated bench repository: each object kqlint
loads equals kubectl's JSON for it (probe label and the empty metadata kubectl adds removed;
numbers compared as JSON numbers), and kqlint reports KQ001 (or KQ006 for an unrendered
template) exactly where kubectl refuses a file holding Kubernetes objects. Skipped where
kubectl or ../shared is absent.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SHARED, shared_dir
from kqlint.domain.objects import objects_from_file
from kqlint.loader import load_file
from kubectl_oracle import as_json, decode_files, kubectl, without_probe

MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")

pytestmark = pytest.mark.skipif(kubectl() is None, reason="kubectl is not installed")


def _kqlint_view(files: list[Path]) -> dict[Path, tuple[list, bool, bool]]:
    """file -> (objects' data, KQ001 reported, KQ006 reported)."""
    view = {}
    for file in files:
        source = load_file(str(file), str(file))
        codes = {p.code for p in source.problems}
        objects = [o.data for o in objects_from_file(source, "default")[0]]
        view[file] = (objects, "KQ001" in codes, "KQ006" in codes)
    return view


def _disagreements(files: list[Path]) -> list[str]:
    ours = _kqlint_view(files)
    theirs = decode_files(files, {f: len(ours[f][0]) for f in files})
    found = []
    for file in files:
        objects, kq001, kq006 = ours[file]
        decoded = theirs[file]
        if decoded.refused:
            if not (kq001 or kq006) and objects:
                found.append(f"{file}: kubectl refuses it ({decoded.errors[0][:200]}), kqlint reads it")
            continue
        if kq001:
            found.append(f"{file}: kqlint reports KQ001, kubectl reads it")
            continue
        if kq006:
            continue  # an unrendered template that happens to decode: kqlint skips it on purpose
        if len(decoded.objects) != len(objects):
            found.append(f"{file}: kubectl reads {len(decoded.objects)} objects, kqlint {len(objects)}")
            continue
        for index, (mine, its) in enumerate(zip(objects, decoded.objects, strict=True)):
            if as_json(mine) != as_json(without_probe(its, mine)):
                found.append(f"{file}: object {index} differs from kubectl's")
    return found


def _manifests(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.suffix in MANIFEST_SUFFIXES and p.is_file())


def test_corpus_reads_as_kubectl_reads_it() -> None:
    files = _manifests(shared_dir("corpus"))
    assert len(files) > 1000
    assert _disagreements(files) == []


def test_generated_bench_repository_reads_as_kubectl_reads_it(tmp_path: Path) -> None:
    generator = SHARED / "bench" / "gen_corpus.py"
    if not generator.is_file():
        pytest.skip("../shared/bench/gen_corpus.py is not present (only in the kqlint development workspace)")
    subprocess.run([sys.executable, str(generator), str(tmp_path / "repo"), "--manifests", "600", "--seed", "9"],
                   check=True, capture_output=True, timeout=120)
    files = _manifests(tmp_path / "repo")
    assert len(files) > 200
    assert _disagreements(files) == []


def test_tricky_scalars_read_as_kubectl_reads_them(tmp_path: Path) -> None:
    (tmp_path / "tricky.yaml").write_bytes(
        b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: tricky}\ndata: {}\nextra:\n"
        b"  a: !Ref Foo\n  b: !!python/object:os.system ls\n  c: !!binary aGVsbG8=\n  d: 1:30\n  e: 0o17\n"
        b"  f: =\n  g: 08\n  h: 1e3\n  i: 1.0\n  j: 0x_1F\n  k: 18446744073709551615\n  l: 1e400\n"
        b"  m: 0777777777777777777777777777\n  y: n\n  3: x\n  1.5: z\n  o: [a:b, {c: d:e}]\n"
        b"  p: !!int '12'\n  q: !If [x, y]\n  r: &a {s: 1}\n  t: {u: 0, <<: *a}\n  v: |\n    no final break")
    assert _disagreements([tmp_path / "tricky.yaml"]) == []
