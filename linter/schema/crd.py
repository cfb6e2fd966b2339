"""CustomResourceDefinition -> kqlint JSON Schema (KQ002).

One conversion for both places a CRD becomes a schema: ``scripts/gen_schemas.py`` (the
shipped ``schemas/kinds/*.json``) and ``kqlint check --crd PATH`` (the user's own CRDs).

What the API server does and the JSON Schema says (see ``schemas/README.md``):

- An object with ``properties`` rejects other fields (strict field validation, the kubectl
  default): ``additionalProperties: false``. ``x-kubernetes-preserve-unknown-fields`` keeps
  such an object open; ``x-kubernetes-embedded-resource`` adds apiVersion/kind/metadata.
- ``x-kubernetes-int-or-string`` becomes ``type: [integer, string]``: the API server rejects
  a YAML float there (``cpu: 0.5`` "must be of type integer,string"), although a core Pod
  accepts it (the hand-written core schemas allow numbers).
- ``metadata`` is modelled loosely (ObjectMeta is not part of a CRD schema), ``status`` is
  not validated (controllers write it), ``null`` means "unset" for a field or a map value
  (the API server prunes it), but not for a list item: nothing prunes a null item, and the
  type check rejects it (``must be of type string: "null"``) unless the item schema is
  ``nullable`` or has a ``default``. Such lists are marked ``NULL_ITEMS: false``.
- Structure, types, enums and the bounds the API server checks are validated: sizes
  (``maxItems``, ``minItems``, ``maxLength``, ``minLength``, ``maxProperties``,
  ``minProperties``), ranges (``minimum``, ``maximum``; OpenAPI v3.0's boolean
  ``exclusiveMinimum``/``exclusiveMaximum`` become JSON Schema's numbers) and, in the shipped
  schemas only, a string's ``pattern`` where Python's ``re`` reads it as Go's RE2 does
  (``go_compatible``; a ``--crd`` file's patterns are not run: a repository could bring one that
  backtracks for ever). Descriptions, ``format`` and ``required`` are dropped (partial manifests
  such as kustomize patches stay valid).
- CEL rules (``x-kubernetes-validations``) and ``default`` values are kept as they are: JSON
  Schema validation ignores both keywords (an unknown keyword, an annotation), and KQ002's
  CEL pass (``kqlint.schema.cel``) reads them: the API server applies the defaults, then
  evaluates the rules, on create.
- Core Kubernetes enums the CRD generator does not emit (a pod's ``restartPolicy``,
  ``imagePullPolicy`` ...) are added where a pod spec or container is embedded: the
  operator's pods would be rejected with those values.
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from kqlint.schema.compile import NULL_ITEMS

CRD_GROUP = "apiextensions.k8s.io"
STRING_MAP: dict[str, Any] = {"type": "object", "additionalProperties": {"type": "string"}}
OBJECT_META: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string"}, "namespace": {"type": "string"},
        "generateName": {"type": "string"}, "labels": STRING_MAP, "annotations": STRING_MAP,
    },
}
INT_OR_STRING: dict[str, Any] = {"type": ["integer", "string"]}
POD_SPEC_ENUMS = {
    "restartPolicy": ["Always", "OnFailure", "Never"],
    "preemptionPolicy": ["PreemptLowerPriority", "Never"],
    "dnsPolicy": ["ClusterFirst", "ClusterFirstWithHostNet", "Default", "None"],
}
CONTAINER_ENUMS = {"imagePullPolicy": ["Always", "Never", "IfNotPresent"]}
PORT_ENUMS = {"protocol": ["TCP", "UDP", "SCTP"]}
SIZE_BOUNDS = ("maxItems", "minItems", "maxLength", "minLength", "maxProperties", "minProperties")
_KEPT_TYPES = frozenset({"object", "array", "string", "integer", "number", "boolean"})
CEL_RULES = "x-kubernetes-validations"
_RULE_FIELDS = ("rule", "message", "messageExpression", "fieldPath", "reason", "optionalOldSelf")


def is_crd(document: Any) -> bool:
    return (isinstance(document, dict) and document.get("kind") == "CustomResourceDefinition"
            and str(document.get("apiVersion", "")).startswith(CRD_GROUP + "/"))


def crd_versions(crd: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """``(apiVersion, kind, openAPIV3Schema)`` for every served version that has a schema
    (``apiextensions.k8s.io/v1``, and the older v1beta1 layout with ``spec.validation``)."""
    spec = crd.get("spec")
    if not isinstance(spec, dict):
        return
    group, names = spec.get("group"), spec.get("names")
    kind = names.get("kind") if isinstance(names, dict) else None
    if not isinstance(group, str) or not isinstance(kind, str):
        return
    shared = _openapi(spec.get("validation"))
    versions = spec.get("versions")
    if not isinstance(versions, list):
        versions = [{"name": spec.get("version"), "served": True}]
    for version in versions:
        if not isinstance(version, dict) or version.get("served") is False:
            continue
        schema = _openapi(version.get("schema"))
        schema = shared if schema is None else schema
        if isinstance(version.get("name"), str) and schema is not None:
            yield f"{group}/{version['name']}", kind, schema


def _openapi(holder: Any) -> dict[str, Any] | None:
    schema = holder.get("openAPIV3Schema") if isinstance(holder, dict) else None
    return schema if isinstance(schema, dict) else None


def to_schema(openapi: dict[str, Any], patterns: bool = False) -> dict[str, Any]:
    """The kqlint schema for one CRD version's ``openAPIV3Schema``. ``patterns``: keep the
    ``pattern`` of string fields (the shipped schemas only: Python's backtracking matcher is
    not run on a regular expression a repository brings in its own CRD)."""
    root = convert(openapi, None, patterns)
    root["type"] = "object"
    properties = root.setdefault("properties", {})
    properties.update({"apiVersion": {"type": "string"}, "kind": {"type": "string"},
                       "metadata": OBJECT_META, "status": {}})
    if not root.get("x-kubernetes-preserve-unknown-fields"):
        root["additionalProperties"] = False
    return root


def convert(node: Any, name: str | None = None, patterns: bool = False) -> dict[str, Any]:
    """One structural-schema node, converted (see the module docstring)."""
    if not isinstance(node, dict):
        return {}
    out = dict(INT_OR_STRING) if node.get("x-kubernetes-int-or-string") \
        else _convert_structure(node, name, patterns)
    _keep_bounds(node, out, patterns)
    _keep_cel_markers(node, out)
    return out


def _keep_bounds(node: dict[str, Any], out: dict[str, Any], patterns: bool) -> None:
    """The bounds the API server checks (kube-openapi's validator): sizes of lists, strings and
    maps, numeric ranges (OpenAPI v3.0's boolean ``exclusiveMinimum`` becomes JSON Schema's
    number), and, with ``patterns``, a string's ``pattern`` where Python reads it as Go does."""
    for key in SIZE_BOUNDS:
        value = node.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            out[key] = value
    for key, exclusive in (("minimum", "exclusiveMinimum"), ("maximum", "exclusiveMaximum")):
        value = node.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            out[exclusive if node.get(exclusive) is True else key] = value
    pattern = node.get("pattern")
    if patterns and isinstance(pattern, str) and go_compatible(pattern):
        out["pattern"] = pattern


def go_compatible(pattern: str) -> bool:
    """Whether Python's ``re`` (ASCII classes) reads ``pattern`` as Go's RE2 does, closely
    enough to report only what Go rejects: it compiles, and has no POSIX class (``[[:alpha:]]``
    is a plain set to Python), no ``\\z``/``\\p``/``\\Q`` (Go only) and no group but ``(?:``."""
    if any(token in pattern for token in ("[:", "\\z", "\\p", "\\P", "\\Q")) or "(?" in pattern.replace("(?:", ""):
        return False
    try:
        re.compile(pattern, re.ASCII)
    except (re.error, RecursionError, OverflowError):
        return False
    return True


def _keep_cel_markers(node: dict[str, Any], out: dict[str, Any]) -> None:
    """The node's ``default`` and its CEL rules (the fields the API server reads), unchanged."""
    if "default" in node:
        out["default"] = node["default"]
    rules = node.get(CEL_RULES)
    if isinstance(rules, list):
        kept = [{k: rule[k] for k in _RULE_FIELDS if k in rule}
                for rule in rules if isinstance(rule, dict) and isinstance(rule.get("rule"), str)]
        if kept:
            out[CEL_RULES] = kept


def _convert_structure(node: dict[str, Any], name: str | None, patterns: bool) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if node.get("type") in _KEPT_TYPES:
        out["type"] = node["type"]
    if isinstance(node.get("enum"), list) and node["enum"]:
        out["enum"] = list(node["enum"])
    _convert_children(node, out, patterns)
    preserve = node.get("x-kubernetes-preserve-unknown-fields") is True
    if preserve:
        out["x-kubernetes-preserve-unknown-fields"] = True
    if node.get("x-kubernetes-embedded-resource"):
        out.setdefault("properties", {}).update(
            {"apiVersion": {"type": "string"}, "kind": {"type": "string"}, "metadata": OBJECT_META})
    closable = "properties" in out and "additionalProperties" not in out
    if closable and not preserve and name != "metadata":
        out["additionalProperties"] = False
    add_core_enums(out)
    return out


def _convert_children(node: dict[str, Any], out: dict[str, Any], patterns: bool) -> None:
    properties = node.get("properties")
    if isinstance(properties, dict) and properties:
        out["properties"] = {str(k): convert(v, str(k), patterns) for k, v in properties.items()}
    additional = node.get("additionalProperties")
    if isinstance(additional, dict):
        out["additionalProperties"] = convert(additional, None, patterns)
    elif isinstance(additional, bool) and "properties" not in out:
        out["additionalProperties"] = additional
    items = node.get("items")
    if isinstance(items, dict):
        out["items"] = convert(items, None, patterns)
        if _rejects_null(items):
            out[NULL_ITEMS] = False


def _rejects_null(items: dict[str, Any]) -> bool:
    """kube-openapi's type check refuses a null item of a typed, non-nullable schema; one with a
    default is left for defaulting (``PruneNonNullableNullsWithoutDefaults`` prunes only fields)."""
    typed = items.get("type") in _KEPT_TYPES or items.get("x-kubernetes-int-or-string") is True
    return typed and items.get("nullable") is not True and "default" not in items


def add_core_enums(schema: dict[str, Any]) -> None:
    """Core API enums on an embedded PodSpec / Container / ContainerPort (the CRD has none)."""
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return
    names = properties.keys()
    if {"containers", "restartPolicy", "terminationGracePeriodSeconds"} <= names:
        _set_enums(properties, POD_SPEC_ENUMS)
    elif {"image", "imagePullPolicy", "name"} <= names:
        _set_enums(properties, CONTAINER_ENUMS)
    elif {"containerPort", "protocol"} <= names:
        _set_enums(properties, PORT_ENUMS)


def _set_enums(properties: dict[str, Any], enums: dict[str, list[str]]) -> None:
    for field, values in enums.items():
        node = properties.get(field)
        if isinstance(node, dict) and node.get("type") == "string" and "enum" not in node:
            node["enum"] = list(values)
