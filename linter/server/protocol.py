"""``kqlint server``: the language server (pygls). Diagnostics are ``kqlint check FILE`` on the
unsaved buffer, with the workspace's other manifests as context (kqlint.server.workspace);
code actions are the fixes of those findings, as text edits of the buffer, and a comment that
ignores each one on its line (kqlint.server.actions); hover on a
diagnostic is its rule's ``kqlint explain`` text. Nothing is ever written to disk but the
cache. Each lint runs inside one error boundary: a crash is one log message, and the server
goes on serving."""
from __future__ import annotations

import asyncio
import os
import sys
from dataclasses import dataclass, field
from typing import Any

from kqlint import __version__
from kqlint.model import Finding, Report, Severity
from kqlint.server.actions import FIX_ALL, fix_all, has_text, ignore_actions, lsp_range, quickfix
from kqlint.server.positions import UTF8, UTF16, UTF32, LineIndex
from kqlint.server.transport import BoundedInput, LspProtocol, path_of, uri_of
from kqlint.server.workspace import ConfigProblem, Folders, Workspace, unreadable_root
from lsprotocol import types
from pygls.lsp.server import LanguageServer

SOURCE = "kqlint"
LINTED_SUFFIXES = (".yaml", ".yml", ".json")
SEVERITIES = {Severity.ERROR: types.DiagnosticSeverity.Error, Severity.WARNING: types.DiagnosticSeverity.Warning,
              Severity.INFO: types.DiagnosticSeverity.Information}
BUG_HINT = "this is a bug in kqlint: please report it at https://github.com/kqlint/kqlint/issues"


@dataclass
class Linted:
    """One buffer's last lint: its text, and each diagnostic with the finding it shows."""

    version: int | None
    raw: bytes
    index: LineIndex
    shown: list[tuple[types.Diagnostic, Finding]] = field(default_factory=list)
    fixes: list[Finding] | None = None  # the findings with their fixes as text (resolved when asked)
    ignores: dict[tuple[str, int], Any] = field(default_factory=dict)  # (code, line) -> its comment's edit


