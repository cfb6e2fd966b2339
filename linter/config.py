"""Configuration: discovery, validation, and the settings a run uses.

Discovery (cli.md "Configuration"): from the current directory upwards, in each folder
``.kqlint.yaml``, then ``.kqlint.yml``, then ``[tool.kqlint]`` in ``pyproject.toml``; the
first hit wins, and the search stops at the repository root (the folder holding ``.git``).
Validation happens in two steps, each ending in one ``ConfigError``
``file:line:col: key: message`` (exit 2):

1. ``load_config``: the file against ``schemas/config.schema.json`` (JSON Schema 2020-12),
   then what a schema cannot say: the profile exists, custom rules compile, ``context``
   paths exist.
2. ``check_rule_names`` (called by the runner once plugins and custom rules are loaded):
   rule codes, slugs and prefixes in ``select``/``ignore``/``severity``/``rules`` name real
   rules, and each ``rules.<CODE>`` mapping matches the rule's ``Options`` dataclass.
   Slugs are normalised to codes.

YAML positions come from the loader; TOML has none, so a TOML error points at the line
that spells the key (best effort).
"""
from __future__ import annotations

import dataclasses
import difflib
import functools
import json
import os
import re
import sys
import types
import typing
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from kqlint.errors import ConfigError
from kqlint.model import Severity

if TYPE_CHECKING:
    from kqlint.registry import RuleSet
    from kqlint.rule import Rule

CONFIG_NAMES = (".kqlint.yaml", ".kqlint.yml")
DEFAULT_MAX_FILE_SIZE = 16 * 1024 * 1024
_TOOL_SECTION_RE = re.compile(rb"^[ \t]*\[\[?[ \t]*tool[ \t]*\.[ \t]*\"?kqlint\"?[ \t]*[\].]", re.M)
_TOML_ERROR_RE = re.compile(r"\s*\(at (?:line (\d+), column (\d+)|end of document)\)\s*$")


@dataclass(frozen=True)
class ConfigOrigin:
    """The file a config came from and its raw data, to turn a key path into a position."""

    file: str                      # as displayed
    data: Any                      # the loaded mapping (YAML: a loader Map carrying positions)
    toml_text: str | None = None   # pyproject.toml: TOML keeps no positions, search the text

    def where(self, path: tuple[Any, ...], value: bool = False) -> str:
        if self.toml_text is not None:
            line, column = _toml_position(self.toml_text, path)
        else:
            from kqlint.loader import position

            line, column, _ = position(self.data, path, value)
        return f"{self.file}:{line}:{column}"


@dataclass(frozen=True)
class Config:
    path: str | None = None
    profile: str | None = None
    fail_on: Severity | None = Severity.WARNING     # None = never
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    severity: dict[str, Severity] = field(default_factory=dict)
    namespace: str = "default"
    exclude: tuple[str, ...] = ()
    context: tuple[str, ...] = ()
    units: tuple[str, ...] | None = None            # monorepo units (kqlint.scope); None: detected
    crds: tuple[str, ...] = ()                      # extra CRD files/folders for KQ002 (--crd)
    external: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    rules: dict[str, dict[str, Any]] = field(default_factory=dict)
    plugins: tuple[str, ...] = ()
    custom_rules: tuple[dict[str, Any], ...] = ()
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    # issue 13 (adoption): text report style, stdin's name, per-path rule settings
    output_format: str | None = None                # full | concise
    stdin_filename: str | None = None               # --stdin-filename
    per_file_ignores: dict[str, tuple[str, ...]] = field(default_factory=dict)
    per_file_severity: dict[str, dict[str, Severity]] = field(default_factory=dict)
    follow_external_symlinks: bool = False          # --follow-external-symlinks (kqlint.containment)
    # the `platform:` section (README "Platform model"); read only by kqlint.platform
    platform: dict[str, Any] = field(default_factory=dict)
    origin: ConfigOrigin | None = field(default=None, compare=False, repr=False)

    def with_overrides(self, **changes: Any) -> Config:
        return replace(self, **{k: v for k, v in changes.items() if v is not None})


def parse_fail_on(value: str) -> Severity | None:
    if value == "never":
        return None
    return Severity.parse(value)


