"""``kqlint server``: the language server on stdin/stdout (kqlint.server), for editors."""
from __future__ import annotations

import typer
from kqlint.cli.app import Exit
from kqlint.cli.options import allow_plugins_option

INSTALL_HINT = "kqlint: `kqlint server` needs pygls and lsprotocol: pip install 'kqlint[server]'"


def server(
    allow_plugins: bool = allow_plugins_option(),
    no_cache: bool = typer.Option(False, "--no-cache", help="Neither read nor write the cache of parsed files."),
) -> None:
    """Run the language server (LSP over stdin/stdout): diagnostics, fixes and rule help as you type."""
    try:
        from kqlint.server.protocol import serve
    except ImportError as exc:
        if (exc.name or "").split(".")[0] not in ("pygls", "lsprotocol", "cattrs", "attrs"):
            raise
        raise Exit(2, INSTALL_HINT) from None
    raise typer.Exit(serve(allow_plugins, not no_cache))