class KqlintServer(LanguageServer):
    def __init__(self, allow_plugins: bool = False, use_cache: bool = True) -> None:
        super().__init__("kqlint", __version__, protocol_cls=LspProtocol,
                         text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.allow_plugins = allow_plugins
        self.shut_down = False  # `shutdown` was received: `exit` then ends with status 0 (else 1)
        self.relint_waiting = False  # a relint of the open buffers waits for changes still arriving
        self.use_cache = use_cache
        self.folders: Folders | None = None
        self.linted: dict[str, Linted] = {}
        self.config_diagnostics: dict[str, str] = {}  # workspace root -> its configuration file shown refused

    # ------------------------------------------------------------ setup

    def start(self, roots: list[str]) -> None:
        self.folders = Folders(roots, self.allow_plugins, self.use_cache)
        for root in roots:
            self.check_root(root)

    def check_root(self, root: str) -> None:
        problem = unreadable_root(root)
        if problem is not None:
            self.log(problem, types.MessageType.Warning)

    def workspace_of(self, uri: str) -> Workspace | None:
        path = path_of(uri)
        return self.folders.of(path) if self.folders is not None and path is not None else None

    def encoding(self) -> str:
        chosen = str(self.workspace.position_encoding or UTF16)
        return chosen if chosen in (UTF8, UTF16, UTF32) else UTF16

    def log(self, message: str, kind: types.MessageType = types.MessageType.Error) -> None:
        self.window_log_message(types.LogMessageParams(kind, message))

    # ------------------------------------------------------------ linting

    def lint_uri(self, uri: str) -> None:
        """Lint one open buffer and publish its diagnostics; any crash is one log line."""
        path = path_of(uri)
        if path is None or not path.endswith(LINTED_SUFFIXES) or self.folders is None:
            return
        document = self.workspace.get_text_document(uri)
        try:
            diagnostics = self._diagnostics(self.folders.of(path), uri, path, document.source, document.version)
        except Exception as exc:  # the error boundary: one message, and the server goes on
            self.linted.pop(uri, None)
            self.log(f"kqlint: internal error while linting {path}: {type(exc).__name__}: {exc}; {BUG_HINT}")
            return
        if diagnostics is not None:
            self.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri, diagnostics, version=document.version))

    def _diagnostics(self, workspace: Workspace, uri: str, path: str, text: str,
                     version: int | None) -> list[types.Diagnostic] | None:
        settings = workspace.settings()
        self._show_config(workspace.root, settings)
        if isinstance(settings, ConfigProblem):
            self.linted.pop(uri, None)
            return []  # `kqlint check` lints nothing with a refused configuration
        raw = text.encode("utf-8", "surrogateescape")
        report = workspace.lint(path, raw)
        for line in report.internal_errors:
            self.log(f"kqlint: {line}; {BUG_HINT}")
        linted = Linted(version, raw, LineIndex(text, self.encoding()))
        others: dict[str, LineIndex] = {}  # related files' saved text, indexed once per lint
        linted.shown = [(diagnostic(f, linted.index, others, workspace.root), f)
                        for f in own_findings(report, path, workspace.root)]
        self.linted[uri] = linted
        return [shown for shown, _ in linted.shown]

    def _show_config(self, root: str, settings: Any) -> None:
        """A refused configuration as one diagnostic on its file; cleared once it loads."""
        shown = self.config_diagnostics.pop(root, None)
        if shown is not None and (not isinstance(settings, ConfigProblem) or uri_of(settings.file) != shown):
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(shown, []))
        if isinstance(settings, ConfigProblem):
            uri = uri_of(settings.file)
            index = LineIndex(_read_text(settings.file), self.encoding())
            start = types.Position(*index.lsp(settings.line, settings.column))
            problem = types.Diagnostic(types.Range(start, start), settings.message,
                                       severity=types.DiagnosticSeverity.Error, source=SOURCE)
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri, [problem]))
            self.config_diagnostics[root] = uri

    def relint_open(self) -> None:
        for uri in list(self.workspace.text_documents):
            self.lint_uri(uri)

    # ------------------------------------------------------------ code actions and hover

    def code_actions(self, params: types.CodeActionParams) -> list[types.CodeAction]:
        linted = self.linted.get(params.text_document.uri)
        if linted is None:
            return []
        fixed = self._fixed(params.text_document.uri, linted)
        wanted = params.context.only
        actions: list[types.CodeAction] = []
        if wanted is None or any(types.CodeActionKind.QuickFix.value.startswith(k) or
                                 k.startswith(types.CodeActionKind.QuickFix.value) for k in wanted):
            asked = {_identity(d) for d in params.context.diagnostics}
            pairs = [(shown, finding) for shown, finding in zip([d for d, _ in linted.shown], fixed, strict=True)
                     if _identity(shown) in asked]
            actions += [quickfix(params.text_document.uri, shown, finding, linted.index)
                        for shown, finding in pairs if has_text(finding)]
            actions += ignore_actions(params.text_document.uri, pairs, linted.raw, linted.index, linted.ignores)
        if wanted is None or any(FIX_ALL.startswith(k) for k in wanted):
            safe = [f for f in fixed if has_text(f) and f.fix is not None and f.fix.applicability.value == "safe"]
            if safe:
                actions.append(fix_all(params.text_document.uri, safe, linted.index))
        return actions

    def _fixed(self, uri: str, linted: Linted) -> list[Finding]:
        """The findings shown, each fix with its text edits of the buffer (once per lint)."""
        if linted.fixes is None:
            from kqlint.fix import resolve

            workspace = self.workspace_of(uri)
            settings = workspace.settings() if workspace is not None else None
            namespace = getattr(getattr(settings, "config", None), "namespace", None) or "default"
            findings = [finding for _, finding in linted.shown]
            files = {f.location.file for f in findings}
            linted.fixes = resolve(findings, lambda file: linted.raw if file in files else None, namespace)
        return linted.fixes

    def hover(self, params: types.HoverParams) -> types.Hover | None:
        linted = self.linted.get(params.text_document.uri)
        workspace = self.workspace_of(params.text_document.uri)
        if linted is None or workspace is None:
            return None
        at = linted.index.offset_of(params.position.line, params.position.character)
        codes = dict.fromkeys(finding.code for shown, finding in linted.shown if _covers(shown, at, linted.index))
        texts = [text for text in (workspace.explain(code) for code in codes) if text]
        if not texts:
            return None
        return types.Hover(types.MarkupContent(types.MarkupKind.PlainText, "\n\n".join(texts)))


