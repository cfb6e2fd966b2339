"""Kustomizations and Helm charts on disk: what each kustomization includes (local
resources, bases, components) and which files it applies as patches."""
from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from kqlint.project.discover import display_path
from kqlint.project.root import folders_up

KUSTOMIZATION_NAMES = ("kustomization.yaml", "kustomization.yml", "Kustomization")
INCLUDE_KEYS = ("resources", "bases", "components")


def covers(path: str, root: str) -> bool:
    """``root`` is ``path`` or lies under it."""
    return root == path or root.startswith(path.rstrip(os.sep) + os.sep)


@dataclass
class Kustomization:
    folder: str                                   # absolute
    includes: list[str] = field(default_factory=list)   # absolute paths of local resources/bases
    patches: list[str] = field(default_factory=list)    # absolute paths of patch files
    namespace: str | None = None                  # what its `namespace:` sets on every namespaced object


class Layout:
    """Kustomizations and Helm charts found in the folders of the linted files, read from disk
    once per folder, never above ``top`` (the project root)."""

    def __init__(self, top: str, max_file_size: int) -> None:
        self.top = top
        self.max_file_size = max_file_size
        self._kustomization: dict[str, Kustomization | None] = {}
        self._chart: dict[str, bool] = {}
        self._up: dict[str, tuple[str, ...]] = {}

    def folders_up(self, file: str) -> tuple[str, ...]:
        """The folders from ``file``'s own up to ``top`` (nearest first); none outside ``top``."""
        folder = os.path.dirname(os.path.abspath(file))
        if folder not in self._up:  # files share folders: walked once per folder
            self._up[folder] = self._walk_up(folder)
        return self._up[folder]

    def _walk_up(self, folder: str) -> tuple[str, ...]:
        if not covers(self.top, folder):
            return ()
        found = []
        for above in folders_up(folder):
            found.append(above)
            if above == self.top:
                break
        return tuple(found)

    def kustomization(self, folder: str) -> Kustomization | None:
        if folder not in self._kustomization:
            self._kustomization[folder] = self._read_kustomization(folder)
        return self._kustomization[folder]

    def is_chart(self, folder: str) -> bool:
        if folder not in self._chart:
            self._chart[folder] = os.path.isfile(os.path.join(folder, "Chart.yaml"))
        return self._chart[folder]

    def _read_kustomization(self, folder: str) -> Kustomization | None:
        for name in KUSTOMIZATION_NAMES:
            path = os.path.join(folder, name)
            if os.path.isfile(path):
                return _parse_kustomization(path, folder, self.max_file_size)
        return None


def _parse_kustomization(path: str, folder: str, max_file_size: int) -> Kustomization:
    from kqlint.loader import load_file

    found = Kustomization(folder)
    try:
        source = load_file(path, display_path(path), max_file_size)
    except Exception:
        return found
    document = next((d for d in source.documents if isinstance(d, dict)), None)
    if document is None:
        return found
    namespace = document.get("namespace")
    found.namespace = namespace if isinstance(namespace, str) and namespace else None
    for key in INCLUDE_KEYS:
        found.includes += [_local(folder, entry) for entry in _strings(document.get(key))]
    found.patches += [_local(folder, entry) for entry in _strings(document.get("patchesStrategicMerge"))
                      if "\n" not in entry]  # an inline patch is YAML text, not a path
    for key in ("patches", "patchesJson6902"):
        entries = document.get(key)
        for entry in entries if isinstance(entries, list) else ():
            if isinstance(entry, dict) and isinstance(entry.get("path"), str):
                found.patches.append(_local(folder, entry["path"]))
    found.includes = [p for p in found.includes if p]
    found.patches = [p for p in found.patches if p]
    return found


def kustomization_folders(top: str) -> Iterator[str]:
    """Folders under ``top`` holding a kustomization (dot-folders and node_modules skipped,
    symlinked folders not followed), in sorted order."""
    for folder, dirnames, filenames in os.walk(top):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d != "node_modules")
        if any(name in filenames for name in KUSTOMIZATION_NAMES):
            yield folder


def _strings(value: Any) -> list[str]:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def _local(folder: str, entry: str) -> str:
    """The absolute path of a local entry; "" for a remote one (URL, git reference)."""
    if "://" in entry or entry.startswith(("git@", "github.com/", "gitlab.com/")) or "?ref=" in entry:
        return ""
    return os.path.normpath(os.path.join(folder, entry))
