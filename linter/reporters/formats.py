"""Output formats, chosen one way for ``kqlint check`` and ``kqlint graph``.

Each command's package keeps a ``FORMATS`` map, format name -> module, and a ``JSON_FORMATS``
set (``kqlint.reporters`` for the reports, ``kqlint.reporters.graph`` for the graph). Every format
module has ``render(subject, **options) -> str``. The CLI checks a ``--format`` with
:func:`choose` against the map's names, and :func:`render` writes it.
"""
from __future__ import annotations

import importlib
from collections.abc import Collection, Mapping
from typing import Any

from kqlint.errors import UsageError


def choose(name: str, formats: Mapping[str, str], aliases: Mapping[str, str] | None = None) -> str:
    """The format ``name`` stands for (an alias first maps to its format), or UsageError
    naming the choices."""
    aliases = aliases or {}
    name = aliases.get(name, name)
    if name in formats:
        return name
    also = "".join(f", or {alias}" for alias in aliases if alias not in formats)
    raise UsageError(f"unknown --format {name!r} (choose from {', '.join(formats)}{also})")


def render(formats: Mapping[str, str], json_formats: Collection[str], name: str, subject: Any,
           **options: Any) -> str:
    """``subject`` written by the module of format ``name`` (imported only now)."""
    module = importlib.import_module(formats[name])
    text: str = module.render(subject, **options)
    if name in json_formats:  # C1, bidi and undecodable characters as \uXXXX escapes
        from kqlint.sanitize import json_safe

        text = json_safe(text)
    return text
