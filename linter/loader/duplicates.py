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
            found_at = (f"duplicate key `{_excerpt(key)}` (first at line {unpack(first)[0]}, "
                        f"again at line {line}{others})")
            problems.append(LoadProblem(
                self.path, line, column, f"{found_at}: {consequence}", remedy="Remove one of them",
                as_fragment=f"{found_at}: {_PATCH_CONSEQUENCE}" if kubernetes else None))

    def finish(self, problems: list[LoadProblem]) -> None:
        if self.more and self.more_at is not None:
            message = f"{self.more} more mapping(s) with duplicate keys in this file (not listed one by one)"
            problems.append(LoadProblem(self.path, *self.more_at, message, as_fragment=message))


MAX_DUPLICATE_FINDINGS = 20
_DUPLICATE_CONSEQUENCES = {
    "kubernetes": ("`kubectl apply` rejects duplicate fields (strict field validation, its default) "
                   "and kustomize refuses the file; with validation off the API server keeps only the last value"),
    "kustomize": None,  # kustomize reads a kustomization with the last value: not KQ001 (rules.md)
    "helm": "Helm reads values files with the last value and silently ignores the earlier one",
    "kqlint": "kqlint would read only the last value",
    None: None,
}


# kustomize's strategic merge reads a patch with the first value of a repeated key
# (kubectl kustomize v5.5: `replicas: 3` then `replicas: 5` renders 3)
_PATCH_CONSEQUENCE = ("kustomize applies this patch with the first value and silently drops the later one, "
                      "whatever their tags")


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
