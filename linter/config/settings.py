"""The settings a run uses (``Config``) and where they came from (``ConfigOrigin``)."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from kqlint.model import Severity

DEFAULT_MAX_FILE_SIZE = 16 * 1024 * 1024


@dataclass(frozen=True)
class ConfigOrigin:
    """The file a config came from and its raw data, to turn a key path into a position."""

    file: str                      # as displayed
    data: Any                      # the loaded mapping (YAML: a loader Map carrying positions)
    toml_text: str | None = None   # pyproject.toml: TOML keeps no positions, search the text

    def where(self, path: tuple[Any, ...], value: bool = False) -> str:
        if self.toml_text is not None:
            from kqlint.config.load import toml_position

            line, column = toml_position(self.toml_text, path)
        else:
            from kqlint.loader import position

            line, column, _ = position(self.data, path, value)
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
    force_exclude: bool = False                     # excluded paths named on the command line: no warning
    context: tuple[str, ...] = ()
    units: tuple[str, ...] | None = None            # monorepo units (kqlint.scope); None: detected
    crds: tuple[str, ...] = ()                      # extra CRD files/folders for KQ002 (--crd)
    external: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    rules: dict[str, dict[str, Any]] = field(default_factory=dict)
    plugins: tuple[str, ...] = ()
    custom_rules: tuple[dict[str, Any], ...] = ()
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    # issue 13 (adoption): text report style, stdin's name, per-path rule settings
    output_format: str | None = None                # full | concise
    stdin_filename: str | None = None               # --stdin-filename
    per_file_ignores: dict[str, tuple[str, ...]] = field(default_factory=dict)
    per_file_severity: dict[str, dict[str, Severity]] = field(default_factory=dict)
    follow_external_symlinks: bool = False          # --follow-external-symlinks (kqlint.containment)
    # the `platform:` section (README "Platform model"); read only by kqlint.platform
    platform: dict[str, Any] = field(default_factory=dict)
    origin: ConfigOrigin | None = field(default=None, compare=False, repr=False)

    def with_overrides(self, **changes: Any) -> Config:
        return replace(self, **{k: v for k, v in changes.items() if v is not None})


def parse_fail_on(value: str) -> Severity | None:
    if value == "never":
        return None
    return Severity.parse(value)
