"""``kqlint server``: the language server driven by a real LSP client (pytest-lsp) over stdio.
Every diagnostic is compared with ``kqlint check FILE --format json`` on the same text saved."""
from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pygls")
pytest.importorskip("pytest_lsp")

from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

PROJECT = Path(__file__).parent / "fixtures" / "server" / "project"
SERVER = [sys.executable, "-m", "kqlint", "server"]
SEVERITIES = {"error": 1, "warning": 2, "info": 3}
TIMEOUT = 120.0


# ------------------------------------------------------------------ helpers

def copy_project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    shutil.copytree(PROJECT, root)
    return root


def check_json(root: Path, name: str, *flags: str) -> list[dict[str, Any]]:
    done = subprocess.run([sys.executable, "-m", "kqlint", "check", name, "--format", "json", *flags],
                          cwd=root, capture_output=True, text=True, check=False)
    assert done.returncode in (0, 1), done.stderr
    findings: list[dict[str, Any]] = json.loads(done.stdout)["findings"]
    return findings


def utf16(line_text: str, column: int) -> int:
    return len(line_text[:column - 1].encode("utf-16-le")) // 2


def lsp_position(text: str, line: int, column: int) -> dict[str, int]:
    return {"line": line - 1, "character": utf16(text.splitlines()[line - 1], column)}


def expected_diagnostics(root: Path, name: str) -> list[dict[str, Any]]:
    """What the server must publish for ``name``, from `kqlint check NAME --format json`."""
    def text_of(file: str) -> str:
        return (root / file).read_text(encoding="utf-8")

    def told(f: dict[str, Any]) -> str:  # the message, then the remedy as its own sentence
        return f"{f['message']}. {f['remedy']}" if f.get("remedy") else str(f["message"])

    return [{"code": f["code"], "severity": SEVERITIES[f["severity"]], "message": told(f),
             "page": f"https://github.com/kqlint/kqlint/blob/main/docs/rules/{f['code']}.md",
             "start": lsp_position(text_of(f["file"]), f["line"], f["column"]),
             "related": [{"uri": (root / r["file"]).resolve().as_uri(), "message": r["message"],
                          "start": lsp_position(text_of(r["file"]), r["line"], r["column"])}
                         for r in f["related"]]}
            for f in check_json(root, name)]


def shown(diagnostics: Any) -> list[dict[str, Any]]:
    return [{"code": d.code, "severity": d.severity.value, "message": d.message,
             "page": d.code_description.href if d.code_description else None,
             "start": {"line": d.range.start.line, "character": d.range.start.character},
             "related": [{"uri": r.location.uri, "message": r.message,
                          "start": {"line": r.location.range.start.line,
                                    "character": r.location.range.start.character}}
                         for r in d.related_information or []]}
            for d in diagnostics]


def uri(path: Path) -> str:
    return path.resolve().as_uri()


@contextlib.asynccontextmanager
async def session(root: Path, watching: bool = False, folders: list[Path] | None = None
                  ) -> AsyncIterator[LanguageClient]:
    client = await ClientServerConfig(server_command=SERVER).start()
    assert isinstance(client, LanguageClient)
    client.registrations = []  # type: ignore[attr-defined]

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params: types.RegistrationParams) -> None:
        client.registrations.extend(params.registrations)  # type: ignore[attr-defined]

    capabilities = types.ClientCapabilities(workspace=types.WorkspaceClientCapabilities(
        did_change_watched_files=types.DidChangeWatchedFilesClientCapabilities(dynamic_registration=True))
        if watching else None)
    await client.initialize_session(types.InitializeParams(
        capabilities=capabilities, root_uri=uri(root),
        workspace_folders=[types.WorkspaceFolder(uri(folder), folder.name) for folder in folders or [root]]))
    try:
        yield client
    finally:
        await client.shutdown_session()
        await client.stop()


async def published(client: LanguageClient, target: str) -> list[types.Diagnostic]:
    """The next diagnostics published for ``target`` (clear client.diagnostics first)."""
    async def arrived() -> list[types.Diagnostic]:
        while target not in client.diagnostics:
            await asyncio.sleep(0.02)
        return list(client.diagnostics[target])
    return await asyncio.wait_for(arrived(), TIMEOUT)


