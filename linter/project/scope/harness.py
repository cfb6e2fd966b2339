"""Test-harness folders (rules.md "Applied together"): chainsaw and kuttl tests. Their assert
and error files describe expected state and are never applied; their other files are applied,
each test on its own, into a namespace the harness creates, and may name objects that only the
system under test creates.

What names these files, from the harnesses' own source:
- chainsaw (kyverno/chainsaw ``pkg/discovery/load.go`` ``LoadTest``): a folder holding
  ``chainsaw-test.yaml`` (else ``.yml``), a ``kind: Test`` of ``chainsaw.kyverno.io``, is a test;
  its steps name files under ``assert``/``error`` operations (``file:``, a glob relative to the
  folder, ``pkg/loaders/resource/load.go`` ``Load``). Without that file a folder of step files
  is a test (``pkg/discovery/step.go`` ``TryFindStepFiles``: ``^(\\d+)-(.*)\\.(?:yaml|yml)$``,
  the name ``assert`` or ``errors`` makes an assert or error file). In a test with a test file,
  files named like checks by the usual convention (``pod-assert.yaml``, ``errors.yaml``) that
  no apply/create/update/patch operation names are taken for checks too.
- kuttl (kudobuilder/kuttl ``internal/file/name.go`` ``Parse``): entries of a test case folder
  are ``<n>-<name>[-<more>][.gotmpl].yaml`` (``internal/utils/files/files.go``
  ``CollectTestStepFiles``; a step may be a folder ``<n>-<name>/`` whose files need no index);
  the first name ``assert``/``errors`` (any case) makes an assert/error file. A test case is a
  folder directly under a ``testDirs`` entry of the ``kuttl-test.yaml`` TestSuite; ``TestStep``
  and ``TestAssert`` objects (``kuttl.dev``) sit in step files.
"""
from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from fnmatch import fnmatchcase
from typing import Any, NamedTuple

from kqlint.project.discover import display_path
from kqlint.project.scope.layout import covers

CHAINSAW_TEST_FILES = ("chainsaw-test.yaml", "chainsaw-test.yml")
CHAINSAW_GROUP = "chainsaw.kyverno.io"
KUTTL_SUITE_FILES = ("kuttl-test.yaml",)
KUTTL_GROUP = "kuttl.dev"
# the harnesses' own configuration (chainsaw Test, StepTemplate, Configuration; kuttl TestSuite,
# TestStep, TestAssert, TestFile): read by the harness, never sent to a cluster (kuttl's
# step.go LoadYAML keeps TestStep/TestAssert/TestFile objects out of what it applies)
HARNESS_GROUPS = frozenset({CHAINSAW_GROUP, KUTTL_GROUP})
_CHAINSAW_STEP = re.compile(r"^\d+-(assert|errors)\.(?:yaml|yml)$")
_KUTTL_ENTRY = re.compile(r"^(\d+-)?([^-.]+)(-[^.]+)?((?:\.gotmpl)?\.yaml)?$")
_OPERATION_LISTS = ("try", "catch", "finally", "cleanup")
_CHECKS = ("assert", "error")
_APPLIES = ("apply", "create", "update", "patch")
# what chainsaw tests name their assert/error files by convention (`pod-assert.yaml`,
# `assert-pods.yaml`, `errors.yaml`): checks in a chainsaw test's folder unless a step applies them
_CONVENTIONAL_CHECK = re.compile(r"^(?:.*[-_])?(?:assert|errors?)(?:[-_][^/]*)?\.ya?ml$", re.IGNORECASE)
_MAX_PATTERNS = 256     # file globs read from one test file
_MAX_PATTERN = 512      # characters of one glob


def _kuttl_check(name: str, indexed: bool) -> bool:
    """``name`` is a kuttl assert or error file (``indexed``: it must start with ``<n>-``)."""
    match = _KUTTL_ENTRY.match(name)
    return bool(match and match.group(4) and (match.group(1) or not indexed)
                and match.group(2).lower() in ("assert", "errors"))


def _indexed(name: str) -> bool:
    """A kuttl step file (``<n>-<name>.yaml``; not ``kuttl-test.yaml``, the suite's own file)."""
    match = _KUTTL_ENTRY.match(name)
    return bool(match and match.group(1) and match.group(4))


