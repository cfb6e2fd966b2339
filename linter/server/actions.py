"""The code actions of ``kqlint server``: each fix of a diagnostic (a quick fix), every safe fix
at once (``source.fixAll.kqlint``), and "Ignore KQnnn for this line": the comment ``kqlint
check --add-noqa`` would write for that finding (kqlint.fix.noqa), as an edit of the buffer."""
from __future__ import annotations

from collections.abc import Sequence

from kqlint.fix.text import BOM
from kqlint.model import Finding
from kqlint.server.positions import LineIndex
from lsprotocol import types

FIX_ALL = "source.fixAll.kqlint"


def lsp_range(index: LineIndex, line: int, column: int, end_line: int = 0, end_column: int = 0) -> types.Range:
    start = types.Position(*index.lsp(line, column))
    end = types.Position(*index.lsp(end_line, end_column)) if end_line else start
    return types.Range(start, end)


def quickfix(uri: str, shown: types.Diagnostic, finding: Finding, index: LineIndex) -> types.CodeAction:
    assert finding.fix is not None
    safe = finding.fix.applicability.value == "safe"
    title = f"{finding.code}: {finding.fix.title}" + ("" if safe else " (unsafe: changes what the workload does)")
    return types.CodeAction(title, kind=types.CodeActionKind.QuickFix, diagnostics=[shown], is_preferred=safe,
                            edit=types.WorkspaceEdit(changes={uri: text_edits(finding, index)}))


def fix_all(uri: str, findings: list[Finding], index: LineIndex) -> types.CodeAction:
    edits = [edit for finding in findings for edit in text_edits(finding, index)]
    return types.CodeAction("kqlint: apply every safe fix", kind=FIX_ALL,
                            edit=types.WorkspaceEdit(changes={uri: edits}))


def text_edits(finding: Finding, index: LineIndex) -> list[types.TextEdit]:
    assert finding.fix is not None
    return [types.TextEdit(lsp_range(index, e.line, e.column, e.end_line, e.end_column), e.content)
            for e in finding.fix.text]


def has_text(finding: Finding) -> bool:
    return finding.fix is not None and bool(finding.fix.text)


def ignore_actions(uri: str, asked: Sequence[tuple[types.Diagnostic, Finding]], raw: bytes,
                   index: LineIndex, known: dict[tuple[str, int], types.TextEdit | None]) -> list[types.CodeAction]:
    """For each diagnostic asked about, the comment that silences its finding, once per code and
    line; none where ``--add-noqa`` would write none (JSON, a file that does not load, a line
    inside a multi-line value, KQ000). ``known``: the edits worked out for this text so far."""
    actions: list[types.CodeAction] = []
    done: set[tuple[str, int]] = set()
    for shown, finding in asked:
        key = (finding.code, finding.location.line)
        if key not in known:
            known[key] = _ignore_edit(finding, raw, index)
        edit = known[key]
        if edit is None or key in done:
            continue
        done.add(key)
        actions.append(types.CodeAction(f"Ignore {finding.code} for this line", kind=types.CodeActionKind.QuickFix,
                                        diagnostics=[shown], edit=types.WorkspaceEdit(changes={uri: [edit]})))
    return actions


def _ignore_edit(finding: Finding, raw: bytes, index: LineIndex) -> types.TextEdit | None:
    from kqlint.fix.noqa import add_noqa

    commented = add_noqa(raw, finding.location.file, [finding])
    if len(commented.edits) != 1:
        return None
    [edit] = commented.edits
    bom = 1 if index.text.startswith(BOM) else 0  # kqlint.fix.noqa counts offsets after it
    return types.TextEdit(types.Range(types.Position(*index.position(edit.start + bom)),
                                      types.Position(*index.position(edit.end + bom))), edit.content)
