"""Per-path rule settings (config ``per-file-ignores`` and ``per-file-severity``), for
repositories that hold several clusters' manifests::

    per-file-ignores:
      "clusters/dev/**": [KQ401, KQ5]       # codes, slugs or code prefixes
    per-file-severity:
      "clusters/dev/**": {KQ201: info}

Globs match the finding's file relative to the configuration file's folder (the same from
any folder kqlint runs in), ``*`` and ``**`` both crossing ``/`` (as ``exclude`` does). Severities from a matching glob
win over ``severity``; a later glob wins over an earlier one.
"""
from __future__ import annotations

import fnmatch
import os
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from kqlint.engine.registry import selects
from kqlint.model import Finding

if TYPE_CHECKING:
    from kqlint.config.settings import Config


def _matches(file: str, glob: str) -> bool:
    glob = glob.rstrip("/")
    return fnmatch.fnmatch(file, glob) or fnmatch.fnmatch(file, glob + "/*")


def _anchored(config: Config) -> Callable[[str], str]:
    """A finding's file as the globs of ``config`` read it: relative to the configuration
    file's folder when it is under it (from any folder kqlint runs in), else as displayed."""
    if not config.path:
        return str
    from kqlint.project.containment import relative_below

    base = os.path.dirname(os.path.abspath(config.path))
    seen: dict[str, str] = {}

    def spelled(file: str) -> str:
        if file not in seen:
            seen[file] = file if file.startswith("<") else relative_below(file, base) or file
        return seen[file]
    return spelled


def apply(findings: Iterable[Finding], config: Config) -> list[Finding]:
    ignores, severities = config.per_file_ignores, config.per_file_severity
    if not ignores and not severities:
        return list(findings)
    result = []
    spelled = _anchored(config)
    for finding in findings:
        file = spelled(finding.location.file)
        if any(_matches(file, glob) and any(selects(finding, p) for p in patterns)
               for glob, patterns in ignores.items()):
            continue
        for glob, levels in severities.items():
            if _matches(file, glob):
                level = next((lvl for name, lvl in levels.items() if selects(finding, name)), None)
                if level is not None:
                    finding = replace(finding, severity=level)
        result.append(finding)
    return result


def check_names(config: Config, rules: Iterable[Any]) -> None:
    """Every code in per-file settings names a rule (ConfigError otherwise, exit 2)."""
    from kqlint.errors import ConfigError

    for key, table in (("per-file-ignores", config.per_file_ignores), ("per-file-severity", config.per_file_severity)):
        for glob, names in table.items():
            for name in names:
                if not any(selects(r, name) for r in rules):
                    where = f"{config.origin.where((key, glob))}: " if config.origin is not None else ""
                    raise ConfigError(f"{where}{key}.{glob}: {name!r} matches no rule code, slug or code prefix "
                                      f"(`kqlint rules` lists them)")