async def open_file(client: LanguageClient, path: Path, text: str | None = None) -> list[types.Diagnostic]:
    client.diagnostics.pop(uri(path), None)
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(
        uri(path), "yaml", 1, path.read_text(encoding="utf-8") if text is None else text)))
    return await published(client, uri(path))


def send_change(client: LanguageClient, path: Path, text: str, version: int) -> None:
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        types.VersionedTextDocumentIdentifier(version, uri(path)),
        [types.TextDocumentContentChangeWholeDocument(text)]))


async def change(client: LanguageClient, path: Path, text: str, version: int) -> list[types.Diagnostic]:
    client.diagnostics.pop(uri(path), None)
    send_change(client, path, text, version)
    return await published(client, uri(path))


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and ".kqlint_cache" not in p.parts}


def apply_edits(text: str, edits: list[types.TextEdit]) -> str:
    """Apply LSP text edits (UTF-16 positions) as an editor does: from the last to the first."""
    lines = text.splitlines(keepends=True)

    def offset(position: types.Position) -> int:
        before = sum(len(line) for line in lines[:position.line])
        line = lines[position.line] if position.line < len(lines) else ""
        units = 0
        for index, char in enumerate(line):
            if units >= position.character:
                return before + index
            units += len(char.encode("utf-16-le")) // 2
        return before + len(line)

    for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        text = text[:offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end):]
    return text


# ------------------------------------------------------------------ diagnostics

@pytest.mark.asyncio
async def test_diagnostics_equal_check_json_with_the_workspace_as_context(tmp_path: Path) -> None:
    root = copy_project(tmp_path)
    async with session(root) as client:
        diagnostics = await open_file(client, root / "job.yaml")
    expected = expected_diagnostics(root, "job.yaml")
    assert [d["code"] for d in expected] == ["KQ203", "KQ102", "KQ403"]  # KQ102 needs classes.yaml (context)
    assert expected[0]["start"] == {"line": 3, "character": 91}  # after "🎉" twice: 2 UTF-16 units each
    assert shown(diagnostics) == expected
    assert all(d.source == "kqlint" for d in diagnostics)


@pytest.mark.asyncio
async def test_unsaved_buffer_is_linted_and_no_file_is_written(tmp_path: Path) -> None:
    root = copy_project(tmp_path)
    before = snapshot(root)
    job = root / "job.yaml"
    edited = job.read_text(encoding="utf-8").replace("queue-name: trainng", "queue-name: training")
    async with session(root) as client:
        await open_file(client, job)
        diagnostics = await change(client, job, edited, 2)
        assert snapshot(root) == before  # the edit lives in the buffer only
    job.write_text(edited, encoding="utf-8")  # saved, `kqlint check` says the same
    assert shown(diagnostics) == expected_diagnostics(root, "job.yaml")
    assert "KQ203" not in [d.code for d in diagnostics] and "KQ403" in [d.code for d in diagnostics]


@pytest.mark.asyncio
async def test_broken_buffer_is_kq001_at_the_parser_position_and_the_server_keeps_serving(tmp_path: Path) -> None:
    root = copy_project(tmp_path)
    job = root / "job.yaml"
    good = job.read_text(encoding="utf-8")
    broken = good.replace("  parallelism: 2\n", "  parallelism: [2\n")
    async with session(root) as client:
        await open_file(client, job)
        diagnostics = await change(client, job, broken, 2)
        binary = await change(client, job, "apiVersion: v1\x00\n", 3)
        again = await change(client, job, good, 4)
    job.write_text(broken, encoding="utf-8")
    assert shown(diagnostics) == expected_diagnostics(root, "job.yaml")
    assert [d.code for d in diagnostics] == ["KQ001"]
    job.write_text("apiVersion: v1\x00\n", encoding="utf-8")
    assert shown(binary) == expected_diagnostics(root, "job.yaml")
    assert [d.code for d in again] == ["KQ203", "KQ102", "KQ403"]


