"""The Kueue manager ``Configuration`` embedded in the ``kueue-manager-config`` ConfigMap (key
``controller_manager_config.yaml``): parsed once per ConfigMap, with positions in the ConfigMap's
file, for the platform model (integrations, Fair Sharing), KQ222 and KQ223 (kueue.md B28, B29).

Positions: the embedded text is parsed on its own; a node inside it is placed in the file when
the value is a literal block scalar (``|``), whose lines map one to one onto the file's lines.
Its indentation is not kept by the loader, so it is taken as the ConfigMap's own indentation
step below the key (``data:`` at column 1 and the key at column 3: the text at column 5), the
layout every Kueue manifest and kustomize/Helm output uses. Any other scalar style places every
node at the ``controller_manager_config.yaml`` key.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from kqlint.domain.objects import dig
from kqlint.model import Location

if TYPE_CHECKING:
    from kqlint.domain.graph import ObjectGraph
    from kqlint.domain.objects import K8sObject
    from kqlint.domain.platform import Platform
    from kqlint.loader import LoadProblem

KUEUE_CONFIG_MAP = "kueue-manager-config"
KUEUE_CONFIG_KEY = "controller_manager_config.yaml"
CONFIG_GROUP = "config.kueue.x-k8s.io"
V1BETA1, V1BETA2 = f"{CONFIG_GROUP}/v1beta1", f"{CONFIG_GROUP}/v1beta2"
MAX_CONFIG_BYTES = 1024 * 1024  # a manager configuration is a few kilobytes
MAX_GATES = 128  # Kueue knows 80 feature gates (kube_features.go at ff69552e)
MAX_GATE_SOURCES = 16  # manager Deployments and Configurations whose gates are read
_GATE_NAME = re.compile(r"[A-Z][A-Za-z0-9]{0,79}")


@dataclass(frozen=True)
class KueueConfiguration:
    """One embedded Configuration: its document (None when it does not parse to a mapping),
    the load problems of its text (duplicate keys, syntax) and where its lines sit in the file."""

    configmap: K8sObject
    document: dict[str, Any] | None
    root: Any
    problems: tuple[LoadProblem, ...]
    first_line: int      # the file line of the text's line 1 (0: not a literal block)
    indent: int          # columns the text is shifted right in the file

    @property
    def api_version(self) -> str:
        return str(self.get("apiVersion") or "")

    def get(self, *path: Any) -> Any:
        return dig(self.document, path) if self.document is not None else None

    def has(self, *path: Any) -> bool:
        marker = object()
        return self.document is not None and dig(self.document, path, marker) is not marker

    def at(self, *path: Any) -> Location:
        """The file location of the key (or item) at ``path`` inside the embedded document, the
        nearest existing ancestor when missing; the ConfigMap key when lines do not map."""
        from kqlint.loader import locate

        if self.root is None or not self.first_line:
            return self.key_location()
        start, end, _ = locate(self.root, tuple(path))
        return self._shifted(start, end, path) if start else self.key_location()

    def at_text(self, line: int, column: int) -> Location:
        """A (line, column) of the embedded text in the file (load problems)."""
        if not self.first_line:
            return self.key_location()
        return Location(self.configmap.file, self.first_line + line - 1, column + self.indent,
                        ("data", KUEUE_CONFIG_KEY), self.configmap.ref)

    def key_location(self) -> Location:
        return self.configmap.at("data", KUEUE_CONFIG_KEY)

    def _shifted(self, start: int, end: int, path: tuple[Any, ...]) -> Location:
        from kqlint.loader import unpack

        line, column = unpack(start)
        end_line, end_column = unpack(end) if end else (0, 0)
        return Location(self.configmap.file, self.first_line + line - 1, column + self.indent,
                        ("data", KUEUE_CONFIG_KEY, *path), self.configmap.ref, "",
                        self.first_line + end_line - 1 if end_line else 0,
                        end_column + self.indent if end_line else 0)

    # ------------------------------------------------------------ what the manager does
    def fair_sharing(self) -> bool | None:
        """Whether Fair Sharing is on: a v1beta2 ``fairSharing`` section, or v1beta1
        ``fairSharing.enable: true`` (the v1beta1 conversion drops the section otherwise)."""
        if self.api_version == V1BETA2:
            return self.has("fairSharing")
        if self.api_version == V1BETA1:
            return self.get("fairSharing", "enable") is True
        return None

    def feature_gates(self) -> dict[str, bool] | None:
        """``featureGates`` as the manager reads it (a map of booleans: other values fail the
        strict decoding, KQ222), or None when it is not set."""
        gates = self.get("featureGates")
        if not isinstance(gates, dict):
            return None
        return _known_form({str(name): value for name, value in gates.items() if isinstance(value, bool)})


def is_manager_configmap(obj: K8sObject) -> bool:
    return obj.kind == "ConfigMap" and not obj.group and obj.name.endswith(KUEUE_CONFIG_MAP)


def configuration_of(obj: K8sObject) -> KueueConfiguration | None:
    """The Configuration a kueue-manager-config ConfigMap embeds, parsed once per object."""
    if not is_manager_configmap(obj):
        return None
    result: KueueConfiguration | None = obj.remember(configuration_of, lambda: _parse(obj))
    return result


def manager_configurations(graph: ObjectGraph) -> list[KueueConfiguration]:
    """Every embedded Configuration of the graph, best tier first."""
    found = [configuration_of(obj) for obj in graph.of_kind("ConfigMap", "")]
    return [c for c in found if c is not None]


def manager_facts(graph: ObjectGraph
                  ) -> tuple[K8sObject, frozenset[str] | None, bool | None, bool | None] | None:
    """The Kueue Configuration of a kueue-manager-config ConfigMap (the first that lists
    ``integrations.frameworks``, else the first that parses as a mapping): its frameworks (None
    when not a list), whether Fair Sharing is on, and ``manageJobsWithoutQueueName`` (Kueue's
    default false when unset, B14; None when not a boolean)."""
    parsed = [c for c in manager_configurations(graph) if c.document is not None]
    listing = [c for c in parsed if isinstance(c.get("integrations", "frameworks"), list)]
    if not parsed:
        return None
    chosen = (listing or parsed)[0]
    frameworks = chosen.get("integrations", "frameworks")
    listed = frozenset(str(f) for f in frameworks if isinstance(f, str)) if isinstance(frameworks, list) else None
    manage = chosen.get("manageJobsWithoutQueueName")
    manage = False if manage is None else manage if isinstance(manage, bool) else None
    return chosen.configmap, listed, chosen.fair_sharing(), manage


class KueueResources(NamedTuple):
    """The ``resources`` section of a Kueue Configuration, as the quota rules read it."""

    exclude_prefixes: tuple[str, ...]
    transformations: tuple[dict[str, Any], ...]
    ignore_undeclared: bool  # ``quotaCheckStrategy: IgnoreUndeclared`` (its gate decides whether it acts)


def manager_resources(graph: ObjectGraph) -> tuple[KueueResources, str] | None:
    """The ``resources`` section of the Kueue manager's Configuration, and where it is written;
    None when no kueue-manager-config sets any of it. Configurations that disagree leave it
    unknown which applies: then every prefix they exclude and every input they transform is
    excluded, and IgnoreUndeclared holds if one says so (kqlint judges no request one of them
    would not count)."""
    sections: list[KueueResources] = []
    where = ""
    for config in manager_configurations(graph):
        prefixes, transformations = config.get("resources", "excludeResourcePrefixes"), config.get(
            "resources", "transformations")
        section = KueueResources(
            tuple(str(p) for p in prefixes if isinstance(p, str)) if isinstance(prefixes, list) else (),
            tuple(t for t in transformations if isinstance(t, dict)) if isinstance(transformations, list) else (),
            config.get("resources", "quotaCheckStrategy") == "IgnoreUndeclared")
        if section not in sections:
            sections.append(section)
        if any(section) and not where:
            where = f"{config.configmap.display()} ({config.configmap.file})"
    if not where:
        return None
    if len(sections) == 1:
        return sections[0], where
    touched = {p for section in sections for p in section.exclude_prefixes}
    touched |= {str(t.get("input")) for section in sections for t in section.transformations if t.get("input")}
    return (KueueResources(tuple(sorted(touched)), (), any(section.ignore_undeclared for section in sections)),
            f"{len(sections)} Kueue Configurations that disagree, the first {where}")


def kueue_release(platform: Platform, minor: int) -> bool | None:
    """The platform's Kueue is 0.<minor> or later: an unknown release counts as the newest, and
    pins that disagree across 0.<minor> leave it open (None)."""
    known = platform.kueue_at_least(0, minor)
    pinned = {pin.version >= (0, minor) for pin in platform.kueue_pins}
    return known if known is not None else True if not pinned else pinned.pop() if len(pinned) == 1 else None


def kueue_gate(platform: Platform, name: str, on_since: int | None) -> bool | None:
    """Whether feature gate ``name`` is on: as the manager sets it, else its default (on from
    0.<on_since>; None: off in every release); None when its sources or the pins disagree."""
    written = platform.gate_settings(name)
    if written:
        return next(iter(written)) if len(written) == 1 else None
    return kueue_release(platform, on_since) if on_since is not None else False


def manager_gates(graph: ObjectGraph) -> list[tuple[str, dict[str, bool]]]:
    """The feature gates Kueue managers are started with, and where each set is written: a
    manager Deployment's ``--feature-gates`` or a kueue-manager-config Configuration's
    ``featureGates`` (``LoadAndValidateFeatureGates``, ``pkg/config/validation.go``; the manager
    exits when both are set, KQ222)."""
    found = [(f"--feature-gates of {d.display()} ({d.file})", parse_gates(flag))
             for d in graph.of_kind("Deployment", "apps") if (flag := gates_flag(d)) is not None]
    for config in manager_configurations(graph):
        gates = config.feature_gates()
        if gates:
            found.append((f"featureGates of {config.configmap.display()} ({config.configmap.file})", gates))
    kept: list[tuple[str, dict[str, bool]]] = []
    names: set[str] = set()
    for where, gates in found:  # bounded: at most MAX_GATES names over MAX_GATE_SOURCES sources
        if gates and len(kept) < MAX_GATE_SOURCES and len(names | gates.keys()) <= MAX_GATES:
            kept.append((where, gates))
            names |= gates.keys()
    return kept


def gates_flag(deployment: K8sObject, namespace: str | None = None) -> str | None:
    """The ``--feature-gates`` value a Kueue manager Deployment (a name with ``kueue``; in
    ``namespace`` when given) passes its containers (``--feature-gates=X`` or
    ``--feature-gates X``, as Go's flag package reads them); None when absent or empty."""
    from kqlint.domain.fields import strings
    from kqlint.domain.podspec import containers

    if "kueue" not in deployment.name or namespace is not None and deployment.namespace != namespace:
        return None
    for container in containers(deployment.get("spec", "template", "spec")):
        args = strings(container.data.get("command")) + strings(container.data.get("args"))
        for index, arg in enumerate(args):
            name, equals, value = arg.partition("=")
            if name in ("--feature-gates", "-feature-gates"):
                value = value if equals else (args[index + 1] if index + 1 < len(args) else "")
                if value:
                    return value
    return None


def parse_gates(flag: str) -> dict[str, bool]:
    """``A=true,B=false`` as ``featuregate.Set`` reads it (pairs that do not parse make the
    manager exit: they are left out)."""
    from kqlint.domain.fields import go_bool

    gates: dict[str, bool] = {}
    for pair in flag.split(",", MAX_GATES)[:MAX_GATES]:
        name, _, value = pair.partition("=")
        enabled = go_bool(value.strip())
        if enabled is not None:
            gates[name.strip()] = enabled
    return _known_form(gates)


def _known_form(gates: dict[str, bool]) -> dict[str, bool]:
    """Only names spelled as Kueue's gates are (``TASMultiLayerTopology``), at most MAX_GATES: the
    platform model shows them, and a repository may write anything there."""
    return dict(list((name, on) for name, on in gates.items() if _GATE_NAME.fullmatch(name))[:MAX_GATES])


def _parse(obj: K8sObject) -> KueueConfiguration | None:
    from kqlint.loader import parse_bytes

    text = obj.get("data", KUEUE_CONFIG_KEY)
    if not isinstance(text, str):
        return None
    raw = text.encode("utf-8")
    if len(raw) > MAX_CONFIG_BYTES:
        return None
    source = parse_bytes(obj.file, raw)
    root = source.documents[0] if source.documents else None
    document = root if isinstance(root, dict) and not _syntax_error(source.problems) else None
    first_line, indent = _block_layout(obj, text)
    return KueueConfiguration(obj, document, root if document is not None else None, tuple(source.problems),
                              first_line, indent)


def _syntax_error(problems: list[LoadProblem]) -> bool:
    return any(not p.message.startswith("duplicate key") for p in problems)


def _block_layout(obj: K8sObject, text: str) -> tuple[int, int]:
    """(file line of the text's first line, indentation) for a literal block; (0, 0) otherwise."""
    key = obj.at("data", KUEUE_CONFIG_KEY)
    value = obj.at_value("data", KUEUE_CONFIG_KEY)
    data = obj.at("data")
    spans = value.end_line > value.line + 1 and value.line == key.line
    if not spans or value.end_line - value.line - 1 < text.rstrip("\n").count("\n") + 1:
        return 0, 0  # not a block whose lines are the text's lines (quoted, folded, one line)
    step = key.column - data.column if key.column > data.column else 2
    return value.line + 1, key.column - 1 + step
