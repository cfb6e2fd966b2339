"""A YAML stream -> the documents of a :class:`SourceFile`, with what kubectl would refuse
recorded as KQ001 (and an unrendered template as KQ006)."""
from __future__ import annotations

import re
import warnings
from typing import Any

from kqlint.loader.compose import C_PARSER_QUIRKS, MAX_FALLBACK_SIZE, PureComposer, composer
from kqlint.loader.decode import offset_position
from kqlint.loader.duplicates import DuplicateReport
from kqlint.loader.nodes import unpack
from kqlint.loader.objectmeta import metadata_problem
from kqlint.loader.positions import position
from kqlint.loader.source import (
    MAX_DEPTH,
    MAX_EXPANDED_BYTES,
    MAX_EXPANDED_NODES,
    LoadProblem,
    SourceFile,
    is_k8s_object,
    is_kustomization,
)
from kqlint.loader.walker import AliasBomb, Walker, packed_start
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.nodes import MappingNode, ScalarNode

# what makes a file that fails to parse an unrendered template: Helm/Go `{{`, Jinja `{%`, and
# Terraform's templatefile() syntax: a directive (`%{ if … }`, `%{ for … }`) or a conditional
# (`${a ? "x" : "y"}`, whose `: ` breaks the YAML); a bare `%{` or `${` is not enough
# (each part bounded and unable to hold the next delimiter, nor a `${`: linear on hostile input)
_TEMPLATE_RE = re.compile(
    rb"\{\{|\{%|%\{~?[ \t]{0,8}(?:if|else|endif|for|endfor)\b"
    rb"|\$\{[^}\n?:${]{1,100}\?[^}\n?:${]{1,100}:[^}\n${]{1,100}\}")
_SYNTAX = {b"{{": "`{{ }}`", b"{%": "`{% %}`", b"%{": "a Terraform `%{ }` directive",
           b"${": "a Terraform `${ … ? … : … }` conditional"}


def compose_with_fallback(source: SourceFile, data: bytes, consumer: str | None = None) -> None:
    """The C parser first; where it refuses a ``:`` inside a plain scalar of a flow
    collection or a redefined anchor (C_PARSER_QUIRKS), ruamel's pure-Python parser, which
    reads them as kubectl does. Other C errors are kubectl's too (the pure-Python
    parser is laxer than kubectl elsewhere: tabs in block scalars, anchor names). The error
    reported is the C parser's unless the pure-Python one got further."""
    try:
        _compose_documents(source, data, composer, consumer)
        return
    except MarkedYAMLError as fast_error:
        if composer is PureComposer or not any(quirk in f"{fast_error.problem} {fast_error.context}"
                                                 for quirk in C_PARSER_QUIRKS):
            raise
        if len(data) > MAX_FALLBACK_SIZE:  # ~6 s and ~150 bytes of memory per byte of input
            fast_error.problem = (f"{fast_error.problem}: ruamel.yaml.clib cannot read this and the file is "
                                  f"over {MAX_FALLBACK_SIZE // (1024 * 1024)} MiB, too large for the slow "
                                  "parser that can; quote that scalar")
            raise
        _clear(source)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                _compose_documents(source, data, PureComposer, consumer)
        except MarkedYAMLError as slow_error:
            _clear(source)
            raise (slow_error if _later(slow_error, fast_error) else fast_error) from None
        except (YAMLError, RecursionError):
            _clear(source)
            raise fast_error from None


def _clear(source: SourceFile) -> None:
    source.documents.clear()
    source.document_ends.clear()
    source.problems.clear()


def _later(one: MarkedYAMLError, other: MarkedYAMLError) -> bool:
    a, b = one.problem_mark or one.context_mark, other.problem_mark or other.context_mark
    return a is not None and b is not None and (a.line, a.column) > (b.line, b.column)


def _compose_documents(source: SourceFile, data: bytes, composer_class: Any, consumer: str | None = None) -> None:
    parser = composer_class(data)
    memoise = b"&" in data
    template_at: int | None = None
    duplicates = DuplicateReport(source.path, consumer)
    starts: list[int] = []  # the 0-based line each document's content starts on
    try:
        while parser.check_node():
            node = parser.get_node()
            source.document_ends.append(content_end_line(node))
            starts.append(node.start_mark.line)
            walker = Walker(memoise, max(MAX_EXPANDED_BYTES, 2 * len(data)))
            try:
                document = walker.walk(node)
            except (AliasBomb, RecursionError) as exc:
                line, col = unpack(packed_start(node))
                message = (f"aliases expand to more than {MAX_EXPANDED_NODES} nodes or {walker.byte_budget} "
                           "bytes (an alias bomb?); "
                           "document not linted" if isinstance(exc, AliasBomb)
                           else f"document nests deeper than {MAX_DEPTH} levels; not linted")
                source.problems.append(LoadProblem(source.path, line, col, message))
                source.documents.append(None)
                continue
            if walker.template_at is not None and template_at is None and _manifest_like(document):
                template_at = walker.template_at
            kubernetes = is_k8s_object(document)
            object_keys = kubernetes and not is_kustomization(document)  # duplicates worded for kubectl
            if walker.refusal is not None and kubernetes:
                line, col = unpack(walker.refusal[0])
                source.problems.append(LoadProblem(
                    source.path, line, col,
                    f"kubectl cannot decode this document ({walker.refusal[1]}); it never reaches the cluster"))
                document = None
            elif kubernetes:
                document = _decodable_metadata(source, document)
            duplicates.add(walker.duplicates, object_keys, source.problems)
            source.documents.append(document)
    finally:
        parser.dispose()
    if memoise:
        _distrust_aliased_ends(source.document_ends, starts, data)
    duplicates.finish(source.problems)
    if any(is_k8s_object(d) for d in source.documents):
        _check_document_splitting(source, data)
    if template_at is not None:
        _record_template(source, *unpack(template_at))


