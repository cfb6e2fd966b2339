"""``kqlint check --kustomize DIR``: lint what ``kubectl apply -k DIR`` applies.

A flag rather than automatic for every folder holding a ``kustomization.yaml``: a folder run
lints the files as written (bases and overlays alike, patches as fragments), needs no
kubectl, and gives the same findings on every machine; rendering is an explicit choice.

How: a temporary wrapper kustomization (in a temp dir, never in the user's tree) names DIR
as its only resource and asks for ``buildMetadata: [originAnnotations]``; ``kubectl
kustomize`` (or ``kustomize build`` when kubectl is missing) renders it. Each rendered
object carries ``config.kubernetes.io/origin: {path: ...}``, the file it came from. Rules
run on the rendered objects; each finding is then mapped back to that file: to the same
field in the document of the same kind and (un-prefixed) name when the source has it,
else to that document's start (a field a patch or transformer added). Findings keep
their rendered position only when the origin is not a local file (remote bases,
generators): they point at DIR's kustomization.yaml.

Comment suppressions (``# kqlint: ignore``) do not survive rendering (kustomize drops
comments); annotation suppressions do.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import replace
from typing import Any

from kqlint.model import Finding, Location, Report

ORIGIN = "config.kubernetes.io/origin"
_DOC_SPLIT = re.compile(rb"^---[ \t]*$", re.MULTILINE)
_TIMEOUT = 300


class KustomizeError(Exception):
    pass


def _renderer() -> list[str]:
    if shutil.which("kubectl"):
        return ["kubectl", "kustomize"]
    if shutil.which("kustomize"):
        return ["kustomize", "build"]
    raise KustomizeError("--kustomize renders with `kubectl kustomize`, but neither kubectl nor kustomize is "
                         "installed (or on PATH); install kubectl, or render yourself: "
                         "`kustomize build DIR | kqlint check -`")


def render(directory: str) -> tuple[bytes, str]:
    """The rendered stream of ``directory`` and the wrapper folder origin paths are relative to
    (deleted on return: only the path is used)."""
    from kqlint.sanitize import terminal_safe

    if not os.path.isdir(directory):
        raise KustomizeError(f"--kustomize {terminal_safe(directory)}: not a folder")
    if not any(os.path.isfile(os.path.join(directory, name))
               for name in ("kustomization.yaml", "kustomization.yml", "Kustomization")):
        raise KustomizeError(f"--kustomize {terminal_safe(directory)}: no kustomization.yaml in it")
    command = _renderer()
    with tempfile.TemporaryDirectory(prefix="kqlint-kustomize-") as wrapper:
        target = os.path.relpath(os.path.abspath(directory), wrapper)
        with open(os.path.join(wrapper, "kustomization.yaml"), "w", encoding="utf-8") as handle:
            handle.write(f"resources:\n- {target!r}\nbuildMetadata: [originAnnotations]\n".replace("'", '"'))
        try:
            done = subprocess.run(command + [wrapper], capture_output=True, timeout=_TIMEOUT, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise KustomizeError(f"`{' '.join(command)} {terminal_safe(directory)}` failed: {exc}") from None
        if done.returncode != 0:
            message = done.stderr.decode("utf-8", "replace").strip().splitlines()
            detail = terminal_safe(message[-1] if message else f"exit status {done.returncode}")[:500]
            raise KustomizeError(f"`{' '.join(command)} {terminal_safe(directory)}` failed: {detail}")
        return done.stdout, wrapper


def _origin_path(document: bytes, wrapper: str) -> str | None:
    match = re.search(rb"^\s+" + re.escape(ORIGIN.encode()) + rb":\s*\|\s*\n\s+path:\s*(\S.*?)\s*$", document,
                      re.MULTILINE)
    if match is None:
        return None
    path = os.path.normpath(os.path.join(wrapper, match.group(1).decode("utf-8", "replace")))
    return path if os.path.isfile(path) else None


def rendered_sources(directory: str) -> list[Any]:
    """One SourceFile per rendered document, named after the file it came from."""
    from kqlint.loader import parse_bytes
    from kqlint.project.discover import display_path, named_like

    data, wrapper = render(directory)
    fallback = display_path(os.path.join(directory, "kustomization.yaml"))
    result = []
    for chunk in _DOC_SPLIT.split(data):
        if not chunk.strip():
            continue
        origin = _origin_path(chunk, wrapper)  # absolute: a base may lie above the current folder
        result.append(parse_bytes(display_path(named_like(origin, [directory])) if origin else fallback, chunk))
    return result


# ------------------------------------------------------------------ mapping back

class _Mapper:
    """Moves positions from rendered documents to the files they came from."""

    def __init__(self, rendered: dict[tuple[str, str, str | None, str], Any]) -> None:
        self.rendered = rendered            # (file, kind, namespace, name) -> rendered K8sObject
        self.sources: dict[str, list[Any]] = {}

    def _source_documents(self, file: str) -> list[Any]:
        if file not in self.sources:
            from kqlint.loader import load_file

            source = load_file(file, file)
            self.sources[file] = [d for d in source.documents if isinstance(d, dict)]
        return self.sources[file]

    def _source_document(self, file: str, kind: str, name: str) -> Any:
        candidates = [d for d in self._source_documents(file) if d.get("kind") == kind]
        named = [d for d in candidates if isinstance(d.get("metadata"), dict)
                 and str(d["metadata"].get("name") or "") and str(d["metadata"]["name"]) in name]
        exact = [d for d in named if d["metadata"]["name"] == name]
        chosen = exact or sorted(named, key=lambda d: -len(str(d["metadata"]["name"]))) or \
            (candidates if len(candidates) == 1 else [])
        return chosen[0] if chosen else None

    def location(self, location: Location) -> Location:
        ref = location.obj
        if ref is None:
            return location
        obj = self.rendered.get((location.file, ref.kind, ref.namespace, ref.name))
        if obj is None or not os.path.isfile(location.file):
            return location
        from kqlint.loader import position

        document = self._source_document(location.file, ref.kind, ref.name)
        if document is None:
            return replace(location, line=1, column=1)
        path = tuple(location.path)
        value = position(obj.root, obj.base + path, True)[:2] == (location.line, location.column) \
            and position(obj.root, obj.base + path, False)[:2] != (location.line, location.column)
        line, column, depth = position(document, path, value)
        if depth == 0:
            first = next(iter(document), None)
            line, column, _ = position(document, (first,)) if first is not None else (1, 1, 0)
        return replace(location, line=line, column=column)

    def finding(self, finding: Finding) -> Finding:
        return replace(finding, location=self.location(finding.location),
                       related=tuple(self.location(r) for r in finding.related))


def map_to_origins(report: Report, rendered_objects: list[Any]) -> Report:
    """``report`` of rendered objects with every finding moved to the file and position the
    object came from (its origin annotation, or the kustomization that rendered it)."""
    rendered = {(o.file, o.kind, o.namespace, o.name): o for o in rendered_objects}
    mapper = _Mapper(rendered)
    findings = tuple(sorted((mapper.finding(f) for f in report.findings), key=Finding.sort_key))
    suppressed = tuple(sorted((mapper.finding(f) for f in report.suppressed), key=Finding.sort_key))
    return replace(report, findings=findings, suppressed=suppressed)
