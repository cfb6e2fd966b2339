"""What kubectl refuses before any schema: a `metadata` that does not decode into ObjectMeta.

kubectl decodes every object's metadata into Go's ObjectMeta (`kubectl label --local` says
"unable to decode … cannot unmarshal number into Go struct field ObjectMeta.metadata.labels
of type string"), so such a file never reaches the cluster whatever its kind. An envsubst placeholder where a
mapping belongs (`metadata: ${META}`, `labels: ${LABELS}`) is a template's, rendered before
kubectl reads it: not a decoding problem here, but an unrendered template (KQ006).
"""
from __future__ import annotations

from typing import Any

from kqlint.loader.placeholders import holds_placeholder

_STRING_FIELDS = ("name", "generateName", "namespace", "uid", "resourceVersion", "selfLink",
                  "creationTimestamp", "deletionTimestamp")
_STRING_MAPS = ("labels", "annotations")


def metadata_problem(document: dict[str, Any]) -> tuple[tuple[Any, ...], str] | None:
    """(path, reason) of the first metadata field kubectl cannot decode, else None."""
    metadata = document.get("metadata")
    if metadata is None:
        return None
    if holds_placeholder(metadata):
        return None
    if not isinstance(metadata, dict):
        return ("metadata",), f"`metadata` must be a mapping, not {_kind(metadata)}"
    for name in _STRING_FIELDS:
        value = metadata.get(name)
        if value is not None and not isinstance(value, str):
            return ("metadata", name), f"`metadata.{name}` must be a string, not {_kind(value)}"
    for name in _STRING_MAPS:
        found = _string_map_problem(metadata.get(name), name)
        if found is not None:
            return found
    finalizers = metadata.get("finalizers")
    if finalizers is not None and not (isinstance(finalizers, list)
                                       and all(isinstance(f, str) or f is None for f in finalizers)):
        return ("metadata", "finalizers"), "`metadata.finalizers` must be a list of strings"
    return None


def _string_map_problem(values: Any, name: str) -> tuple[tuple[Any, ...], str] | None:
    if values is None or holds_placeholder(values):
        return None
    if not isinstance(values, dict):
        return ("metadata", name), f"`metadata.{name}` must be a mapping, not {_kind(values)}"
    for key, value in values.items():
        if value is not None and not isinstance(value, str):
            return (("metadata", name, key),
                    f"`metadata.{name}.{key}` must be a string, not {_kind(value)}")
    return None


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return "a string"
