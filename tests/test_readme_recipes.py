"""The README's copy-paste CI recipes stay true: every `kqlint` command line uses options the
CLI has (and runs on the examples where it can), every YAML recipe parses, and the GitHub
workflow uses only inputs action.yml declares."""
from __future__ import annotations

import json
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


# ------------------------------------------------------------------ install paths (issue 13)

PIN = re.compile(r"(?:rev:\s*|kqlint/kqlint@|github\.com/kqlint/kqlint@)([^\s\"'#)`]+)")


def _ref_exists(ref: str) -> bool:
    import subprocess

    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: cannot tell which refs exist")
    done = subprocess.run(["git", "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"], cwd=ROOT,
                          capture_output=True, check=False)
    return done.returncode == 0


def test_every_pinned_ref_in_the_readme_exists_or_is_a_placeholder() -> None:
    pins = PIN.findall(README)
    assert pins, "the README pins kqlint somewhere (pre-commit rev, action ref, pip git URL)"
    for ref in pins:
        if ref.startswith("<") or ref.startswith("${"):  # <commit-sha>, ${KQLINT_REV}: the user fills it in
            continue
        assert _ref_exists(ref), f"the README pins {ref!r}, which does not exist in this repository"


def test_pip_install_kqlint_is_marked_as_needing_a_release() -> None:
    for match in re.finditer(r"pip install kqlint\b", README):
        around = README[max(0, match.start() - 300):match.end() + 300]
        assert "published" in around, "`pip install kqlint` needs a published release: say so next to it"


def _snapshot(dest: Path) -> tuple[Path, str]:
    """The working tree as a fresh git repository with one commit; returns (path, commit)."""
    import shutil
    import subprocess

    from test_precommit import GIT_ENV, git

    ignore = shutil.ignore_patterns(".git", ".venv", "venv", "build", "dist", "*.egg-info", "__pycache__",
                                    ".pytest_cache", ".hypothesis", ".mypy_cache", ".ruff_cache")
    shutil.copytree(ROOT, dest, ignore=ignore)
    git("init", "-q", ".", cwd=dest)
    git("add", "-A", cwd=dest)
    git("commit", "-q", "-m", "snapshot", cwd=dest)
    sha = subprocess.run(["git", "rev-parse", "HEAD"], cwd=dest, capture_output=True, text=True, check=True,
                         env={**__import__("os").environ, **GIT_ENV}).stdout.strip()
    return dest, sha


@pytest.mark.slow
def test_pip_install_from_a_git_url_pinned_to_a_commit(tmp_path: Path) -> None:
    import shutil
    import subprocess
    import sys

    if shutil.which("git") is None:
        pytest.skip("git is not installed: pip needs it for git+ URLs")
    source, sha = _snapshot(tmp_path / "kqlint-src")
    line = next(line for line in README.splitlines() if line.startswith('pip install "git+https://'))
    url = re.search(r'"(git\+https://[^"]+)"', line).group(1)  # type: ignore[union-attr]
    local = url.replace("https://github.com/kqlint/kqlint", f"file://{source}").replace("<commit-sha>", sha)
    target = tmp_path / "site"
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
                           "--target", str(target), local], capture_output=True, text=True, timeout=900, check=False)
    assert done.returncode == 0, done.stderr
    assert (target / "kqlint" / "cli" / "check.py").is_file() and (target / "bin" / "kqlint").is_file()
    assert not (target / "linter").exists() and not (target / "rules").exists()


@pytest.mark.slow
@pytest.mark.parametrize("tool", ["pipx", "uv"])
def test_tool_install_from_a_git_url_pinned_to_a_commit(tmp_path: Path, tool: str) -> None:
    """The README's `pipx install` / `uv tool install` line, pointed at a local clone: kqlint
    lands in the tool's own virtualenv and its command lints the quick-start folder."""
    import os
    import shutil
    import subprocess
    import sys

    if shutil.which("git") is None:
        pytest.skip("git is not installed: a git+ URL needs it")
    pytest.importorskip(tool.replace("-", "_"))  # the test extra installs both
    prefix = {"pipx": "pipx install ", "uv": "uv tool install "}[tool]
    line = next(line for line in README.splitlines() if line.startswith(prefix + '"git+https://'))
    source, sha = _snapshot(tmp_path / "kqlint-src")
    url = re.search(r'"(git\+https://[^"]+)"', line).group(1)  # type: ignore[union-attr]
    local = url.replace("https://github.com/kqlint/kqlint", f"file://{source}").replace("<commit-sha>", sha)
    bin_dir = tmp_path / "bin"
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env.update(PIPX_HOME=str(tmp_path / "pipx"), PIPX_BIN_DIR=str(bin_dir), PIPX_DEFAULT_PYTHON=sys.executable,
               UV_TOOL_DIR=str(tmp_path / "uv"), UV_TOOL_BIN_DIR=str(bin_dir), UV_PYTHON=sys.executable,
               UV_PYTHON_DOWNLOADS="never", UV_CACHE_DIR=str(tmp_path / "uv-cache"), NO_COLOR="1")
    command = [sys.executable, "-m", *prefix.split(), local]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=1500,
                          stdin=subprocess.DEVNULL, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    checked = subprocess.run([str(bin_dir / "kqlint"), "check", str(ROOT / "examples"), "--no-cache"], env=env,
                             capture_output=True, text=True, timeout=300, check=False)
    assert checked.returncode == 1 and "KQ301" in checked.stdout, checked.stdout + checked.stderr