# ------------------------------------------------------------------ code actions

async def actions(client: LanguageClient, path: Path, diagnostics: list[types.Diagnostic],
                  only: list[str] | None = None) -> list[types.CodeAction]:
    found = await client.text_document_code_action_async(types.CodeActionParams(
        types.TextDocumentIdentifier(uri(path)), types.Range(types.Position(0, 0), types.Position(0, 0)),
        types.CodeActionContext(diagnostics, only=only)))
    return [a for a in found or [] if isinstance(a, types.CodeAction)]


@pytest.mark.asyncio
async def test_safe_fix_is_a_preferred_quickfix_with_the_edit_check_reports(tmp_path: Path) -> None:
    root = copy_project(tmp_path)
    job = root / "job.yaml"
    async with session(root) as client:
        diagnostics = await open_file(client, job)
        gpu = [d for d in diagnostics if d.code == "KQ403"]
        found = await actions(client, job, gpu, only=[types.CodeActionKind.QuickFix.value])
    reported = check_json(root, "job.yaml")[2]["fix"]
    [fix] = reported["edits"]
    text = job.read_text(encoding="utf-8")
    [action] = [a for a in found if not a.title.startswith("Ignore ")]
    assert action.kind == types.CodeActionKind.QuickFix and action.is_preferred
    assert action.title == f"KQ403: {reported['title']}"
    assert reported["title"] == "Set extended-resource limits equal to their requests"
    assert list(action.diagnostics or []) == gpu
    assert action.edit is not None and action.edit.changes is not None
    [edit] = action.edit.changes[uri(job)]
    assert (edit.new_text, edit.range.start.line, edit.range.start.character, edit.range.end.character) == (
        fix["content"], fix["start"]["line"] - 1, utf16(text.splitlines()[13], fix["start"]["column"]),
        utf16(text.splitlines()[13], fix["end"]["column"]))


@pytest.mark.asyncio
async def test_unsafe_fix_is_marked_and_fix_all_applies_what_check_fix_writes(tmp_path: Path) -> None:
    root = copy_project(tmp_path)
    queues = root / "queues.yaml"
    async with session(root) as client:
        diagnostics = await open_file(client, queues)
        found = await actions(client, queues, diagnostics)
        fix_all = await actions(client, queues, [], only=["source.fixAll.kqlint"])
    titles = {a.title: a for a in found}
    unsafe = titles["KQ201: Set spec.preemption.withinClusterQueue: LowerPriority (unsafe: changes what the "
                    "workload does)"]
    assert unsafe.kind == types.CodeActionKind.QuickFix and not unsafe.is_preferred
    assert sorted(a.title for a in found if a.is_preferred) == ["KQ005: Move to kueue.x-k8s.io/v1beta2"] * 2
    [every] = fix_all
    assert every.kind == "source.fixAll.kqlint" and every.edit is not None and every.edit.changes is not None
    buffer = apply_edits(queues.read_text(encoding="utf-8"), every.edit.changes[uri(queues)])
    subprocess.run([sys.executable, "-m", "kqlint", "check", "queues.yaml", "--fix", "--quiet"], cwd=root,
                   capture_output=True, check=False)
    assert buffer == queues.read_text(encoding="utf-8")
    assert "v1beta2" in buffer and "withinClusterQueue" not in buffer


