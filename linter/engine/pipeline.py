"""The one pipeline of every command: load -> scope -> graph -> rules -> suppress -> report.

``kqlint check`` (and each pass of ``--fix``), ``--kustomize``, ``kqlint graph`` and the
language server's buffer lint build one :class:`Pipeline` from the run's configuration and
rules: it contains the configuration (``context:``/``crds:`` outside the repository) and
checks it once, knows the folder its paths are shown from and the cache it may use, and runs
the same stages for each of them.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from kqlint.config import Config, check_rule_names
from kqlint.domain.graph import ObjectGraph
from kqlint.domain.objects import INPUT, K8sObject
from kqlint.engine.analysis import analyze
from kqlint.engine.inputs import (
    FixPasses,
    Loaded,
    context_beyond_inputs,
    context_paths,
    context_without,
    load_context,
    load_paths,
)
from kqlint.engine.registry import RuleSet
from kqlint.engine.rule import Rule
from kqlint.engine.runner import select_rules
from kqlint.errors import CrdError, UsageError
from kqlint.model import Location, Report
from kqlint.project.discover import Discovery

if TYPE_CHECKING:
    from kqlint.cache import FileCache
    from kqlint.cache.findings import Reuse
    from kqlint.domain.pins import Pin
    from kqlint.engine.survey import ContextChoice, RunFiles, UnitModel
    from kqlint.loader import SourceFile
    from kqlint.project.scope.units import Scope

Progress = Callable[[int, int], None]


class Pipeline:
    """One run's configuration, rules, working folder and cache, and the stages they drive."""

    def __init__(self, config: Config | None = None, rules: Iterable[Rule] | None = None, *,
                 cache: FileCache | None = None, workdir: str | None = None) -> None:
        """``rules``: every rule the run may select (default: those the configuration loads);
        ``workdir``: the folder paths are shown from (default: the current directory)."""
        from kqlint.project.containment import contain_config
        from kqlint.project.workdir import working_in

        self.workdir = workdir
        with working_in(workdir):
            config, self.notes = contain_config(config or Config())
            self.config, self.selected = prepare(config, rules)
        self.cache = cache
        self._passes: FixPasses | None = None

    @contextmanager
    def fix_passes(self) -> Iterator[None]:
        """Within the block, the lints are the passes of one ``--fix`` run: a file read with the
        same bytes as in an earlier pass is not parsed again, and the findings of pure rules on
        its objects are reused (kqlint.engine.inputs.FixPasses)."""
        previous, self._passes = self._passes, FixPasses()
        try:
            yield
        finally:
            self._passes = previous

    @contextmanager
    def _working(self) -> Iterator[None]:
        from kqlint.project.workdir import working_in

        with working_in(self.workdir):
            yield

    # ------------------------------------------------------------ entry points

    def lint(self, paths: list[str], *, context: Iterable[str] = (), inline: bool = True,
             auto_context: bool = True, progress: Progress | None = None, jobs: int = 1) -> Report:
        """``kqlint check paths``: with ``auto_context``, files named alone (as pre-commit
        passes them) get their repository's manifests as context."""
        with self._working():
            named, note = context_paths(paths, context, self.config, auto_context)
            notes = self.notes + ([note] if note else [])
            if self.cache is None:
                return self._lint_files(paths, named, inline, progress, jobs, notes)
            from kqlint.cache.run import RunReport

            beyond = context_beyond_inputs(named, paths)
            stored = RunReport(self.cache, paths, named, beyond, self.config, list(self.selected), inline)
            report = stored.stored()
            if report is None:
                try:
                    report = self._lint_files(paths, named, inline, progress, jobs, notes, stored.findings)
                except BaseException:
                    stored.abandon()
                    raise
                stored.store(report)
            _remember_reads(self.cache, paths, beyond, self.config)
            return report

    def lint_text(self, path: str, raw: bytes, context: KeptContext, inline: bool = True) -> Report:
        """What ``lint([path])`` reports once ``raw`` is saved as the file ``path`` (an editor's
        unsaved buffer), against ``context`` (kept between keystrokes)."""
        with self._working():
            inputs, found = load_paths([path], self.config, INPUT, texts={_absolute(path): raw})
            _refuse_missing(found)
            context_objects = context_without(context.loaded.objects, inputs)
            return analyze(inputs, found, context_objects, self.config, self.selected, inline,
                           scope=context.scope(inputs.objects + context_objects, self.config),
                           file_pins=context.pins(path, self.config))

    def context_of(self, path: str) -> tuple[str, ...]:
        """The context paths a lint of the file ``path`` reads."""
        with self._working():
            named, _ = context_paths([path], (), self.config)
            return tuple(named)

    def keep_context(self, named: tuple[str, ...], cache: FileCache | None = None) -> KeptContext:
        """The context ``named`` (context_of), loaded once (through ``cache``, opened afresh so
        that it sees the files on disk now) to be kept between lints."""
        with self._working():
            return KeptContext(load_context(list(named), self.config, Loaded(), cache=cache), named)

    def lint_rendered(self, directories: list[str], paths: list[str], *, context: Iterable[str] = (),
                      inline: bool = True, allow_remote: bool = False) -> Report:
        """``kqlint check --kustomize DIR``: the objects ``kubectl kustomize`` renders from each
        of ``directories`` (and the plain ``paths``), with the context a plain run of them has,
        findings mapped back to the files the objects came from. ``allow_remote``: kubectl may
        fetch the remote bases the kustomizations name (refused otherwise)."""
        from kqlint.project.kustomize import map_to_origins

        with self._working():
            run = self._rendered(directories, paths, context, allow_remote)
            report = self._analyze(run, inline)
            return map_to_origins(replace(report, notes=run.notes), run.inputs.objects)

    def graph(self, paths: list[str], *, context: Iterable[str] = (), kustomize: list[str] | None = None,
              allow_remote: bool = False) -> GraphView:
        """``kqlint graph``: the graphs ``check`` judges (one per unit) of ``paths`` (plus context,
        external and profile objects), or of what ``kubectl kustomize`` renders from each of
        ``kustomize`` (as ``lint_rendered``), with the report of that lint (stdin is read once)."""
        from kqlint.project.kustomize import map_to_origins, origin_places

        graphs: list[ObjectGraph] = []
        with self._working():
            if kustomize:
                run = self._rendered(kustomize, paths, context, allow_remote)
                report = replace(self._analyze(run, True, graphs), notes=run.notes)
                return GraphView(graphs, report, map_to_origins(report, run.inputs.objects),
                                 origin_places(run.inputs.objects))
            inputs, found = load_paths(paths, self.config, INPUT)
            _refuse_missing(found)
            named, _ = context_paths(paths, context, self.config)
            context_loaded = load_context(named, self.config, inputs, input_paths=paths)
            report = analyze(inputs, found, context_loaded.objects, self.config, self.selected, graphs=graphs,
                             file_pins=_file_pins([*paths, *named], self.config))
            return GraphView(graphs, report, report)

    def queue_graph(self, paths: list[str], *, context: Iterable[str] = (), kustomize: Iterable[str] = (),
                    allow_remote: bool = False) -> tuple[ObjectGraph, Callable[[Location], Location] | None]:
        """``kqlint simulate``: one graph of the inputs (without patch fragments), or of what
        ``kubectl kustomize`` renders from each of ``kustomize`` (as ``lint_rendered``), and the
        context they may resolve to (nothing from units that hold no input), its platform model
        with the versions the repository pins: every input workload queued together. Second:
        where a rendered object's position came from (None without ``kustomize``)."""
        from kqlint.engine.analysis import build_graph, run_pins, scoped

        place: Callable[[Location], Location] | None = None
        with self._working():
            if kustomize:
                from kqlint.project.kustomize import origin_places  # only a rendered run maps positions

                run = self._rendered(list(kustomize), paths, context, allow_remote)
                inputs, context_objects, pin_paths = run.inputs, run.context.objects, run.pin_paths
                place = origin_places(inputs.objects)
            else:
                inputs, found = load_paths(paths, self.config, INPUT)
                _refuse_missing(found)
                named, _ = context_paths(paths, context, self.config)
                context_objects = load_context(named, self.config, inputs, input_paths=paths).objects
                pin_paths = [*paths, *named]
            scope, inputs, kept = scoped(inputs, context_objects, self.config)
            units = {scope.unit_of(obj.file) for obj in inputs.objects} | {None}
            kept = [obj for obj in kept if scope.unit_of(obj.file) in units]
            pins = run_pins(inputs.objects + kept, _file_pins(pin_paths, self.config))
            graph = build_graph(inputs, kept, self.config, pins=pins)
            return graph, place

    def _rendered(self, directories: list[str], paths: list[str], context: Iterable[str],
                  allow_remote: bool) -> RenderedRun:
        """The plain ``paths``, the objects rendered from ``directories`` and the context of a
        ``--kustomize`` run (kqlint.project.kustomize: remote bases refused unless ``allow_remote``,
        no cluster configuration, the stream bounded by ``max-file-size``)."""
        from kqlint.engine.inputs import add_source
        from kqlint.project.kustomize import KustomizeError, rendered_sources

        inputs, found = load_paths(paths, self.config, INPUT) if paths else (Loaded(), Discovery())
        _refuse_missing(found)
        written = len(inputs.objects)
        rendered_notes: list[str] = []
        for directory in directories:
            try:
                sources, notes = rendered_sources(directory, self.config.max_file_size, allow_remote)
            except KustomizeError as exc:
                raise UsageError(str(exc)) from None
            for source in sources:
                add_source(inputs, directory, source, self.config, INPUT)
            rendered_notes += notes
        named, note = context_paths(paths, context, self.config, rendered=directories)
        context_loaded = load_context(named, self.config, inputs, input_paths=paths)
        notes = self.notes + rendered_notes + ([note] if note else []) + inputs.notes + context_loaded.notes
        return RenderedRun(inputs, found, context_loaded, frozenset(id(obj) for obj in inputs.objects[written:]),
                           tuple(dict.fromkeys(notes)), [*directories, *paths, *named])

    def _analyze(self, run: RenderedRun, inline: bool, graphs: list[ObjectGraph] | None = None) -> Report:
        return analyze(run.inputs, run.found, run.context.objects, self.config, self.selected, inline,
                       as_rendered=run.as_rendered, graphs=graphs,
                       file_pins=_file_pins(run.pin_paths, self.config, self.cache))

    def files(self, paths: list[str], *, context: Iterable[str] = ()) -> RunFiles:
        """``kqlint check --show-files``: the input and context files ``lint(paths)`` reads,
        found as it finds them; nothing is read."""
        from kqlint.engine.survey import run_files

        with self._working():
            return run_files(paths, context, self.config)

    def survey(self, paths: list[str], *, context: Iterable[str] = ()) -> tuple[ContextChoice, list[UnitModel]]:
        """``kqlint check --show-settings``: the context ``lint(paths)`` reads and why, and each
        unit's platform model and Kueue-managed facts, from the objects it loads; no rule runs."""
        from kqlint.engine.survey import choose_context, unit_models

        with self._working():
            inputs, found = load_paths(paths, self.config, INPUT)
            _refuse_missing(found)
            choice = choose_context(paths, context, self.config)
            context_loaded = load_context(list(choice.paths), self.config, inputs, input_paths=paths)
            return choice, unit_models(inputs, context_loaded.objects, self.config,
                                       _file_pins([*paths, *choice.paths], self.config))

    # ------------------------------------------------------------ stages

    def _lint_files(self, paths: list[str], named_context: list[str], inline: bool, progress: Progress | None,
                    jobs: int, notes: list[str], stored: Reuse | None = None) -> Report:
        from kqlint.engine.lifetime import keep

        passes = self._passes
        inputs, found = load_paths(paths, self.config, INPUT, progress, jobs, cache=self.cache, passes=passes)
        _refuse_missing(found)
        context_loaded = load_context(named_context, self.config, inputs, jobs, self.cache, input_paths=paths,
                                      passes=passes)
        reusable = stored or (passes.findings if passes is not None else None)
        report = analyze(inputs, found, context_loaded.objects, self.config, self.selected, inline, jobs,
                         stored=reusable, file_pins=_file_pins([*paths, *named_context], self.config, self.cache))
        keep(inputs, context_loaded, self.cache)  # a command exits without freeing them
        notes = notes + inputs.notes + context_loaded.notes
        return replace(report, notes=tuple(dict.fromkeys(notes))) if notes else report


