"""Private helper for the kakaocloud rules: every metadata mapping of an object (its own and
its pod templates'), so a rule can look for a label or annotation "anywhere"."""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kqlint.objects import K8sObject
from kqlint.workloads import pod_templates


def metadata_blocks(obj: K8sObject, graph: Any) -> Iterator[tuple[tuple[Any, ...], dict[str, Any]]]:
    """(path to a metadata mapping, the mapping) for the object and each template it writes."""
    yield ("metadata",), obj.metadata
    for template in pod_templates(obj, graph):
        if template.owner is obj and template.meta_path is not None and not template.generated:
            yield template.meta_path, template.metadata


def markers(obj: K8sObject, graph: Any, section: str, key: str) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """(path to ``section``/``key``, value) wherever ``key`` is set in ``labels``/``annotations``."""
    for path, metadata in metadata_blocks(obj, graph):
        values = metadata.get(section)
        if isinstance(values, dict) and key in values:
            yield path + (section, key), values[key]