def _step_folder(name: str) -> bool:
    """A kuttl step held in a folder: ``<n>-<name>`` (no extension)."""
    match = _KUTTL_ENTRY.match(name)
    return bool(match and match.group(1) and not match.group(4))


def named_check(name: str) -> bool:
    """A file name both harnesses read as expected state in a test folder (``01-assert.yaml``,
    ``02-errors.yaml``; kuttl also ``01-assert-pods.yaml``)."""
    return bool(_CHAINSAW_STEP.match(name)) or _kuttl_check(name, indexed=True)


class HarnessTests:
    """Which files belong to a chainsaw or kuttl test (the test's folder) and which of them are
    expected-state files. Reads only folder listings and the harness files in folders of the
    linted files, never above ``top``."""

    def __init__(self, top: str, max_file_size: int, files: Iterable[str], kuttl_files: Iterable[str] = ()) -> None:
        """``files``: absolute paths of the linted files; ``kuttl_files``: those holding a
        ``kuttl.dev`` object (a numbered step file's makes its folder a test case)."""
        self.top = top
        self.max_file_size = max_file_size
        self.files = sorted(set(files))
        self.kuttl_cases = frozenset(os.path.dirname(file) for file in kuttl_files if _indexed(os.path.basename(file)))
        self._listing: dict[str, frozenset[str]] = {}
        self._chainsaw: dict[str, _Globs | None] = {}  # folder -> the file globs of its chainsaw test
        self._suites: dict[str, tuple[str, ...]] = {}     # folder -> testDirs of its kuttl-test.yaml
        self._test: dict[str, str | None] = {}            # file -> its test folder
        self._cases: dict[str, bool] = {}                 # folder -> a test case of step files
        self.checks: set[str] = set()                     # expected-state files (absolute)
        for file in self.files:
            folder = self.test_folder(file)
            if folder is not None and self._is_check(file, folder):
                self.checks.add(file)
        for folder in sorted(f for f in self._chainsaw if self._chainsaw[f] is not None):
            self.checks.update(self._named_by_test(folder))

    def test_folder(self, file: str) -> str | None:
        """The folder of the test ``file`` (absolute) belongs to; None: no harness test."""
        if file not in self._test:
            self._test[file] = self._find_test(file)
        return self._test[file]

    def _find_test(self, file: str) -> str | None:
        folder = os.path.dirname(file)
        if not covers(self.top, folder):
            return None
        for above in _up_to(folder, self.top):  # the nearest chainsaw test holds nested folders too
            if self._chainsaw_test(above) is not None:
                return above
        if self._case(folder) or folder in self.kuttl_cases:  # a step file holding kuttl objects
            return folder
        parent = os.path.dirname(folder)
        if parent != folder and covers(self.top, parent) and _step_folder(os.path.basename(folder)) \
                and self._case(parent):
            return parent
        return None

    def _case(self, folder: str) -> bool:
        """``folder`` is a test case of default-named step files (chainsaw without a test file,
        or kuttl): it holds an assert/error file (or a step folder holding one), or its parent
        is a ``testDirs`` entry of a kuttl suite."""
        if folder not in self._cases:
            listing = self._list(folder)
            self._cases[folder] = any(named_check(name) for name in listing) or any(
                _step_folder(name) and any(_kuttl_check(inner, indexed=False)
                                           for inner in self._list(os.path.join(folder, name)))
                for name in listing) or self._in_suite(folder)
        return self._cases[folder]

    def _in_suite(self, folder: str) -> bool:
        parent = os.path.dirname(folder)
        return any(parent in self._suite_dirs(above) for above in _up_to(parent, self.top))

    def _is_check(self, file: str, folder: str) -> bool:
        name, holder = os.path.basename(file), os.path.dirname(file)
        if holder == folder:
            return named_check(name)
        return os.path.dirname(holder) == folder and _step_folder(os.path.basename(holder)) \
            and _kuttl_check(name, indexed=False)

    def is_check(self, file: str) -> bool:
        """``file`` (any spelling) is an assert or error file of a test: never applied."""
        return bool(self.checks) and os.path.abspath(file) in self.checks

    def _list(self, folder: str) -> frozenset[str]:
        if folder not in self._listing:
            try:
                self._listing[folder] = frozenset(os.listdir(folder)) if covers(self.top, folder) else frozenset()
            except OSError:
                self._listing[folder] = frozenset()
        return self._listing[folder]

    def _chainsaw_test(self, folder: str) -> _Globs | None:
        """The globs a chainsaw test in ``folder`` names under assert/error operations and under
        the operations that apply files; None: no test."""
        if folder not in self._chainsaw:
            self._chainsaw[folder] = None
            for name in CHAINSAW_TEST_FILES:  # chainsaw reads the .yml only when the .yaml is missing
                if name in self._list(folder):
                    documents = _documents(os.path.join(folder, name), self.max_file_size)
                    tests = [d for d in documents if d.get("kind") == "Test"
                             and str(d.get("apiVersion") or "").startswith(CHAINSAW_GROUP + "/")]
                    if tests:
                        self._chainsaw[folder] = _Globs(list(_file_globs(tests, _CHECKS))[:_MAX_PATTERNS],
                                                        list(_file_globs(tests, _APPLIES))[:_MAX_PATTERNS])
                    break
        return self._chainsaw[folder]

    def _named_by_test(self, folder: str) -> Iterator[str]:
        """The checks of the chainsaw test in ``folder``: what it names under assert/error, and
        its files named like checks that no step applies."""
        globs = self._chainsaw[folder]
        if globs is None:
            return
        checks, applied = _patterns(folder, globs.checks), _patterns(folder, globs.applied)
        for file in self.files:
            parts = _split(file)
            if _matches(parts, checks) or self.test_folder(file) == folder \
                    and _CONVENTIONAL_CHECK.match(parts[-1]) and not _matches(parts, applied):
                yield file

    def _suite_dirs(self, folder: str) -> tuple[str, ...]:
        """The test folders a ``kuttl-test.yaml`` in ``folder`` lists (absolute)."""
        if folder not in self._suites:
            found: list[str] = []
            for name in KUTTL_SUITE_FILES:
                if name in self._list(folder):
                    for document in _documents(os.path.join(folder, name), self.max_file_size):
                        if document.get("kind") == "TestSuite" and isinstance(document.get("testDirs"), list):
                            found += [os.path.normpath(os.path.join(folder, entry))
                                      for entry in document["testDirs"] if isinstance(entry, str) and entry]
            self._suites[folder] = tuple(found)
        return self._suites[folder]


