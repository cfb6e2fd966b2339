"""Private helper for the kakaocloud rules: every metadata mapping of an object (its own, its
pod templates', a TrainJob's runtime patches'), so a rule can look for a label or annotation
"anywhere"."""
from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from kqlint.domain.kinds import TRAINJOB
from kqlint.domain.objects import K8sObject
from kqlint.domain.workloads import pod_templates, runtime_patch_metadata

if TYPE_CHECKING:
    from kqlint.domain.graph import ObjectGraph


def metadata_blocks(obj: K8sObject, graph: ObjectGraph) -> Iterator[tuple[tuple[Any, ...], dict[str, Any]]]:
    """(path to a metadata mapping, the mapping) for the object and each template it writes
    (for a TrainJob: the metadata its ``spec.runtimePatches`` put on the runtime's JobSet, Jobs
    and pods; the runtime's own templates are the runtime's)."""
    yield ("metadata",), obj.metadata
    for template in pod_templates(obj, graph):
        if template.owner is obj and template.meta_path is not None and not template.generated:
            yield template.meta_path, template.metadata
    if TRAINJOB.of(obj):
        yield from runtime_patch_metadata(obj)


def markers(obj: K8sObject, graph: ObjectGraph, section: str, key: str) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """(path to ``section``/``key``, value) wherever ``key`` is set in ``labels``/``annotations``."""
    for path, metadata in metadata_blocks(obj, graph):
        values = metadata.get(section)
        if isinstance(values, dict) and key in values:
            yield path + (section, key), values[key]


def reported_by_kq501(obj: K8sObject, path: tuple[Any, ...]) -> bool:
    """A queue key on a TrainJob's own metadata: KQ501 reports it (creation is rejected), so
    the general queue rules do not (rules.md: a more specific rule wins). Elsewhere on a
    TrainJob (its runtime patches) they still apply."""
    return TRAINJOB.of(obj) and path[:1] == ("metadata",)
