"""``kqlint cache``: commands on the cache of parsed files (kqlint.cache)."""
from __future__ import annotations

import os

import typer
from kqlint.cli.app import Exit

cache_app = typer.Typer(help="The cache of parsed files (.kqlint_cache in the project root).", no_args_is_help=True)


@cache_app.command("clean")
def cache_clean(cache_dir: str | None = typer.Option(
        None, "--cache-dir", metavar="DIR", envvar="KQLINT_CACHE_DIR",
        help="Cache folder (default: .kqlint_cache in the project root).")) -> None:
    """Remove the cache folder."""
    from kqlint.cache import clean, default_cache_dir

    directory = os.path.abspath(cache_dir) if cache_dir else default_cache_dir()
    try:
        removed = clean(directory)
    except OSError as exc:
        raise Exit(2, f"kqlint: {exc}") from None
    typer.echo(f"kqlint: {'removed' if removed else 'no cache at'} {directory}")
