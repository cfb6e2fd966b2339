"""Every command-line flag the README and the docs/ pages mention is real: a flag of
kqlint (of the command whose option table lists it), or one of a short list of other tools'
flags, each written on a line that names its tool. A renamed or removed option, or a
documented one that was never delivered, fails here."""
from __future__ import annotations

import re
from pathlib import Path

import typer
from kqlint.cli import app

ROOT = Path(__file__).resolve().parent.parent
DOCS = {name: (ROOT / name).read_text(encoding="utf-8") for name in ("README.md", "docs/configuration.md",
                                                                  "docs/performance.md", "docs/architecture.md")}
FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]+")
OTHER_TOOLS = {"--generator": "bench/run.py", "--sizes": "bench/run.py", "--scenarios": "bench/run.py",
               "--update-golden": "pytest", "--all-files": "pre-commit", "--strict": "mypy",
               "--files": "bench/server.py", "--repo": "bench/server.py", "--runs": "bench/",
               "--manifests": "gen_corpus.py", "--seed": "gen_corpus.py", "--corpus": "bench/",
               "--phases": "bench/cold_encoding.py", "--variants": "cold_encoding.py", "--layers": "cache_layers.py",
               "--feature-gates": "Kueue"}  # the Kueue manager's flag (the platform model reads it)


def _options() -> dict[str, set[str]]:
    group = typer.main.get_command(app)
    found: dict[str, set[str]] = {"": {opt for p in group.params for opt in p.opts + p.secondary_opts}
                                  | {"--help", "-h"}}  # click's help option is no parameter
    for name, command in group.commands.items():  # type: ignore[attr-defined]
        found[name] = {opt for p in command.params for opt in p.opts + p.secondary_opts}
    return found


def test_every_documented_flag_exists() -> None:
    known = set().union(*_options().values())
    for name, text in DOCS.items():
        lines = text.splitlines()
        for number, line in enumerate(lines, 1):
            for flag in FLAG.findall(line):
                if flag in OTHER_TOOLS:  # named on its line or the two before (a wrapped sentence)
                    nearby = "\n".join(lines[max(0, number - 3):number])
                    assert OTHER_TOOLS[flag] in nearby, f"{name}:{number}: {flag} is not a kqlint flag"
                    continue
                assert flag in known, f"{name}:{number}: {flag} is documented but no kqlint command has it"


def test_check_option_table_lists_options_of_check() -> None:
    readme = DOCS["README.md"]
    table = readme[readme.index("Options of `kqlint check`"):readme.index("Exit status:")]
    flags = set(FLAG.findall(table))
    assert {"--output-format", "--stdin-filename", "--kustomize", "--no-config", "--color"} <= flags
    missing = flags - _options()["check"]
    assert not missing, f"README's check option table lists flags check does not have: {sorted(missing)}"


def test_every_check_option_is_documented() -> None:
    documented = set(FLAG.findall(DOCS["README.md"]))
    missing = _options()["check"] - documented
    assert not {m for m in missing if m.startswith("--")}, f"undocumented check options: {sorted(missing)}"


def test_configuration_doc_links_exist() -> None:
    for name, text in DOCS.items():
        base = (ROOT / name).parent
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
            if target.startswith(("http://", "https://")):
                continue
            assert (base / target).exists(), f"{name} links {target}, which does not exist"
    assert "planned" not in DOCS["docs/configuration.md"]
