"""Stored findings of built-in per-object and graph rules, reused when what they read is unchanged.

Pure rules: a pure rule reads nothing but its object (its own file's document, for positions)
and the run's settings: no other object, no graph, no platform facts. Its findings for an
object are then a function of the file's content (BLAKE2b), the file's display path (findings
carry it), the rule's code (kqlint's code and schemas fingerprint), the configuration
(options, default namespace, profile, selection) and the ``--crd`` files' content. Those are
the key; a file whose content changed has another digest and its objects are checked again.
Why each rule is pure: the comment above its ``META`` (``RuleMeta.pure``).

Rules that read other objects: findings that depend on other files are never cached as such;
they are cached with the digests of what they were computed from (kqlint.cache.reads): the
object's own document digest (data and node positions), display path, document index and
place in the document; the same key as pure rules (settings, code, ``--crd``); and, per rule
and graph, a digest of every kind it declares (``RuleMeta.reads``, with a reason per
rule) over every manifest object of the run, plus the graph's unit, platform model, declared
objects and layout. A stored finding is reused only while all of these are unchanged; a graph
rule's whole output likewise, per unit. Plugins and custom rules are never reused.
"""
from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from kqlint.cache.reads import object_namespace
from kqlint.cache.stored import FORMAT, MAGIC, GraphTable, ReadsTable, Table, Tables, load
from kqlint.cache.tables import save_table

if TYPE_CHECKING:
    from kqlint.cache.store import FileCache
    from kqlint.config import Config
    from kqlint.domain.graph import ObjectGraph
    from kqlint.domain.objects import K8sObject
    from kqlint.engine.rule import Rule, RuleMeta
    from kqlint.model import Finding

