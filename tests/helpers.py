"""Shared test helpers: lint a fixture case and read its `# expect:` markers."""
from __future__ import annotations

import os
import re
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from kqlint.config import Config, load_config
from kqlint.model import Report
from kqlint.runner import lint

EXPECT_RE = re.compile(r"#\s*expect:\s*(.+)$")
RELATED_RE = re.compile(r"#\s*related:\s*(.+)$")
MARK_RE = re.compile(r"^(?P<code>[A-Z]+\d+):(?P<col>\d+)$")


@contextmanager
def chdir(path: Path) -> Iterator[None]:
    old = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


def markers(case: Path, regex: re.Pattern[str] = EXPECT_RE) -> set[tuple[str, int, int, str]]:
    """(file relative to the case, line, column, code) for every `# expect: KQnnn:col` marker."""
    found = set()
    files = [case] if case.is_file() else sorted(p for p in case.rglob("*") if p.is_file())
    base = case.parent if case.is_file() else case
    for file in files:
        if file.name.startswith("."):
            continue
        for number, line in enumerate(file.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            match = regex.search(line)
            if not match:
                continue
            for item in match.group(1).split(","):
                item = item.strip().split()[0] if item.strip() else ""
                mark = MARK_RE.match(item)
                assert mark, f"{file}:{number}: marker must look like `KQ102:7` (code:column), got {item!r}"
                found.add((file.relative_to(base).as_posix(), number, int(mark["col"]), mark["code"]))
    return found


def lint_case(case: Path, code: str | None, config: Config | None = None) -> Report:
    """Lint one fixture case (a file or folder) from its parent folder, only ``code`` enabled."""
    base = case.parent if case.is_file() else case
    with chdir(base):
        if config is None:
            config = load_config(".kqlint.yaml") if Path(".kqlint.yaml").is_file() else Config()
        if code is not None:
            config = config.with_overrides(select=(code,))
        target = case.name if case.is_file() else "."
        return lint([target], config)


def found(report: Report) -> set[tuple[str, int, int, str]]:
    return {(f.location.file, f.location.line, f.location.column, f.code) for f in report.findings}


def found_related(report: Report) -> set[tuple[str, int, int, str]]:
    return {(r.file, r.line, r.column, f.code) for f in report.findings for r in f.related}
