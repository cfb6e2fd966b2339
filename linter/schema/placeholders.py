"""Manifests meant for `envsubst`/`sed`: unrendered templates (KQ006), not schema errors.

A file is an unrendered placeholder template when one of its objects has, in a field whose
schema expects a non-string type (integer, number, boolean, list or mapping; not
int-or-string, not preserve-unknown-fields), a string value that

- starts with an envsubst placeholder: ``$VAR``, ``${VAR}``, ``${VAR:-default}`` (also
  ``-=+?`` forms), e.g. ``replicas: "$NUM_NODES"``, ``parallelism: "${WORKERS:-2}"``; or
- is entirely an upper-case token with an underscore, as sed templates use:
  ``PLACEHOLDER_NUM_NODES``, ``NUM_GPUS`` (no Kubernetes integer or boolean is ever written so);

or, in a field restricted to an enum, a value that is entirely an envsubst placeholder.
Placeholders in ordinary string fields (`image: $REGISTRY/app`, shell commands) are data
and leave the file linted normally. The file gets one KQ006 at its first such value and is
skipped, as Helm templates are.
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kqlint.domain.objects import K8sObject, dig
from kqlint.loader import LoadProblem, SourceFile
from kqlint.loader.placeholders import WHOLE_ENVSUBST, is_placeholder

_TYPED = frozenset({"integer", "number", "boolean", "array", "object"})  # schema types a placeholder breaks
_OBJECT_META_MAPS = (("metadata",), ("metadata", "labels"), ("metadata", "annotations"))


def _found(obj: K8sObject, path: tuple[Any, ...], value: str) -> tuple[int, int, str, str]:
    location = obj.at_value(*path)
    return location.line, location.column, value, ".".join(map(str, path))


def unrendered_placeholders(source: SourceFile, objects: list[Any],
                            crds: tuple[str, ...]) -> LoadProblem | None:
    """One KQ006 for the file when an object holds a placeholder where the API expects
    another type (the first one in the file), else None."""
    from kqlint.schema import catalog

    schemas = catalog(crds)
    found: list[tuple[int, int, str, str]] = []
    typed: dict[tuple[Any, ...], Any] = {}  # (validator, path without list indices) -> schema
    for obj in objects:
        validator = schemas.validator(obj.api_version, obj.kind)
        if validator is None:  # a kind without a schema: its ObjectMeta is every kind's
            found += [_found(obj, path, value) for path in _OBJECT_META_MAPS
                      if is_placeholder(value := dig(obj.data, path))]
            continue
        for path, value in _strings(obj.data, ()):
            if not is_placeholder(value):
                continue
            shape = (id(validator),) + tuple(0 if isinstance(step, int) else step for step in path)
            if shape not in typed:
                typed[shape] = validator.schema_at(path)
            if _expects_another_value(typed[shape], value):
                found.append(_found(obj, path, value))
    if not found:
        return None
    line, column, value, field = min(found)
    shown = value if len(value) <= 40 else value[:40] + "…"
    return LoadProblem(
        source.path, line, column,
        f"unrendered template: `{field}: {shown}` is an envsubst/sed placeholder where the API "
        f"expects another type; file skipped, so nothing in it is linted", code="KQ006",
        remedy=f"Render it first and lint the output, e.g. `envsubst < {source.path} | kqlint check -`")


def _expects_another_value(schema: dict[str, Any] | None, value: str) -> bool:
    if not isinstance(schema, dict) or schema.get("x-kubernetes-int-or-string") \
            or schema.get("x-kubernetes-preserve-unknown-fields"):
        return False
    types = schema.get("type")
    types = set(types) if isinstance(types, list) else {types}
    if "string" in types:
        enum = schema.get("enum")
        return isinstance(enum, list) and value not in enum and WHOLE_ENVSUBST.match(value) is not None
    return bool(types & _TYPED)


def _strings(node: Any, path: tuple[Any, ...]) -> Iterator[tuple[tuple[Any, ...], str]]:
    if isinstance(node, str):
        yield path, node
    elif isinstance(node, dict):
        for key, child in node.items():
            yield from _strings(child, path + (key,))
    elif isinstance(node, list):
        for index, child in enumerate(node):
            yield from _strings(child, path + (index,))