MAX_TABLES = 2  # one per recent configuration
MIN_INPUT_FILES = 20  # fewer input files: no table read or written
class Reuse:
    """The run's stored findings of pure and graph-reading rules, and those it computes (kept
    by save())."""

    def __init__(self, cache: FileCache | _Passes, key: str, codes: frozenset[str],
                 reads: frozenset[str] = frozenset(), metas: dict[str, RuleMeta] | None = None) -> None:
        self.cache, self.key, self.codes, self.reads = cache, key, codes, reads
        self.metas = metas or {}  # code -> what the rule declares it reads
        self._tables: Tables | None = None
        self.new: Table = {}
        self.new_reads: ReadsTable = {}
        self.new_graph: GraphTable = {}
        self.run: Any = None                      # cache_reads.RunObjects, set by observe()
        self.unit: Any = None                     # the graph being checked: its unit
        self.current: dict[str, str] = {}         # and what each reused rule reads in it
        self.valid: frozenset[str] = frozenset()  # the rules that read there what they read when stored
        self.scoped: frozenset[str] = frozenset()  # the reused rules with scoped reads (RuleMeta.scoped_reads)

    @property
    def tables(self) -> Tables:
        if self._tables is None:
            self._tables = load(self.path)
        return self._tables

    @property
    def table(self) -> Table:
        return self.tables[0]

    @property
    def path(self) -> str:
        return os.path.join(self.cache.folder, f"results-{self.key}")

    def enter(self, graph: ObjectGraph) -> None:
        """The graph about to be checked: what each reused rule reads in it (before --jobs forks)."""
        from kqlint.cache.reads import graph_key, read_kinds

        self.unit, self.current, self.valid = graph.unit, {}, frozenset()
        self.scoped = frozenset(code for code in self.reads if self.metas[code].scoped_reads is not None)
        if self.run is None or not self.reads:
            return
        key = graph_key(graph)
        for code in sorted(self.reads):
            digest = self.run.reads_digest(key, read_kinds(self.metas[code]))
            if digest is not None:
                self.current[code] = digest
        stored = self.tables[1].get(self.unit, ({}, {}))[0]
        self.valid = frozenset(code for code, digest in self.current.items() if stored.get(code) == digest)

    def _scope(self, code: str) -> Callable[[Any, dict[str, list[Any]]], list[Any]]:
        declared = self.metas[code].scoped_reads
        assert declared is not None  # only asked for the rules in self.scoped
        scope: Callable[[Any, dict[str, list[Any]]], list[Any]] = declared[1]
        return scope

    def _stored(self, obj: K8sObject) -> tuple[Any, ...] | None:
        digest = self.cache.digest_of_display.get(obj.file)
        if digest is None:
            return None
        for table in (self.table, self.new):
            record = table.get(digest)
            if record is not None and record[0] == obj.file:
                found = record[1].get((obj.doc, obj.base, object_namespace(obj)))
                if found is not None:
                    return found
        return None

    def _stored_reads(self, obj: K8sObject) -> dict[str, tuple[Any, ...]]:
        """The stored findings of graph-reading rules on ``obj`` still valid in this graph."""
        if not self.valid:
            return {}
        record = self.tables[1][self.unit][1].get((obj.file, obj.doc, obj.base, object_namespace(obj)))
        if record is None or record[0] != self.run.document_digest(obj):
            return {}
        kept = {code: record[1].get(code, ()) for code in self.valid}
        for code in self.scoped & kept.keys():  # read, judging obj, the same objects whole as then?
            digest = self.run.scoped_digest(code, self._scope(code), obj)
            if digest is None or record[2].get(code) != digest:
                del kept[code]
        return kept

    def skip(self, obj: K8sObject) -> frozenset[str]:
        """The rules whose findings on ``obj`` are stored (not to be run again)."""
        pure = self.codes if self._stored(obj) is not None else frozenset()
        return pure | frozenset(self._stored_reads(obj))

    def merge(self, inputs: Sequence[Any], outcomes: Sequence[tuple[list[Any], list[str]]]) -> list[Any]:
        """Stored findings of skipped rules; the findings of the others recorded."""
        reused: list[Any] = []
        for obj, (found, failed) in zip(inputs, outcomes, strict=True):
            stored = self._stored(obj)
            if stored is not None:
                reused.extend(stored)
            elif not failed:
                self._record(obj, tuple(f for f in found if f.code in self.codes))
            kept = self._stored_reads(obj)
            for findings in kept.values():
                reused.extend(findings)
            if not failed:
                self._record_reads(obj, found, kept)
        return reused

    def _record(self, obj: K8sObject, findings: tuple[Any, ...]) -> None:
        digest = self.cache.digest_of_display.get(obj.file)
        if digest is None or any(not _inside(f, obj.file) for f in findings):
            return
        record = self.new.setdefault(digest, (obj.file, {}))
        if record[0] == obj.file:
            record[1][(obj.doc, obj.base, object_namespace(obj))] = findings

    def _record_reads(self, obj: K8sObject, found: list[Any], kept: dict[str, tuple[Any, ...]]) -> None:
        """Keep what every graph-reading rule found on ``obj`` (what each read: the graph's)."""
        document = self.run.document_digest(obj) if self.current else None
        if document is None:
            return
        by_rule = {code: findings for code, findings in kept.items() if findings}
        for finding in found:
            if finding.code in self.current and finding.code not in kept:
                by_rule.setdefault(finding.code, ())
                by_rule[finding.code] += (finding,)
        scoped = {code: self.run.scoped_digest(code, self._scope(code), obj)
                  for code in self.scoped & self.current.keys()}
        unit = self.new_reads.setdefault(self.unit, (self.current, {}))
        unit[1][(obj.file, obj.doc, obj.base, object_namespace(obj))] = (document, by_rule, scoped)

    def graph_findings(self, code: str) -> list[Any] | None:
        """A graph rule's stored findings in this graph, when what it reads is unchanged; None:
        run it (then ``keep_graph_findings``)."""
        digest = self.current.get(code)
        stored = self.tables[2].get((self.unit, code)) if digest is not None else None
        if stored is None or stored[0] != digest:
            return None
        self.new_graph[(self.unit, code)] = stored
        return list(stored[1])

    def keep_graph_findings(self, code: str, found: list[Any]) -> None:
        """What a graph rule found in this graph, having run without an error."""
        digest = self.current.get(code)
        if digest is not None:
            self.new_graph[(self.unit, code)] = (digest, tuple(found))

    def observe(self, objects: list[Any], scope: Any) -> None:
        """Every manifest object of the run (inputs and context, every unit) and its scope: what
        the digests of the kinds graph-reading rules read are made of."""
        from kqlint.cache.reads import RunObjects

        if self.reads:
            self.run = RunObjects(objects, self.cache.documents_of_display, scope,
                                  self.cache.projections_of_display)

    def end(self, save: bool) -> None:
        """The run is over: keep what it computed (``save``) for the next."""
        if save:
            self.save(self.cache.live_digests())

    def save(self, live: set[str]) -> None:
        """Write the tables (stored + new, only files still indexed) if this run added to them."""
        if not (self.new or self.new_reads or self.new_graph) or isinstance(self.cache, _Passes) \
                or not self.cache.writable:
            return
        table = {digest: record for digest, record in self.table.items() if digest in live}
        for digest, (display, objects) in self.new.items():
            if digest not in live:
                continue
            old = table.get(digest)
            merged = dict(old[1]) if old is not None and old[0] == display else {}
            merged.update(objects)
            table[digest] = (display, merged)
        # graph-reading rules: what this run read (another run reads another graph)
        save_table(self.cache, self.path, MAGIC, (FORMAT, table, self.new_reads, self.new_graph),
                   "results-", MAX_TABLES)


