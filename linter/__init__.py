"""kqlint: a static linter for Kueue and gang-scheduling mistakes in Kubernetes manifests.

Public API (stable): ``__version__``, ``lint``, ``Finding``, ``Location``, ``Severity``,
``ObjectRef``, ``Report``. Everything else is internal.
"""
from __future__ import annotations

from typing import Any

from kqlint.version import __version__

__all__ = ["__version__", "lint", "Finding", "Location", "Severity", "ObjectRef", "Report"]


def __getattr__(name: str) -> Any:
    # Lazy: importing kqlint must stay cheap for the CLI start-up path.
    if name == "lint":
        from kqlint.engine.pipeline import lint

        return lint
    if name in ("Finding", "Location", "Severity", "ObjectRef", "Report"):
        from kqlint import model

        return getattr(model, name)
    raise AttributeError(name)
