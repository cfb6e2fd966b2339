"""Option declarations more than one command shares, and the checks that turn option
values into settings (a bad value is usage error: exit 2)."""
from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import typer
from kqlint.cli.app import Exit

if TYPE_CHECKING:
    from kqlint.config import Config

from kqlint.cli.complete import FAIL_ON as FAIL_ON  # the values --fail-on accepts

# ------------------------------------------------------------------ declarations

def config_option(help: str = "Use this config file instead of discovery.") -> Any:
    return typer.Option(None, "--config", metavar="FILE", help=help)


def no_config_option() -> Any:
    return typer.Option(False, "--no-config", help="Ignore discovered configuration files.")


def allow_plugins_option() -> Any:
    return typer.Option(False, "--allow-plugins",
                        help="Import the `plugins:` the configuration names "
                             "(Python code; also KQLINT_ALLOW_PLUGINS=1).")


def profile_option() -> Any:
    return typer.Option(None, "--profile", metavar="NAME", help="Enable a built-in platform profile.")


def namespace_option() -> Any:
    return typer.Option(None, "--namespace", metavar="NS", callback=_namespace_name,
                        help="Namespace for namespaced objects that set none (default: default).")


def _namespace_name(value: str | None) -> str | None:
    """A Kubernetes namespace name (an RFC 1123 label, as config `namespace` must be); an
    empty or malformed one is a usage error (exit 2), not a silent "no namespace"."""
    import re

    if value is not None and not (len(value) <= 63 and re.fullmatch(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?", value)):
        raise typer.BadParameter(f"{value!r} is not a Kubernetes namespace name (lower-case letters, digits and "
                                 "'-', at most 63 characters)")
    return value


def context_option() -> Any:
    return typer.Option(None, "--context", metavar="PATH",
                        help="Files/folders loaded only to resolve references; repeatable.")


def kustomize_option(help: str) -> Any:
    return typer.Option(None, "--kustomize", metavar="DIR", help=help)


def allow_remote_bases_option() -> Any:
    return typer.Option(False, "--allow-remote-bases",
                        help="With --kustomize: let kubectl fetch the remote bases and "
                             "resources (git, HTTPS) a kustomization names; refused otherwise.")


def exclude_option(help: str) -> Any:
    return typer.Option(None, "--exclude", metavar="GLOB", help=help)


def color_option(help: str = "auto (default), always or never.") -> Any:
    from kqlint.cli.complete import colors

    return typer.Option(None, "--color", metavar="WHEN", help=help, autocompletion=colors)


# ------------------------------------------------------------------ values

def load_config(config_file: str | None, no_config: bool = False, allow_plugins: bool = False) -> Any:
    from kqlint.config import Config, discover_config
    from kqlint.config import load_config as load
    from kqlint.config.trust import PluginsNotAllowed, require_plugin_opt_in
    from kqlint.errors import ConfigError, InternalError

    if no_config:
        if config_file:
            raise Exit(2, "kqlint: --no-config and --config exclude each other")
        return Config()
    if config_file and not os.path.isfile(config_file):
        raise Exit(2, f"kqlint: config file not found: {config_file}")
    path = config_file or discover_config()
    try:
        config = load(path)
    except ConfigError:
        raise
    except Exception as exc:
        raise InternalError(path or "the default configuration", exc) from exc
    try:
        require_plugin_opt_in(config, allow_plugins)
    except PluginsNotAllowed as exc:
        raise Exit(2, f"kqlint: {exc}") from None
    return config


def split(values: list[str] | None) -> tuple[str, ...]:
    return tuple(part.strip() for value in values or () for part in value.split(",") if part.strip())


def use_color(no_color: bool, choice: str | None = None) -> bool:
    from kqlint.cli.output import OutputError
    from kqlint.cli.output import use_color as decide

    try:
        return decide(choice, no_color)
    except OutputError as exc:
        raise Exit(2, f"kqlint: {exc}") from None


def report_targets(formats: list[str], outputs: list[str], default_style: str | None = None) -> list[tuple[str, str]]:
    """Pair ``--format``/``--output`` by position (kqlint.cli.output decides the rest)."""
    from kqlint.cli.output import OutputError, targets

    try:
        return targets(formats, outputs, default_style)
    except OutputError as exc:
        raise Exit(2, f"kqlint: {exc}") from None


def fail_on_level(value: str | None, config: Config) -> Any:
    from kqlint.config import parse_fail_on

    if value is None:
        return config.fail_on
    if value not in FAIL_ON:
        raise Exit(2, f"kqlint: --fail-on must be one of {', '.join(FAIL_ON)}, not {value!r}")
    return parse_fail_on(value)


def check_excludes(excludes: tuple[str, ...]) -> None:
    from kqlint.project.globs import MAX_EXCLUDES

    if len(excludes) > MAX_EXCLUDES:
        raise Exit(2, f"kqlint: {len(excludes)} exclude globs (config `exclude` and --exclude); "
                      f"at most {MAX_EXCLUDES} are supported: use broader globs")