# ------------------------------------------------------------ findings as LSP values

def own_findings(report: Report, path: str, root: str) -> list[Finding]:
    """The findings of ``report`` (paths shown from the folder ``root``) in the file ``path``."""
    from kqlint.project.discover import display_path
    from kqlint.project.workdir import working_in

    with working_in(root):
        shown = display_path(path)
    return [f for f in report.findings if f.location.file == shown]


def diagnostic(finding: Finding, index: LineIndex, others: dict[str, LineIndex], root: str) -> types.Diagnostic:
    """``others``: the LineIndex of each other file related locations point into (filled as
    read); ``root``: the folder the report's relative paths are relative to."""
    location = finding.location
    related = [types.DiagnosticRelatedInformation(
        types.Location(uri_of(os.path.join(root, r.file)), _related_range(
            r.file, r.line, r.column, finding, index, others, root)), r.message) for r in finding.related]
    from kqlint.reporters.explain import code_doc_url
    from kqlint.reporters.remedy import with_remedy

    url = code_doc_url(finding.code)
    return types.Diagnostic(
        lsp_range(index, location.line, location.column, location.end_line, location.end_column),
        with_remedy(finding), severity=SEVERITIES[finding.severity], code=finding.code, source=SOURCE,
        code_description=types.CodeDescription(url) if url else None, related_information=related or None)


def _related_range(file: str, line: int, column: int, finding: Finding, index: LineIndex,
                   others: dict[str, LineIndex], root: str) -> types.Range:
    """A related location in the buffer's file is placed in its text, another file's in the saved
    file's, counted in the same negotiated unit."""
    if file != finding.location.file:
        if file not in others:
            others[file] = LineIndex(_read_text(os.path.join(root, file)), index.encoding)
        index = others[file]
    return lsp_range(index, line, column)


def _read_text(path: str) -> str:
    """A saved file's text as the loader reads it (bounded, never blocking on a FIFO); "" when unreadable."""
    from kqlint.loader import read_bytes

    raw, _ = read_bytes(path)
    return raw.decode("utf-8", "replace") if raw is not None else ""


def _identity(shown: types.Diagnostic) -> tuple[Any, ...]:
    start = shown.range.start
    return shown.code, shown.message, start.line, start.character


def _covers(shown: types.Diagnostic, offset: int, index: LineIndex) -> bool:
    start = index.offset_of(shown.range.start.line, shown.range.start.character)
    end = index.offset_of(shown.range.end.line, shown.range.end.character)
    line_end = index.offset_of(shown.range.start.line, sys.maxsize)
    return start <= offset <= max(end, line_end if end == start else end)


# ------------------------------------------------------------ the server

