"""The table of stored findings on disk (``results-<key>``): its shape, and reading it back with
every record checked, so a damaged or foreign table is a miss, never a wrong finding."""
from __future__ import annotations

from typing import Any

from kqlint.cache.tables import load_table

MAGIC = b"KQLR\x00\x02"
FORMAT = 4  # 3: per object, the digests of its scoped reads (RuleMeta.scoped_reads);
# 4: objects keyed with the namespace they are applied in (a kustomization's ``namespace:``)
ObjectKey = tuple[int, tuple[Any, ...], str]  # (document index, path of the object inside it, object_namespace())
Table = dict[str, tuple[str, dict[ObjectKey, tuple[Any, ...]]]]  # digest -> (display, findings per object)
# unit -> ({code: what it read there}, {(display, document index, path in it): (document digest,
# {code: findings}, codes without findings left out; {code: its scoped reads' digest})}): one graph
# of the run that wrote it
ReadsKey = tuple[str, int, tuple[Any, ...], str]
UnitReads = tuple[dict[str, str], dict[ReadsKey, tuple[str, dict[str, tuple[Any, ...]], dict[str, str | None]]]]
ReadsTable = dict[Any, UnitReads]
GraphTable = dict[tuple[Any, str], tuple[str, tuple[Any, ...]]]  # (unit, code) -> (reads digest, findings)
Tables = tuple[Table, ReadsTable, GraphTable]


def load(path: str) -> Tables:
    """The stored findings at ``path``, only their well-formed records (anything else: a miss)."""
    loaded = load_table(path, MAGIC)
    try:
        if not (isinstance(loaded, tuple) and len(loaded) == 4 and loaded[0] == FORMAT
                and all(isinstance(table, dict) for table in loaded[1:])):
            return {}, {}, {}
        return _checked(loaded[1]), _checked_reads(loaded[2]), _checked_graph(loaded[3])
    except Exception:
        return {}, {}, {}


def _findings(found: Any) -> bool:
    from kqlint.model import Finding

    return isinstance(found, tuple) and all(isinstance(f, Finding) for f in found)


def _checked(table: dict[Any, Any]) -> Table:
    """Only well-formed records: anything else is a miss (the objects are checked again)."""
    good: Table = {}
    for digest, record in table.items():
        if (isinstance(digest, str) and isinstance(record, tuple) and len(record) == 2
                and isinstance(record[0], str) and isinstance(record[1], dict)
                and all(_findings(found) for found in record[1].values())):
            good[digest] = record
    return good


def _checked_reads(table: dict[Any, Any]) -> ReadsTable:
    good: ReadsTable = {}
    for unit, stored in table.items():
        if (isinstance(stored, tuple) and len(stored) == 2 and isinstance(stored[0], dict)
                and all(isinstance(d, str) for d in stored[0].values()) and isinstance(stored[1], dict)
                and all(_reads_record(key, record) for key, record in stored[1].items())):
            good[unit] = stored
    return good


def _reads_record(key: Any, record: Any) -> bool:
    return (isinstance(key, tuple) and len(key) == 4 and isinstance(key[0], str) and isinstance(record, tuple)
            and len(record) == 3 and isinstance(record[0], str) and isinstance(record[1], dict)
            and all(_findings(found) for found in record[1].values()) and isinstance(record[2], dict))


def _checked_graph(table: dict[Any, Any]) -> GraphTable:
    return {key: pair for key, pair in table.items()
            if isinstance(key, tuple) and len(key) == 2 and isinstance(key[1], str) and _stored_pair(pair)}


def _stored_pair(pair: Any) -> bool:
    """(reads digest, findings)."""
    return isinstance(pair, tuple) and len(pair) == 2 and isinstance(pair[0], str) and _findings(pair[1])
