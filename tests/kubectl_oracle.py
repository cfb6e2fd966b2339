"""kubectl as the oracle of what a manifest means (shared/reference/yaml.md).

`kubectl label --local -f FILE kqlint-probe=1 -o json` decodes offline exactly as the API
server's decoder does. Files are decoded in batches (one kubectl per batch); a batch whose
output cannot be attributed to its files (a refusal, a count that does not match) is decoded
again one file at a time.
"""
from __future__ import annotations

import json
import math
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PROBE = "kqlint-probe"
# kubectl's words for a document that is not a Kubernetes object (kustomizations, values
# files, JSON patches): not a refusal of a manifest
NOT_AN_OBJECT = ("Object 'Kind' is missing", "Object 'apiVersion' is missing",
                 "cannot unmarshal array into Go value of type unstructured",
                 "cannot unmarshal string into Go value of type unstructured")


@dataclass
class Decoded:
    objects: list[Any] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)     # kubectl's refusals of this file

    @property
    def refused(self) -> bool:
        return bool(self.errors)


def kubectl() -> str | None:
    return shutil.which("kubectl")


def decode_files(files: list[Path], expected_counts: dict[Path, int], batch: int = 200) -> dict[Path, Decoded]:
    """kubectl's objects for each file; ``expected_counts`` (kqlint's object counts) only
    decides whether a batch's output can be split among its files. A batch that cannot
    (a refusal, a count that does not match) is halved until it can, down to single files."""
    decoded: dict[Path, Decoded] = {}
    for start in range(0, len(files), batch):
        _decode(files[start:start + batch], expected_counts, decoded)
    return decoded


def _decode(chunk: list[Path], expected_counts: dict[Path, int], decoded: dict[Path, Decoded]) -> None:
    objects, errors = _run(chunk)
    refusals = _refusals(errors)
    if len(chunk) == 1:
        decoded[chunk[0]] = Decoded(objects, refusals)
    elif not refusals and len(objects) == sum(expected_counts[f] for f in chunk):
        for file in chunk:
            count = expected_counts[file]
            decoded[file], objects = Decoded(objects[:count]), objects[count:]
    else:
        half = len(chunk) // 2
        _decode(chunk[:half], expected_counts, decoded)
        _decode(chunk[half:], expected_counts, decoded)


def _refusals(errors: list[str]) -> list[str]:
    """kubectl's errors minus "not a Kubernetes object" (kustomizations, values files)."""
    return [e for e in errors if not any(m in e for m in NOT_AN_OBJECT)]


def _run(files: list[Path]) -> tuple[list[Any], list[str]]:
    command = [kubectl() or "kubectl", "label", "--local", f"{PROBE}=1", "-o", "json"]
    for file in files:
        command += ["-f", str(file)]
    result = subprocess.run(command, capture_output=True, timeout=300, check=False, stdin=subprocess.DEVNULL)
    errors = [line for line in result.stderr.decode("utf-8", "replace").splitlines() if line.strip()]
    return _json_stream(result.stdout.decode("utf-8", "replace")), errors


def _json_stream(text: str) -> list[Any]:
    decoder, objects, index = json.JSONDecoder(), [], 0
    while True:
        while index < len(text) and text[index].isspace():
            index += 1
        if index >= len(text):
            return objects
        value, index = decoder.raw_decode(text, index)
        objects.append(value)


def without_probe(kubectl_object: dict[str, Any], ours: Any) -> Any:
    """kubectl's object minus the probe label and the empty metadata/labels it adds."""
    metadata = kubectl_object.get("metadata")
    if isinstance(metadata, dict):
        labels = metadata.get("labels")
        if isinstance(labels, dict):
            labels.pop(PROBE, None)
            our_metadata = ours.get("metadata") if isinstance(ours, dict) else None
            if not labels and not (isinstance(our_metadata, dict) and "labels" in our_metadata):
                del metadata["labels"]
        if not metadata and not (isinstance(ours, dict) and "metadata" in ours):
            del kubectl_object["metadata"]
    return kubectl_object


def as_json(value: Any) -> Any:
    """A value as JSON compares it: numbers as numbers (1 == 1.0), mapping keys as strings."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, (int, float)):
        number = float(value)
        return number if math.isfinite(number) else str(number)
    if isinstance(value, dict):
        return {str(k): as_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [as_json(v) for v in value]
    return repr(value)
