"""One run with the cache: files served from it or parsed and added to it, and whole
reports reused when a run reads exactly the same files with the same settings and code."""
from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kqlint import loader
from kqlint.cache import FileCache, Miss, content_hash
from kqlint.cache.codec import MAGIC
from kqlint.cache.entries import Skeleton, encode, known_source
from kqlint.cache.keys import code_fingerprint
from kqlint.cache.placeholders import PlaceholderVerdicts, placeholder_verdict
from kqlint.cache.tables import load_table, save_table
from kqlint.loader import SourceFile

if TYPE_CHECKING:
    from kqlint.cache.findings import Reuse
    from kqlint.config import Config
    from kqlint.model import Report


@dataclass(frozen=True)
class Reading:
    """What parsing a file and judging it alone depend on: the loader's size limit, the default
    namespace and tier of its objects, and the ``--crd`` files (its placeholder verdict)."""

    max_file_size: int
    namespace: str
    tier: str
    crds: tuple[str, ...]


def load_sources(files: list[str], cache: FileCache, reading: Reading, jobs: int,
                 parsed: dict[tuple[str, str], SourceFile] | None = None, *, lazy: bool,
                 verdicts: PlaceholderVerdicts | None = None,
                 parsed_one: Callable[[], None] | None = None) -> list[SourceFile]:
    """Every file's source, in order: hits from the cache, misses parsed (over ``jobs``
    processes) and stored. ``parsed``: sources by (path, content digest) parsed earlier in
    this process (the passes of one --fix run), taken from there, and the misses parsed now
    added to it. ``lazy`` (context files): objects whose fields are decoded on first use, by
    whoever reads them first (the graph rules); objects no rule reads are never decoded (input
    files are decoded at once: kept encoded, they bought nothing measurable, docs/performance.md).
    ``verdicts``: the placeholder verdicts of the files parsed now whose text hints at
    placeholders are worked out where they are parsed and kept there. ``parsed_one()`` is called
    for each file parsed (progress)."""
    from kqlint.engine.parallel import map_chunks
    from kqlint.project.discover import STDIN, display_path

    results: list[SourceFile | None] = [None] * len(files)
    misses: list[tuple[int, str, Miss | None]] = []
    shown = {path: display_path(path) for path in files}  # asked for several times per file below
    for position, path in enumerate(files):
        hit = cache.lookup(path, shown[path], lazy) if path != STDIN else None
        if isinstance(hit, SourceFile):
            results[position] = hit
        elif parsed is not None and hit is not None and hit.digest is not None and (path, hit.digest) in parsed:
            results[position] = parsed[(path, hit.digest)]  # stored when it was parsed
        else:
            misses.append((position, path, hit))
    if any(miss is not None for _, _, miss in misses):
        cache.prepare_writes()

    parent = os.getpid()
    digests_of = {path: miss.digest for _, path, miss in misses if miss is not None and miss.digest is not None}

    def parse_and_encode(item: tuple[int, str, Miss | None]) -> Parsed:
        _, path, miss = item
        raw = miss.raw if miss is not None else None
        hashed: Hashed | None = None
        found = cache.cacheable_stat(path) if miss is not None and raw is None else None
        if found is not None:  # an empty cache: stat'ed, read and hashed here, not by the parent
            raw = loader.read_bytes(path, cache.max_file_size)[0]
            hashed = (content_hash(raw), len(raw), found) if raw is not None else None
        source = loader.parse_file(path, shown[path], reading.max_file_size, raw)
        if parsed_one is not None:
            parsed_one()
        judged = (placeholder_verdict(source, reading.namespace, reading.tier, reading.crds),) \
            if verdicts is not None and source.placeholder_hint else ()
        digest = hashed[0] if hashed is not None else miss.digest if miss is not None else None
        encoded = _encoded(source, raw) if digest is not None and raw is not None and cache.writable else None
        if encoded is None or digest is None:
            return path, source, None, judged, hashed
        blob, skeletons, digests, projections = encoded
        if os.getpid() != parent:  # a worker: the entry is all the parent needs (pickled once)
            return path, None, blob, judged, hashed
        cache.add(digest, blob)  # on disk now: a cold run does not hold every entry until the end
        cache.documents_of_display[shown[path]] = digests
        cache.projections_of_display[shown[path]] = projections
        return path, known_source(source, skeletons), None, judged, hashed

    def decoded(result: Parsed) -> Parsed:
        """A worker's entry as the source it encodes (its document digests read from it), the
        entry written to the cache; an entry that cannot be read back (a bug) is not stored,
        and the file is parsed here."""
        path, source, blob, judged, hashed = result
        if source is None and blob is not None:
            try:
                source = cache.source_of(blob, path, shown[path], lazy)
                cache.add(hashed[0] if hashed is not None else digests_of[path], blob)
            except Exception:
                source = loader.parse_file(path, shown[path], reading.max_file_size)
        return path, source, None, judged, hashed

    for (position, path, miss), (_, source, blob, judged, hashed) in zip(
            misses, map_chunks(parse_and_encode, misses, jobs, arrived=decoded), strict=True):
        digest = miss.digest if miss is not None else None
        if miss is not None and hashed is not None:
            digest = hashed[0]
            cache.hashed(path, shown[path], *hashed)  # before the verdict's key: it needs the digest
        if judged and verdicts is not None:
            verdicts.record(shown[path], judged[0])
        if source is None and blob is not None:  # not read back on arrival
            path, source, *_ = decoded((path, source, blob, judged, hashed))
        if parsed is not None and digest is not None and source is not None:
            parsed[(path, digest)] = source
        results[position] = source
    return results  # type: ignore[return-value]