@pytest.mark.asyncio
async def test_a_did_you_mean_is_an_unsafe_quickfix_that_renames_the_reference(tmp_path: Path) -> None:
    """Issue 30 item 5: KQ203's one close LocalQueue name, as a quick fix of exactly the value."""
    root = tmp_path / "renames"
    root.mkdir()
    (root / ".git").mkdir()
    (root / "queues.yaml").write_text("apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\n"
                                      "metadata: {name: training, namespace: team-a}\nspec: {clusterQueue: shared}\n")
    job = root / "job.yaml"
    job.write_text("apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: train\n  namespace: team-a\n  labels:\n"
                   "    kueue.x-k8s.io/queue-name: trainig\nspec:\n  suspend: true\n  template:\n    spec:\n"
                   "      restartPolicy: Never\n      containers: [{name: main, image: busybox}]\n")
    async with session(root) as client:
        unknown = [d for d in await open_file(client, job) if d.code == "KQ203"]
        found = await actions(client, job, unknown, only=[types.CodeActionKind.QuickFix.value])
    [action] = [a for a in found if not a.title.startswith("Ignore ")]  # beside "Ignore KQ203 for this line"
    assert action.title == "KQ203: Replace `trainig` with `training` (unsafe: changes what the workload does)"
    assert action.kind == types.CodeActionKind.QuickFix and not action.is_preferred
    assert list(action.diagnostics or []) == unknown
    assert action.edit is not None and action.edit.changes is not None
    [edit] = action.edit.changes[uri(job)]
    assert (edit.range.start.line, edit.range.start.character, edit.range.end.character) == (6, 31, 38)
    assert apply_edits(job.read_text(encoding="utf-8"), [edit]) == \
        job.read_text(encoding="utf-8").replace("queue-name: trainig", "queue-name: training")


@pytest.mark.asyncio
async def test_ignore_for_this_line_writes_what_add_noqa_writes(tmp_path: Path) -> None:
    root = copy_project(tmp_path)
    job = root / "job.yaml"
    text = job.read_text(encoding="utf-8")
    async with session(root) as client:
        diagnostics = await open_file(client, job)
        found = await actions(client, job, diagnostics, only=[types.CodeActionKind.QuickFix.value])
        ignores = {a.title: a for a in found if a.title.startswith("Ignore ")}
        assert sorted(ignores) == ["Ignore KQ102 for this line", "Ignore KQ203 for this line",
                                   "Ignore KQ403 for this line"]
        action = ignores["Ignore KQ203 for this line"]  # on the line with the emoji (UTF-16 positions)
        assert action.kind == types.CodeActionKind.QuickFix and not action.is_preferred
        assert [d.code for d in action.diagnostics or []] == ["KQ203"]
        assert action.edit is not None and action.edit.changes is not None
        buffer = apply_edits(text, action.edit.changes[uri(job)])
        after = await change(client, job, buffer, 2)
    assert "KQ203" not in [d.code for d in after] and len(after) == len(diagnostics) - 1
    subprocess.run([sys.executable, "-m", "kqlint", "check", "job.yaml", "--add-noqa", "--select", "KQ203"],
                   cwd=root, capture_output=True, check=False)
    assert buffer == job.read_text(encoding="utf-8") != text
    assert "trainng}}  # kqlint: ignore[KQ203]\n" in buffer


# ------------------------------------------------------------------ hover

@pytest.mark.asyncio
async def test_hover_on_a_diagnostic_is_the_rule_explain_text(tmp_path: Path) -> None:
    root = copy_project(tmp_path)
    job = root / "job.yaml"
    async with session(root) as client:
        diagnostics = await open_file(client, job)
        [gpu] = [d for d in diagnostics if d.code == "KQ403"]
        on = await client.text_document_hover_async(types.HoverParams(
            types.TextDocumentIdentifier(uri(job)), gpu.range.start))
        off = await client.text_document_hover_async(types.HoverParams(
            types.TextDocumentIdentifier(uri(job)), types.Position(1, 0)))
    explained = subprocess.run([sys.executable, "-m", "kqlint", "explain", "KQ403"], cwd=root,
                               capture_output=True, text=True, check=True, env={**os.environ, "NO_COLOR": "1"})
    assert on is not None and isinstance(on.contents, types.MarkupContent)
    assert on.contents.value.strip() == explained.stdout.strip()
    assert off is None


# ------------------------------------------------------------------ configuration

