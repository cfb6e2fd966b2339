#!/usr/bin/env python3
"""Keystroke latency of ``kqlint server``: the time from a ``textDocument/didChange`` to the
``textDocument/publishDiagnostics`` that answers it, warm (the context already loaded).

    python bench/server.py --files 10000            # generate ~10k files with ../shared/bench
    python bench/server.py --repo DIR --runs 15     # an existing repository

The server runs as ``python -m kqlint server`` in a subprocess, spoken to over stdio with plain
JSON-RPC (no client library). One file in the middle of the repository is opened, then
changed ``--runs`` times (a comment appended each time); prints the first lint (context load)
and the median, min and max of the keystrokes.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, BinaryIO

HERE = Path(__file__).resolve().parent
GENERATOR = HERE.parent.parent / "shared" / "bench" / "gen_corpus.py"
DOCUMENTS_PER_FILE = 2.07  # gen_corpus.py writes 1-6 documents per file (22,300 documents: 10,777 files)


def send(stream: BinaryIO, message: dict[str, Any]) -> None:
    body = json.dumps(message).encode("utf-8")
    stream.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    stream.flush()


def receive(stream: BinaryIO) -> dict[str, Any]:
    length = 0
    while True:
        line = stream.readline()
        if not line:
            raise SystemExit("bench/server.py: the server closed its output")
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode("ascii").partition(":")
        if name.lower() == "content-length":
            length = int(value)
    message: dict[str, Any] = json.loads(stream.read(length))
    return message


def wait_for(stream: BinaryIO, method: str | None = None, ident: int | None = None,
             uri: str | None = None) -> dict[str, Any]:
    while True:
        message = receive(stream)
        if ident is not None and message.get("id") == ident and "method" not in message:
            return message
        if method is not None and message.get("method") == method and \
                (uri is None or message.get("params", {}).get("uri") == uri):
            return message


def generated(files: int, work: Path) -> Path:
    repo = work / f"server-{files}"
    if not repo.exists():
        if not GENERATOR.exists():
            raise SystemExit(f"bench/server.py: {GENERATOR} not found; pass --repo")
        subprocess.run([sys.executable, str(GENERATOR), str(repo), "--manifests", str(int(files * DOCUMENTS_PER_FILE)),
                        "--seed", "1"], check=True, stdout=subprocess.DEVNULL)
        (repo / ".git").mkdir(exist_ok=True)  # a project: its manifests are the context
    return repo


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repo", type=Path, help="lint this repository (default: generate one)")
    parser.add_argument("--files", type=int, default=10000, help="files of the generated repository")
    parser.add_argument("--runs", type=int, default=9, help="keystrokes to time")
    parser.add_argument("--work", type=Path, default=Path("/tmp/kqlint-bench"), help="where generated repos live")
    args = parser.parse_args()
    repo = (args.repo or generated(args.files, args.work)).resolve()
    manifests = sorted(p for p in repo.rglob("*.yaml") if ".kqlint_cache" not in p.parts and ".git" not in p.parts)
    target = manifests[len(manifests) // 2]
    uri, text = target.as_uri(), target.read_text(encoding="utf-8")
    server = subprocess.Popen([sys.executable, "-m", "kqlint", "server"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, cwd=repo, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "0"})
    assert server.stdin is not None and server.stdout is not None
    send(server.stdin, {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                        "params": {"processId": os.getpid(), "rootUri": repo.as_uri(), "capabilities": {}}})
    wait_for(server.stdout, ident=1)
    send(server.stdin, {"jsonrpc": "2.0", "method": "initialized", "params": {}})
    started = time.perf_counter()
    send(server.stdin, {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": uri, "languageId": "yaml", "version": 1, "text": text}}})
    wait_for(server.stdout, "textDocument/publishDiagnostics", uri=uri)
    first = time.perf_counter() - started
    keystrokes = []
    for version in range(2, args.runs + 2):
        text += f"# keystroke {version}\n"
        started = time.perf_counter()
        send(server.stdin, {"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
            "textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]}})
        wait_for(server.stdout, "textDocument/publishDiagnostics", uri=uri)
        keystrokes.append(time.perf_counter() - started)
    send(server.stdin, {"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
    wait_for(server.stdout, ident=2)
    send(server.stdin, {"jsonrpc": "2.0", "method": "exit"})
    status = server.wait(timeout=30)
    print(f"repository: {repo} ({len(manifests)} YAML files); buffer: {target.relative_to(repo)}")
    print(f"first lint (context loaded): {first:.3f} s")
    print(f"keystroke (didChange -> publishDiagnostics), {len(keystrokes)} runs: median "
          f"{statistics.median(keystrokes) * 1000:.0f} ms, min {min(keystrokes) * 1000:.0f} ms, "
          f"max {max(keystrokes) * 1000:.0f} ms")
    print(f"server exit status after shutdown + exit: {status}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
