"""``kqlint check``: its options, the order of a run (configuration, preflight, lint or fix,
then the report: :mod:`kqlint.cli.reporting`) and the exit status."""
from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import typer
from kqlint.cli import complete
from kqlint.cli.app import BUG_HINT, STDOUT, Exit, err
from kqlint.cli.options import (
    allow_plugins_option,
    allow_remote_bases_option,
    check_excludes,
    color_option,
    config_option,
    context_option,
    exclude_option,
    fail_on_level,
    kustomize_option,
    load_config,
    namespace_option,
    no_config_option,
    profile_option,
    report_targets,
    split,
    use_color,
)

if TYPE_CHECKING:
    from kqlint.config import Config


def check(
    paths: list[str] | None = typer.Argument(None, metavar="[PATH]...",
                                                help="Files and folders to lint (default: .); "
                                                     "- reads one YAML stream from stdin."),
    format: list[str] | None = typer.Option(None, "--format", "-f", metavar="FORMAT",
                                               autocompletion=complete.report_formats,
                                               help="text (default), concise, json, sarif, github, junit or gitlab; "
                                                    "repeatable, pairs with --output."),
    output_format: str | None = typer.Option(None, "--output-format", metavar="FORMAT",
                                                autocompletion=complete.output_formats,
                                                help="full (the text report) or concise (one finding per line), "
                                                     "or any --format; config: output-format."),
    output: list[str] | None = typer.Option(None, "--output", "-o", metavar="FILE",
                                               help="Write the report of the matching --format here (- for stdout); "
                                                    "without --format the file name picks it "
                                                    "(.json, .sarif, .xml, .txt)."),
    select: list[str] | None = typer.Option(None, "--select", metavar="CODES", autocompletion=complete.rule_list,
                                               help="Only these rules: comma-separated codes, slugs "
                                                    "or prefixes (KQ1)."),
    ignore: list[str] | None = typer.Option(None, "--ignore", metavar="CODES", autocompletion=complete.rule_list,
                                               help="Skip these rules: comma-separated codes, slugs or prefixes."),
    fail_on: str | None = typer.Option(None, "--fail-on", metavar="SEVERITY", autocompletion=complete.fail_on,
                                          help="Lowest severity that exits 1: error, warning (default), "
                                               "info or never."),
    config_file: str | None = config_option(),
    no_config: bool = no_config_option(),
    profile: str | None = profile_option(),
    namespace: str | None = namespace_option(),
    context: list[str] | None = context_option(),
    exclude: list[str] | None = exclude_option("Skip paths matching this glob; repeatable."),
    force_exclude: bool | None = typer.Option(None, "--force-exclude/--no-force-exclude",
                                                 help="Skip excluded files named on the command line without a "
                                                      "warning (pre-commit names them); config: force-exclude."),
    stdin_filename: str | None = typer.Option(None, "--stdin-filename", metavar="PATH",
                                                 help="Report findings read from stdin (-) against this path; Helm "
                                                      "`# Source:` comments name each document's template otherwise."),
    kustomize: list[str] | None = kustomize_option("Lint this kustomization as `kubectl kustomize DIR` renders it, "
                                                   "findings mapped back to source files; repeatable."),
    allow_remote_bases: bool = allow_remote_bases_option(),
    crd: list[str] | None = typer.Option(None, "--crd", metavar="PATH",
                                            help="CRD file or folder whose schemas KQ002 validates against "
                                                 "(the versions your cluster runs); repeatable."),
    no_inline_suppressions: bool = typer.Option(False, "--no-inline-suppressions",
                                                help="Ignore annotation and comment suppressions."),
    report_suppressed: bool = typer.Option(False, "--report-suppressed",
                                           help="Also list suppressed findings, with their justification "
                                                "(json, sarif)."),
    report_unused_suppressions: bool = typer.Option(False, "--report-unused-suppressions",
                                                    help="Report every suppression that silenced nothing (info KQ000), "
                                                         "not only comments one line off their finding."),
    baseline: str | None = typer.Option(None, "--baseline", metavar="FILE",
                                           help="Report only findings that are not in this baseline file."),
    write_baseline: str | None = typer.Option(None, "--write-baseline", metavar="FILE",
                                                 help="Write the current findings to this baseline file "
                                                      "(YAML; JSON when it ends in .json)."),
    no_color: bool = typer.Option(False, "--no-color",
                                  help="No colors (also when NO_COLOR is set or stdout is not a terminal)."),
    color: str | None = color_option("auto (default: a terminal, unless NO_COLOR; FORCE_COLOR forces it), "
                                     "always or never."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Print nothing when there are no findings."),
    statistics: bool = typer.Option(False, "--statistics", help="Per-rule counts at the end of the text report."),
    jobs: int | None = typer.Option(None, "--jobs", "-j", metavar="N",
                                       help="Worker processes for parsing and rules (default: the number of CPUs)."),
    allow_plugins: bool = allow_plugins_option(),
    follow_external_symlinks: bool = typer.Option(
        False, "--follow-external-symlinks",
        help="Also read files (and config context:/crds: paths) that resolve outside the repository."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Neither read nor write the cache of parsed files."),
    cache_dir: str | None = typer.Option(None, "--cache-dir", metavar="DIR", envvar="KQLINT_CACHE_DIR",
                                            help="The folder kqlint keeps its own cache folder (kqlint/) in "
                                                 "(default: $XDG_CACHE_HOME, else ~/.cache; also KQLINT_CACHE_DIR)."),
    fix: bool = typer.Option(False, "--fix", help="Apply safe fixes to the input files, then report what is left."),
    unsafe_fixes: bool = typer.Option(False, "--unsafe-fixes",
                                      help="Also apply unsafe fixes (they change what a workload does)."),
    diff: bool = typer.Option(False, "--diff", help="Print a unified diff of what --fix would change; write "
                                                    "nothing; exit 1 when there is a change."),
    fix_only: bool = typer.Option(False, "--fix-only", help="Apply fixes and report nothing else."),
    show_settings: bool = typer.Option(False, "--show-settings",
                                       help="Print the resolved configuration, rules, context and each unit's "
                                            "platform model (where each fact came from), then exit 0 without "
                                            "linting; --format json for JSON."),
    show_files: bool = typer.Option(False, "--show-files",
                                    help="Print the input and context files the run would read, one per line, "
                                         "then exit 0 without linting; --format json for JSON."),
    add_noqa: bool = typer.Option(False, "--add-noqa",
                                  help="Write a `# kqlint: ignore[CODE]` comment where each current finding is, "
                                       "then report what is left."),
) -> None:
    """Lint files and folders (default: the current directory)."""
    from kqlint.cli.progress import guarded_lint
    from kqlint.cli.reporting import apply_baseline, report_stderr_lines, with_text_fixes, write_reports
    from kqlint.engine.pipeline import Pipeline
    from kqlint.engine.registry import load_rules
    from kqlint.engine.runner import exit_status

    config = load_config(config_file, no_config, allow_plugins)
    fail = fail_on_level(fail_on, config)
    color_on = use_color(no_color, color)
    targets = report_targets(list(format or []) + ([output_format] if output_format else []), list(output or []),
                             config.output_format)
    rules = load_rules(config)
    config = config.with_overrides(
        select=split(select) or None, ignore=(config.ignore + split(ignore)) or None,
        profile=profile, namespace=namespace, exclude=(config.exclude + tuple(exclude or ())) or None,
        force_exclude=force_exclude,
        crds=(config.crds + tuple(crd or ())) or None, stdin_filename=stdin_filename,
        follow_external_symlinks=follow_external_symlinks or None)
    check_excludes(config.exclude)
    lint_rules = rules  # `rules` stay as registered: reports describe their defaults
    if report_unused_suppressions:
        from kqlint.engine.registry import enable

        lint_rules, config = enable(rules, config, "KQ000")
        config = config.with_overrides(rules={**config.rules, "KQ000": {**config.rules.get("KQ000", {}),
                                                                       "report-all": True}})
    targets_paths = list(paths or ["."])
    if STDOUT in targets_paths and sys.stdin is None:
        raise Exit(2, "kqlint: `-` reads stdin, but there is no stdin")
    if jobs is not None and jobs < 1:
        raise Exit(2, "kqlint: --jobs must be 1 or more")
    _warn_if_slow_parser()
    from kqlint.cli import preflight

    try:
        preflight.check(targets_paths, config, tuple(context or ()), err, rules)
    except preflight.PreflightError as exc:
        raise Exit(2, f"kqlint: {exc}") from None
    if show_settings or show_files:  # print what the run would use, exit 0 (kqlint.cli.show)
        from kqlint.cli.show import ShowRequest, show

        show(ShowRequest(show_settings, show_files, bool(kustomize), targets_paths, tuple(context or ()),
                         list(format or []) + ([output_format] if output_format else []), list(output or []),
                         config_file, no_config, no_cache, cache_dir), Pipeline(config, lint_rules), fail)
        raise typer.Exit(0)
    if add_noqa:
        if fix or diff or fix_only or kustomize or write_baseline or no_inline_suppressions or STDOUT in targets_paths:
            raise Exit(2, "kqlint: --add-noqa writes comments into the files it lints: it takes no `-` and does "
                          "not combine with --fix, --diff, --fix-only, --kustomize, --write-baseline or "
                          "--no-inline-suppressions")
        from kqlint.cli.noqa import add_noqa_run

        cache = _open_cache(no_cache, cache_dir, config, targets_paths)
        pipeline = Pipeline(config, lint_rules, cache=cache)
        report = add_noqa_run(lambda: guarded_lint(pipeline, targets_paths, tuple(context or ()),
                                                    True, progress=False, jobs=_jobs(jobs)),
                              lambda found: apply_baseline(found, baseline, None, True), err, quiet)
    elif fix or diff or fix_only:
        if kustomize:
            raise Exit(2, "kqlint: --fix, --diff and --fix-only do not combine with --kustomize; fix the sources")
        if STDOUT in targets_paths and len(targets_paths) > 1:  # the stream's fixes are not a file's
            raise Exit(2, "kqlint: --fix, --diff and --fix-only take `-` alone (the fixed stream goes to stdout); "
                          "fix the stream and the files in separate runs")
        from kqlint.cli.fix import FixRequest, run_fixes

        cache = _open_cache(no_cache, cache_dir, config, targets_paths)
        request = FixRequest(targets_paths, Pipeline(config, lint_rules, cache=cache), tuple(context or ()),
                             not no_inline_suppressions, unsafe_fixes, diff, fix_only, quiet, _jobs(jobs))
        fixed, code = run_fixes(request, err)
        if code is not None or fixed is None:
            raise typer.Exit(code or 0)
        report = fixed
    elif kustomize:
        cache = None
        report = Pipeline(config, lint_rules).lint_rendered(list(kustomize), list(paths or []),
                                                            context=tuple(context or ()),
                                                            inline=not no_inline_suppressions,
                                                            allow_remote=allow_remote_bases)
    else:
        cache = _open_cache(no_cache, cache_dir, config, targets_paths)
        if cache is not None:
            cache.writes_later = True  # written while the fixes' text is worked out (below)
        report = guarded_lint(Pipeline(config, lint_rules, cache=cache), targets_paths, tuple(context or ()),
                              not no_inline_suppressions, progress=not quiet, jobs=_jobs(jobs))
    try:
        report_stderr_lines(report, targets_paths, quiet, config)
        report = with_text_fixes(report, config, cache, _jobs(jobs), beside=cache.write if cache else None)
    finally:
        if cache is not None:
            cache.write()
    report = apply_baseline(report, baseline, write_baseline, quiet)
    if fix and targets_paths == [STDOUT]:  # the fixed stream is on stdout: the report goes to stderr
        targets = [(name, "/dev/stderr" if target == STDOUT else target) for name, target in targets]
    write_reports(report, targets, color=color_on, quiet=quiet, statistics=statistics,
                  rules=rules, fail_on=fail, report_suppressed=report_suppressed, unsafe_fixes=unsafe_fixes)
    for line in report.internal_errors:
        err(f"kqlint: {line}; {BUG_HINT}")
    raise typer.Exit(exit_status(report, fail))


def _warn_if_slow_parser() -> None:
    from kqlint.loader import FAST_PATH

    if not FAST_PATH:
        err("kqlint: warning: ruamel.yaml's C extension (ruamel.yaml.clib) is missing; parsing falls "
             "back to pure Python, about 10x slower: pip install 'ruamel.yaml[oldlibyaml]'")


def _open_cache(no_cache: bool, cache_dir: str | None, config: Config, paths: list[str]) -> Any:
    if no_cache or paths == [STDOUT]:
        return None
    from kqlint.cache import open_cache

    return open_cache(cache_dir, config.max_file_size)


def _jobs(jobs: int | None) -> int:
    from kqlint.engine.parallel import default_jobs

    return jobs or default_jobs()
