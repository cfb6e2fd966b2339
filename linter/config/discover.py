"""Which configuration file a run reads (cli.md "Configuration"): from the current directory
upwards, in each folder ``.kqlint.yaml``, then ``.kqlint.yml``, then ``[tool.kqlint]`` in
``pyproject.toml``; the first hit wins, and the search stops at the repository root (the
folder holding ``.git``)."""
from __future__ import annotations

from kqlint.project.root import config_file_in, folders_up, is_repository_root
from kqlint.project.workdir import working_folder


def discover_config(start: str | None = None) -> str | None:
    for folder in folders_up(start or working_folder()):
        found = config_file_in(folder)
        if found is not None:
            return found
        if is_repository_root(folder):
            return None  # never above the project root: a parent folder's config is not this repository's
    return None