def build(allow_plugins: bool = False, use_cache: bool = True) -> KqlintServer:
    server = KqlintServer(allow_plugins, use_cache)

    @server.feature(types.INITIALIZE)
    def initialize(ls: KqlintServer, params: types.InitializeParams) -> None:
        roots = [root for root in (path_of(folder.uri) for folder in params.workspace_folders or []) if root]
        if not roots:
            root = (path_of(params.root_uri) if params.root_uri else None) or params.root_path or os.getcwd()
            roots = [root]
        ls.start(roots)

    @server.feature(types.INITIALIZED)
    def initialized(ls: KqlintServer, params: types.InitializedParams) -> None:
        watch_files(ls)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: KqlintServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.lint_uri(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    async def did_change(ls: KqlintServer, params: types.DidChangeTextDocumentParams) -> None:
        await lint_newest(ls, params.text_document.uri, params.text_document.version)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    async def did_save(ls: KqlintServer, params: types.DidSaveTextDocumentParams) -> None:
        await files_changed(ls, [params.text_document.uri])

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    async def did_change_watched(ls: KqlintServer, params: types.DidChangeWatchedFilesParams) -> None:
        await files_changed(ls, [change.uri for change in params.changes])

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: KqlintServer, params: None) -> None:
        ls.shut_down = True

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    def did_change_folders(ls: KqlintServer, params: types.DidChangeWorkspaceFoldersParams) -> None:
        if ls.folders is None:
            return
        for folder in params.event.removed:
            root = path_of(folder.uri)
            if root is not None:
                ls.folders.remove(root)
        for folder in params.event.added:
            root = path_of(folder.uri)
            if root is not None:
                ls.folders.add(root)
                ls.check_root(root)
        ls.relint_open()  # a buffer may now belong to another folder, or to none

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: KqlintServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.linted.pop(params.text_document.uri, None)
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(params.text_document.uri, []))

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(
        code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL]))
    def code_action(ls: KqlintServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        try:
            return ls.code_actions(params)
        except Exception as exc:
            ls.log(f"kqlint: internal error while working out fixes: {type(exc).__name__}: {exc}; {BUG_HINT}")
            return []

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: KqlintServer, params: types.HoverParams) -> types.Hover | None:
        try:
            return ls.hover(params)
        except Exception as exc:
            ls.log(f"kqlint: internal error while explaining a finding: {type(exc).__name__}: {exc}; {BUG_HINT}")
            return None

    return server


WATCHED = "**/{*.yaml,*.yml,*.json,pyproject.toml}"
SETTLE = 0.01  # s: changes already sent are read before a lint starts


async def lint_newest(ls: KqlintServer, uri: str, version: int) -> None:
    """Lint a buffer after a change, unless a newer change arrived meanwhile (it lints then):
    typing faster than a lint takes costs one lint of the newest text, not one per keystroke."""
    await asyncio.sleep(SETTLE)
    if ls.workspace.get_text_document(uri).version == version:  # closed since: no version, no lint
        ls.lint_uri(uri)


def watch_files(ls: KqlintServer) -> None:
    """Ask the client to report manifests and configuration files changed on disk (created,
    edited outside the editor, deleted), when it can register watchers."""
    workspace = ls.client_capabilities.workspace
    watched = workspace.did_change_watched_files if workspace is not None else None
    if watched is None or not watched.dynamic_registration:
        return
    options = types.DidChangeWatchedFilesRegistrationOptions([types.FileSystemWatcher(WATCHED)])
    ls.client_register_capability(types.RegistrationParams(
        [types.Registration("kqlint-watched-files", types.WORKSPACE_DID_CHANGE_WATCHED_FILES, options)]))


async def files_changed(ls: KqlintServer, uris: list[str]) -> None:
    """Saved, created or deleted files: the context (or configuration) is read again, and
    every open buffer linted against it, once for all the changes already sent (a storm of
    watched-file events, a branch switch, is one relint, not one per event)."""
    if ls.folders is None:
        return
    ls.folders.files_changed([p for p in (path_of(uri) for uri in uris) if p is not None])
    if not ls.relint_waiting:  # else the relint already waiting sees this change too
        ls.relint_waiting = True
        await asyncio.sleep(SETTLE)
        ls.relint_waiting = False
        ls.relint_open()


def serve(allow_plugins: bool = False, use_cache: bool = True) -> int:
    """Serve on stdin/stdout; whatever kqlint would print goes to stderr (stdout is the protocol's).
    The exit status: 0 after ``shutdown``, else 1 (LSP; pygls swallows its own SystemExit)."""
    channel = sys.stdout.buffer
    sys.stdout = sys.stderr
    server = build(allow_plugins, use_cache)
    server.start_io(BoundedInput(sys.stdin.buffer), channel)  # type: ignore[arg-type]
    return 0 if server.shut_down else 1