# ------------------------------------------------------------------ discovery

def discover_config(start: str | None = None) -> str | None:
    probe = os.path.abspath(start or os.getcwd())
    while True:
        for name in CONFIG_NAMES:
            candidate = os.path.join(probe, name)
            if os.path.isfile(candidate):
                return candidate
        pyproject = os.path.join(probe, "pyproject.toml")
        if os.path.isfile(pyproject) and _has_tool_section(pyproject):
            return pyproject
        parent = os.path.dirname(probe)
        if parent == probe or os.path.exists(os.path.join(probe, ".git")):
            return None  # never above the project root: a parent folder's config is not this repository's
        probe = parent


def _has_tool_section(pyproject: str) -> bool:
    from kqlint.bounded import ReadRefused, read_file

    try:
        return _TOOL_SECTION_RE.search(read_file(pyproject, DEFAULT_MAX_FILE_SIZE)) is not None
    except ReadRefused:
        return True  # named by discovery: _read_toml_section says what is wrong with it
    except OSError:
        return False


# ------------------------------------------------------------------ loading

def load_config(path: str | None) -> Config:
    """The validated config of ``path`` (``None``: the defaults)."""
    if path is None:
        return Config()
    data, origin = _read(path)
    return config_from_mapping(data, path, origin)


def _read(path: str) -> tuple[dict[str, Any], ConfigOrigin]:
    from kqlint.discover import display_path
    from kqlint.writer import remember_read

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
    return data, ConfigOrigin(shown, data)


def _read_toml_section(path: str, shown: str) -> tuple[dict[str, Any], ConfigOrigin]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:
        import tomli as tomllib
    from kqlint.bounded import ReadRefused, read_file

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
    return section, ConfigOrigin(shown, section, text)


def config_from_mapping(data: dict[str, Any], path: str, origin: ConfigOrigin | None = None) -> Config:
    """Validate ``data`` (the settings of the config file ``path``) and build the Config."""
    origin = origin or ConfigOrigin(path, data)
    _check_numbers(data, origin)
    _validate_schema(data, config_schema(), origin)
    _check_profile(data.get("profile"), origin)
    _check_custom_rules(data.get("custom-rules") or [], origin)
    context = _context_paths(data.get("context") or [], path, origin)
    fail_on = data.get("fail-on", "warning")
    return Config(
        path=path,
        profile=data.get("profile"),
        fail_on=parse_fail_on(fail_on),
        select=tuple(data.get("select") or ()),
        ignore=tuple(data.get("ignore") or ()),
        severity={str(name): Severity.parse(value) for name, value in (data.get("severity") or {}).items()},
        namespace=data.get("namespace") or "default",
        exclude=tuple(data.get("exclude") or ()),
        context=context,
        units=tuple(data["units"] or ()) if "units" in data else None,
        crds=tuple(p if os.path.isabs(p) else os.path.normpath(os.path.join(os.path.dirname(path), p))
                   for p in data.get("crds") or ()),
        external={kind: list(entries or ()) for kind, entries in (data.get("external") or {}).items()},
        rules={str(name): dict(options or {}) for name, options in (data.get("rules") or {}).items()},
        plugins=tuple(data.get("plugins") or ()),
        custom_rules=tuple(data.get("custom-rules") or ()),
        max_file_size=data.get("max-file-size") or DEFAULT_MAX_FILE_SIZE,
        output_format=data.get("output-format"),
        per_file_ignores={str(glob): tuple(codes or ())
                          for glob, codes in (data.get("per-file-ignores") or {}).items()},
        per_file_severity={str(glob): {str(code): Severity.parse(level) for code, level in (levels or {}).items()}
                           for glob, levels in (data.get("per-file-severity") or {}).items()},
        platform=dict(data.get("platform") or {}),
        origin=origin,
    )


MAX_CONFIG_INT = 2 ** 63  # no setting needs more; huge ints also break str() (4,300 digits)