@pytest.mark.asyncio
async def test_broken_config_is_a_diagnostic_on_the_config_file_until_it_is_fixed(tmp_path: Path) -> None:
    root = copy_project(tmp_path)
    config = root / ".kqlint.yaml"
    config.write_text("fail-on: [warning\n", encoding="utf-8")
    refused = subprocess.run([sys.executable, "-m", "kqlint", "check", "job.yaml"], cwd=root,
                             capture_output=True, text=True, check=False)
    assert refused.returncode == 2
    where, message = refused.stderr.strip().removeprefix("kqlint: ").split(": ", 1)
    line, column = (int(n) for n in where.rsplit(":", 2)[1:])
    async with session(root) as client:
        job_diagnostics = await open_file(client, root / "job.yaml")
        [problem] = await published(client, uri(config))
        client.diagnostics.clear()
        config.write_text("fail-on: warning\n", encoding="utf-8")
        client.text_document_did_save(types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(uri(config))))
        cleared = await published(client, uri(config))
        relinted = await published(client, uri(root / "job.yaml"))
    assert job_diagnostics == []
    assert (problem.range.start.line, problem.range.start.character) == (line - 1, column - 1)
    assert problem.message == message and problem.severity == types.DiagnosticSeverity.Error
    assert cleared == []
    assert [d.code for d in relinted] == ["KQ203", "KQ102", "KQ403"]


@pytest.mark.asyncio
async def test_saving_another_file_relints_open_buffers_against_the_new_context(tmp_path: Path) -> None:
    root = copy_project(tmp_path)
    job = root / "job.yaml"
    async with session(root) as client:
        await open_file(client, job)
        queues = root / "queues.yaml"
        queues.write_text(queues.read_text(encoding="utf-8").replace("name: training", "name: trainng"),  # job's
                          encoding="utf-8")
        client.diagnostics.clear()
        client.text_document_did_save(types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(uri(queues))))
        relinted = await published(client, uri(job))
    assert shown(relinted) == expected_diagnostics(root, "job.yaml")
    assert "KQ203" not in [d.code for d in relinted]  # the LocalQueue it names is in the saved context


@pytest.mark.asyncio
async def test_a_file_created_on_disk_is_context_once_the_client_reports_it(tmp_path: Path) -> None:
    root = copy_project(tmp_path)
    job = root / "job.yaml"
    async with session(root, watching=True) as client:
        assert "KQ203" in [d.code for d in await open_file(client, job)]
        [watcher] = client.registrations  # type: ignore[attr-defined]
        assert watcher.method == "workspace/didChangeWatchedFiles"
        created = root / "more-queues.yaml"
        created.write_text("apiVersion: kueue.x-k8s.io/v1beta1\nkind: LocalQueue\n"
                           "metadata: {name: trainng, namespace: ml}\nspec: {clusterQueue: team}\n", encoding="utf-8")
        client.diagnostics.clear()
        client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
            [types.FileEvent(uri(created), types.FileChangeType.Created)]))
        relinted = await published(client, uri(job))
    assert shown(relinted) == expected_diagnostics(root, "job.yaml")
    assert "KQ203" not in [d.code for d in relinted]


def second_project(tmp_path: Path) -> Path:
    """Another folder: no non-preempting class (no KQ102), KQ403 ignored by its configuration."""
    other = tmp_path / "other"
    shutil.copytree(PROJECT, other)
    (other / "classes.yaml").unlink()
    (other / ".kqlint.yaml").write_text("ignore: [KQ403]\n", encoding="utf-8")
    return other


@pytest.mark.asyncio
async def test_each_workspace_folder_is_linted_with_its_own_context_and_configuration(tmp_path: Path) -> None:
    root, other = copy_project(tmp_path), second_project(tmp_path)
    async with session(root, folders=[root, other]) as client:
        here = await open_file(client, root / "job.yaml")
        there = await open_file(client, other / "job.yaml")
    assert shown(here) == expected_diagnostics(root, "job.yaml")
    assert shown(there) == expected_diagnostics(other, "job.yaml")
    assert [d.code for d in there] == ["KQ203"]  # not the first folder's classes nor its configuration
    assert all(r.location.uri.startswith(uri(root)) for d in here for r in d.related_information or [])


