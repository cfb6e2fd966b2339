"""The ``kqlint`` command (typer). The only error boundary: usage/config errors exit 2,
internal errors print one line naming the file and exit 3; never a traceback.

Imports stay lazy: ``kqlint check`` on a plain run loads the engine, the rules and the
one reporter it needs, nothing else (no jsonschema, no SARIF machinery).
"""
from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import Any

import typer
from kqlint import __version__

RULES_FORMATS = ("text", "json", "markdown")
FAIL_ON = ("error", "warning", "info", "never")
STDOUT = "-"
BUG_HINT = ("this is a bug in kqlint: please report it at https://github.com/kqlint/kqlint/issues "
            "with the file that triggers it")

app = typer.Typer(add_completion=True, no_args_is_help=True, rich_markup_mode=None,
                  help="Lint Kubernetes manifests for Kueue and gang-scheduling mistakes.",
                  pretty_exceptions_enable=False,
                  context_settings={"help_option_names": ["-h", "--help"]})


class Exit(Exception):
    """Leave with ``code`` after printing ``message`` (one line) to stderr."""

    def __init__(self, code: int, message: str = "") -> None:
        super().__init__(message)
        self.code, self.message = code, message


def _version(value: bool) -> None:
    if value:
        typer.echo(f"kqlint {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(version: bool = typer.Option(False, "--version", "-V", callback=_version, is_eager=True,
                                       help="Show the version and exit.")) -> None:
    """Lint Kubernetes manifests for Kueue and gang-scheduling mistakes.

    Exit status: 0 clean, 1 findings at or above --fail-on, 2 usage or configuration
    error, 3 internal error, 130/143/129 Ctrl-C/SIGTERM/SIGHUP.
    """


# ------------------------------------------------------------------ helpers

def _load_config(config_file: str | None, no_config: bool = False, allow_plugins: bool = False) -> Any:
    from kqlint.config import Config, discover_config, load_config
    from kqlint.errors import ConfigError, InternalError
    from kqlint.trust import PluginsNotAllowed, require_plugin_opt_in

    if no_config:
        if config_file:
            raise Exit(2, "kqlint: --no-config and --config exclude each other")
        return Config()
    if config_file and not os.path.isfile(config_file):
        raise Exit(2, f"kqlint: config file not found: {config_file}")
    path = config_file or discover_config()
    try:
        config = load_config(path)
    except ConfigError:
        raise
    except Exception as exc:
        raise InternalError(path or "the default configuration", exc) from exc
    try:
        require_plugin_opt_in(config, allow_plugins)
    except PluginsNotAllowed as exc:
        raise Exit(2, f"kqlint: {exc}") from None
    return config


def _allow_plugins_option() -> Any:
    return typer.Option(False, "--allow-plugins",
                        help="Import the `plugins:` the configuration names "
                             "(Python code; also KQLINT_ALLOW_PLUGINS=1).")


def _split(values: list[str] | None) -> tuple[str, ...]:
    return tuple(part.strip() for value in values or () for part in value.split(",") if part.strip())


def _use_color(no_color: bool, choice: str | None = None) -> bool:
    from kqlint.output import OutputError, use_color

    try:
        return use_color(choice, no_color)
    except OutputError as exc:
        raise Exit(2, f"kqlint: {exc}") from None


def _targets(formats: list[str], outputs: list[str], default_style: str | None = None) -> list[tuple[str, str]]:
    """Pair ``--format``/``--output`` by position (kqlint.output decides the rest)."""
    from kqlint.output import OutputError, targets

    try:
        return targets(formats, outputs, default_style)
    except OutputError as exc:
        raise Exit(2, f"kqlint: {exc}") from None


def _fail_on(value: str | None, config: Any) -> Any:
    from kqlint.config import parse_fail_on

    if value is None:
        return config.fail_on
    if value not in FAIL_ON:
        raise Exit(2, f"kqlint: --fail-on must be one of {', '.join(FAIL_ON)}, not {value!r}")
    return parse_fail_on(value)


# ------------------------------------------------------------------ check

