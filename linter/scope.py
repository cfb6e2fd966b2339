"""What is applied together (rules.md "Applied together", cli.md "Project root and context").

- The context of a run: ``--context``/config ``context:`` when given (exactly that), else the
  project root's manifests, whatever paths are named (files, folders or the root itself).
- Kustomize patch files (``patches`` with a ``path``, ``patchesStrategicMerge``,
  ``patchesJson6902``) are fragments, not objects: never reported on, never resolved to.
- Units: folders applied on their own. Every folder holding a ``kustomization.yaml`` (merged
  with the kustomizations it includes) and every Helm chart folder is a unit; config
  ``units:`` globs replace that detection. Files in no unit are shared: every unit sees them.
  A unit never resolves into another unit; a name defined only in another unit is neither
  resolved nor reported unknown.
"""
from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import Any

from kqlint.discover import STDIN, display_path, inputs_folder, project_root

KUSTOMIZATION_NAMES = ("kustomization.yaml", "kustomization.yml", "Kustomization")
INCLUDE_KEYS = ("resources", "bases", "components")
NO_ROOT_NOTE = ("no project root above the inputs (no .git, .kqlint.yaml, .kqlint.yml or "
                "pyproject.toml with [tool.kqlint]): references resolve among the named files only; "
                "name more with --context")


@dataclass(frozen=True)
class ContextPlan:
    paths: tuple[str, ...]
    note: str | None = None


def context_plan(paths: list[str], explicit: Iterable[str], automatic: bool = True) -> ContextPlan:
    """The context paths of a run: the explicit ones when any, else the project root (unless
    the inputs already cover it)."""
    named = tuple(explicit)
    if named or not automatic:
        return ContextPlan(named)
    root = project_root(inputs_folder(paths))
    if root is None:  # said when the inputs are only part of the current folder's tree
        partial = not any(p != STDIN and _covers(os.path.abspath(p), os.getcwd()) for p in paths)
        return ContextPlan((), NO_ROOT_NOTE if partial else None)
    if any(p != STDIN and _covers(os.path.abspath(p), root) for p in paths):
        return ContextPlan(())  # the inputs are the whole project
    return ContextPlan((root,))


def _covers(path: str, root: str) -> bool:
    return root == path or root.startswith(path.rstrip(os.sep) + os.sep)


# ------------------------------------------------------------------ kustomizations on disk

@dataclass
class Kustomization:
    folder: str                                   # absolute
    includes: list[str] = field(default_factory=list)   # absolute paths of local resources/bases
    patches: list[str] = field(default_factory=list)    # absolute paths of patch files


class Layout:
    """Kustomizations and Helm charts found in the folders of the linted files, read from disk
    once per folder, never above ``top`` (the project root)."""

    def __init__(self, top: str, max_file_size: int) -> None:
        self.top = top
        self.max_file_size = max_file_size
        self._kustomization: dict[str, Kustomization | None] = {}
        self._chart: dict[str, bool] = {}

    def folders_up(self, file: str) -> list[str]:
        """The folders from ``file``'s own up to ``top`` (nearest first); [] outside ``top``."""
        folder = os.path.dirname(os.path.abspath(file))
        if not _covers(self.top, folder):
            return []
        found = []
        while True:
            found.append(folder)
            if folder == self.top:
                return found
            parent = os.path.dirname(folder)
            if parent == folder:
                return found
            folder = parent

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


def _kustomization_folders(top: str) -> Iterator[str]:
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


# ------------------------------------------------------------------ fragments and units

