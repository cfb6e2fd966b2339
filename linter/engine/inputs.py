"""Reading a run's inputs and context: discover -> contain -> parse (maybe in parallel,
maybe from the cache) -> objects, with the files skipped and why (kqlint.engine.runner runs the rest)."""
from __future__ import annotations

import gc
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from kqlint.config import Config
from kqlint.domain.graph import declared_object
from kqlint.domain.objects import CONTEXT, EXTERNAL, K8sObject, objects_from_file
from kqlint.errors import InternalError, UsageError
from kqlint.loader import SourceFile, load_stdin, parse_file, refused
from kqlint.model import StreamText
from kqlint.project.discover import STDIN, Discovery, discover, display_path

if TYPE_CHECKING:
    from kqlint.cache import FileCache
    from kqlint.cache.findings import Reuse
    from kqlint.project.stdin import StdinPart

# The files parsed by the passes of one ``--fix`` run, by (path, content digest): a pass after
# a fix re-reads every file but parses only those whose bytes changed (kqlint.fix.passes).
ParsedFiles = dict[tuple[str, str], SourceFile]


@dataclass
class FixPasses:
    """What the passes of one ``--fix`` run share (kqlint.engine.pipeline.Pipeline.fix_passes):
    a file read with the same bytes as before is not parsed again, and the findings of pure
    rules on its objects are reused."""

    parsed: ParsedFiles = field(default_factory=dict)
    findings: Reuse = field(default_factory=lambda: _between_passes())

    @property
    def digests(self) -> dict[str, str]:
        """Display path -> content digest of what this pass read (the findings' key)."""
        return self.findings.cache.digest_of_display


def _between_passes() -> Reuse:
    from kqlint.cache.findings import between_passes

    return between_passes()


@dataclass
class Loaded:
    sources: list[SourceFile] = field(default_factory=list)
    objects: list[K8sObject] = field(default_factory=list)
    documents: int = 0
    skipped: int = 0
    notes: list[str] = field(default_factory=list)  # files skipped for leaving the tree
    streams: list[StreamText] = field(default_factory=list)  # the text of what was read from stdin


def load_paths(paths: list[str], config: Config, tier: str,
               progress: Callable[[int, int], None] | None = None, jobs: int = 1,
               skip: frozenset[str] = frozenset(), cache: FileCache | None = None,
               texts: Mapping[str, bytes] | None = None, passes: FixPasses | None = None) -> tuple[Loaded, Discovery]:
    """Read and parse every file (but those in ``skip``, absolute paths); ``progress(done,
    total)`` is called as files are done. With a ``cache`` (kqlint.cache.FileCache), unchanged
    files are not parsed again. ``texts``: the content of files (by absolute path) to parse
    instead of what is on disk (an editor's unsaved buffers, kqlint.server); no cache then.
    ``passes``: what earlier passes of a --fix run parsed."""
    if texts is not None:
        cache = None
    from kqlint.engine.parallel import effective_jobs, map_chunks
    from kqlint.project.containment import contain_files
    from kqlint.project.writer import remember_read

    found = cache.discover(paths, config.exclude) if cache is not None else discover(paths, config.exclude)
    if texts and found.missing:  # an editor's new buffer, not saved yet: its text is the file
        unsaved = [p for p in found.missing if os.path.abspath(p) in texts]
        found = replace(found, files=sorted(found.files + unsaved),
                        missing=[p for p in found.missing if p not in unsaved])
    files, notes = contain_files(found.files, paths, config.follow_external_symlinks)
    remember_read(files)  # no report or baseline is ever written over what is read
    if skip:
        files = [f for f in files if f == STDIN or os.path.abspath(f) not in skip]
    found = replace(found, files=files)  # the cache keeps its discovery unchanged
    loaded = Loaded(notes=notes)
    total = len(found.files)
    jobs = effective_jobs(jobs, total)
    done = 0

    def count() -> None:
        """One more file parsed (here or in a --jobs worker)."""
        nonlocal done
        done += jobs  # the parent parses one chunk of ``jobs`` while workers do the others
        if progress is not None:
            progress(min(done, total), total)

    def parse(path: str, raw: bytes | None = None) -> SourceFile:
        source = _prepared(_parse_one(path, config, raw), config, tier)
        count()
        return source

    stdin_parts = _read_stdin(config) if STDIN in found.files else []
    gc_was_enabled = gc.isenabled()
    gc.disable()  # keeping every document alive makes full collections costly while loading
    try:
        files = [path for path in found.files if path != STDIN]
        verdicts = _placeholder_verdicts(cache, config) if cache is not None else None
        if cache is not None:
            from kqlint.cache.run import Reading, load_sources

            lazy = tier == CONTEXT
            reading = Reading(config.max_file_size, config.namespace, tier, tuple(config.crds or ()))
            parsed = passes.parsed if passes is not None and not lazy else None  # a --fix pass
            sources = load_sources(files, cache, reading, jobs, parsed, lazy=lazy, verdicts=verdicts,
                                   parsed_one=count)
            if parsed is not None:
                sources = [_unshared(source) for source in sources]
        elif texts is not None:
            sources = [_parse_text(path, texts, config, parse) for path in files]
        elif passes is not None:
            sources = _parse_changed(files, config, jobs, parse, passes)
        else:
            sources = map_chunks(parse, files, jobs)
        for path, source in zip(files, sources, strict=True):
            add_source(loaded, path, source, config, tier, verdicts)
        if verdicts is not None:
            verdicts.save()
        for part in stdin_parts:
            _add_stream(loaded, part, config, tier)
    finally:
        if gc_was_enabled:
            gc.freeze()
            gc.enable()
    return loaded, found