@pytest.mark.asyncio
async def test_a_folder_added_inside_another_lints_its_files_with_its_own_configuration(tmp_path: Path) -> None:
    root = copy_project(tmp_path)
    team = root / "team"
    team.mkdir()
    job = team / "job.yaml"
    shutil.copy(root / "job.yaml", job)
    (team / ".kqlint.yaml").write_text("ignore: [KQ403]\n", encoding="utf-8")
    async with session(root) as client:
        before = await open_file(client, job)
        client.diagnostics.clear()
        client.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(
            types.WorkspaceFoldersChangeEvent(added=[types.WorkspaceFolder(uri(team), team.name)], removed=[])))
        added = await published(client, uri(job))
        client.diagnostics.clear()
        client.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(
            types.WorkspaceFoldersChangeEvent(added=[], removed=[types.WorkspaceFolder(uri(team), team.name)])))
        removed = await published(client, uri(job))
    assert shown(before) == expected_diagnostics(root, "team/job.yaml")
    assert "KQ403" in [d.code for d in before]
    assert shown(added) == expected_diagnostics(team, "job.yaml")  # the innermost folder holding it
    assert [d.code for d in added] == ["KQ203"]
    assert shown(removed) == shown(before)


# ------------------------------------------------------------------ robustness and lifecycle

@pytest.mark.asyncio
async def test_changes_sent_faster_than_a_lint_end_with_the_newest_texts_diagnostics(tmp_path: Path) -> None:
    root = copy_project(tmp_path)
    job = root / "job.yaml"
    good = job.read_text(encoding="utf-8")
    fixed = good.replace("queue-name: trainng", "queue-name: training")
    async with session(root) as client:
        await open_file(client, job)
        client.diagnostics.pop(uri(job), None)
        for version in range(2, 12):  # typed without waiting: the last one fixes the queue name
            send_change(client, job, fixed if version == 11 else good + f"# {version}\n", version)
        async def newest() -> list[types.Diagnostic]:
            while "KQ203" in [d.code for d in await published(client, uri(job))]:
                client.diagnostics.pop(uri(job), None)
            return list(client.diagnostics[uri(job)])
        final = await asyncio.wait_for(newest(), TIMEOUT)
    job.write_text(fixed, encoding="utf-8")
    assert shown(final) == expected_diagnostics(root, "job.yaml")


@pytest.mark.asyncio
async def test_a_change_superseded_before_its_lint_starts_is_not_linted(monkeypatch: pytest.MonkeyPatch) -> None:
    from kqlint.server import protocol

    server = protocol.KqlintServer()
    linted: list[str] = []
    monkeypatch.setattr(server, "lint_uri", linted.append)
    documents = {"file:///a.yaml": _Document("a: 1\n", version=3)}
    monkeypatch.setattr(protocol.KqlintServer, "workspace", property(lambda self: _Workspace(documents)))
    await protocol.lint_newest(server, "file:///a.yaml", 2)  # version 3 came in meanwhile
    assert linted == []
    await protocol.lint_newest(server, "file:///a.yaml", 3)
    assert linted == ["file:///a.yaml"]

@pytest.mark.asyncio
async def test_a_crashing_rule_is_one_log_message_and_the_other_findings_still_show(tmp_path: Path) -> None:
    root = copy_project(tmp_path)
    (root / "crashing_rule.py").write_text(CRASHING_PLUGIN, encoding="utf-8")
    (root / ".kqlint.yaml").write_text("plugins: [crashing_rule]\n", encoding="utf-8")
    client = await ClientServerConfig(server_command=[*SERVER, "--allow-plugins"],
                                      server_env={**os.environ, "PYTHONPATH": str(root)}).start()
    assert isinstance(client, LanguageClient)
    await client.initialize_session(types.InitializeParams(capabilities=types.ClientCapabilities(),
                                                           root_uri=uri(root)))
    try:
        first = await open_file(client, root / "job.yaml")
        second = await change(client, root / "job.yaml", (root / "job.yaml").read_text(encoding="utf-8"), 2)
    finally:
        await client.shutdown_session()
        await client.stop()
    crashes = [m.message for m in client.log_messages if "ACME099" in m.message]
    assert len(crashes) == 2  # one line per lint
    assert crashes[0].startswith("kqlint: internal error in rule ACME099 (always-crashes, plugin module crashing_rule)")
    assert [d.code for d in first] == [d.code for d in second] == ["KQ203", "KQ102", "KQ403"]


