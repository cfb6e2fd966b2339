"""Keep a run inside the repository it lints.

A pull request can commit a symlink (``innocent.yaml -> ../../outside/secret.yaml``) or a
config whose ``context:``/``crds:`` name paths outside the checkout; kqlint would read
those files and quote their values in annotations. By default:

- an input or context file (or a named folder) whose real path, symlinks resolved, is
  outside its tree is skipped with a note on stderr. The tree is the repository root (the
  nearest folder above holding ``.git``, see kqlint.project.root.repository_root); without
  one, the current directory (or, for paths outside it, the file's own folder);
- ``context:`` and ``crds:`` entries of a configuration file that resolve outside the
  config's repository (or, without one, the config's folder) are skipped with a note.

``--follow-external-symlinks`` (Config.follow_external_symlinks) reads them anyway.
Paths the person running kqlint names on the command line (``--context``, ``--crd``,
``--config``) are theirs to choose and are not restricted; symlinks in inputs are.
"""
from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kqlint.config import Config

FOLLOW_FLAG = "--follow-external-symlinks"


def inside(path: str, root: str) -> bool:
    """``path`` is ``root`` or lies below it (both spelt alike: absolute, or both real)."""
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def relative_below(path: str, root: str) -> str | None:
    """``path`` (as given, or relative to the current directory) relative to the absolute
    ``root`` it lies below, with ``/``; None: not below it (outside, or ``root`` itself)."""
    absolute = os.path.abspath(path)
    if absolute == root or not inside(absolute, root):
        return None
    return os.path.relpath(absolute, root).replace(os.sep, "/")


def tree_root(folder: str, cwd: str) -> str:
    """The tree a plain run reads from ``folder`` (real path): its repository, else the current
    directory ``cwd`` when the folder is below it, else the folder itself."""
    from kqlint.project.root import repository_root

    return os.path.realpath(repository_root(folder) or (cwd if inside(folder, cwd) else folder))


class _Trees:
    """The tree of a path (cached per folder: one upward search per folder, not per file)."""

    def __init__(self) -> None:
        self._roots: dict[str, str] = {}
        from kqlint.project.workdir import working_folder

        self._cwd = working_folder()

    def root(self, path: str) -> str:
        folder = os.path.dirname(os.path.abspath(path))
        root = self._roots.get(folder)
        if root is None:
            self._roots[folder] = root = tree_root(folder, self._cwd)
        return root

    def leaves(self, path: str) -> bool:
        return not inside(os.path.realpath(path), self.root(path))


def contain_files(files: list[str], named: Iterable[str], follow: bool) -> tuple[list[str], list[str]]:
    """``files`` without those whose real path leaves their tree, and one note per skip.
    Walked files are checked when they are symlinks; named paths (and files under a named
    folder that is a symlink) whatever they are."""
    if follow:
        return files, []
    from kqlint.project.discover import STDIN, display_path

    trees = _Trees()
    leaving = [p for p in named if p != STDIN and os.path.lexists(p) and trees.leaves(p)]
    named_set = {os.path.abspath(p) for p in named}
    kept, notes = [], []
    for path in files:
        absolute = os.path.abspath(path)
        under_leaving = any(inside(absolute, os.path.abspath(p)) for p in leaving)
        checked = under_leaving or absolute in named_set or os.path.islink(path)
        if path != STDIN and checked and trees.leaves(path):
            notes.append(f"skipped {display_path(path)}: it resolves (through a symlink) to a file outside "
                         f"the repository; pass {FOLLOW_FLAG} to lint it")
            continue
        kept.append(path)
    return kept, notes


def contain_config(config: Config) -> tuple[Any, list[str]]:
    """``config`` without the ``context``/``crds`` entries its file names outside its
    repository (unless following is allowed), and one note per entry dropped."""
    origin = getattr(config, "origin", None)
    if config.path is None or origin is None or config.follow_external_symlinks:
        return config, []
    data = origin.data if isinstance(origin.data, dict) else {}
    base = os.path.dirname(os.path.abspath(config.path))
    from kqlint.project.discover import display_path
    from kqlint.project.root import repository_root

    root = os.path.realpath(repository_root(base) or base)
    notes: list[str] = []
    changes: dict[str, tuple[str, ...]] = {}
    for key, attribute in (("context", "context"), ("crds", "crds")):
        entries = data.get(key) or []
        written = {os.path.abspath(os.path.join(base, e)) for e in entries if isinstance(e, str)}
        kept = []
        for path in getattr(config, attribute):
            absolute = os.path.abspath(path)
            if absolute in written and not inside(os.path.realpath(absolute), root):
                notes.append(f"skipped {key} entry {path} of {display_path(config.path)}: it is outside the "
                             f"repository; pass {FOLLOW_FLAG} to read it")
                continue
            kept.append(path)
        changes[attribute] = tuple(kept)
    return replace(config, context=changes["context"], crds=changes["crds"]), notes
