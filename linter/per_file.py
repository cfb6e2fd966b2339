"""Per-path rule settings (config ``per-file-ignores`` and ``per-file-severity``), for
repositories that hold several clusters' manifests::

    per-file-ignores:
      "clusters/dev/**": [KQ401, KQ5]       # codes, slugs or code prefixes
    per-file-severity:
      "clusters/dev/**": {KQ201: info}

Globs match the finding's file as reports show it (relative to the current directory),
``*`` and ``**`` both crossing ``/`` (as ``exclude`` does). Severities from a matching glob
win over ``severity``; a later glob wins over an earlier one.
"""
from __future__ import annotations

import fnmatch
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from kqlint.model import Finding
from kqlint.registry import selects


def _matches(file: str, glob: str) -> bool:
    glob = glob.rstrip("/")
    return fnmatch.fnmatch(file, glob) or fnmatch.fnmatch(file, glob + "/*")


def apply(findings: Iterable[Finding], config: Any) -> list[Finding]:
    ignores, severities = config.per_file_ignores, config.per_file_severity
    if not ignores and not severities:
        return list(findings)
    result = []
    for finding in findings:
        file = finding.location.file
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


def check_names(config: Any, rules: Iterable[Any]) -> None:
    """Every code in per-file settings names a rule (ConfigError otherwise, exit 2)."""
    from kqlint.errors import ConfigError

    for key, table in (("per-file-ignores", config.per_file_ignores), ("per-file-severity", config.per_file_severity)):
        for glob, names in table.items():
            for name in names:
                if not any(selects(r, name) for r in rules):
                    where = f"{config.origin.where((key, glob))}: " if config.origin is not None else ""
                    raise ConfigError(f"{where}{key}.{glob}: {name!r} matches no rule code, slug or code prefix "
                                      f"(`kqlint rules` lists them)")
