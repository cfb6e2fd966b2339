"""The `kqlint` command: options, one module per command, the one error boundary.

The ``kqlint`` command (typer).

- :mod:`~kqlint.cli.app`: the typer app, :class:`~kqlint.cli.app.Exit`, stderr and report output
- :mod:`~kqlint.cli.boundary`: :func:`main`, the only error boundary (exit 0/1/2/3/130)
- :mod:`~kqlint.cli.options`: option declarations the commands share, option value checks
- one module per command group: check (+ reporting), rules (rules, explain), query, graph, simulate,
  cache, server

Imports stay lazy: ``kqlint check`` on a plain run loads the engine, the rules and the
one reporter it needs, nothing else (no jsonschema, no SARIF machinery). A command module
imports only typer and this package at the top; the rest inside the command.
"""
from __future__ import annotations

from kqlint.cli import cache, check, graph, query, rules, server, simulate
from kqlint.cli.app import BUG_HINT, app
from kqlint.cli.boundary import _handle, entry, main

__all__ = ["BUG_HINT", "_handle", "app", "entry", "main"]

# The commands in the order `kqlint --help` lists them.
app.command()(check.check)
app.command()(rules.rules)
app.command()(rules.explain)
app.command()(query.query)
app.command()(graph.graph)
app.command()(simulate.simulate)
app.add_typer(cache.cache_app, name="cache")
app.command()(server.server)