class Scope:
    """Which files are patch fragments and which unit each file belongs to."""

    def __init__(self, files: Iterable[str], config: Any, top: str) -> None:
        self.layout = Layout(top, config.max_file_size)
        self.config_units = _config_units(config)
        self.fragments: set[str] = set()          # absolute paths of patch files
        self._unit_of_file: dict[str, str | None] = {}
        self._parent: dict[str, str] = {}          # union-find over kustomization folders
        self._resource_files: dict[str, str] = {}  # a file a kustomization lists by name -> folder
        wanted = sorted({os.path.abspath(f) for f in files if f and not f.startswith("<")})
        for file in wanted:
            for folder in self.layout.folders_up(file):
                self._visit(folder)
        if wanted:
            for folder in _kustomization_folders(top):  # overlays elsewhere may list a file as a patch
                self._visit(folder)

    def _visit(self, folder: str) -> None:
        kustomization = self.layout.kustomization(folder)
        if kustomization is None or folder in self._parent:
            return
        self._parent[folder] = folder
        self.fragments.update(kustomization.patches)
        for include in kustomization.includes:
            if not _covers(self.layout.top, include):
                continue  # never read above the project root
            if os.path.isdir(include) and self.layout.kustomization(include) is not None:
                self._visit(include)
                self._union(folder, include)
            elif os.path.isfile(include):
                self._resource_files.setdefault(include, folder)

    def _find(self, folder: str) -> str:
        while self._parent[folder] != folder:
            self._parent[folder] = self._parent[self._parent[folder]]
            folder = self._parent[folder]
        return folder

    def _union(self, a: str, b: str) -> None:
        ra, rb = self._find(a), self._find(b)
        if ra != rb:
            self._parent[max(ra, rb)] = min(ra, rb)  # the smaller path names the group: deterministic

    def kustomize_dirs(self) -> frozenset[str]:
        """Every folder holding a kustomization seen above the linted files, as displayed."""
        return frozenset(display_path(folder) for folder in self._parent)

    def is_fragment(self, file: str) -> bool:
        return bool(self.fragments) and os.path.abspath(file) in self.fragments

    def unit_of(self, file: str) -> str | None:
        """The unit ``file`` belongs to (a folder, or a group of kustomize folders); None: shared."""
        if file.startswith("<"):
            return None
        absolute = os.path.abspath(file)
        if absolute not in self._unit_of_file:
            self._unit_of_file[absolute] = self._unit(absolute)
        return self._unit_of_file[absolute]

    def declared_unit(self, file: str) -> str | None:
        """The config ``units:`` entry ``file`` belongs to (a unit applied as a whole)."""
        if self.config_units is None or file.startswith("<"):
            return None
        return self.unit_of(file)

    def _unit(self, absolute: str) -> str | None:
        if self.config_units is not None:
            return _glob_unit(absolute, *self.config_units)
        listed = self._resource_files.get(absolute)
        if listed is not None:
            return "kustomize:" + self._find(listed)
        for folder in self.layout.folders_up(absolute):
            if folder in self._parent:
                return "kustomize:" + self._find(folder)
            if self.layout.is_chart(folder):
                return "chart:" + folder
        return None


def _config_units(config: Any) -> tuple[str, tuple[str, ...]] | None:
    """(base folder, globs) of config ``units:``; None when the key is not set."""
    globs = getattr(config, "units", None)
    if globs is None:
        return None
    base = os.path.dirname(os.path.abspath(config.path)) if config.path else os.getcwd()
    return base, tuple(g.strip("/") for g in globs if isinstance(g, str) and g.strip("/"))


def _glob_unit(absolute: str, base: str, globs: tuple[str, ...]) -> str | None:
    """The deepest path (folder or the file itself) at or above ``absolute`` that a glob
    matches, segment by segment (``*`` stays inside one name, ``**`` spans any number)."""
    if not _covers(base, absolute):
        return None
    if "." in globs:
        return "units:."  # the whole project is one unit (one platform, applied as a whole)
    parts = os.path.relpath(absolute, base).replace(os.sep, "/").split("/")
    patterns = [_collapse(glob.split("/")) for glob in globs]
    for depth in range(len(parts), 0, -1):
        prefix = parts[:depth]
        if any(_segments_match(pattern, prefix) for pattern in patterns):
            return "units:" + "/".join(prefix)
    return None


def _collapse(pattern: list[str]) -> list[str]:
    """``a/**/**/b`` is ``a/**/b`` (keeps matching linear in the path depth)."""
    return [p for i, p in enumerate(pattern) if not (p == "**" and i and pattern[i - 1] == "**")]


def _segments_match(pattern: list[str], parts: list[str]) -> bool:
    if not pattern:
        return not parts
    if pattern[0] == "**":
        return any(_segments_match(pattern[1:], parts[i:]) for i in range(len(parts) + 1))
    return bool(parts) and fnmatchcase(parts[0], pattern[0]) and _segments_match(pattern[1:], parts[1:])


def scope_top(paths: Iterable[str]) -> str:
    """Where kustomizations and charts are looked for: the project root of the linted paths,
    else the folder holding them all."""
    named = [p for p in paths if p and not p.startswith("<")]
    folder = inputs_folder(named) if named else os.getcwd()
    return project_root(folder) or folder


# ------------------------------------------------------------------ the run's partitions

@dataclass
class Part:
    """The objects one graph holds: a unit's inputs (reported on), what it may resolve to
    (its own context, then the shared files), and the other units' objects (``elsewhere``)."""

    unit: str | None
    loaded: Any                                   # runner.Loaded: the unit's input objects
    context: list[Any]
    elsewhere: dict[tuple[str, str], list[tuple[str | None, Any]]]
    kustomize_dirs: frozenset[str] = frozenset()  # folders holding a kustomization (display paths)


def scope_of(objects: Iterable[Any], config: Any) -> Scope:
    files = sorted({obj.file for obj in objects})
    return Scope(files, config, scope_top(files))


