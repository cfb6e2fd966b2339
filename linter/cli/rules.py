"""``kqlint rules`` (the rule list) and ``kqlint explain`` (one rule's documentation)."""
from __future__ import annotations

import typer
from kqlint.cli import complete
from kqlint.cli.app import Exit, emit
from kqlint.cli.options import (
    allow_plugins_option,
    color_option,
    config_option,
    load_config,
    no_config_option,
    use_color,
)

RULES_FORMATS = complete.RULES_FORMATS


def rules(
    format: str = typer.Option("text", "--format", "-f", metavar="FORMAT", help="text, json or markdown.",
                               autocompletion=complete.rules_formats),
    config_file: str | None = config_option("Config file (adds plugin and custom rules)."),
    no_config: bool = no_config_option(),
    color: str | None = color_option(),
    allow_plugins: bool = allow_plugins_option(),
) -> None:
    """List every rule: code, slug, default severity, enabled by default, summary. When a
    configuration is in effect, severity and enabled show its values (defaults in parentheses)."""
    from kqlint.cli.output import terminal_width
    from kqlint.reporters.explain import rules_json, rules_markdown, rules_table

    if format not in RULES_FORMATS:
        raise Exit(2, f"kqlint: unknown --format {format!r} (choose from {', '.join(RULES_FORMATS)})")
    config = load_config(config_file, no_config, allow_plugins)
    effective = config.path is not None
    if format == "json":
        emit(rules_json(config, effective), None)
    elif format == "markdown":
        emit(rules_markdown(config), None)
    else:
        emit(rules_table(config, use_color(False, color), terminal_width(), effective), None)


def explain(
    rule: str = typer.Argument(..., metavar="RULE", help="A rule code (KQ101) or slug (pod-preemption-enabled).",
                               autocompletion=complete.rule_name),
    config_file: str | None = config_option("Config file (adds plugin and custom rules)."),
    no_config: bool = no_config_option(),
    color: str | None = color_option(),
    allow_plugins: bool = allow_plugins_option(),
) -> None:
    """Show a rule's full documentation: what, why, bad and good examples, fix, suppression.
    Rendered on a terminal; plain Markdown when piped."""
    from kqlint.cli.output import terminal_width
    from kqlint.reporters.explain import explain_text, render_markdown, suggest
    from kqlint.sanitize import safe_lines, terminal_safe

    config = load_config(config_file, no_config, allow_plugins)
    text = explain_text(rule, config)
    if text is None:
        raise Exit(2, f"kqlint: unknown rule {terminal_safe(rule)!r}{suggest(rule, config)}; `kqlint rules` lists them")
    emit(render_markdown(safe_lines(text), use_color(False, color), terminal_width()), None)
