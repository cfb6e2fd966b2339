"""The settings a run uses (``Config``) and where they came from (``ConfigOrigin``)."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from kqlint.model import Severity
from kqlint.project.bounded import DEFAULT_MAX_FILE_SIZE


@dataclass(frozen=True)
class ConfigOrigin:
    """The file a config came from and its raw data, to turn a key path into a position."""

    file: str                      # as displayed
    data: Any                      # the loaded mapping (YAML: a loader Map carrying positions)
    # (key path, point at the value) -> (line, column): given by whoever read the file (YAML
    # positions from the loader, TOML's searched in its text); None: line 1, column 1
    locate: Callable[[tuple[Any, ...], bool], tuple[int, int]] | None = None

    def where(self, path: tuple[Any, ...], value: bool = False) -> str:
        line, column = self.locate(path, value) if self.locate is not None else (1, 1)
        return f"{self.file}:{line}:{column}"


@dataclass(frozen=True)
class Config:
    path: str | None = None
    profile: str | None = None
    fail_on: Severity | None = Severity.WARNING     # None = never
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    severity: dict[str, Severity] = field(default_factory=dict)
    namespace: str = "default"
    exclude: tuple[str, ...] = ()
    context: tuple[str, ...] = ()
    units: tuple[str, ...] | None = None            # monorepo units (kqlint.project.scope); None: detected
    crds: tuple[str, ...] = ()                      # extra CRD files/folders for KQ002 (--crd)
    external: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    rules: dict[str, dict[str, Any]] = field(default_factory=dict)
    plugins: tuple[str, ...] = ()
    custom_rules: tuple[dict[str, Any], ...] = ()
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    # issue 13 (adoption): text report style, stdin's name, per-path rule settings
    output_format: str | None = None                # full | concise | a --format name (ruff's output-format)
    stdin_filename: str | None = None               # --stdin-filename
    per_file_ignores: dict[str, tuple[str, ...]] = field(default_factory=dict)
    per_file_severity: dict[str, dict[str, Severity]] = field(default_factory=dict)
    follow_external_symlinks: bool = False          # --follow-external-symlinks (kqlint.project.containment)
    # the `platform:` section (README "Platform model"); read only by kqlint.domain.platform
    platform: dict[str, Any] = field(default_factory=dict)
    origin: ConfigOrigin | None = field(default=None, compare=False, repr=False)

    def with_overrides(self, **changes: Any) -> Config:
        return replace(self, **{k: v for k, v in changes.items() if v is not None})


def parse_fail_on(value: str) -> Severity | None:
    if value == "never":
        return None
    return Severity.parse(value)
