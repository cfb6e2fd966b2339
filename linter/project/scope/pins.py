"""The files of a run that pin a Kueue version (kqlint.domain.pins; rules.md "Versions the
repository pins": in a kustomization or values file): kustomizations (any name whose document
is a Kustomization) and Helm values files among the manifests the run reads, its inputs and its
context alike (the project root's manifests when the context is automatic). Context loading
keeps objects only, and neither kind of file is an object, so they are found here, discovered as
the inputs are (``exclude`` globs, skipped folders; a Helm chart's own files are templates kqlint
does not read, KQ006) and read once per run, through the cache when the run has one (an
unchanged file is not read again).

What the repository brings is not trusted: a walked file whose real path leaves its tree is
not read (kqlint.project.containment), each file is read up to ``max-file-size``, and a run with
more than ``MAX_PIN_FILES`` such files reads none of them (a pin past the bound could be the one
that disagrees: no file pins is the version unknown, today's behaviour, never a wrong one).
"""
from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from kqlint.project.discover import STDIN, discover, display_path
from kqlint.project.scope.layout import KUSTOMIZATION_NAMES

if TYPE_CHECKING:
    from kqlint.config import Config
    from kqlint.domain.pins import Pin
    from kqlint.loader import SourceFile

MAX_PIN_FILES = 2048
Extract = Callable[[Any, str], Iterator["Pin"]]


def file_pins(paths: Iterable[str], config: Config) -> tuple[Pin, ...]:
    """The Kueue pins in the pin files under ``paths`` (the run's input and context paths),
    each read from disk up to ``max-file-size``."""
    from kqlint.loader import load_file

    return pins_in(load_file(path, display_path(path), config.max_file_size) for path in pin_files(paths, config))


def pin_files(paths: Iterable[str], config: Config) -> list[str]:
    """The files under ``paths`` (the run's input and context paths) that may pin Kueue: the
    caller reads them (through its cache, when it has one) and hands them to ``pins_in``."""
    return [path for path, _ in _pin_files([p for p in dict.fromkeys(paths) if p != STDIN], config)]


def pins_in(sources: Iterable[SourceFile]) -> tuple[Pin, ...]:
    """The Kueue pins the pin files ``sources`` (pin_files, parsed) hold."""
    found: set[Pin] = set()
    for source in sources:
        extract = _extractor(os.path.basename(source.path))
        if extract is None:
            continue
        for document in source.documents:  # what parsed (a file YAML refuses has none)
            found.update(extract(document, source.path))
    return tuple(sorted(found))


def _pin_files(paths: list[str], config: Config) -> list[tuple[str, Extract]]:
    from kqlint.project.containment import contain_files

    if not paths:
        return []
    picked = {file: extract for file in discover(paths, config.exclude).files
              if (extract := _extractor(os.path.basename(file)))}
    if len(picked) > MAX_PIN_FILES:
        return []
    kept, _ = contain_files(sorted(picked), paths, config.follow_external_symlinks)
    return [(file, picked[file]) for file in kept]


def _extractor(name: str) -> Extract | None:
    lower = name.lower()
    if name in KUSTOMIZATION_NAMES or lower.startswith("kustomization"):
        return _kustomization
    if "values" in lower:
        return _values
    return None


def _kustomization(document: Any, where: str) -> Iterator[Pin]:
    """Any name kustomize reads, or another name whose document says ``kind: Kustomization``."""
    from kqlint.domain.pins import kustomization_pins

    standard = os.path.basename(where) in KUSTOMIZATION_NAMES
    if standard or (isinstance(document, dict) and document.get("kind") == "Kustomization"):
        yield from kustomization_pins(document, where)


def _values(document: Any, where: str) -> Iterator[Pin]:
    from kqlint.domain.pins import values_pins

    yield from values_pins(document, where)
