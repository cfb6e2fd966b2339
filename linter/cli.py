"""The ``kqlint`` command (typer). The only error boundary: usage/config errors exit 2,
internal errors print one line naming the file and exit 3; never a traceback.

Imports stay lazy: ``kqlint check`` on a plain run loads the engine, the rules and the
one reporter it needs, nothing else (no jsonschema, no SARIF machinery).
"""
from __future__ import annotations

import os
import sys
from typing import Any, List, Optional

import typer

from kqlint import __version__

FORMATS = ("text", "json", "sarif", "github", "junit")
GRAPH_FORMATS = ("tree", "dot", "mermaid", "json")
RULES_FORMATS = ("text", "json", "markdown")
FAIL_ON = ("error", "warning", "info", "never")
STDOUT = "-"
BUG_HINT = "this is a bug in kqlint: please report it at https://github.com/kqlint/kqlint/issues with the file that triggers it"

app = typer.Typer(add_completion=False, no_args_is_help=True, rich_markup_mode=None,
                  help="Lint Kubernetes manifests for Kueue and gang-scheduling mistakes.",
                  pretty_exceptions_enable=False,
                  context_settings={"help_option_names": ["-h", "--help"]})


class Exit(Exception):
    """Leave with ``code`` after printing ``message`` (one line) to stderr."""

    def __init__(self, code: int, message: str = "") -> None:
        super().__init__(message)
        self.code, self.message = code, message


class Crash(Exception):
    """An unexpected exception while processing ``where`` (a file, a folder, a report)."""

    def __init__(self, where: str, error: BaseException) -> None:
        super().__init__(f"{type(error).__name__}: {error}")
        self.where = where


def _version(value: bool) -> None:
    if value:
        typer.echo(f"kqlint {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(version: bool = typer.Option(False, "--version", "-V", callback=_version, is_eager=True,
                                       help="Show the version and exit.")) -> None:
    """Lint Kubernetes manifests for Kueue and gang-scheduling mistakes.

    Exit status: 0 clean, 1 findings at or above --fail-on, 2 usage or configuration
    error, 3 internal error.
    """


# ------------------------------------------------------------------ helpers

def _load_config(config_file: Optional[str]) -> Any:
    from kqlint.config import ConfigError, discover_config, load_config

    if config_file and not os.path.isfile(config_file):
        raise Exit(2, f"kqlint: config file not found: {config_file}")
    path = config_file or discover_config()
    try:
        return load_config(path)
    except ConfigError:
        raise
    except Exception as exc:  # noqa: BLE001 - a bug while reading the config: name it, exit 3
        raise Crash(path or "the default configuration", exc) from exc


def _split(values: Optional[List[str]]) -> tuple[str, ...]:
    return tuple(part.strip() for value in values or () for part in value.split(",") if part.strip())


def _use_color(no_color: bool) -> bool:
    return not no_color and not os.environ.get("NO_COLOR") and sys.stdout.isatty()


def _targets(formats: list[str], outputs: list[str]) -> list[tuple[str, str]]:
    """Pair ``--format``/``--output`` by position; formats without an output go to stdout."""
    if not formats:
        formats = ["github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text"]
    for name in formats:
        if name not in FORMATS:
            raise Exit(2, f"kqlint: unknown --format {name!r} (choose from {', '.join(FORMATS)})")
    if len(outputs) > len(formats):
        raise Exit(2, "kqlint: more --output than --format options (they pair up by position)")
    pairs = [(name, outputs[i] if i < len(outputs) else STDOUT) for i, name in enumerate(formats)]
    if sum(1 for _, target in pairs if target == STDOUT) > 1:
        raise Exit(2, "kqlint: only one report can go to stdout; give the others an --output FILE")
    return pairs


def _fail_on(value: Optional[str], config: Any) -> Any:
    from kqlint.config import parse_fail_on

    if value is None:
        return config.fail_on
    if value not in FAIL_ON:
        raise Exit(2, f"kqlint: --fail-on must be one of {', '.join(FAIL_ON)}, not {value!r}")
    return parse_fail_on(value)


# ------------------------------------------------------------------ check

