"""Per-document digests from text (kqlint.cache.digests) and the document ends the loader keeps
for them (SourceFile.document_ends)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import shared_dir
from kqlint.cache.digests import document_digests
from kqlint.loader import parse_bytes
from kqlint.loader.decode import to_utf8

ROOT = Path(__file__).resolve().parent.parent
PROBE = b"#kqlint-probe"


def _shape(node: Any) -> Any:
    """Values and positions, compared by value."""
    if isinstance(node, dict):
        return ("map", bytes(node.pos), [(key, _shape(value)) for key, value in node.items()])
    if isinstance(node, list):
        return ("seq", bytes(node.pos), [_shape(item) for item in node])
    return type(node).__name__, node


def ends_cover_their_documents(raw: bytes) -> list[str]:
    """For each document whose end is known, a line inserted after its end leaves it exactly as
    it was (values and every position), or moves its end (then its digest changes anyway).
    A node of the document after its end would have moved; so would anything the document's
    value depends on there (a block scalar's kept line breaks, a value folded over lines)."""
    source = parse_bytes("a.yaml", raw)
    data = to_utf8(raw)[0]
    if data is None or len(source.document_ends) != len(source.documents):
        return []
    lines = data.split(b"\n")
    wrong = []
    for index, end in enumerate(source.document_ends):
        if not end:
            continue
        probed = parse_bytes("a.yaml", b"\n".join(lines[:end] + [PROBE] + lines[end:]))
        if len(probed.document_ends) > index and probed.document_ends[index] != end:
            continue
        if len(probed.documents) <= index or _shape(probed.documents[index]) != _shape(source.documents[index]):
            wrong.append(f"document {index} (ends on line {end})")
    return wrong


ALIASED = {  # an alias as a document's last node: its anchor is earlier in the text
    "mapping value": b"a: &x 1\nb:\n  c: 2\n  d: *x\n",
    "sequence item on its own line": b"a: &x 1\nb:\n  - 2\n  -\n    *x\n# after\n---\nz: 1\n",
    "merge key": b"base: &b {x: 1}\nm:\n  <<: *b\n",
    "aliased key and value": b"&k a: &v 1\n*k : *v\n",
    "anchor inside the same sequence": b"s:\n- &x one\n- *x\n",
}
BLOCK_ENDINGS = {
    "kept line breaks": b"data: |+\n  one\n\n\n---\nb: 1\n",
    "clipped": b"data: |\n  one\n  two\n---\nb: 1\n",
    "missing value before ---": b"a: 1\nb:\n---\nc: 2\n",
    "flow mapping over lines": b"a: {\n  b: 1,\n  c: 2\n  }\n# after\n",
    "plain scalar folded over lines": b"a: one\n  two\n  three\n",
    "comment lines after": b"a: 1\n# one\n# two\n",
    "json": b'{\n  "a": [1,\n   2]\n}\n',
}


@pytest.mark.parametrize("text", [*ALIASED.values(), *BLOCK_ENDINGS.values()],
                         ids=[*ALIASED, *BLOCK_ENDINGS])
def test_document_ends_cover_their_documents(text: bytes) -> None:
    assert ends_cover_their_documents(text) == []


def test_an_alias_as_the_last_node_leaves_the_end_unknown() -> None:
    for name, text in ALIASED.items():
        assert parse_bytes("a.yaml", text).document_ends[0] == 0, name
    assert parse_bytes("a.yaml", ALIASED["sequence item on its own line"]).document_ends == [0, 8]
    assert parse_bytes("a.yaml", b"a: &x 1\nb: *x\nc: 2\n").document_ends == [3]  # not the last node


def _manifests(*folders: Path) -> list[Path]:
    return sorted(path for folder in folders for path in folder.rglob("*")
                  if path.is_file() and (path.suffix in (".yaml", ".yml", ".json") or path.name == "in.yaml"))


def test_document_ends_cover_their_documents_in_the_examples_and_fixtures() -> None:
    files = _manifests(ROOT / "examples", ROOT / "tests" / "fixtures")
    assert len(files) > 100
    assert {str(path): wrong for path in files if (wrong := ends_cover_their_documents(path.read_bytes()))} == {}


@pytest.mark.parametrize("name", ["yaml-test-suite", "corpus"])
def test_document_ends_cover_their_documents_in_shared_files(name: str) -> None:
    files = _manifests(shared_dir(name))
    assert len(files) > 300
    assert {str(path): wrong for path in files if (wrong := ends_cover_their_documents(path.read_bytes()))} == {}


# ------------------------------------------------------------------ digests

TWO = b"""\
# a file of two documents
apiVersion: v1
kind: ConfigMap
metadata:
  name: one
data:
  key: value
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: two
"""


def _digests(text: bytes) -> tuple[str, ...]:
    source = parse_bytes("a.yaml", text)
    return document_digests(text, source.document_ends, {})[0]


def test_text_after_the_last_document_changes_no_digest() -> None:
    digests = _digests(TWO)
    assert len(set(digests)) == 2
    assert _digests(TWO + b"# appended\n") == digests
    assert _digests(TWO + b"---\n# an empty document after\n")[:2] == digests


def test_a_document_digest_changes_with_its_lines_and_where_they_start() -> None:
    digests = _digests(TWO)
    edited = _digests(TWO.replace(b"name: two", b"name: tw0"))
    assert edited[0] == digests[0] and edited[1] != digests[1]
    commented = _digests(TWO.replace(b"key: value", b"key: value # same length? no"))
    assert commented[0] != digests[0] and commented[1] == digests[1]  # its lines changed, not the line count
    moved = _digests(TWO.replace(b"\ndata:\n", b"\n\ndata:\n"))  # a blank line: the second document moves down
    assert moved[0] != digests[0] and moved[1] != digests[1]
    assert _digests(b"\n" + TWO) != digests


def test_line_breaks_the_parser_counts_otherwise_digest_the_whole_file() -> None:
    text = TWO.replace(b"# a file of two documents\n", b"# a file\r# of two documents\n")  # a lone CR: a break
    digests = _digests(text)
    edited = _digests(text.replace(b"name: two", b"name: tw0"))
    assert edited[0] != digests[0] and edited[1] != digests[1]


def test_a_utf16_file_is_digested_as_the_text_the_parser_read() -> None:
    from kqlint.cache.entries import encode

    def digests(text: bytes) -> tuple[str, ...]:
        raw = b"\xff\xfe" + text.decode().encode("utf-16-le")
        return encode(parse_bytes("a.yaml", raw), raw)[2]

    plain = digests(TWO)
    assert len(set(plain)) == 2 and digests(TWO + b"# appended\n") == plain
    edited = digests(TWO.replace(b"name: two", b"name: tw0"))
    assert edited[0] == plain[0] and edited[1] != plain[1]


def test_an_anchored_masked_value_is_not_blanked() -> None:
    """An anchored value can be read through an alias where nothing is masked: it stays."""
    from kqlint.cache.entries import encode

    job = b"""\
apiVersion: batch/v1
kind: Job
metadata:
  name: train
  labels:
    app: &name train
    kueue.x-k8s.io/queue-name: *name
spec:
  template:
    spec:
      containers:
        - name: main
          image: trainer:1
"""

    def projection(text: bytes) -> str:
        return encode(parse_bytes("a.yaml", text), text)[3][0]

    assert projection(job.replace(b"trainer:1", b"trainer:2")) == projection(job)  # blanked
    assert projection(job.replace(b"&name train", b"&name other")) != projection(job)  # the queue changed
