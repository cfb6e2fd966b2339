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

What a repository names is not trusted: a remote resource or base (git, HTTPS) is refused
before kubectl runs unless ``--allow-remote-bases`` is given, and kubectl runs with no
cluster configuration, no PATH (no git) and closed proxies; origins are read from the
rendered annotations as YAML and map only to regular files inside the repository (objects
from bases outside it are not linted, as a plain run skips such files); the stream is
read up to ``max-file-size``.

Comment suppressions (``# kqlint: ignore``) do not survive rendering (kustomize drops
comments); annotation suppressions do.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from kqlint.loader.source import MAX_FILE_SIZE
from kqlint.model import Finding, Location, Report
from kqlint.project.containment import inside, tree_root

ORIGIN = "config.kubernetes.io/origin"
REMOTE_FLAG = "--allow-remote-bases"
_DOC_SPLIT = re.compile(rb"^---[ \t]*$", re.MULTILINE)
_TIMEOUT = 300
_STDERR_TAIL = 65536      # bytes of kubectl's error output read (the reason is at its end)
_ORIGIN_CHARS = 4096      # an origin annotation is `path: ...` (plus repo/ref for remote ones)
_REASON_CHARS = 500
_NESTED = "recursed accumulation of path "
_HELM_HINT = ("; kqlint never runs Helm (a chart is code the repository brings): render it yourself, "
              "`kubectl kustomize --enable-helm DIR | kqlint check -`")
_CLOSED_PROXY = "http://127.0.0.1:9"  # the discard port: any fetch kubectl tries fails at once


class KustomizeError(Exception):
    pass


@dataclass
class Rendering:
    """What ``kubectl kustomize`` gave for one folder: the stream (None: over the size limit),
    the wrapper folder origin paths are relative to (deleted: only the path is used), the
    tree origins must stay in, and the notes to print."""

    stream: bytes | None
    wrapper: str
    tree: str
    notes: list[str] = field(default_factory=list)


def _renderer() -> list[str]:
    for command in (["kubectl", "kustomize"], ["kustomize", "build"]):
        found = shutil.which(command[0])
        if found:  # absolute: kubectl runs with no PATH (it must not find git)
            return [os.path.abspath(found)] + command[1:]
    raise KustomizeError("--kustomize renders with `kubectl kustomize`, but neither kubectl nor kustomize is "
                         "installed (or on PATH); install kubectl, or render yourself: "
                         "`kustomize build DIR | kqlint check -`")


def _environment(home: str, allow_remote: bool) -> dict[str, str]:
    """No cluster configuration, no credentials: kubectl kustomize needs none. Without the
    opt-in, no PATH (no git to run) and every proxy closed (no connection opens)."""
    environment = {"HOME": home, "KUBECONFIG": os.devnull, "PATH": ""}
    if allow_remote:
        kept = ("PATH", "HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY", "https_proxy", "http_proxy", "no_proxy",
                "SSH_AUTH_SOCK")
        environment.update({name: os.environ[name] for name in kept if name in os.environ})
    else:
        environment.update({name: _CLOSED_PROXY for name in ("HTTPS_PROXY", "HTTP_PROXY", "https_proxy",
                                                             "http_proxy", "ALL_PROXY")})
        environment.update(NO_PROXY="", no_proxy="")
    if os.name == "nt":
        environment["SYSTEMROOT"] = os.environ.get("SYSTEMROOT", "")
    return environment


def failure_reason(stderr: bytes) -> str:
    """kustomize's reason from kubectl's error output: klog wraps it as ``err=<`` ... `` >``
    (the last line alone is the `` >``), or ``err="..."`` on one line."""
    text = stderr.decode("utf-8", "replace")
    if "err=<" in text:
        text = text.rsplit("err=<", 1)[1]
    elif 'err="' in text:
        text = text.rsplit('err="', 1)[1].rsplit('"', 1)[0].replace('\\n', " ")
    lines = [line.strip() for line in text.splitlines() if line.strip() and line.strip() != ">"]
    reason = " ".join(lines)
    if _NESTED in reason:  # the wrapper's accumulation chain: the reason is the innermost folder's
        reason = reason.rsplit(_NESTED, 1)[1].split("': ", 1)[-1]
    return reason if len(reason) <= _REASON_CHARS else "…" + reason[-_REASON_CHARS:]


