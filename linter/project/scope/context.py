"""The context of a run (cli.md "Project root and context"): ``--context``/config
``context:`` when given (exactly that), else the project root's manifests, whatever paths are
named (files, folders or the root itself)."""
from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass

from kqlint.project.discover import STDIN, inputs_folder, named_like
from kqlint.project.root import project_root
from kqlint.project.scope.layout import covers
from kqlint.project.workdir import absolute, working_folder

NO_ROOT_NOTE = ("no project root above the inputs (no .git, .kqlint.yaml, .kqlint.yml or "
                "pyproject.toml with [tool.kqlint]): references resolve among the named files only; "
                "name more with --context")


@dataclass(frozen=True)
class ContextPlan:
    paths: tuple[str, ...]
    note: str | None = None


def context_plan(paths: list[str], explicit: Iterable[str], automatic: bool = True,
                 rendered: Iterable[str] = ()) -> ContextPlan:
    """The context paths of a run: the explicit ones when any, else the project root (unless
    the inputs already cover it). ``rendered``: folders linted as ``kubectl kustomize``
    renders them (``--kustomize``): they locate the project root like ``paths``, but their
    files are not the inputs, so even a rendered root leaves the root's manifests to load."""
    named = tuple(explicit)
    if named or not automatic:
        return ContextPlan(named)
    located = list(paths) + list(rendered)
    root = project_root(inputs_folder(located))
    if root is None:  # said when the inputs are only part of the current folder's tree
        partial = not any(p != STDIN and covers(absolute(p), working_folder()) for p in located)
        return ContextPlan((), NO_ROOT_NOTE if partial else None)
    if any(p != STDIN and covers(os.path.abspath(p), root) for p in paths):
        return ContextPlan(())  # the inputs are the whole project
    return ContextPlan((named_like(root, located),))  # its files are reported as the inputs are
