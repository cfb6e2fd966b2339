"""Patch fragments and units (rules.md "Applied together"). Every folder holding a
``kustomization.yaml`` (merged with the kustomizations it includes), every Helm chart folder,
every chainsaw or kuttl test and every independent sample is a unit; config ``units:`` globs
replace that detection. Files in no unit are shared. The assert and error files of a test
harness are never applied."""
from __future__ import annotations

import os
from collections.abc import Iterable
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING, Any

from kqlint.project.discover import display_path, scope_top
from kqlint.project.scope.harness import HARNESS_GROUPS, KUTTL_GROUP, HarnessTests
from kqlint.project.scope.layout import (
    KUSTOMIZATION_NAMES,
    KUSTOMIZE_GROUP,
    KUSTOMIZE_KINDS,
    Layout,
    covers,
    kustomization_folders,
    parse_kustomization,
)
from kqlint.project.workdir import absolute, working_folder

if TYPE_CHECKING:
    from kqlint.config import Config
    from kqlint.domain.objects import K8sObject


HARNESS = "harness:"


class Scope:
    """Which files are patch fragments and which unit each file belongs to."""

    def __init__(self, files: Iterable[str], config: Config, top: str, variants: Iterable[str] = (),
                 objects: Iterable[Any] = ()) -> None:
        """``variants``: files holding a ``kind: Kustomization`` under another name than
        kustomize reads (``kustomization-prod.yaml``, copied into place to build a variant):
        the patches they list are fragments too. ``objects``: the objects of ``files``, whose
        references tell independent samples apart."""
        self.layout = Layout(top, config.max_file_size)
        self.config_units = _config_units(config)
        self.fragments: set[str] = set()          # absolute paths of patch files
        self._unit_of_file: dict[str, str | None] = {}
        self._unit_of_name: dict[str, str | None] = {}  # the same, by the path as given
        self._parent: dict[str, str] = {}          # union-find over kustomization folders
        self._resource_files: dict[str, str] = {}  # a file a kustomization lists by name -> folder
        self._listed: dict[str, tuple[list[str], list[str]]] = {}  # folder -> (files, kustomizations) it lists
        self._namespaces: dict[str, frozenset[str | None]] | None = None  # rendered_namespaces()
        self.variant_folders: set[str] = set()  # folders holding a kustomization under another name
        self._kustomized: dict[str, bool] = {}    # folder -> a kustomization in it or above
        wanted = sorted({os.path.abspath(f) for f in files if f and not f.startswith("<")})
        for file in wanted:
            for folder in self.layout.folders_up(file):
                self._visit(folder)
        named: list[str] = []  # files named like a variant (kustomization-prod.yaml), whatever they hold
        if wanted:
            for folder, standard, variants_here in kustomization_folders(top):  # overlays elsewhere may
                if standard:                                                    # list a file as a patch
                    self._visit(folder)
                named += variants_here
        for variant in sorted({os.path.abspath(v) for v in [*variants, *named]}):
            self._add_variant(variant, top, config.max_file_size)
        objects = list(objects)
        kuttl = {os.path.abspath(obj.file) for obj in objects if obj.group == KUTTL_GROUP}
        self.harness_config = frozenset(obj.file for obj in objects if obj.group in HARNESS_GROUPS)
        self.harness = HarnessTests(top, config.max_file_size, wanted, kuttl)
        self._samples: dict[str, str] = {}
        if self.config_units is None and wanted:
            from kqlint.project.scope.samples import sample_units

            applied = [obj for obj in objects if not (self.is_fragment(obj.file) or self.is_check(obj.file)
                                                      or self._harness_unit(obj.file))]
            self._samples = sample_units(applied, top, self._placed)

    def _add_variant(self, path: str, top: str, max_file_size: int) -> None:
        """A kustomization under another name: its patches are fragments (kustomize never reads
        the file itself, but users copy it into place to build a variant)."""
        folder = os.path.dirname(path)
        if not covers(top, folder):
            return
        variant = parse_kustomization(path, folder, max_file_size)
        if variant.kind in KUSTOMIZE_KINDS:
            self.variant_folders.add(folder)
            self.fragments.update(variant.patches)

    def _visit(self, folder: str) -> None:
        kustomization = self.layout.kustomization(folder)
        if kustomization is None or folder in self._parent:
            return
        self._parent[folder] = folder
        self.fragments.update(kustomization.patches)
        files, folders = self._listed.setdefault(folder, ([], []))
        for include in kustomization.includes:
            if not covers(self.layout.top, include):
                continue  # never read above the project root
            if os.path.isdir(include) and self.layout.kustomization(include) is not None:
                self._visit(include)
                self._union(folder, include)
                folders.append(include)
            elif os.path.isfile(include):
                self._resource_files.setdefault(include, folder)
                files.append(include)

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

    def is_check(self, file: str) -> bool:
        """An assert or error file of a test harness: expected state, never applied."""
        return not file.startswith("<") and self.harness.is_check(file)

    def never_applied(self, obj: K8sObject) -> bool:
        """An object a test harness reads and never applies: its own configuration, or the
        expected state in an assert or error file."""
        return obj.group in HARNESS_GROUPS or self.is_check(obj.file)

    def open_world(self, unit: str | None) -> bool:
        """A harness test's unit: applied into a namespace the harness creates, beside objects
        that only the system under test creates (no name is proof of a missing object)."""
        return unit is not None and unit.startswith(HARNESS)

    def has_kustomizations(self) -> bool:
        return bool(self._parent or self.variant_folders)

    def kustomized(self, file: str) -> bool:
        """A kustomization (any name) sits in ``file``'s folder or a folder above it, up to the
        project root: an incomplete document there is a patch it may name wrongly."""
        folder = os.path.dirname(os.path.abspath(file))
        if folder not in self._kustomized:
            self._kustomized[folder] = any(
                above in self.variant_folders or self.layout.kustomization(above) is not None
                for above in self.layout.folders_up(file))
        return self._kustomized[folder]

    def unit_of(self, file: str) -> str | None:
        """The unit ``file`` belongs to (a folder, or a group of kustomize folders); None: shared."""
        if file.startswith("<"):
            return None
        if file not in self._unit_of_name:  # asked for every object of every graph: abspath once per name
            absolute = os.path.abspath(file)
            if absolute not in self._unit_of_file:
                self._unit_of_file[absolute] = self._unit(absolute)
            self._unit_of_name[file] = self._unit_of_file[absolute]
        return self._unit_of_name[file]

    def rendered_namespaces(self, file: str) -> frozenset[str | None]:
        """The namespaces ``kubectl kustomize`` gives the namespaced objects of ``file``, one per
        top kustomization rendering it (the outermost ``namespace:`` on the way down wins, as
        kustomize's namespace transformer does; None: none sets one). Empty: no kustomization
        lists the file, or none sets a namespace on its way."""
        rendered = self._rendered()
        return rendered.get(os.path.abspath(file), frozenset()) if rendered else frozenset()

    def sets_namespaces(self) -> bool:
        """A kustomization gives some file a namespace (else no object needs a look)."""
        return bool(self._rendered())

    def _rendered(self) -> dict[str, frozenset[str | None]]:
        if self._namespaces is None:
            self._namespaces = self._render_namespaces()
        return self._namespaces

    def _render_namespaces(self) -> dict[str, frozenset[str | None]]:
        listed_by_others = {child for _, children in self._listed.values() for child in children}
        found: dict[str, set[str | None]] = {}
        seen: set[tuple[str, str | None]] = set()

        def render(folder: str, outer: str | None) -> None:
            kustomization = self.layout.kustomization(folder)
            namespace = outer if outer is not None else (kustomization.namespace if kustomization else None)
            if (folder, namespace) in seen:  # a base several overlays share, or a cycle
                return
            seen.add((folder, namespace))
            files, children = self._listed.get(folder, ([], []))
            for file in files:
                found.setdefault(file, set()).add(namespace)
            for child in children:
                render(child, namespace)

        for top in sorted(set(self._listed) - listed_by_others):
            render(top, None)
        return {file: frozenset(namespaces) for file, namespaces in found.items() if namespaces != {None}}

    def declared_unit(self, file: str) -> str | None:
        """The config ``units:`` entry ``file`` belongs to (a unit applied as a whole)."""
        if self.config_units is None or file.startswith("<"):
            return None
        return self.unit_of(file)

    def _unit(self, absolute: str) -> str | None:
        if self.config_units is not None:
            return _glob_unit(absolute, *self.config_units)
        return self._placed(absolute) or self._samples.get(absolute)

    def _harness_unit(self, file: str) -> str | None:
        test = self.harness.test_folder(os.path.abspath(file)) if not file.startswith("<") else None
        return HARNESS + test if test is not None else None

    def _placed(self, absolute: str) -> str | None:
        """The unit of a kustomization, chart or harness test ``absolute`` is in."""
        listed = self._resource_files.get(absolute)
        if listed is not None:
            return "kustomize:" + self._find(listed)
        for folder in self.layout.folders_up(absolute):
            if folder in self._parent:
                return "kustomize:" + self._find(folder)
            if self.layout.is_chart(folder):
                return "chart:" + folder
        return self._harness_unit(absolute)


def _config_units(config: Config) -> tuple[str, tuple[str, ...]] | None:
    """(base folder, globs) of config ``units:``; None when the key is not set."""
    globs = getattr(config, "units", None)
    if globs is None:
        return None
    base = os.path.dirname(absolute(config.path)) if config.path else working_folder()
    return base, tuple(g.strip("/") for g in globs if isinstance(g, str) and g.strip("/"))


def _glob_unit(absolute: str, base: str, globs: tuple[str, ...]) -> str | None:
    """The deepest path (folder or the file itself) at or above ``absolute`` that a glob
    matches, segment by segment (``*`` stays inside one name, ``**`` spans any number)."""
    if not covers(base, absolute):
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


def scope_of(objects: Iterable[Any], config: Config) -> Scope:
    objects = list(objects)
    files = sorted({obj.file for obj in objects})
    variants = {obj.file for obj in objects if obj.kind in KUSTOMIZE_KINDS and obj.group == KUSTOMIZE_GROUP
                and os.path.basename(obj.file) not in KUSTOMIZATION_NAMES}
    return Scope(files, config, scope_top(files), variants, objects)
