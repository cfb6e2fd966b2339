"""Independent samples (rules.md "Applied together"): where sibling folders each hold a README
and manifests and no reference resolves from one of them into another, each such folder is a
unit of its own, so a class, a default or a copy in one sample is never judged against another.

A sample is the deepest folder above a file (below the project root) that holds a README and
has at least one sibling that does too, both with manifests. Samples that a reference links (a
name one writes that it does not define itself, defined by another) are one unit; a sample that
a file outside every sample depends on that way, or that holds a kustomization or chart (a unit
already), stays as it is: shared, or that unit (a platform repository's ``teams/`` resolving
into ``platform/``). When every sample ends up linked, nothing changes: the repository is one
deployment.
"""
from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from kqlint.project.readme import holds_readme
from kqlint.project.scope.layout import covers

if TYPE_CHECKING:
    from kqlint.domain.objects import K8sObject

SAMPLE = "sample:"
_WORLD = ""  # the union-find node of everything outside the samples


def sample_units(objects: Iterable[K8sObject], top: str, placed: Callable[[str], str | None]) -> dict[str, str]:
    """absolute file -> its sample unit, for the files of independent samples; ``placed``: the
    unit a file has otherwise (kustomize, chart), None for a file in no unit. A sample holding
    such a unit stays as it is (with the shared files), and so does every sample linked to it."""
    objects = [obj for obj in objects if not obj.file.startswith("<")]
    files = sorted({os.path.abspath(obj.file) for obj in objects})
    homes = _homes(files, top)
    if len(set(homes.values())) < 2:
        return {}
    parent = {home: home for home in [_WORLD, *sorted(set(homes.values()))]}

    def find(node: str) -> str:
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    def union(a: str, b: str) -> None:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)  # _WORLD ("") sorts first: a linked component stays shared

    loose = {file for file in files if placed(file) is None}
    for file, home in homes.items():
        if file not in loose:
            union(home, _WORLD)
    for a, b in _links(objects, homes):
        union(a, b)
    if len({find(home) for home in homes.values()}) < 2:
        return {}  # every sample linked: one deployment (a platform repository)
    return {file: SAMPLE + find(home) for file, home in homes.items() if file in loose and find(home) != _WORLD}


def _homes(files: list[str], top: str) -> dict[str, str]:
    """file -> the deepest sample folder above it."""
    readme: dict[str, bool] = {}
    candidates: dict[str, list[str]] = {}  # file -> folders above it holding a README, deepest first
    for file in files:
        found = []
        folder = os.path.dirname(file)
        while folder != top and covers(top, folder):
            if folder not in readme:
                readme[folder] = holds_readme(folder)
            if readme[folder]:
                found.append(folder)
            folder = os.path.dirname(folder)
        candidates[file] = found
    siblings: dict[str, set[str]] = {}
    for found in candidates.values():
        for folder in found:
            siblings.setdefault(os.path.dirname(folder), set()).add(folder)
    samples = {folder for group in siblings.values() if len(group) > 1 for folder in group}
    return {file: next(f for f in found if f in samples) for file, found in candidates.items()
            if any(f in samples for f in found)}


def _links(objects: list[K8sObject], homes: dict[str, str]) -> Iterable[tuple[str, str]]:
    """Pairs of samples (or a sample and _WORLD) that a written reference joins: the name is not
    defined where the reference is written, and is defined in the other."""
    from kqlint.domain.graph import ObjectGraph
    from kqlint.domain.refs import references

    def home(obj: K8sObject) -> str:
        return homes.get(os.path.abspath(obj.file), _WORLD)

    defined: dict[tuple[str, str], set[str]] = {}
    for obj in objects:
        defined.setdefault((obj.kind, obj.name), set()).add(home(obj))
    graph = ObjectGraph(objects)
    for obj in objects:
        origin = home(obj)
        for reference in references(obj, graph):
            if reference.site.implied:
                continue  # a default the cluster supplies, not a name the sample writes
            where = defined.get((reference.site.kind, reference.name), set())
            if origin not in where:
                yield from ((origin, other) for other in sorted(where) if other != _WORLD)