def _check_numbers(data: Any, origin: ConfigOrigin) -> None:
    """A number no setting can hold is a clear error, before anything formats it."""
    stack: list[tuple[tuple[Any, ...], Any]] = [((), data)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, dict):
            stack.extend((path + (key,), child) for key, child in value.items())
        elif isinstance(value, list):
            stack.extend((path + (index,), child) for index, child in enumerate(value))
        elif isinstance(value, int) and not isinstance(value, bool) and abs(value) >= MAX_CONFIG_INT:
            from kqlint.sanitize import excerpt

            raise ConfigError(f"{origin.where(path, True)}: {_label(path, '')}"
                              f"number too large for any setting ({excerpt(value)})")


def _context_paths(entries: list[str], config_path: str, origin: ConfigOrigin) -> tuple[str, ...]:
    """``context`` paths are relative to the config file's folder and must exist."""
    base = os.path.dirname(config_path)
    paths = []
    for index, entry in enumerate(entries):
        resolved = entry if os.path.isabs(entry) or not base else os.path.normpath(os.path.join(base, entry))
        if not os.path.exists(resolved):
            relative = " (relative to the config file's folder)" if resolved != entry else ""
            raise ConfigError(f"{origin.where(('context', index), True)}: context[{index}]: "
                              f"path does not exist: {entry}{relative}")
        paths.append(resolved)
    return tuple(paths)


def _check_profile(name: Any, origin: ConfigOrigin | None) -> None:
    """``origin`` is None when the name came from ``--profile``."""
    from kqlint.profiles import PROFILES

    if name is None or name in PROFILES:
        return
    message = f"unknown profile {name!r} (available: {', '.join(sorted(PROFILES))})"
    if origin is not None:
        raise ConfigError(f"{origin.where(('profile',), True)}: profile: {message}")
    raise ConfigError(f"--profile: {message}")


def _check_custom_rules(entries: list[dict[str, Any]], origin: ConfigOrigin) -> None:
    """Unique codes and slugs, and every rule compiles (kqlint.custom keeps the compiled rules)."""
    from kqlint.custom import CustomRuleError, custom_rules

    seen: dict[str, int] = {}
    for index, entry in enumerate(entries):
        for key in ("code", "slug"):
            value = entry[key]
            if value in seen:
                raise ConfigError(f"{origin.where(('custom-rules', index, key), True)}: "
                                  f"custom-rules[{index}].{key}: {value!r} is already used by "
                                  f"custom-rules[{seen[value]}]")
            seen[value] = index
    try:
        custom_rules(entries)
    except CustomRuleError as exc:
        raise ConfigError(f"{origin.where(('custom-rules', exc.index, exc.key), True)}: {exc}") from None


# ------------------------------------------------------------------ JSON Schema

@functools.lru_cache(maxsize=1)
def config_schema() -> dict[str, Any]:
    """``schemas/config.schema.json``."""
    from importlib.resources import files

    text = files("kqlint.schemas").joinpath("config.schema.json").read_text(encoding="utf-8")
    return json.loads(text)  # type: ignore[no-any-return]


def _validate_schema(data: Any, schema: dict[str, Any], origin: ConfigOrigin | None,
                     prefix: tuple[Any, ...] = ()) -> None:
    """Raise one ConfigError for the first schema violation in document order
    (no position when ``origin`` is None: the settings did not come from a file)."""
    from jsonschema import Draft202012Validator

    errors = list(Draft202012Validator(schema).iter_errors(data))
    # a misspelt key also makes a required key "missing": report the misspelling
    misspelt = {tuple(e.absolute_path) for e in errors if e.validator == "additionalProperties"}
    problems = []
    for error in errors:
        if error.validator == "required" and tuple(error.absolute_path) in misspelt:
            continue
        path, at_value, message = _explain(error)
        full = prefix + path
        if origin is None:
            problems.append((0, 0, _label(full, message)))
            continue
        where = origin.where(full, at_value)
        line, column = (int(part) for part in where.rsplit(":", 2)[1:])
        problems.append((line, column, f"{where}: {_label(full, message)}"))
    if problems:
        raise ConfigError(min(problems)[2])


