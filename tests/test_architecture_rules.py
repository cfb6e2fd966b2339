"""The structure holds by test, not by review (issue 29): no import cycle (imports inside
functions counted, and the package a submodule import runs first), the engine names no rule
but its own findings, no module over 400 lines, no seam parameter typed ``Any``, and one
pipeline: the configuration is contained in one place, no run changes the process's
current directory, a run's state (the cache, the passes of --fix) is handed down rather than kept
in module globals, and the cache calls nothing back."""
from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ((ROOT / "linter", "kqlint"), (ROOT / "rules", "kqlint.rules"), (ROOT / "schemas", "kqlint.schemas"))
MOST_LINES = 400
SEAM_NAMES = frozenset({"config", "graph", "obj", "cache", "report", "ctx", "rule", "template", "finding", "inputs"})
ENGINE_CODES = frozenset(f"KQ00{n}" for n in range(7))  # the engine's own findings, KQ000-KQ006
RULE_CODE = re.compile(r"\bKQ\d{3}\b")


def _modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for base, prefix in PACKAGES:
        for path in sorted(base.rglob("*.py")):
            parts = list(path.relative_to(base).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join([prefix, *parts])] = path
    return found


MODULES = _modules()


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    """ids of the nodes under ``if TYPE_CHECKING:`` (annotations only, never run)."""
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped.update(id(inner) for statement in node.body for inner in ast.walk(statement))
    return skipped


def _imported(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
        return [f"{node.module}.{alias.name}" if f"{node.module}.{alias.name}" in MODULES else node.module
                for alias in node.names]
    return []


def _resolve(name: str) -> str | None:
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def import_graph() -> dict[str, set[str]]:
    """module -> the kqlint modules importing it runs: what it imports (at any depth of the
    code, but not under TYPE_CHECKING) and the packages above those that it is not inside."""
    edges: dict[str, set[str]] = {module: set() for module in MODULES}
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skipped = _type_checking_nodes(tree)
        for node in ast.walk(tree):
            if id(node) in skipped:
                continue
            for name in _imported(node):
                target = _resolve(name) if name.startswith("kqlint") else None
                if target is None or target == module:
                    continue
                edges[module].add(target)
                parts = target.split(".")
                for depth in range(2, len(parts)):
                    package = ".".join(parts[:depth])
                    if package in MODULES and not (module == package or module.startswith(package + ".")):
                        edges[module].add(package)
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(edges[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return groups


def test_no_import_cycle() -> None:
    assert cycles(import_graph()) == []


def test_the_cycle_finder_sees_a_cycle_through_a_function_level_import() -> None:
    edges = {"kqlint.a": {"kqlint.b"}, "kqlint.b": {"kqlint.a"}, "kqlint.c": set()}
    assert cycles(edges) == [["kqlint.a", "kqlint.b"]]


def _engine_files() -> Iterator[Path]:
    yield from sorted((ROOT / "linter").rglob("*.py"))


def _code_strings(tree: ast.AST) -> Iterator[ast.Constant]:
    """String constants that are code: not docstrings, not a command's ``help=`` text."""
    prose = {id(node.body[0].value) for node in ast.walk(tree)
             if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
             and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    prose |= {id(inner) for node in ast.walk(tree) if isinstance(node, ast.keyword) and node.arg == "help"
              for inner in ast.walk(node.value)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in prose:
            yield node


def test_the_engine_names_no_rule_but_its_own_findings() -> None:
    named = [f"{path.relative_to(ROOT)}:{node.lineno}: {code}"
             for path in _engine_files()
             for node in _code_strings(ast.parse(path.read_text(encoding="utf-8")))
             for code in RULE_CODE.findall(node.value) if code not in ENGINE_CODES]
    assert named == []


@pytest.mark.parametrize("base", ["linter", "rules"])
def test_no_module_is_over_400_lines(base: str) -> None:
    long = {str(path.relative_to(ROOT)): lines for path in sorted((ROOT / base).rglob("*.py"))
            if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MOST_LINES}
    assert long == {}


def test_no_seam_parameter_is_typed_any() -> None:
    loose = []
    for path in MODULES.values():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for arg in node.args.posonlyargs + node.args.args + node.args.kwonlyargs:
                    if arg.arg in SEAM_NAMES and arg.annotation is not None and ast.unparse(arg.annotation) == "Any":
                        loose.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}({arg.arg})")
    assert loose == []


def _calls(name: str) -> list[str]:
    return [f"{path.relative_to(ROOT)}:{node.lineno}" for path in _engine_files()
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.Call) and ast.unparse(node.func).split(".")[-1] == name]


def test_one_pipeline_contains_the_configuration() -> None:
    assert [site.split(":")[0] for site in _calls("contain_config")] == ["linter/engine/pipeline.py"]


def test_no_run_changes_the_current_directory() -> None:
    assert _calls("chdir") == []


# Process mechanics, not a run's state: the work a forked worker inherits, what the command keeps
# until it exits without freeing.
PROCESS_GLOBALS = {"linter/engine/parallel.py", "linter/engine/lifetime.py"}
# The callables the cache may be handed: when its writes run (kqlint check writes beside its
# fixes), progress as files are parsed, and a rule's declared reads (RuleMeta.scoped_reads).
CACHE_CALLABLES = {("write_later", "writes"), ("load_sources", "parsed_one"), ("scoped_digest", "scope")}


def test_a_runs_state_is_handed_down_not_kept_in_module_globals() -> None:
    sites = [f"{path.relative_to(ROOT)}:{node.lineno}" for path in sorted((ROOT / "linter").rglob("*.py"))
             for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))) if isinstance(node, ast.Global)]
    assert {site.split(":")[0] for site in sites} <= PROCESS_GLOBALS, sites


def test_the_cache_calls_nothing_back_in_the_engine() -> None:
    """The pipeline asks the cache for a stored report, lints, then hands it the report; the
    loader parses what the cache misses: no lint, parse or judge function is passed down to
    the cache to be called back."""
    handed: set[tuple[str, str]] = set()
    for path in sorted((ROOT / "linter" / "cache").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                arguments = node.args.args + node.args.kwonlyargs + node.args.posonlyargs
                handed |= {(node.name, arg.arg) for arg in arguments
                           if arg.annotation is not None and "Callable" in ast.unparse(arg.annotation)}
    assert handed <= CACHE_CALLABLES, sorted(handed - CACHE_CALLABLES)