def without_fragments(inputs: Any, context_objects: list[Any], scope: Scope) -> tuple[Any, list[Any]]:
    """Inputs and context without the objects of kustomize patch files; the input ones are
    counted as skipped documents."""
    if not scope.fragments:
        return inputs, context_objects
    kept = [obj for obj in inputs.objects if not scope.is_fragment(obj.file)]
    dropped = len({(obj.file, obj.doc) for obj in inputs.objects if scope.is_fragment(obj.file)})
    inputs = type(inputs)(sources=inputs.sources, objects=kept, documents=inputs.documents,
                          skipped=inputs.skipped + dropped)
    return inputs, [obj for obj in context_objects if not scope.is_fragment(obj.file)]


def partitions(inputs: Any, context_objects: list[Any], config: Any, scope: Scope) -> list[Part]:
    """One Part when no object sits in a unit (a repository that is one platform); else the
    shared files' Part and one Part per unit that holds inputs."""
    folders = scope.kustomize_dirs()
    unit_in: dict[str | None, list[Any]] = {}
    unit_ctx: dict[str | None, list[Any]] = {}
    for obj in inputs.objects:
        unit_in.setdefault(scope.unit_of(obj.file), []).append(obj)
    for obj in context_objects:
        unit_ctx.setdefault(scope.unit_of(obj.file), []).append(obj)
    if set(unit_in) <= {None} and set(unit_ctx) <= {None}:
        return [Part(None, inputs, list(context_objects), {}, folders)]
    elsewhere: dict[tuple[str, str], list[tuple[str | None, Any]]] = {}
    for table in (unit_in, unit_ctx):
        for unit, objects in table.items():
            for obj in objects if unit is not None else ():
                elsewhere.setdefault((obj.kind, obj.name), []).append((unit, obj))
    shared_in, shared_ctx = unit_in.pop(None, []), unit_ctx.get(None, [])
    parts = [Part(None, _loaded(inputs, shared_in), list(shared_ctx), elsewhere, folders)] if shared_in else []
    shared = [_as_context(obj, config) for obj in shared_in] + list(shared_ctx)
    for unit in sorted(u for u in unit_in if u is not None):
        parts.append(Part(unit, _loaded(inputs, unit_in[unit]), unit_ctx.get(unit, []) + shared, elsewhere, folders))
    return parts


def _loaded(inputs: Any, objects: list[Any]) -> Any:
    return type(inputs)(sources=inputs.sources, objects=objects)


def _as_context(obj: Any, config: Any) -> Any:
    """A shared input seen from a unit: resolved to, judged like any object, reported once
    (in the shared Part)."""
    from kqlint.objects import CONTEXT, K8sObject

    return K8sObject(obj.file, obj.doc, obj.root, obj.base, obj.data, config.namespace, CONTEXT)


# ------------------------------------------------------------------ where a reference resolved

ROUTED_RULES = frozenset({"KQ105", "KQ209", "KQ210"})  # judged through queue-name -> LocalQueue -> ClusterQueue


def with_routes(findings: list[Any], graph: Any) -> list[Any]:
    """Findings of the queue-routing rules name, under ``related``, the LocalQueue and
    ClusterQueue the workload's queue resolved to when they sit in another folder."""
    if not any(f.code in ROUTED_RULES for f in findings):
        return findings
    by_ref = {(obj.file, obj.ref): obj for obj in graph.inputs}
    return [_with_route(f, by_ref.get((f.location.file, f.obj)), graph) if f.code in ROUTED_RULES else f
            for f in findings]


def _with_route(finding: Any, obj: Any, graph: Any) -> Any:
    from dataclasses import replace

    from kqlint.kueue import cluster_queue_of, local_queue, managed_workloads

    if obj is None:
        return finding
    folder = finding.location.file.rpartition("/")[0]
    shown = {(r.file, r.line) for r in finding.related}
    added = []
    for unit in managed_workloads(obj, graph)[:1]:
        for target, how in ((local_queue(unit, graph), f"`queue-name: {unit.queue}` resolves to"),
                            (cluster_queue_of(unit, graph), "its LocalQueue points at")):
            if target is None or target.root is None or target.file.rpartition("/")[0] == folder:
                continue
            at = target.location()
            if (at.file, at.line) not in shown and all(r.file != at.file for r in finding.related):
                added.append(at.with_message(f"{how} {target.display()} (in another folder)"))
    return replace(finding, related=finding.related + tuple(added)) if added else finding


def visible_context(inputs: Any, context_objects: list[Any], config: Any) -> list[Any]:
    """The context objects the inputs may resolve to (for ``kqlint graph``): no patch
    fragments, nothing from units that hold no input."""
    scope = scope_of(list(inputs.objects) + list(context_objects), config)
    units = {scope.unit_of(obj.file) for obj in inputs.objects if not scope.is_fragment(obj.file)}
    return [obj for obj in context_objects
            if not scope.is_fragment(obj.file) and scope.unit_of(obj.file) in units | {None}]
