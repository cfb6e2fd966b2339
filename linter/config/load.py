"""Reading a configuration file: a single-document YAML mapping, or the ``[tool.kqlint]``
table of ``pyproject.toml``. YAML positions come from the loader; TOML has none, so a TOML
error points at the line that spells the key (best effort, :func:`toml_position`)."""
from __future__ import annotations

import re
import sys
from typing import Any

from kqlint.config.settings import Config, ConfigOrigin
from kqlint.config.validate import config_from_mapping, yaml_locator
from kqlint.errors import ConfigError
from kqlint.project.bounded import DEFAULT_MAX_FILE_SIZE

_TOML_ERROR_RE = re.compile(r"\s*\(at (?:line (\d+), column (\d+)|end of document)\)\s*$")


def load_config(path: str | None) -> Config:
    """The validated config of ``path`` (``None``: the defaults)."""
    if path is None:
        return Config()
    data, origin = _read(path)
    return config_from_mapping(data, path, origin)


def _read(path: str) -> tuple[dict[str, Any], ConfigOrigin]:
    from kqlint.project.discover import display_path
    from kqlint.project.writer import remember_read

    shown = display_path(path)
    remember_read([path])  # never overwritten by a report
    if path.endswith(".toml"):
        return _read_toml_section(path, shown)
    from kqlint.loader import load_file

    source = load_file(path, shown, consumer="kqlint")
    if source.problems:
        problem = source.problems[0]
        raise ConfigError(f"{shown}:{problem.line}:{problem.column}: {problem.message}")
    documents = [d for d in source.documents if d is not None]
    if len(documents) > 1:
        raise ConfigError(f"{shown}:1:1: the configuration must be a single YAML document")
    data = documents[0] if documents else {}
    if not isinstance(data, dict):
        raise ConfigError(f"{shown}:1:1: the configuration must be a mapping of settings")
    return data, ConfigOrigin(shown, data, yaml_locator(data))


def _read_toml_section(path: str, shown: str) -> tuple[dict[str, Any], ConfigOrigin]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:
        import tomli as tomllib
    from kqlint.project.bounded import ReadRefused, read_file

    try:
        raw = read_file(path, DEFAULT_MAX_FILE_SIZE)
        text = raw.decode("utf-8")
        data = tomllib.loads(text)
    except ReadRefused as exc:
        raise ConfigError(f"{shown}:1:1: {exc}") from None
    except RecursionError:
        raise ConfigError(f"{shown}:1:1: invalid TOML: nested too deeply") from None
    except OSError as exc:
        raise ConfigError(f"{shown}:1:1: cannot read configuration: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{shown}:1:1: not valid UTF-8: {exc.reason}") from exc
    except tomllib.TOMLDecodeError as exc:
        match = _TOML_ERROR_RE.search(str(exc))
        line, column = (match.group(1), match.group(2)) if match and match.group(1) \
            else (str(text.count("\n") + 1), "1")
        reason = _TOML_ERROR_RE.sub('', str(exc))
        raise ConfigError(f"{shown}:{line}:{column}: invalid TOML: {reason}") from None
    tool = data.get("tool")
    section = tool.get("kqlint", {}) if isinstance(tool, dict) else {}
    if not isinstance(section, dict):
        raise ConfigError(f"{shown}:1:1: [tool.kqlint] must be a table")
    return section, ConfigOrigin(shown, section, lambda path, value: toml_position(text, path))


def toml_position(text: str, path: tuple[Any, ...]) -> tuple[int, int]:
    """The line spelling the deepest key of ``path`` inside the ``[tool.kqlint]`` tables."""
    lines = text.splitlines()
    header = re.compile(r"^\s*\[\[?\s*tool\s*\.\s*\"?kqlint\b")
    start = next((i for i, line in enumerate(lines) if header.match(line)), None)
    if start is None:
        return 1, 1
    best, cursor = (start + 1, lines[start].index("[") + 1), start
    for step in path:
        if isinstance(step, int):  # item N of an array of tables: the N-th `[[...]]` header
            header_text = lines[cursor].strip()
            if header_text.startswith("[["):
                repeats = [i for i in range(cursor, len(lines)) if lines[i].strip() == header_text]
                cursor = repeats[step] if step < len(repeats) else cursor
                best = (cursor + 1, lines[cursor].index("[") + 1)
            continue
        token = re.compile(r"(?<![\w-])[\"']?" + re.escape(str(step)) + r"[\"']?(?=\s*[=\].])")
        hit = next(((i, m) for i in range(cursor, len(lines))
                    for m in [token.search(lines[i].split("#", 1)[0])] if m), None)
        if hit is None:
            break
        cursor = hit[0]
        best = (hit[0] + 1, hit[1].start() + 1)
    return best