@app.command()
def check(
    paths: Optional[List[str]] = typer.Argument(None, metavar="PATH",
                                                help="Files and folders to lint (default: .); - reads one YAML stream from stdin."),
    format: Optional[List[str]] = typer.Option(None, "--format", "-f", metavar="FORMAT",
                                               help="text (default), json, sarif, github or junit; repeatable, pairs with --output."),
    output: Optional[List[str]] = typer.Option(None, "--output", "-o", metavar="FILE",
                                               help="Write the report of the matching --format here (- for stdout)."),
    select: Optional[List[str]] = typer.Option(None, "--select", metavar="CODES",
                                               help="Only these rules: comma-separated codes, slugs or prefixes (KQ1)."),
    ignore: Optional[List[str]] = typer.Option(None, "--ignore", metavar="CODES",
                                               help="Skip these rules: comma-separated codes, slugs or prefixes."),
    fail_on: Optional[str] = typer.Option(None, "--fail-on", metavar="SEVERITY",
                                          help="Lowest severity that exits 1: error, warning (default), info or never."),
    config_file: Optional[str] = typer.Option(None, "--config", metavar="FILE",
                                              help="Use this config file instead of discovery."),
    profile: Optional[str] = typer.Option(None, "--profile", metavar="NAME", help="Enable a built-in platform profile."),
    namespace: Optional[str] = typer.Option(None, "--namespace", metavar="NS",
                                            help="Namespace for namespaced objects that set none (default: default)."),
    context: Optional[List[str]] = typer.Option(None, "--context", metavar="PATH",
                                                help="Files/folders loaded only to resolve references; repeatable."),
    exclude: Optional[List[str]] = typer.Option(None, "--exclude", metavar="GLOB",
                                                help="Skip paths matching this glob; repeatable."),
    crd: Optional[List[str]] = typer.Option(None, "--crd", metavar="PATH",
                                            help="CRD file or folder whose schemas KQ002 validates against "
                                                 "(the versions your cluster runs); repeatable."),
    no_inline_suppressions: bool = typer.Option(False, "--no-inline-suppressions",
                                                help="Ignore annotation and comment suppressions."),
    report_suppressed: bool = typer.Option(False, "--report-suppressed",
                                           help="Also list suppressed findings, with their justification (json, sarif)."),
    report_unused_suppressions: bool = typer.Option(False, "--report-unused-suppressions",
                                                    help="Report suppressions that silenced nothing (info KQ000)."),
    baseline: Optional[str] = typer.Option(None, "--baseline", metavar="FILE",
                                           help="Report only findings that are not in this baseline file."),
    write_baseline: Optional[str] = typer.Option(None, "--write-baseline", metavar="FILE",
                                                 help="Write the current findings to this baseline file "
                                                      "(YAML; JSON when it ends in .json)."),
    no_color: bool = typer.Option(False, "--no-color", help="No colors (also when NO_COLOR is set or stdout is not a terminal)."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Print nothing when there are no findings."),
    statistics: bool = typer.Option(False, "--statistics", help="Per-rule counts at the end of the text report."),
    jobs: Optional[int] = typer.Option(None, "--jobs", "-j", metavar="N",
                                       help="Worker processes for parsing and rules (default: the number of CPUs)."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Neither read nor write the cache of parsed files."),
    cache_dir: Optional[str] = typer.Option(None, "--cache-dir", metavar="DIR", envvar="KQLINT_CACHE_DIR",
                                            help="Cache folder (default: .kqlint_cache in the project root; "
                                                 "also KQLINT_CACHE_DIR)."),
) -> None:
    """Lint files and folders (default: the current directory)."""
    from kqlint.explain import available_rules
    from kqlint.runner import exit_status

    config = _load_config(config_file)
    fail = _fail_on(fail_on, config)
    targets = _targets(list(format or []), list(output or []))
    rules = available_rules(config)
    config = config.with_overrides(
        select=_split(select) or None, ignore=(config.ignore + _split(ignore)) or None,
        profile=profile, namespace=namespace, exclude=(config.exclude + tuple(exclude or ())) or None,
        crds=(config.crds + tuple(crd or ())) or None)
    lint_rules = rules  # `rules` stay as registered: reports describe their defaults
    if report_unused_suppressions:
        from kqlint.suppress_audit import enable

        lint_rules, config = enable(rules, config)
    targets_paths = list(paths or ["."])
    if STDOUT in targets_paths and sys.stdin is None:
        raise Exit(2, "kqlint: `-` reads stdin, but there is no stdin")
    if jobs is not None and jobs < 1:
        raise Exit(2, "kqlint: --jobs must be 1 or more")
    _warn_if_slow_parser()
    report = _lint(targets_paths, config, tuple(context or ()), not no_inline_suppressions, lint_rules,
                   progress=not quiet, jobs=jobs, cache=_open_cache(no_cache, cache_dir, config, targets_paths))
    report = _apply_baseline(report, baseline, write_baseline, quiet)
    _write_reports(report, targets, no_color=no_color, quiet=quiet, statistics=statistics,
                   rules=rules, fail_on=fail, report_suppressed=report_suppressed)
    for line in report.internal_errors:
        typer.echo(f"kqlint: {line}; {BUG_HINT}", err=True)
    raise typer.Exit(exit_status(report, fail))


def _warn_if_slow_parser() -> None:
    from kqlint.loader import FAST_PATH

    if not FAST_PATH:
        _err("kqlint: warning: ruamel.yaml's C extension (ruamel.yaml.clib) is missing; parsing falls "
             "back to pure Python, about 10x slower: pip install 'ruamel.yaml[oldlibyaml]'")


def _open_cache(no_cache: bool, cache_dir: Optional[str], config: Any, paths: list[str]) -> Any:
    if no_cache or paths == [STDOUT]:
        return None
    from kqlint.cache import open_cache

    return open_cache(cache_dir, config.max_file_size)


def _lint(paths: list[str], config: Any, context: tuple[str, ...], inline: bool, rules: list[Any],
          progress: bool = False, jobs: Optional[int] = None, cache: Any = None) -> Any:
    from kqlint.config import ConfigError
    from kqlint.parallel import default_jobs
    from kqlint.progress import LoadProgress
    from kqlint.registry import RegistryError
    from kqlint.runner import InternalError, UsageError, lint

    try:
        with LoadProgress() as bar:  # shown only on a terminal, for runs of many files
            return lint(paths, config, context=context, inline_suppressions=inline, rules=rules,
                        progress=bar if progress else None, jobs=jobs or default_jobs(), cache=cache)
    except (UsageError, ConfigError, RegistryError, InternalError, Exit):
        raise
    except Exception as exc:  # noqa: BLE001 - named after what was being linted, then exit 3
        raise Crash(", ".join(paths), exc) from exc


def _apply_baseline(report: Any, baseline_file: Optional[str], write_file: Optional[str], quiet: bool) -> Any:
    """``--write-baseline``: accept every current finding; ``--baseline``: drop accepted ones."""
    if not baseline_file and not write_file:
        return report
    from kqlint import baseline

    try:
        if write_file:
            count = baseline.write(write_file, report.findings)
            if not quiet:
                _err(f"kqlint: wrote {count} finding(s) to the baseline {write_file}")
        accepted = baseline.load(write_file or baseline_file or "")
    except baseline.BaselineError as exc:
        raise Exit(2, f"kqlint: {exc}") from None
    return baseline.apply(report, accepted)[0]


def _write_reports(report: Any, targets: list[tuple[str, str]], *, no_color: bool, quiet: bool,
                   statistics: bool, **options: Any) -> None:
    from kqlint.reporters import render

    for name, target in targets:
        color = target == STDOUT and name == "text" and _use_color(no_color)
        try:
            text = render(name, report, color=color, quiet=quiet, statistics=statistics, **options)
        except Exception as exc:  # noqa: BLE001
            raise Crash(f"the {name} report", exc) from exc
        if target == STDOUT:
            sys.stdout.write(text)
            sys.stdout.flush()
            continue
        try:
            with open(target, "w", encoding="utf-8", newline="\n") as handle:
                handle.write(text)
        except OSError as exc:
            raise Exit(2, f"kqlint: cannot write {target}: {exc.strerror or exc}") from exc


# ------------------------------------------------------------------ rules / explain

@app.command()
def rules(
    format: str = typer.Option("text", "--format", "-f", metavar="FORMAT", help="text, json or markdown."),
    config_file: Optional[str] = typer.Option(None, "--config", metavar="FILE",
                                              help="Config file (adds plugin and custom rules)."),
) -> None:
    """List every rule: code, slug, default severity, enabled by default, summary."""
    from kqlint.explain import rules_json, rules_markdown, rules_table

    if format not in RULES_FORMATS:
        raise Exit(2, f"kqlint: unknown --format {format!r} (choose from {', '.join(RULES_FORMATS)})")
    config = _load_config(config_file)
    if format == "json":
        sys.stdout.write(rules_json(config))
    elif format == "markdown":
        sys.stdout.write(rules_markdown(config))
    else:
        sys.stdout.write(rules_table(config, _use_color(False)))


@app.command()
def explain(
    rule: str = typer.Argument(..., metavar="RULE", help="A rule code (KQ101) or slug (pod-preemption-enabled)."),
    config_file: Optional[str] = typer.Option(None, "--config", metavar="FILE",
                                              help="Config file (adds plugin and custom rules)."),
) -> None:
    """Show a rule's full documentation: what, why, bad and good examples, fix, suppression."""
    from kqlint.explain import explain_text

    text = explain_text(rule, _load_config(config_file))
    if text is None:
        raise Exit(2, f"kqlint: unknown rule {rule!r}; `kqlint rules` lists them")
    sys.stdout.write(text)


# ------------------------------------------------------------------ graph

@app.command()
def graph(
    paths: Optional[List[str]] = typer.Argument(None, metavar="PATH", help="Files and folders (default: .); - reads stdin."),
    format: str = typer.Option("tree", "--format", "-f", metavar="FORMAT", help="tree (default), dot, mermaid or json."),
    output: Optional[str] = typer.Option(None, "--output", "-o", metavar="FILE", help="Write the graph here."),
    with_findings: bool = typer.Option(False, "--with-findings", help="Lint too, and mark the findings on their objects."),
    config_file: Optional[str] = typer.Option(None, "--config", metavar="FILE",
                                              help="Use this config file instead of discovery."),
    profile: Optional[str] = typer.Option(None, "--profile", metavar="NAME", help="Enable a built-in platform profile."),
    namespace: Optional[str] = typer.Option(None, "--namespace", metavar="NS",
                                            help="Namespace for namespaced objects that set none (default: default)."),
    context: Optional[List[str]] = typer.Option(None, "--context", metavar="PATH",
                                                help="Files/folders loaded only to resolve references; repeatable."),
    exclude: Optional[List[str]] = typer.Option(None, "--exclude", metavar="GLOB", help="Skip paths matching this glob."),
    no_color: bool = typer.Option(False, "--no-color", help="No colors in the tree."),
) -> None:
    """Show the resolved object graph: workloads -> LocalQueue -> ClusterQueue -> ResourceFlavors
    and cohort, their WorkloadPriorityClasses and PriorityClasses, PodGroups and TrainJob
    runtimes. Unresolved references are marked as such."""
    from kqlint.graph_export import command

    if format not in GRAPH_FORMATS:
        raise Exit(2, f"kqlint: unknown --format {format!r} (choose from {', '.join(GRAPH_FORMATS)})")
    config = _load_config(config_file).with_overrides(
        profile=profile, namespace=namespace, exclude=(tuple(exclude or ())) or None)
    targets = list(paths or ["."])
    color = output is None and format == "tree" and _use_color(no_color)
    text = command(targets, config, tuple(context or ()), format, with_findings, color)
    if output is None:
        sys.stdout.write(text)
        return
    try:
        with open(output, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
    except OSError as exc:
        raise Exit(2, f"kqlint: cannot write {output}: {exc.strerror or exc}") from exc


# ------------------------------------------------------------------ cache

cache_app = typer.Typer(help="The cache of parsed files (.kqlint_cache in the project root).", no_args_is_help=True)
app.add_typer(cache_app, name="cache")


@cache_app.command("clean")
def cache_clean(cache_dir: Optional[str] = typer.Option(None, "--cache-dir", metavar="DIR", envvar="KQLINT_CACHE_DIR",
                                                        help="Cache folder (default: .kqlint_cache in the project root).")
                ) -> None:
    """Remove the cache folder."""
    from kqlint.cache import clean, default_cache_dir

    directory = os.path.abspath(cache_dir) if cache_dir else default_cache_dir()
    try:
        removed = clean(directory)
    except OSError as exc:
        raise Exit(2, f"kqlint: {exc}") from None
    typer.echo(f"kqlint: {'removed' if removed else 'no cache at'} {directory}")


# ------------------------------------------------------------------ entry point

def main(argv: Optional[List[str]] = None) -> int:
    """Run the CLI and return the exit status (0/1/2/3). Never raises, never prints a traceback."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        app(args=args, prog_name="kqlint", standalone_mode=True)
        return 0
    except SystemExit as exc:  # typer/click finish with sys.exit (usage errors: 2)
        return _system_exit_code(exc.code)
    except BaseException as exc:  # noqa: BLE001 - the one boundary that keeps tracebacks from users
        return _handle(exc)


def _handle(exc: BaseException) -> int:
    from kqlint.config import ConfigError
    from kqlint.registry import RegistryError
    from kqlint.runner import InternalError, UsageError

    if isinstance(exc, Exit):
        if exc.message:
            _err(exc.message)
        return exc.code
    if isinstance(exc, (ConfigError, RegistryError, UsageError)):
        _err(f"kqlint: {exc}")
        return 2
    if isinstance(exc, KeyboardInterrupt):
        return 130
    if isinstance(exc, BrokenPipeError):
        return 0
    if isinstance(exc, (InternalError, Crash)):
        where = getattr(exc, "file", None) or getattr(exc, "where", "?")
        _err(f"kqlint: internal error while processing {where}: {exc}; {BUG_HINT}")
        return 3
    if not isinstance(exc, Exception):
        raise exc
    _err(f"kqlint: internal error: {type(exc).__name__}: {exc}; {BUG_HINT}")
    return 3


def _system_exit_code(code: Any) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    _err(str(code))
    return 2


def _err(message: str) -> None:
    try:
        sys.stderr.write(message.replace("\n", " ") + "\n")
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):
        pass


def entry() -> None:
    sys.exit(main())


if __name__ == "__main__":
    entry()