def content_end_line(node: Any) -> int:
    """The 1-based line a composed document's content ends on: where its textually last node
    ends, which is every collection's last child's (unless that is an alias: the anchored
    node, earlier in the text; see _distrust_aliased_ends). A node that ends at the start of a
    line (a block scalar with its line break, a missing value before `---`) ends on the line
    before."""
    while node.value and node.__class__ is not ScalarNode:
        last = node.value[-1]
        node = last[1] if node.__class__ is MappingNode else last
    end = node.end_mark
    return end.line + (1 if end.column else 0)  # type: ignore[no-any-return]


def _distrust_aliased_ends(ends: list[int], starts: list[int], data: bytes) -> None:
    """An alias among a document's last children makes content_end_line stop at its anchor,
    before the alias itself: a document with a `*` between its end and the next document's
    content (or the end of the file) gets 0, an unknown end."""
    lines = data.split(b"\n")
    for index, end in enumerate(ends):
        following = starts[index + 1] if index + 1 < len(starts) else len(lines)
        if end and any(b"*" in line for line in lines[end:following]):
            ends[index] = 0


def _manifest_like(document: Any) -> bool:
    """A document meant as a Kubernetes object, even if a template broke its apiVersion/kind."""
    return isinstance(document, dict) and ("apiVersion" in document or "kind" in document)


def _decodable_metadata(source: SourceFile, document: Any) -> Any:
    """The document, or None with a KQ001 when kubectl cannot decode its ObjectMeta."""
    found = metadata_problem(document)
    if found is None:
        return document
    line, column, _ = position(document, found[0], value=True)
    source.problems.append(LoadProblem(
        source.path, line, column,
        f"kubectl cannot decode this object: {found[1]}; it never reaches the cluster",
        remedy="Write the type named (quote a number or boolean meant as a string)"))
    return None


# kubectl cuts a stream into documents at lines starting `---` before parsing each alone: it
# refuses content after `---` (other than a comment), and a directive line leaves a
# document without content (`%YAML 1.1` on its own is "did not find expected <document start>").
_DIRECTIVE = re.compile(rb"^%", re.MULTILINE)
_SEPARATOR_CONTENT = re.compile(rb"[ \t]*[^\s#]")


def _splitter_refusal(data: bytes) -> tuple[int, str] | None:
    """Offset and kind of the first line kubectl's `---` splitter refuses."""
    directive = _DIRECTIVE.search(data) if b"%" in data else None
    start = data.find(b"---")
    while start >= 0 and (directive is None or start < directive.start()):
        if (start == 0 or data[start - 1] in b"\r\n") and _SEPARATOR_CONTENT.match(data, start + 3):
            return start, "content after a `---` separator"
        start = data.find(b"---", start + 3)
    return (directive.start(), "a directive") if directive else None


def _check_document_splitting(source: SourceFile, data: bytes) -> None:
    if data.lstrip()[:1] in (b"{", b"["):
        return  # JSON: kubectl decodes it whole
    found = _splitter_refusal(data)
    if found is None:
        return
    line, column = offset_position(data, found[0])
    what = found[1]
    source.problems.append(LoadProblem(
        source.path, line, column,
        f"kubectl refuses this file: it splits documents at `---` lines and cannot read {what}",
        remedy="Keep `---` lines bare (a comment may follow) and remove `%` directives"))


def _record_template(source: SourceFile, line: int, column: int, syntax: bytes = b"{{") -> None:
    source.problems[:] = [p for p in source.problems if p.code != "KQ001"]
    terraform = syntax in (b"%{", b"${")
    source.problems.append(LoadProblem(
        source.path, line, column,
        f"unrendered template (contains {_SYNTAX[syntax]}): file skipped, so nothing in it is linted",
        code="KQ006", remedy="Render it first (Terraform's `templatefile()`) and lint the output" if terraform
        else "Render it first and lint the output, e.g. `helm template … | kqlint check -`"))
    source.documents.clear()
    source.document_ends.clear()


_YAML_BREAK = re.compile("\r\n|[\n\r\x85\u2028\u2029]")


def _within(data: bytes, line: int, column: int) -> tuple[int, int]:
    """An error at the end of the stream (the line after the last one) is shown at the end of
    the last line, the line kubectl names (go-yaml's parser errors at the end of a stream).
    Lines are counted as the YAML parser counts them (NEL, LS and PS break lines too)."""
    lines = _YAML_BREAK.split(data.decode("utf-8", "replace"))
    if lines and lines[-1] == "":
        lines.pop()  # the stream ends with a line break
    if not lines or line <= len(lines):
        return line, column
    return len(lines), len(lines[-1]) + 1


def record_parse_error(source: SourceFile, data: bytes, exc: MarkedYAMLError) -> None:
    mark = exc.problem_mark or exc.context_mark
    line = (mark.line + 1) if mark is not None else 1
    column = (mark.column + 1) if mark is not None else 1
    line, column = _within(data, line, column)
    problem = exc.problem or exc.context or "invalid YAML"
    template = _TEMPLATE_RE.search(data)
    if template:
        syntax = template.group()[:2]
        start = template.start()
        if syntax in (b"%{", b"${"):  # a Terraform template: its first expression may be a plain `${var}`
            interpolation = data.find(b"${")
            start = min(start, interpolation) if interpolation >= 0 else start
        _record_template(source, *offset_position(data, start), syntax)
        return
    context = f" ({exc.context})" if exc.context and exc.problem else ""
    source.problems.append(LoadProblem(source.path, line, column, f"invalid YAML: {problem}{context}"))