@dataclass
class RenderedRun:
    """What a ``--kustomize`` run loaded: the inputs (rendered objects among them), the context,
    the ids of the rendered objects, the notes to print and the paths whose files may pin Kueue."""

    inputs: Loaded
    found: Discovery
    context: Loaded
    as_rendered: frozenset[int]
    notes: tuple[str, ...]
    pin_paths: list[str]


@dataclass
class GraphView:
    """What ``kqlint graph`` shows: the graph of every unit the rules ran on, the report of that
    run with positions in the graphs' objects (what references are matched against), the same
    report as ``check`` shows it (``--kustomize``: mapped back to the source files), and where
    a rendered object's position lies in its source file (None: the objects are the files')."""

    graphs: list[ObjectGraph]
    report: Report
    shown: Report
    place: Callable[[Location], Location] | None = None


@dataclass
class KeptContext:
    """A run's context read once and what is worked out from it and the files on disk alone,
    kept between lints of unsaved buffers (kqlint.server); made again when a file changes on disk."""

    loaded: Loaded
    named: tuple[str, ...] = ()  # the context paths it was loaded from
    _scopes: dict[frozenset[str], Scope] = field(default_factory=dict)
    _pins: dict[str, tuple[Pin, ...]] = field(default_factory=dict)

    def pins(self, path: str, config: Config) -> tuple[Pin, ...]:
        """The Kueue versions the pin files of ``path`` and the context pin (read once)."""
        if path not in self._pins:
            self._pins[path] = _file_pins([path, *self.named], config)
        return self._pins[path]

    def scope(self, objects: list[K8sObject], config: Config) -> Scope:
        """scope_of(objects): the same files (an edited buffer's among them) make the same Scope."""
        from kqlint.project.scope import scope_of

        files = frozenset(obj.file for obj in objects)
        if files not in self._scopes:
            self._scopes = {files: scope_of(objects, config)}
        return self._scopes[files]