CRASHING_PLUGIN = '''
"""A rule that crashes on every object (a bug in a plugin)."""
from kqlint.plugin import RuleMeta, Severity

META = RuleMeta(code="ACME099", slug="always-crashes", severity=Severity.ERROR, summary="crashes")


def check(obj, ctx):
    raise RuntimeError("boom")
'''


async def started(root: Path) -> LanguageClient:
    """A server process, initialized with ``root`` and no capabilities (no session helper:
    the test ends it)."""
    client = await ClientServerConfig(server_command=SERVER).start()
    assert isinstance(client, LanguageClient)
    await client.initialize_session(types.InitializeParams(capabilities=types.ClientCapabilities(),
                                                           root_uri=uri(root)))
    return client


async def exit_status(client: LanguageClient) -> int:
    process = client._server
    assert process is not None
    status = await asyncio.wait_for(process.wait(), TIMEOUT)
    await client.stop()
    return status


@pytest.mark.asyncio
async def test_shutdown_then_exit_ends_the_process_with_status_0(tmp_path: Path) -> None:
    root = copy_project(tmp_path)
    client = await started(root)
    await open_file(client, root / "job.yaml")
    await client.shutdown_session()
    assert await exit_status(client) == 0


def test_server_without_pygls_is_a_one_line_hint_and_exit_2() -> None:
    code = ("import sys; sys.modules['pygls'] = None; sys.modules['lsprotocol'] = None\n"
            "from kqlint.cli import main; sys.exit(main(['server']))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False,
                          stdin=subprocess.DEVNULL)
    assert (done.returncode, done.stdout, done.stderr) == (
        2, "", "kqlint: `kqlint server` needs pygls and lsprotocol: pip install 'kqlint[server]'\n")


