"""Which reports a ``kqlint check`` run writes, where, in colour or not, and how wide.

- ``--format``/``--output`` pair up by position. An ``--output`` without a ``--format`` takes
  its format from the file name (``report.json`` -> json, ``x.sarif``/``x.sarif.json`` ->
  sarif, ``x.xml`` -> junit, ``gl-code-quality-report.json`` -> gitlab, ``x.txt``/``x.log`` ->
  text); any other name is a usage error, so a text report never lands in a ``.json`` file.
- ``--output-format full|concise`` (or any report format) is the ruff-style spelling; config
  ``output-format: full|concise`` is the default style of the text report.
- Colour: ``--color always|never`` wins, then ``--no-color``, then ``NO_COLOR``, then
  ``FORCE_COLOR``, then whether stdout is a terminal.
"""
from __future__ import annotations

import os
import shutil
import sys

from kqlint.reporters import FORMATS

OUTPUT_STYLES = {"full": "text", "concise": "concise"}
COLOR_CHOICES = ("auto", "always", "never")
STDOUT = "-"
DEFAULT_WIDTH = 100
_BY_NAME = {"gl-code-quality-report.json": "gitlab", "codequality.json": "gitlab"}
_BY_SUFFIX = ((".sarif.json", "sarif"), (".sarif", "sarif"), (".json", "json"), (".xml", "junit"),
              (".txt", "text"), (".log", "text"))


class OutputError(Exception):
    """A usage error about reports (exit 2)."""


def format_for_file(path: str) -> str:
    """The report format a file name asks for, or OutputError."""
    name = os.path.basename(path).lower()
    if name in _BY_NAME:
        return _BY_NAME[name]
    for suffix, fmt in _BY_SUFFIX:
        if name.endswith(suffix):
            return fmt
    raise OutputError(f"cannot tell the report format of --output {path} from its name: give --format "
                      f"(one of {', '.join(FORMATS)}) or a name ending in .json, .sarif, .xml or .txt")


def normalise(name: str) -> str:
    """The report format ``name`` (or the style ``full``/``concise``) stands for; UsageError
    (exit 2) for any other name."""
    from kqlint.reporters.formats import choose

    return choose(name, FORMATS, OUTPUT_STYLES)


def targets(formats: list[str], outputs: list[str], default_style: str | None = None) -> list[tuple[str, str]]:
    """[(format, target)] where target is a file or ``-`` (stdout)."""
    formats = [normalise(name) for name in formats]
    if len(outputs) > len(formats):
        formats += [format_for_file(path) if path != STDOUT else _default(default_style)
                    for path in outputs[len(formats):]]
    if not formats:
        formats = [_default(default_style)]
    pairs = [(name, outputs[i] if i < len(outputs) else STDOUT) for i, name in enumerate(formats)]
    if sum(1 for _, target in pairs if target == STDOUT) > 1:
        raise OutputError("only one report can go to stdout; give the others an --output FILE")
    return pairs


def _default(style: str | None) -> str:
    if os.environ.get("GITHUB_ACTIONS") == "true":
        return "github"
    return OUTPUT_STYLES.get(style, style) if style else "text"  # config output-format: a style or a format


def use_color(choice: str | None = None, no_color: bool = False, stream: object = None) -> bool:
    if choice is not None and choice not in COLOR_CHOICES:
        raise OutputError(f"--color must be one of {', '.join(COLOR_CHOICES)}, not {choice!r}")
    if choice == "always":
        return True
    if choice == "never" or no_color or os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR") not in (None, "", "0"):
        return True
    stream = stream if stream is not None else sys.stdout
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def terminal_width(stream: object = None) -> int | None:
    """The terminal's width (COLUMNS, else the terminal's size) when stdout is a terminal,
    else None: piped output is not wrapped (one message per line stays greppable)."""
    stream = stream if stream is not None else sys.stdout
    isatty = getattr(stream, "isatty", None)
    if not (isatty and isatty()):
        return None
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) >= 20:
        return int(columns)
    return max(40, shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns)