# (content hash, size, (relative path, stat)) of a file stat'ed, read and hashed where it was parsed
Hashed = tuple[str, int, tuple[str, os.stat_result]]
# path, source (None: decode the entry), the entry, (the placeholder verdict,) or () when not
# asked, and Hashed for a file read where it was parsed (an empty cache) else None
Parsed = tuple[str, SourceFile | None, bytes | None, tuple[Any, ...], Hashed | None]


def _encoded(source: SourceFile, raw: bytes
             ) -> tuple[bytes, list[Skeleton], tuple[str, ...], tuple[str, ...]] | None:
    try:
        return encode(source, raw)
    except Exception:
        return None


# ------------------------------------------------------------------ whole reports

MAX_REPORTS = 8  # the last few distinct runs (pre-commit on different files, whole-repo checks)


def _report_file(cache: FileCache, key: str) -> str:
    return os.path.join(cache.folder, f"report-{key}")


def report_key(cache: FileCache, parts: list[str], files: list[str]) -> str | None:
    """The key of a whole run: its settings (``parts``) and every file it reads, by content.
    None when a file cannot be keyed (stdin, outside the project): no report cache then."""
    digest = hashlib.blake2b(digest_size=16)
    for part in parts + [code_fingerprint(), os.getcwd()]:
        digest.update(part.encode("utf-8", "surrogateescape") + b"\x00")
    for path in files:
        content = cache.digest(path)
        if content is None:
            return None
        digest.update(path.encode("utf-8", "surrogateescape") + b"\x00" + content.encode() + b"\n")
    return digest.hexdigest()


def load_report(cache: FileCache, key: str) -> Any:
    from kqlint.model import Report

    report = load_table(_report_file(cache, key), MAGIC)
    return report if isinstance(report, Report) else None


def store_report(cache: FileCache, key: str, report: Report) -> None:
    save_table(cache, _report_file(cache, key), MAGIC, report, "report-", MAX_REPORTS)


def run_key(cache: FileCache, paths: list[str], context_paths: list[str], beyond: list[str], config: Config,
            rules: list[Any], inline_suppressions: bool) -> str | None:
    """The key of a whole run's report, or None when it cannot be cached safely (stdin,
    plugins, --crd, files outside the project): then everything is linted as usual.
    ``beyond``: the context paths that are not among the inputs."""
    from kqlint.project.discover import STDIN

    if STDIN in paths or config.plugins or config.crds:
        return None
    if any(not rule.origin.startswith("kqlint.") for rule in rules):
        return None
    settings = repr(config)
    if " object at 0x" in settings:
        return None
    found = cache.discover(paths, config.exclude)
    if found.missing:
        return None
    context = cache.discover(beyond, config.exclude)
    parts = [os.path.basename(cache.folder), settings, repr(sorted(rule.code for rule in rules)),
             repr(inline_suppressions), repr(paths), repr(context_paths),
             repr(found.charts), repr(found.problems), repr(context.charts), repr(context.problems),
             str(len(found.files))]
    from kqlint.project.readme import sample_markers  # READMEs make independent samples (units)

    named = [path for path in paths + beyond if os.path.isfile(path)]  # not walked: their folders looked at
    parts += [repr(sorted(set(found.readmes + context.readmes))), repr(sample_markers(named))]
    return report_key(cache, parts, found.files + context.files)


class RunReport:
    """The whole-report layer of one run: the report an identical earlier run stored, or, once
    the pipeline has linted, the place its report is kept (``store``). Made by the pipeline
    and asked in order: ``stored()``, then ``store(report)`` or ``abandon()``."""

    def __init__(self, cache: FileCache, paths: list[str], context_paths: list[str], beyond: list[str],
                 config: Config, rules: list[Any], inline_suppressions: bool) -> None:
        self.cache = cache
        self._run = (paths, context_paths, beyond, config, rules, inline_suppressions)
        self._key: str | None = None
        self._deferred = False
        self.findings: Reuse | None = None  # the stored findings the lint may reuse (kqlint.cache.findings)

    def stored(self) -> Report | None:
        """The report of an identical earlier run (the index flushed), or None: lint, then
        ``store``. Stored findings become the active ones for the lint (kqlint.cache.findings)."""
        from kqlint.cache.findings import begin

        cache = self.cache
        paths, _, _, config, rules, _ = self._run
        cache.begin_lint()  # nothing remembered from an earlier lint (a pass of --fix before its writes)
        self._deferred = cache.empty  # nothing stored: no report to find, the key is worked out after the run
        self._key = None if self._deferred else run_key(cache, *self._run)
        report = load_report(cache, self._key) if self._key is not None else None
        if report is not None:
            cache.flush()
            return report  # type: ignore[no-any-return]
        self.findings = begin(cache, config, rules, len(cache.discover(paths, config.exclude).files))
        return None

    def abandon(self) -> None:
        """The lint failed: nothing of it is kept."""
        self.findings = None

    def store(self, report: Report) -> None:
        """Keep ``report`` and the run's entries: now, or, when the cache ``writes_later``, when
        its ``write()`` is called."""
        cache = self.cache
        findings = self.findings
        key = run_key(cache, *self._run) if self._deferred else self._key  # from the digests taken as files were read
        stored = not cache.changed_during_run  # a file changed while being read: nothing stored

        def write() -> None:
            try:
                if key is not None and stored:
                    store_report(cache, key, report)
                cache.flush()
            finally:
                if findings is not None:
                    findings.end(save=stored)

        cache.write_later(write)  # now, unless the caller writes it beside other work (kqlint check)
