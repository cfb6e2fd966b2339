"""Which files a run reads: folders walked recursively in sorted order (by path, as the
reports sort), dot-folders and excluded globs skipped, Helm chart templates set aside (KQ006).
Explicitly named files are read whatever their name; directory symlinks are not followed."""
from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field

from kqlint.project.root import folders_up, project_root
from kqlint.project.workdir import working_folder

MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")
ALWAYS_SKIPPED_DIRS = frozenset({"node_modules", "__pycache__"})
STDIN = "-"


@dataclass
class Discovery:
    files: list[str] = field(default_factory=list)          # real paths to read, sorted
    charts: dict[str, list[str]] = field(default_factory=dict)  # Chart.yaml -> template files skipped
    problems: list[tuple[str, str]] = field(default_factory=list)  # (path, message): KQ001
    missing: list[str] = field(default_factory=list)        # paths given that do not exist (exit 2)
    readmes: list[str] = field(default_factory=list)        # walked folders holding a README (samples)


def display_path(path: str) -> str:
    """Relative to the current directory when under it, else as given."""
    if path == STDIN:
        return "<stdin>"
    cwd = working_folder()
    absolute = os.path.normpath(os.path.join(cwd, path))
    if absolute == cwd:
        return "."
    prefix = cwd.rstrip(os.sep) + os.sep
    if absolute.startswith(prefix):  # both normalised: relpath() would only cut the prefix
        return absolute[len(prefix):].replace(os.sep, "/")
    return path.replace(os.sep, "/")


def named_like(path: str, named: Iterable[str]) -> str:
    """``path`` (absolute: a folder or file kqlint found itself, such as the project root or a
    rendered object's origin) spelt the way the user named ``named``: relative to the current
    directory when every named path is, so a run from a subfolder reports the project's other
    files as ``../platform/x.yaml`` (exactly what ``--context ..`` gives), never a machine path."""
    if any(os.path.isabs(p) for p in named if p != STDIN):
        return path
    try:
        return os.path.relpath(path, working_folder())
    except ValueError:  # another drive (Windows): no relative spelling
        return path


def is_excluded(path: str, excludes: tuple[str, ...]) -> bool:
    if not excludes:
        return False
    from kqlint.project.globs import exclude_matcher  # compiled once per run

    return exclude_matcher(tuple(excludes)).matches(display_path(path), os.path.abspath(path))


def excluded_by(path: str, excludes: tuple[str, ...]) -> list[str]:
    """The exclude globs that match ``path``, in the order given."""
    from kqlint.project.globs import matching

    return matching(tuple(excludes), display_path(path), os.path.abspath(path))


def chart_of(path: str, cache: dict[str, str | None]) -> str | None:
    """The Chart.yaml owning ``path`` when it sits under that chart's ``templates/``."""
    return _chart_of_folder(os.path.dirname(os.path.abspath(path)), cache)


def _chart_of_folder(folder: str, cache: dict[str, str | None]) -> str | None:
    """The nearest ``templates`` folder at or above ``folder`` (absolute) whose parent holds a
    Chart.yaml: that file; remembered per folder (files share folders)."""
    if folder in cache:
        return cache[folder]
    below: list[str] = []  # folders whose answer is the one found above them
    answer: str | None = None
    for probe in folders_up(folder):
        if probe in cache:
            answer = cache[probe]
            break
        chart = os.path.join(os.path.dirname(probe), "Chart.yaml")
        if os.path.basename(probe) == "templates" and os.path.isfile(chart):
            answer = chart
            cache[probe] = chart
            break
        below.append(probe)
    for probe in below:
        cache[probe] = answer
    return answer


def discover(paths: list[str], excludes: tuple[str, ...] = ()) -> Discovery:
    found = Discovery()
    chart_cache: dict[str, str | None] = {}
    seen: set[str] = set()
    for path in paths:
        if path == STDIN:
            found.files.append(STDIN)
            continue
        if not os.path.lexists(path):
            found.missing.append(path)
            continue
        walked = os.path.isdir(path)
        root = os.path.abspath(path)
        for candidate in _walk(path, excludes, found) if walked else [path]:
            # a walked file's absolute path is the root's and the rest, as os.walk joined it
            absolute = os.path.join(root, candidate[len(path):].lstrip(os.sep)) if walked else root
            key = os.path.normcase(absolute)  # `a.yaml` and `./a.yaml` are one file
            if key in seen or is_excluded(candidate, excludes):
                continue
            seen.add(key)
            chart = _chart_of_folder(os.path.dirname(absolute), chart_cache)
            if chart is not None:
                found.charts.setdefault(chart, []).append(candidate)
            else:
                found.files.append(candidate)
    return found


def _walk(root: str, excludes: tuple[str, ...], found: Discovery) -> list[str]:
    files: list[str] = []

    def on_error(error: OSError) -> None:
        found.problems.append((error.filename or root, f"cannot read folder: {error.strerror or error}"))

    for directory, dirnames, filenames in os.walk(root, onerror=on_error):
        dirnames[:] = sorted(d for d in dirnames
                             if not d.startswith(".") and d not in ALWAYS_SKIPPED_DIRS
                             and not is_excluded(os.path.join(directory, d), excludes))
        for name in filenames:
            if name.endswith(MANIFEST_SUFFIXES) and not name.startswith("."):
                files.append(os.path.join(directory, name))
            elif name[:6].lower() == "readme":
                found.readmes.append(directory)
    # one total order, the same the reports use (paths compared as strings)
    return sorted(files, key=lambda path: path.replace(os.sep, "/"))


def inputs_folder(paths: list[str]) -> str:
    """The deepest folder holding every named path (the current directory for stdin)."""
    cwd = working_folder()
    folders = [os.path.normpath(os.path.join(cwd, "." if p == STDIN else p if os.path.isdir(os.path.join(cwd, p))
                                             else os.path.dirname(p) or "."))
               for p in paths] or [cwd]
    try:
        return os.path.commonpath(folders)
    except ValueError:  # different drives (Windows)
        return folders[0]


def scope_top(paths: Iterable[str]) -> str:
    """Where kustomizations, charts and samples are looked for: the project root of the linted
    paths, else the folder holding them all."""
    named = [p for p in paths if p and not p.startswith("<")]
    folder = inputs_folder(named) if named else working_folder()
    return project_root(folder) or folder
