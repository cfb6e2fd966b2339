"""Repeated keys of a mapping (KQ001), worded for the tool that reads the file."""
from __future__ import annotations

import os
from typing import Any

from kqlint.loader.nodes import unpack
from kqlint.loader.source import LoadProblem


class DuplicateReport:
    """One finding per mapping with repeated keys, at most MAX_DUPLICATE_FINDINGS per file
    (then one line counting the rest), worded for the tool that consumes the file."""

    def __init__(self, path: str, consumer: str | None = None) -> None:
        self.path = path
        self.tool = consumer or _duplicate_consumer(path)
        self.reported = 0
        self.more = 0
        self.more_at: tuple[int, int] | None = None

    def add(self, found: list[tuple[Any, int, int, int]], kubernetes: bool, problems: list[LoadProblem]) -> None:
        consequence = _DUPLICATE_CONSEQUENCES["kubernetes" if kubernetes else self.tool]
        if consequence is None:
            return  # not a Kubernetes object nor a file a known tool reads: skipped anyway
        for key, first, second, repeated in found:
            line, column = unpack(second)
            if self.reported >= MAX_DUPLICATE_FINDINGS:
                self.more += 1
                self.more_at = self.more_at or (line, column)
                continue
            self.reported += 1
            others = f"; {repeated - 1} more repeated key(s) in this mapping" if repeated > 1 else ""
            problems.append(LoadProblem(
                self.path, line, column,
                f"duplicate key `{_excerpt(key)}` (first at line {unpack(first)[0]}, again at line "
                f"{line}{others}): {consequence}", remedy="Remove one of them"))

    def finish(self, problems: list[LoadProblem]) -> None:
        if self.more and self.more_at is not None:
            problems.append(LoadProblem(
                self.path, *self.more_at,
                f"{self.more} more mapping(s) with duplicate keys in this file (not listed one by one)"))


MAX_DUPLICATE_FINDINGS = 20
_DUPLICATE_CONSEQUENCES = {
    "kubernetes": ("`kubectl apply` rejects duplicate fields (strict field validation, its default) "
                   "and kustomize refuses the file; with validation off the API server keeps only the last value"),
    "kustomize": "kustomize reads a kustomization with the last value and silently ignores the earlier one",
    "helm": "Helm reads values files with the last value and silently ignores the earlier one",
    "kqlint": "kqlint would read only the last value",
    None: None,
}


def _duplicate_consumer(path: str) -> str | None:
    name = os.path.basename(path).lower()
    if name in ("kustomization.yaml", "kustomization.yml", "kustomization"):
        return "kustomize"
    if name.startswith("values") and name.endswith((".yaml", ".yml")):
        return "helm"
    return None


def _excerpt(key: Any, limit: int = 60) -> str:
    text = str(key)
    return text if len(text) <= limit else text[:limit] + "…"
