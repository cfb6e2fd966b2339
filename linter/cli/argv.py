"""File names that look like options: pre-commit runs ``entry + args + files``, so a staged
file named ``--exclude=x.yaml`` arrives among the options. A token of ``kqlint check`` (or
``graph``) before ``--`` that starts with ``-``, ends in ``.yaml``/``.yml``/``.json`` and names an
existing file is a path: it is moved after a ``--``. An option's value is left where it is."""
from __future__ import annotations

import os

MANIFEST_ENDINGS = (".yaml", ".yml", ".json")
COMMANDS_WITH_PATHS = ("check", "graph")


def looks_like_option_but_is_a_file(token: str) -> bool:
    return token.startswith("-") and token.endswith(MANIFEST_ENDINGS) and os.path.isfile(token)


def with_files_as_paths(args: list[str]) -> list[str]:
    """``args`` with every file named like an option moved after ``--`` (unchanged when none is)."""
    start = next((i for i, token in enumerate(args) if not token.startswith("-")), None)
    if start is None or args[start] not in COMMANDS_WITH_PATHS:
        return args
    rest = args[start + 1:]
    end = rest.index("--") if "--" in rest else len(rest)
    if not any(looks_like_option_but_is_a_file(token) for token in rest[:end]):
        return args
    valued = _options_taking_a_value(args[start])
    kept: list[str] = []
    files: list[str] = []
    index = 0
    while index < end:
        token = rest[index]
        if token in valued:  # its value follows, whatever it looks like
            kept += rest[index:index + 2]
            index += 2
            continue
        (files if looks_like_option_but_is_a_file(token) else kept).append(token)
        index += 1
    if not files:  # only option values looked like files
        return args
    return args[:start + 1] + kept + ["--"] + files + rest[end + 1:]


def _options_taking_a_value(command: str) -> frozenset[str]:
    import typer
    from kqlint.cli import app

    found = getattr(typer.main.get_command(app), "commands", {}).get(command)
    return frozenset(name for param in getattr(found, "params", [])
                     if getattr(param, "param_type_name", "") == "option"
                     and not getattr(param, "is_flag", False) and not getattr(param, "count", False)
                     for name in param.opts)