class _Globs(NamedTuple):
    checks: list[str]   # under assert/error operations
    applied: list[str]  # under apply/create/update/patch operations


def _patterns(folder: str, globs: list[str]) -> list[list[str]]:
    return [_split(os.path.normpath(os.path.join(folder, glob))) for glob in globs]


def _matches(parts: list[str], patterns: list[list[str]]) -> bool:
    """``parts`` of a path match one of the ``patterns`` (Go's filepath.Glob: ``*`` within a name)."""
    return any(len(parts) == len(pattern) and all(map(fnmatchcase, parts, pattern)) for pattern in patterns)


def _up_to(folder: str, top: str) -> Iterator[str]:
    """``folder`` and the folders above it up to ``top``, nearest first."""
    while covers(top, folder):
        yield folder
        if folder == top:
            return
        folder = os.path.dirname(folder)


def _split(path: str) -> list[str]:
    return path.split(os.sep)


def _documents(path: str, max_file_size: int) -> list[dict[str, Any]]:
    from kqlint.loader import load_file

    try:
        source = load_file(path, display_path(path), max_file_size)
    except Exception:
        return []
    return [document for document in source.documents if isinstance(document, dict)]


def _file_globs(tests: list[dict[str, Any]], kinds: tuple[str, ...]) -> Iterator[str]:
    """The ``file:`` of every operation of these kinds in the tests' steps (expressions skipped)."""
    for test in tests:
        spec = test.get("spec")
        steps = spec.get("steps") if isinstance(spec, dict) else None
        for step in steps if isinstance(steps, list) else ():
            for key in _OPERATION_LISTS:
                operations = step.get(key) if isinstance(step, dict) else None
                for operation in operations if isinstance(operations, list) else ():
                    for kind in kinds:
                        body = operation.get(kind) if isinstance(operation, dict) else None
                        glob = body.get("file") if isinstance(body, dict) else None
                        if isinstance(glob, str) and glob and not glob.startswith("(") \
                                and len(glob) <= _MAX_PATTERN and "://" not in glob:
                            yield glob