def _parse_text(path: str, texts: Mapping[str, bytes], config: Config,
                parse: Callable[[str, bytes | None], SourceFile]) -> SourceFile:
    """``path`` parsed from the text given for it (the file when none is); a text over the size
    limit is refused as the saved file would be: one KQ001."""
    raw = texts.get(os.path.abspath(path))
    if raw is None or len(raw) <= config.max_file_size:
        return parse(path, raw)
    from kqlint.project.bounded import too_large

    return refused(display_path(path), too_large(len(raw), config.max_file_size))


def _parse_changed(files: list[str], config: Config, jobs: int,
                   parse: Callable[[str, bytes | None], SourceFile], passes: FixPasses) -> list[SourceFile]:
    """Every file's source, in order; only the files not in ``parsed`` with these bytes are
    parsed (over ``jobs`` processes), then remembered. A file that cannot be read is parsed
    as usual (its load problem) and not remembered."""
    from kqlint.cache import content_hash
    from kqlint.engine.parallel import map_chunks
    from kqlint.loader import read_bytes

    read = [(path, read_bytes(path, config.max_file_size)[0]) for path in files]
    keys = [(path, content_hash(raw) if raw is not None else None) for path, raw in read]
    parsed, digests = passes.parsed, passes.digests
    for path, digest in keys:
        if digest is not None:
            digests[display_path(path)] = digest
        else:
            digests.pop(display_path(path), None)
    misses = [(key, raw) for key, (_, raw) in zip(keys, read, strict=True)
              if key[1] is None or key not in parsed]
    fresh = dict(zip([key for key, _ in misses],
                     map_chunks(lambda miss: parse(miss[0][0], miss[1]), misses, jobs), strict=True))
    parsed.update(((path, digest), source) for (path, digest), source in fresh.items() if digest is not None)
    return [_unshared(fresh[key] if key in fresh else parsed[key]) for key in keys]  # type: ignore[index]


def _unshared(source: SourceFile) -> SourceFile:
    """A copy whose problems list a pass may extend (KQ006) without changing the remembered one."""
    import copy

    unshared = copy.copy(source)
    unshared.problems = list(source.problems)
    return unshared


def _read_stdin(config: Config) -> list[StdinPart]:
    """stdin, split by Helm ``# Source:`` comments or named by ``--stdin-filename``."""
    from kqlint.project.stdin import EmptyStdin, read_stdin

    try:
        return read_stdin(config)
    except EmptyStdin as exc:
        raise UsageError(str(exc)) from None
    except Exception as exc:
        raise InternalError("<stdin>", exc) from exc


def _add_stream(loaded: Loaded, part: StdinPart, config: Config, tier: str) -> None:
    """A source read from stdin, added with its text (what reports show of it)."""
    before = len(loaded.objects)
    add_source(loaded, STDIN, part.source, config, tier)
    objects = frozenset(obj.ref for obj in loaded.objects[before:])
    loaded.streams.append(StreamText(part.source.path, part.data, part.whole, objects))


def _parse_one(path: str, config: Config, raw: bytes | None = None) -> SourceFile:
    if path != STDIN:
        return parse_file(path, display_path(path), config.max_file_size, raw)
    try:
        return load_stdin(max_size=config.max_file_size)
    except MemoryError:
        raise  # the CLI says "out of memory" (exit 2): not a bug blamed on this file
    except Exception as exc:
        raise InternalError(display_path(path), exc) from exc


def _prepared(source: SourceFile, config: Config, tier: str) -> SourceFile:
    """What add_source reads from the file alone, worked out where it was parsed (a --jobs
    worker, in parallel): its objects' requested resources (platform evidence) and whether
    envsubst placeholders skip it. Not for files the cache stores (the placeholder verdict
    depends on --crd): those get their requested resources from their entry."""
    from kqlint.cache.entries import PreparedSource

    try:
        objects, _, _ = objects_from_file(source, config.namespace, tier)
        prepared = PreparedSource.of(source, objects)
        if source.placeholder_hint and objects:
            prepared.skip_objects = not _without_placeholder_templates(source, objects, config)
            prepared.placeholder_hint = False  # judged
        return prepared
    except MemoryError:
        raise
    except Exception:  # add_source reports it, on the file, in input order
        return source


