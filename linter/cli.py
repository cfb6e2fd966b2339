"""The ``kqlint`` command (typer). The only error boundary: usage/config errors exit 2,
internal errors print one line and exit 3; never a traceback."""
from __future__ import annotations

import os
import sys
from typing import List, Optional

import typer

from kqlint import __version__

app = typer.Typer(add_completion=False, no_args_is_help=True, rich_markup_mode=None,
                  help="Lint Kubernetes manifests for Kueue and gang-scheduling mistakes.",
                  pretty_exceptions_enable=False)

FORMATS = ("text", "json", "github")
BUG_HINT = "please report this at https://github.com/kqlint/kqlint/issues with the file that triggers it"


class Exit(Exception):
    def __init__(self, code: int, message: str = "") -> None:
        super().__init__(message)
        self.code, self.message = code, message


def _version(value: bool) -> None:
    if value:
        typer.echo(f"kqlint {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                       help="Show the version and exit.")) -> None:
    """Lint Kubernetes manifests for Kueue and gang-scheduling mistakes."""


def _load_config(config_file: Optional[str]) -> "object":
    from kqlint.config import discover_config, load_config

    path = config_file if config_file else discover_config()
    if config_file and not os.path.isfile(config_file):
        raise Exit(2, f"kqlint: config file not found: {config_file}")
    return load_config(path)


def _split(values: Optional[List[str]]) -> tuple[str, ...]:
    return tuple(part.strip() for value in values or () for part in value.split(",") if part.strip())


def _use_color(no_color: bool) -> bool:
    return not no_color and "NO_COLOR" not in os.environ and sys.stdout.isatty()


@app.command()
def check(
    paths: Optional[List[str]] = typer.Argument(None, help="Files and folders to lint (default: .); - reads stdin."),
    format: Optional[List[str]] = typer.Option(None, "--format", "-f", help="text, json or github; repeatable."),
    output: Optional[List[str]] = typer.Option(None, "--output", "-o", help="Write the report here; pairs with --format."),
    select: Optional[List[str]] = typer.Option(None, "--select", help="Comma-separated codes, slugs or prefixes."),
    ignore: Optional[List[str]] = typer.Option(None, "--ignore", help="Comma-separated codes, slugs or prefixes."),
    fail_on: Optional[str] = typer.Option(None, "--fail-on", help="error, warning, info or never (default warning)."),
    config_file: Optional[str] = typer.Option(None, "--config", help="Use this config file instead of discovery."),
    profile: Optional[str] = typer.Option(None, "--profile", help="Enable a built-in platform profile."),
    namespace: Optional[str] = typer.Option(None, "--namespace", help="Namespace for objects that set none."),
    context: Optional[List[str]] = typer.Option(None, "--context", help="Extra files/folders for reference resolution only."),
    exclude: Optional[List[str]] = typer.Option(None, "--exclude", help="Skip paths matching this glob; repeatable."),
    no_inline_suppressions: bool = typer.Option(False, "--no-inline-suppressions", help="Ignore annotation and comment suppressions."),
    no_color: bool = typer.Option(False, "--no-color", help="No colors."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Print nothing when there are no findings."),
    statistics: bool = typer.Option(False, "--statistics", help="Per-rule counts at the end."),
) -> None:
    """Lint files and folders."""
    from kqlint.config import parse_fail_on
    from kqlint.runner import exit_status, lint

    config = _load_config(config_file)
    try:
        fail = parse_fail_on(fail_on) if fail_on else config.fail_on  # type: ignore[attr-defined]
    except KeyError:
        raise Exit(2, f"kqlint: --fail-on must be error, warning, info or never, not {fail_on!r}")
    config = config.with_overrides(  # type: ignore[attr-defined]
        select=_split(select) or None, ignore=(config.ignore + _split(ignore)) or None,  # type: ignore[attr-defined]
        profile=profile, namespace=namespace,
        exclude=(config.exclude + tuple(exclude or ())) or None)  # type: ignore[attr-defined]
    formats = list(format or [])
    if not formats:
        formats = ["github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text"]
    for name in formats:
        if name not in FORMATS:
            raise Exit(2, f"kqlint: unknown --format {name!r} (choose from {', '.join(FORMATS)})")
    outputs = list(output or [])
    if len(outputs) > len(formats):
        raise Exit(2, "kqlint: more --output than --format options")
    report = lint(list(paths or ["."]), config, context=tuple(context or ()),
                  inline_suppressions=not no_inline_suppressions)
    _write_reports(report, formats, outputs, no_color, quiet, statistics)
    for line in report.internal_errors:
        typer.echo(f"kqlint: {line}; {BUG_HINT}", err=True)
    raise typer.Exit(exit_status(report, fail))


def _write_reports(report: object, formats: list[str], outputs: list[str], no_color: bool,
                   quiet: bool, statistics: bool) -> None:
    from kqlint.reporters import render

    for index, name in enumerate(formats):
        target = outputs[index] if index < len(outputs) else None
        color = target is None and name == "text" and _use_color(no_color)
        text = render(name, report, color=color, quiet=quiet, statistics=statistics)  # type: ignore[arg-type]
        if target is None:
            sys.stdout.write(text)
        else:
            with open(target, "w", encoding="utf-8") as handle:
                handle.write(text)


@app.command()
def rules(
    format: str = typer.Option("text", "--format", "-f", help="text or json."),
    config_file: Optional[str] = typer.Option(None, "--config", help="Config file (for plugins and custom rules)."),
) -> None:
    """List every rule: code, slug, default severity, enabled by default, summary."""
    from kqlint.explain import rules_json, rules_table

    config = _load_config(config_file)
    if format not in ("text", "json"):
        raise Exit(2, f"kqlint: unknown --format {format!r} (choose from text, json)")
    sys.stdout.write(rules_json(config) if format == "json" else rules_table(config, _use_color(False)))


@app.command()
def explain(rule: str = typer.Argument(..., help="A rule code (KQ101) or slug.")) -> None:
    """Show a rule's full documentation."""
    from kqlint.explain import explain_text

    text = explain_text(rule)
    if text is None:
        raise Exit(2, f"kqlint: unknown rule {rule!r}; `kqlint rules` lists them")
    sys.stdout.write(text)


def main(argv: Optional[List[str]] = None) -> int:
    """Entry point: returns the exit status (0/1/2/3)."""
    from kqlint.config import ConfigError
    from kqlint.registry import RegistryError
    from kqlint.runner import UsageError

    args = list(sys.argv[1:] if argv is None else argv)
    try:
        result = app(args=args, prog_name="kqlint", standalone_mode=False)
        return result if isinstance(result, int) else 0
    except typer.Exit as exc:
        return int(exc.exit_code)
    except Exit as exc:
        typer.echo(exc.message, err=True)
        return exc.code
    except (ConfigError, RegistryError, UsageError) as exc:
        typer.echo(f"kqlint: {exc}", err=True)
        return 2
    except _click_errors() as exc:
        exc.show()
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # noqa: BLE001 - the one boundary that keeps tracebacks from users
        typer.echo(f"kqlint: internal error: {type(exc).__name__}: {exc}; {BUG_HINT}", err=True)
        return 3


def _click_errors() -> tuple[type, ...]:
    import click

    return (click.ClickException,)


def entry() -> None:
    sys.exit(main())


if __name__ == "__main__":
    entry()
