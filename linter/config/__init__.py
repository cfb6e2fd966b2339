"""Configuration: discovery, reading, validation, and the settings a run uses.

- ``discover``: which file a run reads (``.kqlint.yaml``, ``.kqlint.yml``, ``[tool.kqlint]``
  in ``pyproject.toml``; nearest first, never above the repository root).
- ``load``: reading YAML or the TOML table, with positions for messages.
- ``validate``: the settings against ``schemas/config.schema.json`` and what a schema cannot
  say, building the ``Config`` (``settings``); ``schema_errors`` words a schema violation.
- ``rules``: rule names and options, checked once plugins and custom rules are loaded.

Every problem is one ``ConfigError`` ``file:line:col: key: message`` (exit 2).
"""
from __future__ import annotations

from kqlint.config.discover import discover_config
from kqlint.config.load import load_config
from kqlint.config.rules import check_rule_names, options_schema
from kqlint.config.schema_errors import config_schema
from kqlint.config.settings import Config, parse_fail_on
from kqlint.config.validate import config_from_mapping

__all__ = ["Config", "check_rule_names", "config_from_mapping", "config_schema", "discover_config",
           "load_config", "options_schema", "parse_fail_on"]
