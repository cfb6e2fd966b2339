"""Values no reused rule reads of another object, kept out of a document's projection digest.

A cache entry keeps two digests per document (kqlint.cache.digests): the document's (its lines)
and its projection's: the same lines with these values blanked where a value is the rest of
its line (so its text and length are all that is hidden):

- label values under a key without a prefix (``app: web``) or under the recommended
  ``app.kubernetes.io/`` and Helm's ``helm.sh/`` keys (``app.kubernetes.io/version: "1.4"``),
  in an object's ``metadata.labels`` and in its pod templates' labels: kqlint reads only the
  keys of Kueue, the gang schedulers and the operators; a Namespace's labels are never masked
  (a ClusterQueue's namespaceSelector reads them);
- container images of an object's own pod templates (every container kqlint.domain.podspec.containers
  names), and a TrainJob's trainer and initializer images;
- a ClusterQueue's quota amounts (``nominalQuota``, ``borrowingLimit``, ``lendingLimit``).

The kind digests of kqlint.cache.reads.READS are made of projections, so a rule keeps its
stored findings across an edit of only such values (a new image tag, a raised quota), except
where it reads some of them (KQ210's quotas: its ``RuleMeta.scoped_reads``).
tests/test_cache_masks.py checks, on every example and rule fixture, that no reused rule's
findings change when the masked values of other objects change.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kqlint.domain import kinds as K
from kqlint.domain.objects import dig

if TYPE_CHECKING:
    from kqlint.domain.objects import K8sObject

_SCALARS = (str, int, float, bool, type(None))
MASKED_LABEL_PREFIXES = ("app.kubernetes.io/", "helm.sh/")
TRAINJOB_IMAGES = (("spec", "trainer", "image"), ("spec", "initializer", "dataset", "image"),
                   ("spec", "initializer", "model", "image"))
# (the mapping, its key, the path from the document's root)
Site = tuple[Any, Any, tuple[Any, ...]]


def mask_paths(obj: K8sObject, templates: list[Any] | None = None) -> list[tuple[Any, ...]]:
    """The paths (from the document's root) of ``obj``'s masked values."""
    return [site[2] for site in mask_sites(obj, templates)]


def mask_sites(obj: K8sObject, templates: list[Any] | None = None) -> list[Site]:
    """Where ``obj``'s masked values are; ``templates``: its own pod templates, when known."""
    from kqlint.domain.kueue.quota import QUOTA_FIELDS, flavor_quotas
    from kqlint.domain.podspec import containers
    from kqlint.domain.workloads import has_pod_templates, own_templates

    found: list[Site] = []
    data, base, kind = obj.data, obj.base, (obj.group, obj.kind)
    if kind != K.NAMESPACE:
        _plain_labels(obj.labels, (*base, "metadata", "labels"), found)
    if kind == K.CLUSTER_QUEUE:
        for entry in flavor_quotas(obj):
            for path, quota in entry.quotas():
                for field in QUOTA_FIELDS:
                    _scalar(quota, field, (*base, *path, field), found)
    if kind == K.TRAINJOB:
        for path in TRAINJOB_IMAGES:
            _scalar(dig(data, path[:-1]), path[-1], base + path, found)
    if has_pod_templates(obj):
        for template in own_templates(obj) if templates is None else templates:
            if template.meta_path is not None:
                _plain_labels(template.labels, (*base, *template.meta_path, "labels"), found)
            for container in containers(template.spec):
                _scalar(container.data, "image", (*base, *template.spec_path, *container.path, "image"), found)
    return found


def _scalar(parent: Any, key: Any, path: tuple[Any, ...], found: list[Site]) -> None:
    if isinstance(parent, dict) and key in parent and isinstance(parent[key], _SCALARS):
        found.append((parent, key, path))


def _plain_labels(labels: dict[str, Any], path: tuple[Any, ...], found: list[Site]) -> None:
    found += [(labels, key, (*path, key)) for key, value in labels.items()
              if isinstance(value, _SCALARS) and masked_label(key)]


def masked_label(key: Any) -> bool:
    """A label key whose value no reused rule reads of another object."""
    return isinstance(key, str) and ("/" not in key or key.startswith(MASKED_LABEL_PREFIXES))