@pytest.mark.slow
def test_readme_pre_commit_config_runs_with_a_real_rev(tmp_path: Path) -> None:
    import os
    import shutil
    import subprocess
    import sys

    from ruamel.yaml import YAML
    from test_precommit import GIT_ENV, JOB, PRIORITY_CLASS, make_repo

    if shutil.which("git") is None:
        pytest.skip("git is not installed: pre-commit needs it")
    pytest.importorskip("pre_commit")
    source, sha = _snapshot(tmp_path / "kqlint-src")
    block = next(body for body in _blocks("yaml") if body.startswith("# .pre-commit-config.yaml"))
    config = YAML(typ="safe", pure=True).load(block)
    config["repos"][0].update(repo=str(source), rev=sha)  # the README's config, pointed at a local clone
    work = make_repo(tmp_path / "work", {"platform/priority.yaml": PRIORITY_CLASS, "job.yaml": JOB,
                                         "broken.yaml": "a: [\n"})
    (work / ".pre-commit-config.yaml").write_text(json.dumps(config))
    env = {k: v for k, v in os.environ.items() if k not in ("GITHUB_ACTIONS", "VIRTUAL_ENV")}
    env.update(GIT_ENV, PRE_COMMIT_HOME=str(tmp_path / "home"), NO_COLOR="1", PRE_COMMIT_COLOR="never")
    done = subprocess.run([sys.executable, "-m", "pre_commit", "run", "--all-files"], cwd=work, env=env,
                          capture_output=True, text=True, timeout=1500, stdin=subprocess.DEVNULL, check=False)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "KQ001 invalid-yaml" in done.stdout and done.stdout.count("finding") == 1  # one run, one summary


# ------------------------------------------------------------------ editor snippets (issue 30 item 9)
# Neovim's and Emacs's run verbatim (tests/test_server_neovim.py, tests/test_server_emacs.py);
# VS Code's cannot run here, so what it names is checked against the server.

def _editor_section() -> str:
    return README.split("## Editor integration", 1)[1].split("\n## ", 1)[0]


def test_vscode_settings_name_the_server_command_and_its_fix_all_action() -> None:
    from kqlint.server.protocol import FIX_ALL

    [body] = [body for lang, body in BLOCK.findall(_editor_section()) if lang == "json"]
    settings = json.loads(body)
    assert [settings["glspc.server.command"], *settings["glspc.server.commandArguments"]] == ["kqlint", "server"]
    assert set(settings["editor.codeActionsOnSave"]) == {FIX_ALL}
    code, help_text, _ = cli("server", "--help", cwd=ROOT)
    assert code == 0 and "language server" in help_text.lower()


def test_every_editor_snippet_starts_kqlint_server() -> None:
    blocks = BLOCK.findall(_editor_section())
    assert sorted(lang for lang, _ in blocks) == ["elisp", "json", "lua"]
    for lang, body in blocks:
        if lang == "json":
            continue  # the VS Code settings: the test above
        assert re.search(r'"kqlint",?\s*"server"', body), f"the {lang} snippet does not start `kqlint server`"


def test_the_python_api_snippet_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    import shutil

    section = README.split("## Python API", 1)[1].split("\n## ", 1)[0]
    [body] = [body for lang, body in BLOCK.findall(section) if lang == "python"]
    shutil.copytree(ROOT / "examples", tmp_path / "manifests")
    monkeypatch.chdir(tmp_path)
    exec(compile(body, "README.md (Python API)", "exec"), {})  # the README's own snippet, nothing else
    out = capsys.readouterr().out
    assert "KQ301 min-member-mismatch error" in out and "    help: Set minMember: 4" in out
    assert out.splitlines()[-1].split()[0].isdigit()  # summary.files and the error count