class _BoundedReader(threading.Thread):
    """Reads a process's output up to ``limit`` bytes; past it, kills the process."""

    def __init__(self, process: subprocess.Popen[bytes], limit: int) -> None:
        super().__init__(daemon=True)
        self.process, self.limit = process, limit
        self.chunks: list[bytes] = []
        self.over = False

    def run(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        size = 0
        while chunk := os.read(stream.fileno(), 1 << 20):
            size += len(chunk)
            if size > self.limit:
                self.over, self.chunks = True, []
                self.process.kill()
                return
            self.chunks.append(chunk)


def _run(command: list[str], environment: dict[str, str], limit: int) -> tuple[int, bytes | None, bytes]:
    """(exit status, stdout or None past ``limit``, the tail of stderr), within _TIMEOUT."""
    with tempfile.TemporaryFile() as errors:
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=errors,
                                   env=environment, cwd=environment["HOME"])
        reader = _BoundedReader(process, limit)
        reader.start()
        try:
            status = process.wait(timeout=_TIMEOUT)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
            reader.join()
            assert process.stdout is not None
            process.stdout.close()
        size = errors.seek(0, os.SEEK_END)
        errors.seek(max(0, size - _STDERR_TAIL))
        return status, None if reader.over else b"".join(reader.chunks), errors.read()


def _checked_tree(directory: str, tree: str, max_file_size: int, allow_remote: bool) -> list[str]:
    """Walks the local kustomizations ``directory`` includes, inside ``tree`` only: refuses a
    remote entry (unless allowed); the notes name bases outside ``tree`` (not read here;
    kubectl reads them, and their objects are not linted, as a plain run skips such files)."""
    from kqlint.project.discover import display_path
    from kqlint.project.scope.layout import Layout
    from kqlint.sanitize import terminal_safe

    layout = Layout(tree, max_file_size)
    notes: list[str] = []
    pending, seen = [os.path.realpath(directory)], set()
    while pending:
        folder = pending.pop()
        if folder in seen:
            continue
        seen.add(folder)
        kustomization = layout.kustomization(folder)
        if kustomization is None:
            continue
        if kustomization.remote and not allow_remote:
            raise KustomizeError(
                f"--kustomize {terminal_safe(directory)}: {terminal_safe(display_path(folder))} names the remote "
                f"resource `{terminal_safe(kustomization.remote[0])[:200]}`, which kubectl would fetch (git, "
                f"HTTPS); kqlint renders local files only unless you pass {REMOTE_FLAG}")
        for include in kustomization.includes:
            real = os.path.realpath(include)
            if not inside(real, tree):
                notes.append(f"skipped the base {terminal_safe(display_path(include))} of "
                             f"{terminal_safe(display_path(folder))}: it is outside the repository")
            elif os.path.isdir(real):
                pending.append(real)
    return notes


def render(directory: str, max_file_size: int = MAX_FILE_SIZE, allow_remote: bool = False) -> Rendering:
    """The rendered stream of ``directory``, read up to ``max_file_size`` bytes."""
    from kqlint.sanitize import terminal_safe

    if not os.path.isdir(directory):
        raise KustomizeError(f"--kustomize {terminal_safe(directory)}: not a folder")
    if not any(os.path.isfile(os.path.join(directory, name))
               for name in ("kustomization.yaml", "kustomization.yml", "Kustomization")):
        raise KustomizeError(f"--kustomize {terminal_safe(directory)}: no kustomization.yaml in it")
    tree = tree_root(os.path.abspath(directory), os.getcwd())
    notes = _checked_tree(directory, tree, max_file_size, allow_remote)
    command = _renderer()
    with tempfile.TemporaryDirectory(prefix="kqlint-kustomize-") as wrapper:
        target = os.path.relpath(os.path.abspath(directory), wrapper)
        with open(os.path.join(wrapper, "kustomization.yaml"), "w", encoding="utf-8") as handle:
            handle.write(f"resources:\n- {json.dumps(target)}\nbuildMetadata: [originAnnotations]\n")
        try:
            status, stream, stderr = _run(command + [wrapper], _environment(wrapper, allow_remote), max_file_size)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise KustomizeError(f"`{' '.join(command[1:])} {terminal_safe(directory)}` failed: {exc}") from None
        if status != 0 and stream is not None:
            reason = failure_reason(stderr) or f"exit status {status}"
            hint = _HELM_HINT if "--enable-helm" in reason else ""
            raise KustomizeError(f"`kubectl kustomize {terminal_safe(directory)}` failed: "
                                 f"{terminal_safe(reason)}{hint}")
        return Rendering(stream, wrapper, tree, notes)


