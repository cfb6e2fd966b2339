"""The README's copy-paste CI recipes stay true: every `kqlint` command line uses options the
CLI has (and runs on the examples where it can), every YAML recipe parses, and the GitHub
workflow uses only inputs action.yml declares."""
from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from ci_helpers import ROOT, cli

README = (ROOT / "README.md").read_text(encoding="utf-8")
BLOCK = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)
SECTIONS = ("## Reports for CI", "## Adopting kqlint with a baseline", "## Auditing suppressions",
            "## The object graph")


def _recipes() -> str:
    start = min(README.index(section) for section in SECTIONS)
    return README[start:README.index("## Python API")]


def _blocks(language: str) -> list[str]:
    return [body for lang, body in BLOCK.findall(_recipes()) if lang == language]


def _commands() -> list[list[str]]:
    commands = []
    for body in _blocks("sh") + [line.split("- ", 1)[1] for block in _blocks("yaml")
                                 for line in block.splitlines() if line.strip().startswith("- kqlint ")]:
        for line in body.splitlines():
            for part in line.split("|"):
                part = part.split("#")[0].strip()
                if part.startswith("kqlint "):
                    words = shlex.split(part.split(">")[0])
                    commands.append(words[1:])
    return commands


def test_recipes_are_there() -> None:
    for section in SECTIONS:
        assert section in README
    commands = _commands()
    assert any(c[0] == "graph" for c in commands) and any("--write-baseline" in c for c in commands)
    assert "helm template" in _recipes() and "kustomize build" in _recipes()


@pytest.mark.parametrize("args", _commands(), ids=lambda a: " ".join(a)[:60])
def test_every_option_in_a_recipe_exists(args: list[str]) -> None:
    code, help_text, _ = cli(args[0], "--help", cwd=ROOT)
    assert code == 0
    for word in args[1:]:
        if word.startswith("-") and word != "-":
            assert re.search(rf"(^|[\s,]){re.escape(word)}([\s,]|$)", help_text, re.MULTILINE), \
                f"`kqlint {' '.join(args)}`: {word} is not an option of kqlint {args[0]}"


def test_yaml_recipes_parse_and_use_declared_action_inputs() -> None:
    from ruamel.yaml import YAML

    yaml = YAML(typ="safe", pure=True)
    action = yaml.load((ROOT / "action.yml").read_text(encoding="utf-8"))
    documents = [yaml.load(block) for block in _blocks("yaml")]
    assert len(documents) >= 3
    steps = [step for doc in documents if isinstance(doc, dict) and "jobs" in doc
             for job in doc["jobs"].values() for step in job["steps"]]
    ours = [step for step in steps if str(step.get("uses", "")).startswith("kqlint/kqlint@")]
    assert ours and set(ours[0].get("with", {})) <= set(action["inputs"])
    upload = next(step for step in steps if "upload-sarif" in str(step.get("uses", "")))
    assert upload["with"]["sarif_file"] == action["inputs"]["sarif-file"]["default"]


def test_baseline_recipe_runs(tmp_path: Path) -> None:
    import shutil

    repo = tmp_path / "repo"
    shutil.copytree(ROOT / "examples", repo)
    commands = [c for c in _commands() if "--write-baseline" in c or "--baseline" in c]
    assert [cli(*args, cwd=repo)[0] for args in commands] == [0, 0]
