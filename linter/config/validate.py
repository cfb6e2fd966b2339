"""A configuration's settings checked and turned into a ``Config``: first against
``schemas/config.schema.json``, then what a schema cannot say (a number no setting can hold,
the profile exists, custom rules compile, ``context`` paths exist)."""
from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from kqlint.config.schema_errors import config_schema, label, validate_schema
from kqlint.config.settings import Config, ConfigOrigin, parse_fail_on
from kqlint.errors import ConfigError
from kqlint.model import Severity
from kqlint.project.bounded import DEFAULT_MAX_FILE_SIZE

MAX_CONFIG_INT = 2 ** 63  # no setting needs more; huge ints also break str() (4,300 digits)


def yaml_locator(data: Any) -> Callable[[tuple[Any, ...], bool], tuple[int, int]]:
    """Where a key path of ``data`` (a mapping the loader read, carrying positions) is written."""
    def locate(path: tuple[Any, ...], value: bool) -> tuple[int, int]:
        from kqlint.loader import position

        line, column, _ = position(data, path, value)
        return line, column
    return locate


def config_from_mapping(data: dict[str, Any], path: str, origin: ConfigOrigin | None = None) -> Config:
    """Validate ``data`` (the settings of the config file ``path``) and build the Config."""
    origin = origin or ConfigOrigin(path, data, yaml_locator(data))
    _check_numbers(data, origin)
    validate_schema(data, config_schema(), origin)
    check_profile(data.get("profile"), origin)
    _check_custom_rules(data.get("custom-rules") or [], origin)
    context = _context_paths(data.get("context") or [], path, origin)
    fail_on = data.get("fail-on", "warning")
    return Config(
        path=path,
        profile=data.get("profile"),
        fail_on=parse_fail_on(fail_on),
        select=tuple(data.get("select") or ()),
        ignore=tuple(data.get("ignore") or ()),
        severity={str(name): Severity.parse(value) for name, value in (data.get("severity") or {}).items()},
        namespace=data.get("namespace") or "default",
        exclude=tuple(anchored(glob, path) for glob in data.get("exclude") or ()),
        context=context,
        units=tuple(data["units"] or ()) if "units" in data else None,
        crds=tuple(p if os.path.isabs(p) else os.path.normpath(os.path.join(os.path.dirname(path), p))
                   for p in data.get("crds") or ()),
        external={kind: list(entries or ()) for kind, entries in (data.get("external") or {}).items()},
        rules={str(name): dict(options or {}) for name, options in (data.get("rules") or {}).items()},
        plugins=tuple(data.get("plugins") or ()),
        custom_rules=tuple(data.get("custom-rules") or ()),
        max_file_size=data.get("max-file-size") or DEFAULT_MAX_FILE_SIZE,
        output_format=data.get("output-format"),
        per_file_ignores={str(glob): tuple(codes or ())
                          for glob, codes in (data.get("per-file-ignores") or {}).items()},
        per_file_severity={str(glob): {str(code): Severity.parse(level) for code, level in (levels or {}).items()}
                           for glob, levels in (data.get("per-file-severity") or {}).items()},
        platform=dict(data.get("platform") or {}),
        origin=origin,
    )


def anchored(glob: str, path: str) -> str:
    """A config ``exclude`` glob with a ``/`` as an absolute glob under the config file's folder
    (as ``units:`` are read), so that it means the same paths from any folder kqlint runs in;
    a glob without ``/`` matches any path component, wherever it is."""
    if "/" not in glob.rstrip("/") or os.path.isabs(glob):
        return glob
    glob = glob[2:] if glob.startswith("./") else glob
    return os.path.join(os.path.dirname(os.path.abspath(path)), glob)


def _check_numbers(data: Any, origin: ConfigOrigin) -> None:
    """A number no setting can hold is a clear error, before anything formats it."""
    stack: list[tuple[tuple[Any, ...], Any]] = [((), data)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, dict):
            stack.extend((path + (key,), child) for key, child in value.items())
        elif isinstance(value, list):
            stack.extend((path + (index,), child) for index, child in enumerate(value))
        elif isinstance(value, int) and not isinstance(value, bool) and abs(value) >= MAX_CONFIG_INT:
            from kqlint.sanitize import excerpt

            raise ConfigError(f"{origin.where(path, True)}: {label(path, '')}"
                              f"number too large for any setting ({excerpt(value)})")


def _context_paths(entries: list[str], config_path: str, origin: ConfigOrigin) -> tuple[str, ...]:
    """``context`` paths are relative to the config file's folder and must exist."""
    base = os.path.dirname(config_path)
    paths = []
    for index, entry in enumerate(entries):
        resolved = entry if os.path.isabs(entry) or not base else os.path.normpath(os.path.join(base, entry))
        if not os.path.exists(resolved):
            relative = " (relative to the config file's folder)" if resolved != entry else ""
            raise ConfigError(f"{origin.where(('context', index), True)}: context[{index}]: "
                              f"path does not exist: {entry}{relative}")
        paths.append(resolved)
    return tuple(paths)


def check_profile(name: Any, origin: ConfigOrigin | None) -> None:
    """``origin`` is None when the name came from ``--profile``."""
    from kqlint.config.profiles import PROFILES

    if name is None or name in PROFILES:
        return
    message = f"unknown profile {name!r} (available: {', '.join(sorted(PROFILES))})"
    if origin is not None:
        raise ConfigError(f"{origin.where(('profile',), True)}: profile: {message}")
    raise ConfigError(f"--profile: {message}")


def _check_custom_rules(entries: list[dict[str, Any]], origin: ConfigOrigin) -> None:
    """Unique codes and slugs, and every rule compiles (kqlint.engine.custom keeps the compiled rules)."""
    from kqlint.engine.custom import CustomRuleError, custom_rules

    seen: dict[str, int] = {}
    for index, entry in enumerate(entries):
        for key in ("code", "slug"):
            value = entry[key]
            if value in seen:
                raise ConfigError(f"{origin.where(('custom-rules', index, key), True)}: "
                                  f"custom-rules[{index}].{key}: {value!r} is already used by "
                                  f"custom-rules[{seen[value]}]")
            seen[value] = index
    try:
        custom_rules(entries)
    except CustomRuleError as exc:
        raise ConfigError(f"{origin.where(('custom-rules', exc.index, exc.key), True)}: {exc}") from None
