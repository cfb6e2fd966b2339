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
- Only structure, types and enums are validated: descriptions, patterns, formats, bounds and
  ``required`` are dropped (KQ002 reports typos and invalid values, not policy; partial
  manifests such as kustomize patches stay valid).
- CEL rules (``x-kubernetes-validations``) and ``default`` values are kept as they are: JSON
  Schema validation ignores both keywords (an unknown keyword, an annotation), and KQ002's
  CEL pass (``kqlint.schema.cel``) reads them: the API server applies the defaults, then
  evaluates the rules, on create.
- Core Kubernetes enums the CRD generator does not emit (a pod's ``restartPolicy``,
  ``imagePullPolicy`` ...) are added where a pod spec or container is embedded: the
  operator's pods would be rejected with those values.
"""
from __future__ import annotations

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


def to_schema(openapi: dict[str, Any]) -> dict[str, Any]:
    """The kqlint schema for one CRD version's ``openAPIV3Schema``."""
    root = convert(openapi)
    root["type"] = "object"
    properties = root.setdefault("properties", {})
    properties.update({"apiVersion": {"type": "string"}, "kind": {"type": "string"},
                       "metadata": OBJECT_META, "status": {}})
    if not root.get("x-kubernetes-preserve-unknown-fields"):
        root["additionalProperties"] = False
    return root


def convert(node: Any, name: str | None = None) -> dict[str, Any]:
    """One structural-schema node, converted (see the module docstring)."""
    if not isinstance(node, dict):
        return {}
    out = dict(INT_OR_STRING) if node.get("x-kubernetes-int-or-string") else _convert_structure(node, name)
    _keep_cel_markers(node, out)
    return out


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


def _convert_structure(node: dict[str, Any], name: str | None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if node.get("type") in _KEPT_TYPES:
        out["type"] = node["type"]
    if isinstance(node.get("enum"), list) and node["enum"]:
        out["enum"] = list(node["enum"])
    _convert_children(node, out)
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


def _convert_children(node: dict[str, Any], out: dict[str, Any]) -> None:
    properties = node.get("properties")
    if isinstance(properties, dict) and properties:
        out["properties"] = {str(k): convert(v, str(k)) for k, v in properties.items()}
    additional = node.get("additionalProperties")
    if isinstance(additional, dict):
        out["additionalProperties"] = convert(additional)
    elif isinstance(additional, bool) and "properties" not in out:
        out["additionalProperties"] = additional
    items = node.get("items")
    if isinstance(items, dict):
        out["items"] = convert(items)
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
