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
KUSTOMIZE_GROUP = "kustomize.config.k8s.io"
KUSTOMIZE_KINDS = ("Kustomization", "Component")
INCLUDE_KEYS = ("resources", "bases", "components")
PLUGIN_KEYS = ("generators", "transformers", "validators")  # may name remote targets too
_REMOTE_PREFIXES = ("git@", "git::", "ssh:", "github.com/", "gitlab.com/", "bitbucket.org/")


def covers(path: str, root: str) -> bool:
    """``root`` is ``path`` or lies under it."""
    return root == path or root.startswith(path.rstrip(os.sep) + os.sep)


@dataclass
class Kustomization:
    folder: str                                   # absolute
    includes: list[str] = field(default_factory=list)   # absolute paths of local resources/bases
    patches: list[str] = field(default_factory=list)    # absolute paths of patch files
    namespace: str | None = None                  # what its `namespace:` sets on every namespaced object
    remote: list[str] = field(default_factory=list)     # entries kubectl would fetch (git, HTTPS)
    kind: str | None = None                       # its document's `kind:` (Kustomization, Component)


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
                return parse_kustomization(path, folder, self.max_file_size)
        return None


def parse_kustomization(path: str, folder: str, max_file_size: int) -> Kustomization:
    from kqlint.loader import load_file

    found = Kustomization(folder)
    try:
        source = load_file(path, display_path(path), max_file_size)
    except Exception:
        return found
    document = next((d for d in source.documents if isinstance(d, dict)), None)
    if document is None:
        return found
    found.kind = str(document.get("kind") or "") or None
    namespace = document.get("namespace")
    found.namespace = namespace if isinstance(namespace, str) and namespace else None
    for key in INCLUDE_KEYS:
        found.includes += [_local(folder, entry) for entry in _strings(document.get(key))]
    for key in INCLUDE_KEYS + PLUGIN_KEYS:
        found.remote += [entry for entry in _strings(document.get(key)) if is_remote(folder, entry)]
    found.patches += [_local(folder, entry) for entry in _strings(document.get("patchesStrategicMerge"))
                      if "\n" not in entry]  # an inline patch is YAML text, not a path
    for key in ("patches", "patchesJson6902"):
        entries = document.get(key)
        for entry in entries if isinstance(entries, list) else ():
            if isinstance(entry, dict) and isinstance(entry.get("path"), str):
                found.patches.append(_local(folder, entry["path"]))
    found.includes = [p for p in found.includes if p]
    found.patches = [p for p in found.patches if p and loadable(folder, p)]
    return found


def loadable(folder: str, path: str) -> bool:
    """kustomize loads a patch file only in or below its kustomization's folder (it refuses the
    rest: "security; file ... is not in or below ..."), as written and as its real path."""
    real_folder = os.path.realpath(folder)
    return covers(folder, path) and covers(real_folder, os.path.realpath(path))


def kustomization_folders(top: str) -> Iterator[tuple[str, bool, list[str]]]:
    """Folders under ``top`` holding a kustomization (dot-folders and node_modules skipped,
    symlinked folders not followed), in sorted order: (folder, it holds one kustomize reads,
    the paths of files named like a variant of one: ``kustomization-prod.yaml``)."""
    for folder, dirnames, filenames in os.walk(top):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d != "node_modules")
        variants = sorted(os.path.join(folder, name) for name in filenames
                          if name[:1] in "kK" and _variant_name(name))  # the first letter: one cheap test per file
        standard = any(name in filenames for name in KUSTOMIZATION_NAMES)
        if standard or variants:
            yield folder, standard, variants


def _variant_name(name: str) -> bool:
    lower = name.lower()
    return lower.startswith("kustomization") and lower.endswith((".yaml", ".yml")) and name not in KUSTOMIZATION_NAMES


def _strings(value: Any) -> list[str]:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def is_remote(folder: str, entry: str) -> bool:
    """``entry`` of the kustomization in ``folder`` names what kustomize fetches: a URL, a git
    reference, or a path that does not exist whose first name looks like a host (kustomize
    then tries it as a git repository, `example.com/org/repo`)."""
    if "://" in entry or entry.startswith(_REMOTE_PREFIXES) or "?ref=" in entry or "?version=" in entry:
        return True
    first = entry.split("/", 1)[0]
    return "." in first.strip(".") and "/" in entry and not os.path.lexists(os.path.join(folder, entry))


def _local(folder: str, entry: str) -> str:
    """The absolute path of a local entry; "" for a remote one (URL, git reference) or one no
    file can have (a NUL byte: the system refuses such a path)."""
    if "\x00" in entry or is_remote(folder, entry):
        return ""
    return os.path.normpath(os.path.join(folder, entry))
