"""Configuration: discovery (``.kqlint.yaml``, ``.kqlint.yml``, ``[tool.kqlint]`` in
``pyproject.toml``, from the current directory upwards), validation, and the merged
settings a run uses (config file overridden by command-line flags)."""
from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from typing import Any

from kqlint.model import Severity

CONFIG_NAMES = (".kqlint.yaml", ".kqlint.yml")


class ConfigError(Exception):
    """A configuration problem: reported as one line (file:line:col: message), exit 2."""


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
    external: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    rules: dict[str, dict[str, Any]] = field(default_factory=dict)
    plugins: tuple[str, ...] = ()
    custom_rules: tuple[dict[str, Any], ...] = ()
    max_file_size: int = 16 * 1024 * 1024

    def with_overrides(self, **changes: Any) -> "Config":
        return replace(self, **{k: v for k, v in changes.items() if v is not None})


def parse_fail_on(value: str) -> Severity | None:
    if value == "never":
        return None
    return Severity.parse(value)


def discover_config(start: str | None = None) -> str | None:
    probe = os.path.abspath(start or os.getcwd())
    while True:
        for name in CONFIG_NAMES:
            candidate = os.path.join(probe, name)
            if os.path.isfile(candidate):
                return candidate
        pyproject = os.path.join(probe, "pyproject.toml")
        if os.path.isfile(pyproject) and _has_tool_section(pyproject):
            return pyproject
        parent = os.path.dirname(probe)
        if parent == probe:
            return None
        probe = parent


def _has_tool_section(pyproject: str) -> bool:
    try:
        with open(pyproject, "rb") as handle:
            return b"[tool.kqlint" in handle.read()
    except OSError:
        return False


def load_config(path: str | None) -> Config:
    if path is None:
        return Config()
    data = _read_config_data(path)
    return config_from_mapping(data, path)


def _read_config_data(path: str) -> dict[str, Any]:
    if path.endswith(".toml"):
        return _read_toml_section(path)
    from kqlint.loader import load_file

    source = load_file(path, path)
    if source.problems:
        problem = source.problems[0]
        raise ConfigError(f"{path}:{problem.line}:{problem.column}: {problem.message}")
    documents = [d for d in source.documents if d is not None]
    if not documents:
        return {}
    if not isinstance(documents[0], dict):
        raise ConfigError(f"{path}:1:1: the configuration must be a mapping")
    return documents[0]


def _read_toml_section(path: str) -> dict[str, Any]:
    try:
        import tomllib
    except ImportError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]
    try:
        with open(path, "rb") as handle:
            data = tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}:1:1: cannot read configuration: {exc}") from exc
    section = data.get("tool", {}).get("kqlint", {})
    return section if isinstance(section, dict) else {}


def config_from_mapping(data: dict[str, Any], path: str) -> Config:
    def sev(value: str, key: str) -> Severity:
        try:
            return Severity.parse(value)
        except KeyError:
            raise ConfigError(f"{path}:1:1: {key}: unknown severity {value!r} "
                              "(use error, warning or info)") from None

    fail_on = data.get("fail-on", "warning")
    return Config(
        path=path,
        profile=data.get("profile"),
        fail_on=None if fail_on == "never" else sev(fail_on, "fail-on"),
        select=tuple(data.get("select") or ()),
        ignore=tuple(data.get("ignore") or ()),
        severity={code: sev(value, f"severity.{code}") for code, value in (data.get("severity") or {}).items()},
        namespace=data.get("namespace") or "default",
        exclude=tuple(data.get("exclude") or ()),
        context=tuple(data.get("context") or ()),
        external={kind: list(entries) for kind, entries in (data.get("external") or {}).items()},
        rules={code: dict(options or {}) for code, options in (data.get("rules") or {}).items()},
        plugins=tuple(data.get("plugins") or ()),
        custom_rules=tuple(data.get("custom-rules") or ()),
        max_file_size=int(data.get("max-file-size") or 16 * 1024 * 1024),
    )