def lint(paths: list[str], config: Config | None = None, *, context: Iterable[str] = (),
         inline_suppressions: bool = True, rules: Iterable[Rule] | None = None,
         auto_context: bool = True, progress: Progress | None = None,
         jobs: int = 1, cache: FileCache | None = None) -> Report:
    """Lint ``paths`` and return the Report (the public Python API, ``kqlint.lint``).
    ``progress(done, total)`` is called as input files are loaded; ``jobs`` > 1 forks worker
    processes for parsing and per-object rules; ``cache`` skips parsing files that did not change."""
    return Pipeline(config, rules, cache=cache).lint(paths, context=context, inline=inline_suppressions,
                                                     auto_context=auto_context, progress=progress, jobs=jobs)


def prepare(config: Config | None, rules: Iterable[Rule] | None = None) -> tuple[Config, RuleSet]:
    """The checked config and the rules it selects (ConfigError/UsageError: exit 2);
    ``rules`` default to every rule the config loads (kqlint.engine.registry.load_rules)."""
    from kqlint.config import per_file
    from kqlint.engine.registry import load_rules

    config = config or Config()
    loaded = load_rules(config) if rules is None else RuleSet.of(rules)
    config = check_rule_names(config, loaded)  # unknown rule names/options: ConfigError (exit 2)
    per_file.check_names(config, loaded)
    _check_crds(config)
    return config, select_rules(loaded, config)


