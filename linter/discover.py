"""Which files a run reads: folders walked recursively in sorted order (by path, as the
reports sort), dot-folders and excluded globs skipped, Helm chart templates set aside (KQ006).
Explicitly named files are read whatever their name; directory symlinks are not followed."""
from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")
ALWAYS_SKIPPED_DIRS = frozenset({"node_modules", "__pycache__"})
STDIN = "-"


@dataclass
class Discovery:
    files: list[str] = field(default_factory=list)          # real paths to read, sorted
    charts: dict[str, list[str]] = field(default_factory=dict)  # Chart.yaml -> template files skipped
    problems: list[tuple[str, str]] = field(default_factory=list)  # (path, message): KQ001
    missing: list[str] = field(default_factory=list)        # paths given that do not exist (exit 2)


def display_path(path: str) -> str:
    """Relative to the current directory when under it, else as given."""
    if path == STDIN:
        return "<stdin>"
    absolute = os.path.abspath(path)
    cwd = os.getcwd()
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
        return os.path.relpath(path)
    except ValueError:  # another drive (Windows): no relative spelling
        return path


def is_excluded(path: str, excludes: tuple[str, ...]) -> bool:
    if not excludes:
        return False
    from kqlint.globs import exclude_matcher  # compiled once per run

    return exclude_matcher(tuple(excludes)).matches(display_path(path), os.path.abspath(path))


def excluded_by(path: str, excludes: tuple[str, ...]) -> list[str]:
    """The exclude globs that match ``path``, in the order given."""
    from kqlint.globs import matching

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
    # one total order, the same the reports use (paths compared as strings)
    return sorted(files, key=lambda path: path.replace(os.sep, "/"))


def repository_root(start: str) -> str | None:
    """Nearest ancestor of ``start`` (itself included) holding ``.git``."""
    return _nearest(start, is_repository_root)


def is_repository_root(folder: str) -> bool:
    return os.path.exists(os.path.join(folder, ".git"))


def holds_config(folder: str) -> bool:
    """``folder`` holds a kqlint configuration (``.kqlint.yaml``/``.yml``, or a
    ``pyproject.toml`` with a ``[tool.kqlint]`` table)."""
    from kqlint.config.discover import config_file_in

    return config_file_in(folder) is not None


def project_root(start: str) -> str | None:
    """The project root (cli.md "Project root and context"): the nearest folder at or above
    ``start`` holding ``.git``, else the nearest holding a kqlint configuration; None when
    neither exists (a source export, a container build context without either)."""
    return repository_root(start) or _nearest(start, holds_config)


def inputs_folder(paths: list[str]) -> str:
    """The deepest folder holding every named path (the current directory for stdin)."""
    folders = [os.path.abspath(os.getcwd() if p == STDIN else p if os.path.isdir(p) else os.path.dirname(p) or ".")
               for p in paths] or [os.getcwd()]
    try:
        return os.path.commonpath(folders)
    except ValueError:  # different drives (Windows)
        return folders[0]


def folders_up(start: str) -> Iterator[str]:
    """``start`` (made absolute) and every folder above it, nearest first: the one upward
    walk behind the project root, the repository root and config discovery."""
    probe = os.path.abspath(start)
    while True:
        yield probe
        parent = os.path.dirname(probe)
        if parent == probe:
            return
        probe = parent


def _nearest(start: str, holds: Callable[[str], bool]) -> str | None:
    return next((folder for folder in folders_up(start) if holds(folder)), None)
