"""``kqlint query``: what a JMESPath expression or a custom rule returns per object."""
from __future__ import annotations

import typer
from kqlint.cli.app import Exit, emit
from kqlint.cli.options import config_option, load_config, namespace_option, no_config_option


def query(
    expression: str | None = typer.Argument(None, metavar="EXPR",
                                               help="A JMESPath expression, as in a custom rule's when/assert."),
    paths: list[str] | None = typer.Argument(None, metavar="[PATH]...", help="Files and folders (default: .)."),
    rule: str | None = typer.Option(None, "--rule", metavar="CODE",
                                       help="Evaluate this configured custom rule (match, when, assert) instead; "
                                            "then every argument is a PATH."),
    format: str = typer.Option("text", "--format", "-f", metavar="FORMAT", help="text or json (EXPR only)."),
    config_file: str | None = config_option(),
    no_config: bool = no_config_option(),
    namespace: str | None = namespace_option(),
) -> None:
    """Show what a JMESPath expression (or a custom rule) returns for each object of the
    files: to write custom rules and find out why one never fires."""
    from kqlint.engine.query import QueryError, explain_rule
    from kqlint.engine.query import query as run_query

    config = load_config(config_file, no_config).with_overrides(namespace=namespace)
    targets = ([expression] if expression and rule else []) + list(paths or [])
    try:
        if rule:
            text = explain_rule(rule, targets or ["."], config)
        elif not expression:
            raise Exit(2, "kqlint: give a JMESPath EXPR (or --rule CODE) and the files to query")
        else:
            if format not in ("text", "json"):
                raise Exit(2, f"kqlint: unknown --format {format!r} (choose from text, json)")
            text = run_query(expression, targets or ["."], config, as_json=format == "json")
    except QueryError as exc:
        raise Exit(2, f"kqlint: {exc}") from None
    emit(text, None)
