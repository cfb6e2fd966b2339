"""What a repository's configuration may make kqlint run: nothing, unless the person
running kqlint allows it. ``plugins:`` are Python modules; a configuration discovered in
(or passed from) a repository is untrusted input on a pull request, so its plugins are
imported only with ``--allow-plugins`` or ``KQLINT_ALLOW_PLUGINS=1``. Without that, a
configuration naming plugins is a configuration error (exit 2): a run never passes
with rules silently missing. Installed ``kqlint.rules`` entry points are not affected:
installing a package is already trusting it."""
from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kqlint.config.settings import Config

ENV_VAR = "KQLINT_ALLOW_PLUGINS"
_TRUE = frozenset({"1", "true", "yes", "on"})


class PluginsNotAllowed(Exception):
    """Config ``plugins`` without the opt-in (exit 2)."""


def plugins_allowed(flag: bool) -> bool:
    return flag or os.environ.get(ENV_VAR, "").strip().lower() in _TRUE


def require_plugin_opt_in(config: Config, flag: bool) -> None:
    """Raise PluginsNotAllowed when ``config`` names plugins the user has not allowed."""
    if not config.plugins or plugins_allowed(flag):
        return
    from kqlint.sanitize import excerpt

    names = ", ".join(excerpt(name, 60) for name in config.plugins[:5]) + (", …" if len(config.plugins) > 5 else "")
    where = config.origin.file if config.origin is not None else (config.path or "the configuration")
    raise PluginsNotAllowed(
        f"{where} names plugins ({names}): they are Python code and are imported only when you "
        f"allow it: pass --allow-plugins or set {ENV_VAR}=1 (only for configurations you trust)")
