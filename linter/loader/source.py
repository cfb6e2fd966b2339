"""What loading a file yields (:class:`SourceFile`, :class:`LoadProblem`) and the limits it keeps."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

MAX_FILE_SIZE = 16 * 1024 * 1024
MAX_DEPTH = 200            # deeper documents are refused (no Kubernetes object nests this deep)
MAX_EXPANDED_NODES = 2_000_000  # alias-expansion budget per document ("billion laughs")
MAX_EXPANDED_BYTES = 64 * 1024 * 1024  # ... and of scalar bytes (a big scalar aliased many times)


def is_k8s_object(document: Any) -> bool:
    return (isinstance(document, dict) and isinstance(document.get("apiVersion"), str)
            and isinstance(document.get("kind"), str) and bool(document.get("kind")))


def is_kustomization(document: Any) -> bool:
    """A kustomization (or component) file's document: read by kustomize, not an object."""
    return str(document.get("apiVersion")).startswith("kustomize.config.k8s.io/")


@dataclass(frozen=True)
class LoadProblem:
    """A file that could not be read or parsed: becomes KQ001 (or KQ006 for templates)."""

    file: str
    line: int
    column: int
    message: str
    code: str = "KQ001"
    remedy: str | None = None  # how to fix, apart from the message (the finding's ``help:``)
    # a duplicate key in a document kustomize may read as a patch: the warning said when the
    # file turns out to be a patch fragment (rules.md KQ001), where kustomize keeps the first value
    as_fragment: str | None = None


@dataclass
class SourceFile:
    path: str                      # as displayed in reports
    documents: list[Any] = field(default_factory=list)
    problems: list[LoadProblem] = field(default_factory=list)
    comment_lines: dict[int, str] = field(default_factory=dict)  # line -> text of `# kqlint:` comments
    placeholder_hint: bool = False  # may hold envsubst/sed placeholders (kqlint.loader.placeholders)
    # per document, the 1-based line its content ends on (its textually last node's end);
    # 0 when not known (a file with anchors): the cache digests each document's lines by it
    document_ends: list[int] = field(default_factory=list)