def _explain(error: Any) -> tuple[tuple[Any, ...], bool, str]:
    """(key path, point at the value?, message) for one jsonschema error."""
    path = tuple(error.absolute_path)
    schema = error.schema if isinstance(error.schema, dict) else {}
    custom = schema.get("x-message")
    validator = error.validator
    if "propertyNames" in error.relative_schema_path:
        return path + (error.instance,), False, f"{custom or error.message}, not {error.instance!r}"
    if validator == "additionalProperties":
        allowed = sorted(schema.get("properties", {}))
        key = next(k for k in error.instance if k not in allowed)
        return path + (key,), False, f"unknown key `{key}`{_suggest(str(key), allowed)}"
    if custom and validator in ("pattern", "not", "maxLength"):
        return path, True, f"{custom}, not {_show(error.instance)}"
    if validator == "type":
        return path, True, f"must be {_describe_types(error.validator_value)}, not {_type_name(error.instance)}"
    if validator == "anyOf":
        choices = [s.get("type", "value") for s in error.validator_value if isinstance(s, dict)]
        return path, True, f"must be {_describe_types(choices)}, not {_type_name(error.instance)}"
    if validator == "enum":
        choices = [str(c) for c in error.validator_value]
        hint = _suggest(str(error.instance), choices)
        return path, True, (f"{_show(error.instance)} is not one of {', '.join(choices)}"
                            f"{hint if 'did you mean' in hint else ''}")
    if validator == "required":
        missing = [k for k in error.validator_value if k not in error.instance]
        return path, False, f"missing required key `{missing[0]}`"
    if validator in ("minLength", "minItems"):
        return path, True, "must not be empty"
    if validator == "minimum":
        return path, True, f"must be at least {error.validator_value}, not {_show(error.instance)}"
    if validator == "maximum":
        return path, True, f"must be at most {error.validator_value}, not {_show(error.instance)}"
    if validator == "maxItems":
        return path, True, f"at most {error.validator_value} entries, not {len(error.instance)}"
    return path, True, error.message


def _label(path: tuple[Any, ...], message: str) -> str:
    dotted = ""
    for step in path:
        dotted += f"[{step}]" if isinstance(step, int) else (f".{step}" if dotted else str(step))
    return f"{dotted}: {message}" if dotted else message


def _suggest(value: str, choices: Iterable[str]) -> str:
    choices = list(choices)
    close = difflib.get_close_matches(value, choices, n=1, cutoff=0.6)
    if close:
        return f" (did you mean `{close[0]}`?)"
    return f" (expected one of: {', '.join(choices)})" if 0 < len(choices) <= 16 else ""


def _show(value: Any) -> str:
    from kqlint.sanitize import excerpt

    return excerpt(value) if isinstance(value, (str, int, float)) and not isinstance(value, bool) \
        else _type_name(value)


_TYPE_WORDS = {"array": "a list", "object": "a mapping", "string": "a string", "integer": "an integer",
               "number": "a number", "boolean": "true or false", "null": "null"}


def _describe_types(types_: Any) -> str:
    flat: list[str] = []
    for item in [types_] if isinstance(types_, str) else types_:
        flat.extend([item] if isinstance(item, str) else item)
    names = [t for t in dict.fromkeys(flat) if t != "null"] or ["null"]
    return " or ".join(_TYPE_WORDS.get(t, t) for t in names)


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"a boolean ({str(value).lower()})"
    if isinstance(value, (int, float, str)):
        from kqlint.sanitize import excerpt

        return f"a {'string' if isinstance(value, str) else 'number'} ({excerpt(value)})"
    return "a list" if isinstance(value, list) else "a mapping" if isinstance(value, dict) else type(value).__name__


# ------------------------------------------------------------------ TOML positions (best effort)

def _toml_position(text: str, path: tuple[Any, ...]) -> tuple[int, int]:
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


# ------------------------------------------------------------------ rule names and options

