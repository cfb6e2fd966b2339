"""apiVersion/kind -> compiled schema: the shipped ``schemas/kinds/`` (read and compiled
lazily, on first use) and the user's ``--crd`` files, one catalog per set of ``--crd`` files
kept for the process."""
from __future__ import annotations

import json
import os
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from kqlint.errors import CrdError
from kqlint.schema.cel import CelSchema
from kqlint.schema.crd import crd_versions, is_crd, to_schema
from kqlint.schema.validator import Validator


class SchemaCatalog:
    """apiVersion/kind -> Validator, from the shipped schemas and the user's ``--crd`` files
    (which win for the same apiVersion and kind). Validators are built on first use."""

    def __init__(self, user: dict[tuple[str, str], tuple[dict[str, Any], str]] | None = None) -> None:
        self._shipped = _shipped_index()
        self._user: dict[tuple[str, str], tuple[dict[str, Any], str]] = dict(user or {})
        self._validators: dict[tuple[str, str], Validator | None] = {}
        self._cel: dict[tuple[str, str], CelSchema | None] = {}

    def knows(self, api_version: str, kind: str) -> bool:
        return (api_version, kind) in self._user or (api_version, kind) in self._shipped

    def validator(self, api_version: str, kind: str) -> Validator | None:
        key = (api_version, kind)
        if key not in self._validators:
            document = self._document(key)
            self._validators[key] = Validator(document) if document is not None else None
        return self._validators[key]

    def cel(self, api_version: str, kind: str) -> CelSchema | None:
        """The kind's CEL rules (None: it has none), read from the same schema as the validator."""
        key = (api_version, kind)
        if key not in self._cel:
            validator = self.validator(api_version, kind)
            found = CelSchema(validator.document, validator.resolve, self.crd_name(api_version, kind)) \
                if validator is not None else None
            self._cel[key] = found if found is not None and found.rules else None
        return self._cel[key]

    def crd_name(self, api_version: str, kind: str) -> str:
        """The CRD a kind's rules come from, for messages: the --crd file, or the upstream CRD."""
        if (api_version, kind) in self._user:
            return f"the {api_version} {kind} CRD in {self._user[(api_version, kind)][1]}"
        return f"the {api_version} {kind} CRD"

    def source(self, api_version: str, kind: str) -> str:
        """Where the schema comes from, for messages: a ``--crd`` file or the shipped schema."""
        if (api_version, kind) in self._user:
            return self._user[(api_version, kind)][1]
        return "kqlint's schema"

    def versions(self, group: str, kind: str) -> list[str]:
        """Every apiVersion of ``group``/``kind`` the catalog has a schema for."""
        keys = set(self._user) | set(self._shipped)
        return sorted(v for v, k in keys if k == kind and v.rpartition("/")[0] == group)

    def _document(self, key: tuple[str, str]) -> dict[str, Any] | None:
        if key in self._user:
            return self._user[key][0]
        name = self._shipped.get(key)
        if name is None:
            return None
        text = _package_file(name)
        document = json.loads(text)
        return document if isinstance(document, dict) else None


def _package_file(name: str) -> str:
    from importlib import resources  # lazily: a run without known kinds never reads a schema

    return resources.files("kqlint.schemas").joinpath("kinds").joinpath(name).read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def _shipped_index() -> dict[tuple[str, str], str]:
    text = _package_file("index.json")
    kinds = json.loads(text).get("kinds", {})
    return {(api_version, kind): entry["file"]
            for api_version, by_kind in kinds.items() for kind, entry in by_kind.items()}


def catalog(crd_paths: tuple[str, ...] = ()) -> SchemaCatalog:
    """The catalog for these ``--crd`` paths, built once per process for the same files.
    Raises :class:`CrdError` for a missing path, a file that does not parse, or a path
    without any CRD."""
    return _catalog(_crd_signature(crd_paths))


Signature = tuple[tuple[str, tuple[tuple[str, int, int], ...]], ...]


@lru_cache(maxsize=8)
def _catalog(signature: Signature) -> SchemaCatalog:
    user: dict[tuple[str, str], tuple[dict[str, Any], str]] = {}
    for given, files in signature:
        user.update(load_crds([path for path, _, _ in files], given))
    return SchemaCatalog(user)


def _crd_signature(crd_paths: tuple[str, ...]) -> Signature:
    """Per ``--crd`` path: its files with mtime and size (a changed file is read again)."""
    from kqlint.project.discover import discover

    groups = []
    for given in crd_paths:
        found = discover([given])
        if found.missing:
            raise CrdError(f"--crd {given}: no such file or folder")
        files = tuple((os.path.abspath(p), os.stat(p).st_mtime_ns, os.stat(p).st_size) for p in found.files)
        if not files:
            raise CrdError(f"--crd {given}: no .yaml, .yml or .json file in it")
        groups.append((given, files))
    return tuple(groups)


def load_crds(files: list[str], given: str) -> dict[tuple[str, str], tuple[dict[str, Any], str]]:
    """(apiVersion, kind) -> (schema, file) for every served version of every CRD in ``files``
    (found under the ``--crd`` path ``given``)."""
    from kqlint.loader import load_file
    from kqlint.project.discover import display_path
    from kqlint.project.writer import remember_read

    remember_read(files)  # never overwritten by a report
    schemas: dict[tuple[str, str], tuple[dict[str, Any], str]] = {}
    for path in files:
        shown = display_path(path)
        source = load_file(path, shown)
        if source.problems:
            problem = source.problems[0]
            raise CrdError(f"--crd {problem.file}:{problem.line}:{problem.column}: {problem.message}")
        for crd in _crd_documents(source.documents):
            for api_version, kind, openapi in crd_versions(crd):
                schemas[(api_version, kind)] = (to_schema(openapi), shown)
    if not schemas:
        raise CrdError(f"--crd {given}: no CustomResourceDefinition with an openAPIV3Schema in it")
    return schemas


def _crd_documents(documents: list[Any]) -> Iterator[dict[str, Any]]:
    for document in documents:
        if is_crd(document):
            yield document
        elif isinstance(document, dict) and isinstance(document.get("items"), list):
            yield from (item for item in document["items"] if is_crd(item))
