"""Kueue versions a repository pins (rules.md "Versions the repository pins"): platform evidence.

A pin names the Kueue release a repository installs:
- the manager's image tag: a Deployment whose name holds ``kueue`` running ``.../kueue:vX.Y.Z``,
  a kustomization's ``images:`` entry for ``.../kueue/kueue`` with ``newTag``, or a values file
  of Kueue's chart (``controllerManager.manager.image.tag``, also under an umbrella's ``kueue:``);
- a release manifest URL in a kustomization's ``resources:``/``bases:``
  (``https://github.com/kubernetes-sigs/kueue/releases/download/vX.Y.Z/manifests.yaml``), or a
  remote base of Kueue's repository at a release tag (``...kubernetes-sigs/kueue/config/default?ref=vX.Y.Z``);
- the version of Kueue's own Helm chart (``registry.k8s.io/kueue/charts``; its chart version is
  the release without the ``v``, ``hack/helm-chart-package.sh``): a kustomization's ``helmCharts:``
  entry, a Flux HelmRelease (through its HelmRepository) or OCIRepository, an Argo CD
  Application source. Another chart called ``kueue`` (a vendor's) has versions of its own and
  is no pin.

Only an exact version, or a range that fixes the minor release (``~0.12.3``, ``^0.12.3``,
``0.12.x``), is a pin: the model needs (major, minor). The caller decides what several pins that
disagree mean (kqlint.domain.platform: the version is unknown then).
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kqlint.domain.objects import dig

if TYPE_CHECKING:
    from kqlint.domain.objects import K8sObject

Version = tuple[int, int]

_EXACT = re.compile(r"^v?(\d+)\.(\d+)\.\d+(?:[-+][0-9A-Za-z.-]*)?$")
_SAME_MINOR = re.compile(r"^(?:~|\^(?=0\.)|=)?\s*v?(\d+)\.(\d+)(?:\.(?:\d+|x|\*))?(?:[-+][0-9A-Za-z.-]*)?$")
_WILDCARD = re.compile(r"^v?(\d+)\.(\d+)\.(?:x|\*)$")
_IMAGE_TAG = re.compile(r"(?:^|/)kueue(?:/kueue)?:v(\d+)\.(\d+)(?:\.\d+)?\b")
_IMAGE_NAME = re.compile(r"(?:^|/)(?:k8s-staging-)?kueue/kueue$")
_RELEASE_URL = re.compile(r"^https://github\.com/kubernetes-sigs/kueue/releases/download/v(\d+)\.(\d+)\.\d+/[^/?#]+$")
_REMOTE_BASE = re.compile(r"^(?:https://|git@|git::|ssh://)?(?:git@)?github\.com[/:]kubernetes-sigs/kueue(?:\.git)?"
                          r"(?://?[^?]*)?\?(?:.*&)?ref=v(\d+)\.(\d+)\.\d+(?:&.*)?$")
_GIT_SOURCE = re.compile(r"^(?:https://|git@)?github\.com[/:]kubernetes-sigs/kueue(?:\.git)?/?$")
# Where Kueue publishes its chart (registry.k8s.io, the prod and staging Artifact Registries)
_CHART_REPOS = ("registry.k8s.io/kueue/charts", "k8s-artifacts-prod/images/kueue/charts",
                "k8s-staging-images/kueue/charts")
CHART = "kueue"
MAX_ENTRIES = 256  # entries of one list looked at (a kustomization's resources)


@dataclass(frozen=True, order=True)
class Pin:
    version: Version
    source: str  # where it is written, as `Platform.lines()` says it ("release manifest URL in k/kustomization.yaml")
    file: str = ""  # the file that holds it (which declared unit it belongs to)


def chart_version(text: Any) -> Version | None:
    """(major, minor) of a chart version or range that fixes the minor release, else None."""
    if not isinstance(text, str):
        return None
    text = text.strip()
    match = _EXACT.match(text) or _WILDCARD.match(text) or _SAME_MINOR.match(text)
    return (int(match.group(1)), int(match.group(2))) if match else None


def release_tag(tag: Any) -> Version | None:
    """(major, minor) of a Kueue release tag ``vX.Y.Z`` (an image tag, a git tag)."""
    match = _EXACT.match(tag.strip()) if isinstance(tag, str) and tag.strip().startswith("v") else None
    return (int(match.group(1)), int(match.group(2))) if match else None


def upstream_chart_repo(url: Any) -> bool:
    return isinstance(url, str) and any(repo in url for repo in _CHART_REPOS)


def image_version(image: Any) -> Version | None:
    """(major, minor) of a Kueue manager image reference ``.../kueue:vX.Y.Z``."""
    match = _IMAGE_TAG.search(image.strip()) if isinstance(image, str) else None
    return (int(match.group(1)), int(match.group(2))) if match else None


def resource_version(entry: Any) -> tuple[Version, str] | None:
    """A kustomization resource that is a Kueue release manifest or a remote base at a release tag."""
    if not isinstance(entry, str):
        return None
    entry = entry.strip()
    for pattern, what in ((_RELEASE_URL, "release manifest URL"), (_REMOTE_BASE, "remote base at a release tag")):
        match = pattern.match(entry)
        if match:
            return (int(match.group(1)), int(match.group(2))), what
    return None


# ------------------------------------------------------------------ files (not objects)

def kustomization_pins(document: Any, where: str) -> Iterator[Pin]:
    """Pins in one kustomization: ``resources``/``bases``, ``helmCharts``, ``images``."""
    if not isinstance(document, dict):
        return
    for key in ("resources", "bases"):
        for entry in _entries(document.get(key)):
            found = resource_version(entry)
            if found:
                yield Pin(found[0], f"{found[1]} in {where}", where)
    for chart in _entries(document.get("helmCharts")):
        if isinstance(chart, dict) and chart.get("name") == CHART and upstream_chart_repo(chart.get("repo")):
            version = chart_version(chart.get("version"))
            if version:
                yield Pin(version, f"Helm chart version in {where} (helmCharts)", where)
    for image in _entries(document.get("images")):
        if isinstance(image, dict) and any(_IMAGE_NAME.search(str(image.get(k) or "")) for k in ("name", "newName")):
            version = release_tag(image.get("newTag"))
            if version:
                yield Pin(version, f"image tag in {where} (images)", where)


def values_pins(document: Any, where: str) -> Iterator[Pin]:
    """A values file of Kueue's chart: the manager image tag (at the top, or under ``kueue:``
    for an umbrella chart that depends on it)."""
    for root in (document, dig(document, ("kueue",))):
        image = dig(root, ("controllerManager", "manager", "image"))
        if not isinstance(image, dict):
            continue
        repository, tag = image.get("repository"), image.get("tag")
        if repository is not None and not _IMAGE_NAME.search(str(repository)):
            continue
        version = release_tag(tag)
        if version:
            yield Pin(version, f"image tag in {where} (controllerManager.manager.image.tag)", where)


# ------------------------------------------------------------------ objects

def object_pins(objects: Iterable[K8sObject]) -> list[Pin]:
    """Pins among objects: the manager Deployment's image, Flux HelmRelease/OCIRepository, Argo
    CD Application."""
    objects = list(objects)
    repositories = {obj.name: obj.get("spec", "url") for obj in objects
                    if obj.kind == "HelmRepository" and obj.group == "source.toolkit.fluxcd.io"}
    found: list[Pin] = []
    for obj in objects:
        pin = _object_pin(obj, repositories)
        if pin is not None:
            found.append(pin)
    return found


_PINNING_KINDS = frozenset({("apps", "Deployment"), ("helm.toolkit.fluxcd.io", "HelmRelease"),
                            ("source.toolkit.fluxcd.io", "OCIRepository"), ("argoproj.io", "Application")})


def _object_pin(obj: K8sObject, repositories: dict[str, Any]) -> Pin | None:
    if (obj.group, obj.kind) not in _PINNING_KINDS:  # asked of every object on every keystroke
        return None
    where = f"{obj.display()} ({obj.file})"
    if obj.kind == "Deployment" and obj.group == "apps" and "kueue" in obj.name:
        from kqlint.domain.podspec import containers

        for container in containers(obj.get("spec", "template", "spec")):
            version = image_version(container.data.get("image"))
            if version:
                return Pin(version, f"image of {where}", obj.file)
    elif obj.kind == "HelmRelease" and obj.group == "helm.toolkit.fluxcd.io":
        chart = obj.get("spec", "chart", "spec")
        source = dig(chart, ("sourceRef", "name"))
        upstream = isinstance(source, str) and upstream_chart_repo(repositories.get(source))
        if dig(chart, ("chart",)) == CHART and upstream:
            version = chart_version(dig(chart, ("version",)))
            return Pin(version, f"Helm chart version of {where}", obj.file) if version else None
    elif obj.kind == "OCIRepository" and obj.group == "source.toolkit.fluxcd.io":
        url = obj.get("spec", "url")
        if upstream_chart_repo(url) and str(url).rstrip("/").endswith("/" + CHART):
            version = chart_version(obj.get("spec", "ref", "tag"))
            return Pin(version, f"Helm chart version of {where}", obj.file) if version else None
    elif obj.kind == "Application" and obj.group == "argoproj.io":
        sources = [obj.get("spec", "source"), *_entries(obj.get("spec", "sources"))]
        for source in sources:
            version = _argo_source_version(source)
            if version:
                return Pin(version, f"targetRevision of {where}", obj.file)
    return None


def _argo_source_version(source: Any) -> Version | None:
    if not isinstance(source, dict):
        return None
    revision = source.get("targetRevision")
    if source.get("chart") == CHART and upstream_chart_repo(source.get("repoURL")):
        return chart_version(revision)
    if _GIT_SOURCE.match(str(source.get("repoURL") or "")):
        return release_tag(revision)  # Kueue's repository at a release tag
    return None


def _entries(value: Any) -> list[Any]:
    return value[:MAX_ENTRIES] if isinstance(value, list) else []
