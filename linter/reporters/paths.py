"""File paths as the repository spells them: relative to the project root (SARIF's ``SRCROOT``),
wherever kqlint ran. GitHub annotations and GitLab Code Quality entries attach to a file by its
path from the repository root; a run from a subfolder (``working-directory: manifests``) must
not name ``job.yaml`` for ``manifests/job.yaml``."""
from __future__ import annotations

from collections.abc import Callable

from kqlint.model import Report


def repository_paths(report: Report) -> Callable[[str], str]:
    """A function from a displayed path to its path under the project root (posix); a path
    outside it, or an input that is no file (``<stdin>``), stays as displayed."""
    from kqlint.project.containment import relative_below
    from kqlint.reporters.sarif import is_pseudo, source_root

    root = source_root(report.files)
    known: dict[str, str] = {}

    def path(file: str) -> str:
        if file not in known:
            known[file] = file if is_pseudo(file) else relative_below(file, root) or file
        return known[file]
    return path