def _file_pins(paths: list[str], config: Config, cache: FileCache | None = None) -> tuple[Pin, ...]:
    """The Kueue versions the run's kustomizations and values files pin, each file read
    through ``cache`` when the run has one (an unchanged file is not read again)."""
    from kqlint.project.scope.pins import file_pins, pin_files, pins_in

    if cache is None:
        return file_pins(paths, config)
    return pins_in(_read_through(path, cache, config) for path in pin_files(paths, config))


def _read_through(path: str, cache: FileCache, config: Config) -> SourceFile:
    """``path`` parsed: served by ``cache``, or from the bytes it read, or from disk."""
    from kqlint.cache import Miss
    from kqlint.loader import SourceFile, load_file, parse_bytes
    from kqlint.project.discover import display_path

    display = display_path(path)
    found = cache.lookup(path, display, lazy=False)
    if isinstance(found, SourceFile):
        return found
    if isinstance(found, Miss) and found.raw is not None:
        return parse_bytes(display, found.raw)
    return load_file(path, display, config.max_file_size)


def _refuse_missing(found: Discovery) -> None:
    if found.missing:
        raise UsageError(f"path does not exist: {found.missing[0]}")


def _absolute(path: str) -> str:
    from kqlint.project.workdir import absolute

    return absolute(path)


def _remember_reads(cache: FileCache, paths: list[str], beyond: list[str], config: Config) -> None:
    """A report reused from the cache read no file this run: the writer must still refuse to
    overwrite the inputs and context (kqlint.project.writer)."""
    from kqlint.project.writer import remember_read

    remember_read(cache.discover(paths, config.exclude).files + cache.discover(beyond, config.exclude).files)


def _check_crds(config: Config) -> None:
    """A bad ``--crd`` path is a usage error (exit 2), found before anything is linted."""
    if not config.crds:
        return
    from kqlint.schema import catalog

    try:
        catalog(config.crds)
    except CrdError as exc:
        raise UsageError(str(exc)) from None