@app.command()
def check(
    paths: list[str] | None = typer.Argument(None, metavar="PATH",
                                                help="Files and folders to lint (default: .); "
                                                     "- reads one YAML stream from stdin."),
    format: list[str] | None = typer.Option(None, "--format", "-f", metavar="FORMAT",
                                               help="text (default), concise, json, sarif, github, junit or gitlab; "
                                                    "repeatable, pairs with --output."),
    output_format: str | None = typer.Option(None, "--output-format", metavar="FORMAT",
                                                help="full (the text report) or concise (one finding per line), "
                                                     "or any --format; config: output-format."),
    output: list[str] | None = typer.Option(None, "--output", "-o", metavar="FILE",
                                               help="Write the report of the matching --format here (- for stdout); "
                                                    "without --format the file name picks it "
                                                    "(.json, .sarif, .xml, .txt)."),
    select: list[str] | None = typer.Option(None, "--select", metavar="CODES",
                                               help="Only these rules: comma-separated codes, slugs "
                                                    "or prefixes (KQ1)."),
    ignore: list[str] | None = typer.Option(None, "--ignore", metavar="CODES",
                                               help="Skip these rules: comma-separated codes, slugs or prefixes."),
    fail_on: str | None = typer.Option(None, "--fail-on", metavar="SEVERITY",
                                          help="Lowest severity that exits 1: error, warning (default), "
                                               "info or never."),
    config_file: str | None = typer.Option(None, "--config", metavar="FILE",
                                              help="Use this config file instead of discovery."),
    no_config: bool = typer.Option(False, "--no-config", help="Ignore discovered configuration files."),
    profile: str | None = typer.Option(None, "--profile", metavar="NAME", help="Enable a built-in platform profile."),
    namespace: str | None = typer.Option(None, "--namespace", metavar="NS",
                                            help="Namespace for namespaced objects that set none (default: default)."),
    context: list[str] | None = typer.Option(None, "--context", metavar="PATH",
                                                help="Files/folders loaded only to resolve references; repeatable."),
    exclude: list[str] | None = typer.Option(None, "--exclude", metavar="GLOB",
                                                help="Skip paths matching this glob; repeatable."),
    stdin_filename: str | None = typer.Option(None, "--stdin-filename", metavar="PATH",
                                                 help="Report findings read from stdin (-) against this path; Helm "
                                                      "`# Source:` comments name each document's template otherwise."),
    kustomize: list[str] | None = typer.Option(None, "--kustomize", metavar="DIR",
                                                  help="Lint this kustomization as `kubectl kustomize DIR` renders it, "
                                                       "findings mapped back to source files; repeatable."),
    crd: list[str] | None = typer.Option(None, "--crd", metavar="PATH",
                                            help="CRD file or folder whose schemas KQ002 validates against "
                                                 "(the versions your cluster runs); repeatable."),
    no_inline_suppressions: bool = typer.Option(False, "--no-inline-suppressions",
                                                help="Ignore annotation and comment suppressions."),
    report_suppressed: bool = typer.Option(False, "--report-suppressed",
                                           help="Also list suppressed findings, with their justification "
                                                "(json, sarif)."),
    report_unused_suppressions: bool = typer.Option(False, "--report-unused-suppressions",
                                                    help="Report suppressions that silenced nothing (info KQ000)."),
    baseline: str | None = typer.Option(None, "--baseline", metavar="FILE",
                                           help="Report only findings that are not in this baseline file."),
    write_baseline: str | None = typer.Option(None, "--write-baseline", metavar="FILE",
                                                 help="Write the current findings to this baseline file "
                                                      "(YAML; JSON when it ends in .json)."),
    no_color: bool = typer.Option(False, "--no-color",
                                  help="No colors (also when NO_COLOR is set or stdout is not a terminal)."),
    color: str | None = typer.Option(None, "--color", metavar="WHEN",
                                        help="auto (default: a terminal, unless NO_COLOR; FORCE_COLOR forces it), "
                                             "always or never."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Print nothing when there are no findings."),
    statistics: bool = typer.Option(False, "--statistics", help="Per-rule counts at the end of the text report."),
    jobs: int | None = typer.Option(None, "--jobs", "-j", metavar="N",
                                       help="Worker processes for parsing and rules (default: the number of CPUs)."),
    allow_plugins: bool = _allow_plugins_option(),
    follow_external_symlinks: bool = typer.Option(
        False, "--follow-external-symlinks",
        help="Also read files (and config context:/crds: paths) that resolve outside the repository."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Neither read nor write the cache of parsed files."),
    cache_dir: str | None = typer.Option(None, "--cache-dir", metavar="DIR", envvar="KQLINT_CACHE_DIR",
                                            help="Cache folder (default: .kqlint_cache in the project root; "
                                                 "also KQLINT_CACHE_DIR)."),
) -> None:
    """Lint files and folders (default: the current directory)."""
    from kqlint.registry import load_rules
    from kqlint.runner import exit_status

    config = _load_config(config_file, no_config, allow_plugins)
    fail = _fail_on(fail_on, config)
    color_on = _use_color(no_color, color)
    targets = _targets(list(format or []) + ([output_format] if output_format else []), list(output or []),
                       config.output_format)
    rules = load_rules(config)
    config = config.with_overrides(
        select=_split(select) or None, ignore=(config.ignore + _split(ignore)) or None,
        profile=profile, namespace=namespace, exclude=(config.exclude + tuple(exclude or ())) or None,
        crds=(config.crds + tuple(crd or ())) or None, stdin_filename=stdin_filename,
        follow_external_symlinks=follow_external_symlinks or None)
    _check_excludes(config.exclude)
    lint_rules = rules  # `rules` stay as registered: reports describe their defaults
    if report_unused_suppressions:
        from kqlint.registry import enable

        lint_rules, config = enable(rules, config, "KQ000")
    targets_paths = list(paths or ["."])
    if STDOUT in targets_paths and sys.stdin is None:
        raise Exit(2, "kqlint: `-` reads stdin, but there is no stdin")
    if jobs is not None and jobs < 1:
        raise Exit(2, "kqlint: --jobs must be 1 or more")
    _warn_if_slow_parser()
    from kqlint import preflight

    try:
        preflight.check(targets_paths, config, tuple(context or ()), _err, rules)
    except preflight.PreflightError as exc:
        raise Exit(2, f"kqlint: {exc}") from None
    if kustomize:
        from kqlint.kustomize import lint_overlays

        report = lint_overlays(list(kustomize), config, tuple(context or ()), not no_inline_suppressions,
                               lint_rules, paths=list(paths or []))
    else:
        report = _lint(targets_paths, config, tuple(context or ()), not no_inline_suppressions, lint_rules,
                       progress=not quiet, jobs=jobs,
                       cache=_open_cache(no_cache, cache_dir, config, targets_paths))
    _report_stderr_lines(report, targets_paths, quiet)
    report = _apply_baseline(report, baseline, write_baseline, quiet)
    _write_reports(report, targets, color=color_on, quiet=quiet, statistics=statistics,
                   rules=rules, fail_on=fail, report_suppressed=report_suppressed)
    for line in report.internal_errors:
        _err(f"kqlint: {line}; {BUG_HINT}")
    raise typer.Exit(exit_status(report, fail))


def _check_excludes(excludes: tuple[str, ...]) -> None:
    from kqlint.globs import MAX_EXCLUDES

    if len(excludes) > MAX_EXCLUDES:
        raise Exit(2, f"kqlint: {len(excludes)} exclude globs (config `exclude` and --exclude); "
                      f"at most {MAX_EXCLUDES} are supported: use broader globs")


def _warn_if_slow_parser() -> None:
    from kqlint.loader import FAST_PATH

    if not FAST_PATH:
        _err("kqlint: warning: ruamel.yaml's C extension (ruamel.yaml.clib) is missing; parsing falls "
             "back to pure Python, about 10x slower: pip install 'ruamel.yaml[oldlibyaml]'")


def _report_stderr_lines(report: Any, paths: list[str], quiet: bool) -> None:
    """What the run says beside its report: warnings (misspelt directives, nothing to lint),
    then notes (no project root, paths skipped for safety) unless ``--quiet``."""
    from kqlint import preflight

    for line in report.warnings:
        _err(line)
    preflight.report_empty(report, paths, _err)
    for note in () if quiet else report.notes:
        _err(f"kqlint: note: {note}")


def _open_cache(no_cache: bool, cache_dir: str | None, config: Any, paths: list[str]) -> Any:
    if no_cache or paths == [STDOUT]:
        return None
    from kqlint.cache import open_cache

    return open_cache(cache_dir, config.max_file_size)


def _lint(paths: list[str], config: Any, context: tuple[str, ...], inline: bool, rules: Sequence[Any],
          progress: bool = False, jobs: int | None = None, cache: Any = None) -> Any:
    from kqlint.errors import InternalError, KqlintError
    from kqlint.parallel import default_jobs
    from kqlint.progress import LoadProgress
    from kqlint.runner import lint

    try:
        with LoadProgress() as bar:  # shown only on a terminal, for runs of many files
            return lint(paths, config, context=context, inline_suppressions=inline, rules=rules,
                        progress=bar if progress else None, jobs=jobs or default_jobs(), cache=cache)
    except (KqlintError, Exit):
        raise
    except Exception as exc:
        raise InternalError(", ".join(paths), exc) from exc


def _apply_baseline(report: Any, baseline_file: str | None, write_file: str | None, quiet: bool) -> Any:
    """``--write-baseline``: accept every current finding; ``--baseline``: drop accepted ones."""
    if not baseline_file and not write_file:
        return report
    from kqlint import baseline
    from kqlint.errors import BaselineError

    try:
        if write_file:
            count = baseline.write(write_file, report.findings)
            if not quiet:
                _err(f"kqlint: wrote {count} finding(s) to the baseline {write_file}")
        accepted = baseline.load(write_file or baseline_file or "")
    except BaselineError as exc:
        raise Exit(2, f"kqlint: {exc}") from None
    kept, absorbed = baseline.apply(report, accepted)
    from dataclasses import replace

    return replace(kept, baselined=absorbed)


def _write_reports(report: Any, targets: list[tuple[str, str]], *, color: bool, quiet: bool,
                   statistics: bool, **options: Any) -> None:
    from kqlint.output import terminal_width
    from kqlint.reporters import render

    for name, target in targets:
        on_terminal = target == STDOUT and name == "text"
        width = terminal_width() if on_terminal else None
        try:
            text = render(name, report, color=on_terminal and color, quiet=quiet, statistics=statistics,
                          wrap=width, **options)
        except Exception as exc:
            from kqlint.errors import InternalError

            raise InternalError(f"the {name} report", exc) from exc
        _emit(text, target)


def _emit(text: str, target: str | None) -> None:
    """stdout (None or ``-``) or a file, through the one safe writer (OutputError: exit 2)."""
    from kqlint.writer import write_file, write_stdout

    if target is None or target == STDOUT:
        write_stdout(text)
    else:
        write_file(target, text)


# ------------------------------------------------------------------ rules / explain

@app.command()
def rules(
    format: str = typer.Option("text", "--format", "-f", metavar="FORMAT", help="text, json or markdown."),
    config_file: str | None = typer.Option(None, "--config", metavar="FILE",
                                              help="Config file (adds plugin and custom rules)."),
    no_config: bool = typer.Option(False, "--no-config", help="Ignore discovered configuration files."),
    color: str | None = typer.Option(None, "--color", metavar="WHEN", help="auto (default), always or never."),
    allow_plugins: bool = _allow_plugins_option(),
) -> None:
    """List every rule: code, slug, default severity, enabled by default, summary. When a
    configuration is in effect, severity and enabled show its values (defaults in parentheses)."""
    from kqlint.explain import rules_json, rules_markdown, rules_table
    from kqlint.output import terminal_width

    if format not in RULES_FORMATS:
        raise Exit(2, f"kqlint: unknown --format {format!r} (choose from {', '.join(RULES_FORMATS)})")
    config = _load_config(config_file, no_config, allow_plugins)
    effective = config.path is not None
    if format == "json":
        _emit(rules_json(config, effective), None)
    elif format == "markdown":
        _emit(rules_markdown(config), None)
    else:
        _emit(rules_table(config, _use_color(False, color), terminal_width(), effective), None)


@app.command()
def explain(
    rule: str = typer.Argument(..., metavar="RULE", help="A rule code (KQ101) or slug (pod-preemption-enabled)."),
    config_file: str | None = typer.Option(None, "--config", metavar="FILE",
                                              help="Config file (adds plugin and custom rules)."),
    no_config: bool = typer.Option(False, "--no-config", help="Ignore discovered configuration files."),
    color: str | None = typer.Option(None, "--color", metavar="WHEN", help="auto (default), always or never."),
    allow_plugins: bool = _allow_plugins_option(),
) -> None:
    """Show a rule's full documentation: what, why, bad and good examples, fix, suppression.
    Rendered on a terminal; plain Markdown when piped."""
    from kqlint.explain import explain_text, render_markdown, suggest
    from kqlint.output import terminal_width
    from kqlint.sanitize import safe_lines, terminal_safe

    config = _load_config(config_file, no_config, allow_plugins)
    text = explain_text(rule, config)
    if text is None:
        raise Exit(2, f"kqlint: unknown rule {terminal_safe(rule)!r}{suggest(rule, config)}; `kqlint rules` lists them")
    _emit(render_markdown(safe_lines(text), _use_color(False, color), terminal_width()), None)


# ------------------------------------------------------------------ query

@app.command()
def query(
    expression: str | None = typer.Argument(None, metavar="EXPR",
                                               help="A JMESPath expression, as in a custom rule's when/assert."),
    paths: list[str] | None = typer.Argument(None, metavar="PATH", help="Files and folders (default: .)."),
    rule: str | None = typer.Option(None, "--rule", metavar="CODE",
                                       help="Evaluate this configured custom rule (match, when, assert) instead; "
                                            "then every argument is a PATH."),
    format: str = typer.Option("text", "--format", "-f", metavar="FORMAT", help="text or json (EXPR only)."),
    config_file: str | None = typer.Option(None, "--config", metavar="FILE",
                                              help="Use this config file instead of discovery."),
    no_config: bool = typer.Option(False, "--no-config", help="Ignore discovered configuration files."),
    namespace: str | None = typer.Option(None, "--namespace", metavar="NS",
                                            help="Namespace for namespaced objects that set none (default: default)."),
) -> None:
    """Show what a JMESPath expression (or a custom rule) returns for each object of the
    files: to write custom rules and find out why one never fires."""
    from kqlint.query import QueryError, explain_rule
    from kqlint.query import query as run_query

    config = _load_config(config_file, no_config).with_overrides(namespace=namespace)
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
    _emit(text, None)


# ------------------------------------------------------------------ graph

@app.command()
def graph(
    paths: list[str] | None = typer.Argument(None, metavar="PATH",
                                             help="Files and folders (default: .); - reads stdin."),
    format: str = typer.Option("tree", "--format", "-f", metavar="FORMAT",
                               help="tree (default), dot, mermaid or json."),
    output: str | None = typer.Option(None, "--output", "-o", metavar="FILE", help="Write the graph here."),
    with_findings: bool = typer.Option(False, "--with-findings",
                                       help="Lint too, and mark the findings on their objects."),
    config_file: str | None = typer.Option(None, "--config", metavar="FILE",
                                              help="Use this config file instead of discovery."),
    profile: str | None = typer.Option(None, "--profile", metavar="NAME", help="Enable a built-in platform profile."),
    namespace: str | None = typer.Option(None, "--namespace", metavar="NS",
                                            help="Namespace for namespaced objects that set none (default: default)."),
    context: list[str] | None = typer.Option(None, "--context", metavar="PATH",
                                                help="Files/folders loaded only to resolve references; repeatable."),
    exclude: list[str] | None = typer.Option(None, "--exclude", metavar="GLOB", help="Skip paths matching this glob."),
    no_color: bool = typer.Option(False, "--no-color", help="No colors in the tree."),
    allow_plugins: bool = _allow_plugins_option(),
) -> None:
    """Show the resolved object graph: workloads -> LocalQueue -> ClusterQueue -> ResourceFlavors
    and cohort, their WorkloadPriorityClasses and PriorityClasses, PodGroups and TrainJob
    runtimes. Unresolved references are marked as such."""
    from kqlint.formats import choose
    from kqlint.graph_export import FORMATS
    from kqlint.graph_export.run import command

    choose(format, FORMATS)
    config = _load_config(config_file, False, allow_plugins).with_overrides(
        profile=profile, namespace=namespace, exclude=(tuple(exclude or ())) or None)
    _check_excludes(config.exclude)
    from kqlint.containment import contain_config

    config, notes = contain_config(config)  # config context:/crds: outside the repository
    for note in notes:
        _err(f"kqlint: note: {note}")
    targets = list(paths or ["."])
    color = output is None and format == "tree" and _use_color(no_color)
    _emit(command(targets, config, tuple(context or ()), format, with_findings, color), output)


# ------------------------------------------------------------------ cache

cache_app = typer.Typer(help="The cache of parsed files (.kqlint_cache in the project root).", no_args_is_help=True)
app.add_typer(cache_app, name="cache")


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


# ------------------------------------------------------------------ entry point

def main(argv: list[str] | None = None) -> int:
    """Run the CLI and return the exit status (0/1/2/3). Never raises, never prints a traceback."""
    args = list(sys.argv[1:] if argv is None else argv)
    from kqlint.interrupts import install

    restore_signals, unraisable = install(), sys.unraisablehook
    sys.unraisablehook = _ignore_unraisable
    try:
        app(args=args, prog_name="kqlint", standalone_mode=True)
        return 0
    except SystemExit as exc:  # typer/click finish with sys.exit (usage errors: 2)
        return _system_exit_code(exc.code)
    except BaseException as exc:
        return _handle(exc)
    finally:
        restore_signals()
        sys.unraisablehook = unraisable


def _handle(exc: BaseException) -> int:
    from kqlint.errors import InternalError, UserError
    from kqlint.writer import OutputError

    if isinstance(exc, Exit):
        if exc.message:
            _err(exc.message)
        return exc.code
    if isinstance(exc, (UserError, OutputError)):
        _err(f"kqlint: {exc}")
        return 2
    from kqlint.interrupts import Terminated

    if isinstance(exc, (KeyboardInterrupt, Terminated)):
        from kqlint.interrupts import exit_code_and_message

        code, message = exit_code_and_message(exc)
        _err(message)
        return code
    if _out_of_memory(exc):
        where = getattr(exc, "file", None) or getattr(exc, "where", None)
        _err(f"kqlint: out of memory{f' while processing {where}' if where else ''}: raise the memory "
             "limit, lower `max-file-size` or lint fewer files at once")
        return 2
    if isinstance(exc, BrokenPipeError):
        return 0
    if isinstance(exc, InternalError):
        _err(f"kqlint: internal error while processing {exc.file}: {exc}; {BUG_HINT}")
        return 3
    if not isinstance(exc, Exception):
        raise exc
    _err(f"kqlint: internal error: {type(exc).__name__}: {exc}; {BUG_HINT}")
    return 3


def _ignore_unraisable(_: Any) -> None:
    """Errors in finalizers (out of memory while unwinding) are not the user's business."""


def _out_of_memory(exc: BaseException) -> bool:
    seen = 0
    current: BaseException | None = exc
    while current is not None and seen < 10:
        if isinstance(current, MemoryError):
            return True
        current, seen = current.__cause__ or current.__context__, seen + 1
    return False


def _system_exit_code(code: Any) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    _err(str(code))
    return 2


def _err(message: str) -> None:
    from kqlint.sanitize import error_line

    try:
        sys.stderr.write(error_line(message.replace("\n", " ")) + "\n")
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):
        pass


def entry() -> None:
    status = main()
    sys.unraisablehook = _ignore_unraisable  # finalizers at shutdown print nothing either
    sys.exit(status)


if __name__ == "__main__":
    entry()