class _NoReuse:
    codes: frozenset[str] = frozenset()

    def skip(self, obj: K8sObject) -> frozenset[str]:
        return frozenset()

    def merge(self, inputs: Sequence[Any], outcomes: Sequence[tuple[list[Any], list[str]]]) -> list[Any]:
        return []

    def graph_findings(self, code: str) -> list[Any] | None:
        return None

    def keep_graph_findings(self, code: str, found: list[Any]) -> None:
        pass


NO_REUSE = _NoReuse()


class _Passes:
    """Stands in for the FileCache in the passes of one ``--fix`` run without it: the content
    digests of the files read this pass (set by kqlint.engine.inputs); nothing on disk."""

    folder = ""
    writable = False

    def __init__(self) -> None:
        self.digest_of_display: dict[str, str] = {}
        self.documents_of_display: dict[str, tuple[str, ...]] = {}
        self.projections_of_display: dict[str, tuple[str, ...]] = {}

    def live_digests(self) -> set[str]:
        return set()


def between_passes() -> Reuse:
    """The findings of pure rules kept from one pass of a ``--fix`` run without the cache to the
    next: reused on objects whose file has the digest it had in an earlier pass (the loader
    fills ``cache.digest_of_display``)."""
    kept = Reuse(_Passes(), "", frozenset())
    kept._tables = ({}, {}, {})
    return kept


def reuse_for(stored: Reuse | None, object_rules: Iterable[tuple[Any, ...]], graph: ObjectGraph | None = None,
              graph_rules: Iterable[Any] = ()) -> Reuse | _NoReuse:
    """What run_rules reuses with its per-object rules (tuples starting with the rule), the graph
    and its graph rules: ``stored`` (the run's stored results, or those of an earlier --fix
    pass), if its rules are the ones keyed."""
    object_rules = list(object_rules)
    codes = {entry[0].code for entry in object_rules}
    if stored is not None and isinstance(stored.cache, _Passes) and not stored.codes:
        stored.codes = pure_rules(entry[0] for entry in object_rules)  # the rules of every pass
    if stored is None or not stored.codes <= codes \
            or not stored.reads <= codes | {rule.code for rule in graph_rules}:
        return NO_REUSE
    stored.tables  # noqa: B018 - read once here, before --jobs forks: not once per worker
    if graph is not None:
        stored.enter(graph)
    return stored


def begin(cache: FileCache, config: Config, rules: list[Any], inputs: int) -> Reuse | None:
    """The stored results of this configuration, to be reused by the run (None: nothing to
    reuse). A run of a few files (pre-commit) checks them faster than it reads and rewrites the
    table."""
    key, codes, reads = results_key(cache, config, rules) if inputs >= MIN_INPUT_FILES else (None, _NONE, _NONE)
    if key is None:
        return None
    return Reuse(cache, key, codes, reads, {rule.code: rule.meta for rule in rules})


_NONE: frozenset[str] = frozenset()


def pure_rules(rules: Iterable[Any]) -> frozenset[str]:
    """The selected rules that are pure built-ins (a plugin or custom rule never is)."""
    return frozenset(rule.code for rule in rules if getattr(rule.meta, "pure", False) and rule.meta.scope == "object"
                     and _builtin(rule))


def reading_rules(rules: Iterable[Any]) -> frozenset[str]:
    """The selected built-in rules that declare what they read (``RuleMeta.reads``)."""
    return frozenset(rule.code for rule in rules if getattr(rule.meta, "reads", None) is not None
                     and rule.meta.scope in ("object", "graph") and _builtin(rule))


def _builtin(rule: Rule) -> bool:
    return getattr(getattr(rule, "module", None), "__name__", "").startswith("kqlint.rules.")


def results_key(cache: FileCache, config: Config,
                rules: list[Any]) -> tuple[str | None, frozenset[str], frozenset[str]]:
    from kqlint.cache.keys import code_fingerprint, crd_digest

    codes, reads = pure_rules(rules), reading_rules(rules)
    settings = repr(config)
    if not (codes or reads) or " object at 0x" in settings:
        return None, codes, reads
    crds = crd_digest(config.crds)
    if crds is None:
        return None, codes, reads
    digest = hashlib.blake2b(digest_size=16)
    for part in (str(FORMAT), os.path.basename(cache.folder), code_fingerprint(), settings,
                 repr(sorted(codes)), repr(sorted(reads)), crds):
        digest.update(part.encode("utf-8", "surrogateescape") + b"\x00")
    return digest.hexdigest(), codes, reads


def _inside(finding: Finding, file: str) -> bool:
    """Every location of a stored finding is in the object's own file (a pure rule's are)."""
    return finding.location.file == file and all(r.file == file for r in finding.related)