def test_check_does_not_import_the_language_server(tmp_path: Path) -> None:
    root = copy_project(tmp_path)
    code = ("import sys\nfrom kqlint.cli import main\ncode = main(['check', 'job.yaml', '--quiet'])\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pygls', 'lsprotocol', 'cattrs')"
            " or m.startswith('kqlint.server')))\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=False)
    assert done.stdout.strip().splitlines()[-1] == "[]", done.stderr


class _Document:
    def __init__(self, source: str, version: int = 1) -> None:
        self.source, self.version = source, version


class _Workspace:
    position_encoding = "utf-16"

    def __init__(self, documents: dict[str, _Document]) -> None:
        self.text_documents = documents

    def get_text_document(self, target: str) -> _Document:
        return self.text_documents[target]


def test_a_crash_outside_the_rules_is_one_log_message_and_the_next_lint_works(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from kqlint.server import protocol

    root = copy_project(tmp_path)
    monkeypatch.chdir(root)
    job = root / "job.yaml"
    server = protocol.KqlintServer()
    logged: list[str] = []
    published: list[types.PublishDiagnosticsParams] = []
    monkeypatch.setattr(protocol.KqlintServer, "workspace",
                        property(lambda self: _Workspace({uri(job): _Document(job.read_text(encoding="utf-8"))})))
    monkeypatch.setattr(server, "window_log_message", lambda params: logged.append(params.message))
    monkeypatch.setattr(server, "text_document_publish_diagnostics", published.append)
    server.start([str(root)])
    workspace = server.workspace_of(uri(job))
    assert workspace is not None
    lint = workspace.lint

    def crash(path: str, raw: bytes) -> Any:
        raise RuntimeError("boom")

    monkeypatch.setattr(workspace, "lint", crash)
    server.lint_uri(uri(job))
    assert logged == [f"kqlint: internal error while linting {job}: RuntimeError: boom; {protocol.BUG_HINT}"]
    assert published == []
    monkeypatch.setattr(workspace, "lint", lint)
    server.lint_uri(uri(job))
    assert len(logged) == 1
    assert [d.code for d in published[-1].diagnostics] == ["KQ203", "KQ102", "KQ403"]


# ------------------------------------------------------------------ issue 28: the protocol held

def _in_process(monkeypatch: pytest.MonkeyPatch, documents: dict[str, _Document]) -> tuple[Any, list[str], list[Any]]:
    """A KqlintServer without a client: its buffers, log lines and published diagnostics."""
    from kqlint.server import protocol

    server = protocol.KqlintServer(use_cache=False)
    logged: list[str] = []
    published: list[types.PublishDiagnosticsParams] = []
    monkeypatch.setattr(protocol.KqlintServer, "workspace", property(lambda self: _Workspace(documents)))
    monkeypatch.setattr(server, "window_log_message", lambda params: logged.append(params.message))
    monkeypatch.setattr(server, "text_document_publish_diagnostics", published.append)
    return server, logged, published


def test_a_new_buffer_not_saved_yet_is_linted_as_its_text(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = copy_project(tmp_path)
    monkeypatch.chdir(root)
    text = (root / "job.yaml").read_text(encoding="utf-8").replace("name: train", "name: train-new")
    new = root / "jobs" / "new.yaml"  # neither the file nor its folder exists yet
    server, logged, published = _in_process(monkeypatch, {uri(new): _Document(text)})
    server.start([str(root)])
    server.lint_uri(uri(new))
    assert logged == []
    unsaved = [(d.code, d.message, d.range.start) for d in published[-1].diagnostics]
    new.parent.mkdir()
    new.write_text(text, encoding="utf-8")
    server.lint_uri(uri(new))
    assert unsaved and unsaved == [(d.code, d.message, d.range.start) for d in published[-1].diagnostics]


def test_a_workspace_root_that_is_a_symlink_loop_is_one_clear_message(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    buffer = (loop / "job.yaml").as_uri()  # not resolvable: no .resolve()
    server, logged, published = _in_process(monkeypatch, {buffer: _Document((PROJECT / "job.yaml").read_text())})
    server.start([str(loop)])
    server.lint_uri(buffer)
    assert len(logged) == 1 and "a symlink loop" in logged[0] and "bug" not in logged[0]
    assert published and published[-1].diagnostics  # the buffer is still linted, as its text


@pytest.mark.asyncio
async def test_a_storm_of_watched_file_events_is_one_relint(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from kqlint.server import protocol

    root = copy_project(tmp_path)
    server, _, _ = _in_process(monkeypatch, {})
    server.start([str(root)])
    relints: list[int] = []
    monkeypatch.setattr(server, "relint_open", lambda: relints.append(1))
    await asyncio.gather(*(protocol.files_changed(server, [uri(root / f"generated-{i}.yaml")]) for i in range(2000)))
    assert relints == [1]
    await protocol.files_changed(server, [uri(root / "job.yaml")])  # a later change: relinted again
    assert relints == [1, 1]


@pytest.mark.asyncio
async def test_exit_without_shutdown_ends_with_status_1(tmp_path: Path) -> None:
    root = copy_project(tmp_path)
    client = await started(root)
    client.exit(None)
    assert await exit_status(client) == 1


@pytest.mark.asyncio
async def test_a_request_after_shutdown_is_answered_invalid_request(tmp_path: Path) -> None:
    from pygls.exceptions import JsonRpcInvalidRequest

    root = copy_project(tmp_path)
    client = await started(root)
    await client.shutdown_async(None)
    with pytest.raises(JsonRpcInvalidRequest):
        await asyncio.wait_for(client.text_document_hover_async(types.HoverParams(
            types.TextDocumentIdentifier(uri(root / "job.yaml")), types.Position(0, 0))), TIMEOUT)
    client.exit(None)
    assert await exit_status(client) == 0


def test_a_huge_content_length_is_refused_without_allocating_it() -> None:
    header = b"Content-Length: 1000000000000\r\n\r\n"
    done = subprocess.run(SERVER, input=header + b"{}", capture_output=True, timeout=TIMEOUT, check=False)
    assert done.returncode == 1 and b"exceeds the limit" in done.stderr and b"Traceback" not in done.stderr
    assert b"MemoryError" not in done.stderr
