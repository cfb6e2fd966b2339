"""``kqlint cache``: commands on the cache of parsed files (kqlint.cache)."""
from __future__ import annotations

import typer
from kqlint.cli.app import Exit

cache_app = typer.Typer(help="The cache of parsed files (kqlint/ in ~/.cache, or in --cache-dir).",
                        no_args_is_help=True)


@cache_app.command("clean")
def cache_clean(cache_dir: str | None = typer.Option(
        None, "--cache-dir", metavar="DIR", envvar="KQLINT_CACHE_DIR",
        help="The folder kqlint's cache folder is in (default: $XDG_CACHE_HOME, else ~/.cache).")) -> None:
    """Remove kqlint's cache folder (kqlint/ in the cache folder), and nothing else."""
    from kqlint.cache import CacheRefused, cache_home, owned_folder, remove_owned

    owned = owned_folder(cache_home(cache_dir))
    try:
        removed = remove_owned(owned)
    except (CacheRefused, OSError) as exc:
        raise Exit(2, f"kqlint: {exc}") from None
    typer.echo(f"kqlint: {'removed' if removed else 'no cache at'} {owned}")