def _placeholder_verdicts(cache: FileCache, config: Config) -> Any:
    from kqlint.cache.placeholders import PlaceholderVerdicts

    return PlaceholderVerdicts(cache, config.namespace or "", tuple(config.crds or ()))


def add_source(loaded: Loaded, path: str, source: SourceFile, config: Config, tier: str,
               verdicts: Any = None) -> None:
    """The objects of ``source`` added to ``loaded``; ``verdicts`` (a PlaceholderVerdicts):
    placeholder checks answered by an earlier run."""
    try:
        objects, documents, skipped = _objects_of(source, config.namespace, tier)
        if source.placeholder_hint and objects:
            objects = _without_placeholder_templates(source, objects, config, verdicts)
        elif getattr(source, "skip_objects", False):
            objects = []
    except MemoryError:
        raise
    except Exception as exc:
        raise InternalError(display_path(path), exc) from exc
    loaded.sources.append(source)
    loaded.objects.extend(objects)
    loaded.documents += documents
    loaded.skipped += skipped


def _without_placeholder_templates(source: SourceFile, objects: list[K8sObject], config: Config,
                                   verdicts: Any = None) -> list[K8sObject]:
    """A manifest meant for envsubst/sed is one KQ006 and is skipped (kqlint.loader.placeholders)."""
    from kqlint.schema.placeholders import unrendered_placeholders

    key = verdicts.key(source.path) if verdicts is not None else None
    known, problem = verdicts.get(key) if key is not None else (False, None)
    if not known:
        problem = unrendered_placeholders(source, objects, tuple(config.crds or ()))
        if key is not None:
            verdicts.put(key, problem)
    if problem is None:
        return objects
    source.problems.append(problem)
    return []


def context_paths(paths: list[str], context: Iterable[str], config: Config,
                  automatic: bool = True, rendered: Iterable[str] = ()) -> tuple[list[str], str | None]:
    """The context of a run and a note for stderr (kqlint.project.scope.context_plan): ``--context``
    and config ``context:`` when given, else the project root's manifests (also for the
    ``rendered`` folders of ``--kustomize``)."""
    from kqlint.project.scope import context_plan

    plan = context_plan(paths, list(context) + list(config.context), automatic, rendered)
    return list(plan.paths), plan.note


def _objects_of(source: SourceFile, namespace: str, tier: str) -> tuple[list[K8sObject], int, int]:
    if type(source) is not SourceFile:  # a cached context file: objects read on first use
        from kqlint.cache.entries import objects_of

        return objects_of(source, namespace, tier)
    return objects_from_file(source, namespace, tier)



def external_objects(config: Config) -> list[K8sObject]:
    file = display_path(config.path) if config.path else "<config>"
    return [declared_object(kind, entry, EXTERNAL, file, config.namespace)
            for kind, entries in sorted(config.external.items()) for entry in entries
            if isinstance(entry, dict)]


def context_beyond_inputs(paths: Iterable[str], input_paths: Iterable[str]) -> list[str]:
    """The context paths that exist and are not themselves input paths (a folder linted as
    input brings nothing more as context: its files are inputs)."""
    linted = {os.path.realpath(p) for p in input_paths if p != STDIN}
    return [p for p in paths if os.path.exists(p) and os.path.realpath(p) not in linted]


def load_context(paths: list[str], config: Config, inputs: Loaded, jobs: int = 1, cache: FileCache | None = None,
                 input_paths: Iterable[str] = (), passes: FixPasses | None = None) -> Loaded:
    """The context objects (CONTEXT tier) from ``paths``, without the input files. A context
    path that is also an input path (``check .`` at the project root) holds only input files:
    it is not walked again."""
    existing = context_beyond_inputs(paths, input_paths)
    if not existing:
        return Loaded()
    input_files = {s.path for s in inputs.sources}
    skip = frozenset(os.path.abspath(p) for p in input_files if not p.startswith("<"))
    loaded, _ = load_paths(existing, config, CONTEXT, jobs=jobs, skip=skip, cache=cache, passes=passes)
    return Loaded(objects=context_without(loaded.objects, inputs), notes=loaded.notes)


def context_without(objects: list[K8sObject], inputs: Loaded) -> list[K8sObject]:
    """The context ``objects`` but those of the input files (the inputs' objects stand for them)."""
    input_files = {s.path for s in inputs.sources}
    return [o for o in objects if o.file not in input_files]