def _origin(document: Any) -> dict[str, Any] | None:
    """The rendered ``document``'s origin annotation, read as the YAML kustomize writes there."""
    metadata = document.get("metadata") if isinstance(document, dict) else None
    annotations = metadata.get("annotations") if isinstance(metadata, dict) else None
    origin = annotations.get(ORIGIN) if isinstance(annotations, dict) else None
    if not isinstance(origin, str) or len(origin) > _ORIGIN_CHARS:
        return None
    import yaml

    try:
        fields = yaml.safe_load(origin)
    except yaml.YAMLError:
        return None
    return fields if isinstance(fields, dict) else None


def _local_origin(fields: dict[str, Any] | None) -> str | None:
    """The path of a local origin (relative to the wrapper); None: a remote base, a generator."""
    if fields is None or fields.get("repo") or not isinstance(fields.get("path"), str):
        return None
    return str(fields["path"])


def rendered_sources(directory: str, max_file_size: int = MAX_FILE_SIZE,
                     allow_remote: bool = False) -> tuple[list[Any], list[str]]:
    """One SourceFile per rendered document, named after the file it came from, and the notes."""
    from kqlint.loader import parse_bytes, refused
    from kqlint.project.discover import display_path, named_like

    rendering = render(directory, max_file_size, allow_remote)
    fallback = display_path(os.path.join(directory, "kustomization.yaml"))
    if rendering.stream is None:
        return [refused(fallback, f"`kubectl kustomize {display_path(directory)}` renders more than max-file-size "
                                  f"({max_file_size} bytes); not linted (raise max-file-size to lint it)")], []
    result, outside = [], 0
    for chunk in _DOC_SPLIT.split(rendering.stream):
        if not chunk.strip():
            continue
        source = parse_bytes(fallback, chunk)
        local = _local_origin(_origin(source.documents[0] if len(source.documents) == 1 else None))
        if local is not None:
            origin = os.path.realpath(os.path.join(rendering.wrapper, local))
            if not (inside(origin, rendering.tree) and os.path.isfile(origin)):
                outside += 1  # a base above the repository, or a link out of it: a plain run skips it
                continue
            source = _renamed(source, display_path(named_like(origin, [directory])))
        result.append(source)
    notes = rendering.notes + ([f"{outside} rendered object(s) from files outside the repository not linted"]
                               if outside else [])
    return result, notes


def _renamed(source: Any, display: str) -> Any:
    source.path = display
    source.problems[:] = [replace(problem, file=display) for problem in source.problems]
    return source


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
    mapper = _mapper(rendered_objects)
    findings = tuple(sorted((mapper.finding(f) for f in report.findings), key=Finding.sort_key))
    suppressed = tuple(sorted((mapper.finding(f) for f in report.suppressed), key=Finding.sort_key))
    return replace(report, findings=findings, suppressed=suppressed)


def origin_places(rendered_objects: list[Any]) -> Callable[[Location], Location]:
    """A position in a rendered object moved to the file and position it came from (as
    ``map_to_origins`` moves findings; ``kqlint graph --kustomize`` places its nodes so)."""
    return _mapper(rendered_objects).location


def _mapper(rendered_objects: list[Any]) -> _Mapper:
    return _Mapper({(o.file, o.kind, o.namespace, o.name): o for o in rendered_objects})