def check_rule_names(config: Config, rules: Iterable[Rule]) -> Config:
    """Check every rule name and option in ``config`` against ``rules``; return the config
    with ``severity`` and ``rules`` keyed by rule code (slugs resolved)."""
    from kqlint.registry import RuleSet

    rules = RuleSet.of(rules)
    from_file = _from_file(config, ("profile",), config.profile)
    _check_profile(config.profile, config.origin if from_file else None)
    for key in ("select", "ignore"):
        for pattern in getattr(config, key):
            if not rules.matching(pattern):
                raise _name_error(config, key, pattern, rules,
                                  f"{pattern!r} matches no rule code, slug or code prefix")
    severity = {_exact(config, "severity", name, rules).code: level for name, level in config.severity.items()}
    options: dict[str, dict[str, Any]] = {}
    for name, values in config.rules.items():
        rule = _exact(config, "rules", name, rules)
        if rule.code in options:
            raise _name_error(config, "rules", name, [], f"options for {rule.code} are given twice")
        _check_options(config, name, rule, values)
        options[rule.code] = dict(values or {})
    return replace(config, severity=severity, rules=options)


def _exact(config: Config, key: str, name: str, rules: RuleSet) -> Rule:
    rule = rules.find(name)
    if rule is None:
        raise _name_error(config, key, name, rules, f"unknown rule {name!r}")
    return rule


def _name_error(config: Config, key: str, name: str, rules: Sequence[Rule], message: str) -> ConfigError:
    hint = _suggest(name, [r.code for r in rules] + [r.slug for r in rules]) if rules else ""
    hint = hint if "did you mean" in hint else (" (`kqlint rules` lists them)" if rules else "")
    origin, data = config.origin, config.origin.data if config.origin else None
    if key in ("select", "ignore"):
        items = data.get(key) if isinstance(data, dict) else None
        if isinstance(items, list) and name in items:
            index = items.index(name)
            return ConfigError(f"{origin.where((key, index), True)}: {key}[{index}]: {message}{hint}")  # type: ignore[union-attr]
        return ConfigError(f"--{key}: {message}{hint}")
    if origin is not None and _from_file(config, (key, name), None):
        return ConfigError(f"{origin.where((key, name))}: {key}.{name}: {message}{hint}")
    return ConfigError(f"{key}.{name}: {message}{hint}")


def _from_file(config: Config, path: tuple[Any, ...], value: Any) -> bool:
    """Whether ``path`` exists in the config file (and holds ``value`` unless it is None)."""
    node = config.origin.data if config.origin is not None else None
    for step in path:
        if not isinstance(node, dict) or step not in node:
            return False
        node = node[step]
    return value is None or node == value


def _check_options(config: Config, name: str, rule: Rule, values: dict[str, Any] | None) -> None:
    if not values:
        return
    origin = config.origin if _from_file(config, ("rules", name), None) else None
    if rule.options_type is None:
        key = next(iter(values))
        message = f"{rule.code} ({rule.slug}) has no options, but `{key}` is given"
        where = origin.where(("rules", name, key)) + ": " if origin is not None else ""
        raise ConfigError(f"{where}rules.{name}: {message}")
    _validate_schema(values, options_schema(rule.options_type), origin, ("rules", name))


def options_schema(options_type: type) -> dict[str, Any]:
    """JSON Schema of a rule's ``rules.<CODE>`` mapping, derived from its Options dataclass
    (field ``foo_bar`` is the key ``foo-bar``; tuple fields are lists)."""
    try:
        hints = typing.get_type_hints(options_type)
    except Exception:
        hints = {}
    properties = {f.name.replace("_", "-"): _type_schema(hints.get(f.name, Any))
                  for f in dataclasses.fields(options_type)}
    return {"type": ["object", "null"], "properties": properties, "additionalProperties": False}


def _type_schema(hint: Any) -> dict[str, Any]:
    simple = {str: "string", bool: "boolean", int: "integer", float: "number", type(None): "null"}
    if hint in simple:
        return {"type": simple[hint]}
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (tuple, list, set, frozenset) or origin is typing.Sequence:
        if origin is tuple and args and args[-1] is not Ellipsis:
            return {"type": "array", "prefixItems": [_type_schema(a) for a in args],
                    "minItems": len(args), "maxItems": len(args)}
        return {"type": "array", "items": _type_schema(args[0]) if args else {}}
    if origin is dict:
        return {"type": "object", "additionalProperties": _type_schema(args[1]) if len(args) == 2 else {}}
    if origin is typing.Union or origin is types.UnionType:
        return {"anyOf": [_type_schema(a) for a in args]}
    if origin is typing.Literal:
        return {"enum": list(args)}
    return {}

