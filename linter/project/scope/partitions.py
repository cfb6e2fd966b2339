"""The run's partitions: one graph per unit that holds inputs (plus the shared files'),
each seeing its own context and the shared files, never another unit's objects."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kqlint.project.scope.units import Scope

if TYPE_CHECKING:
    from kqlint.config import Config
    from kqlint.domain.objects import K8sObject
    from kqlint.engine.inputs import Loaded


@dataclass
class Part:
    """The objects one graph holds: a unit's inputs (reported on), what it may resolve to
    (its own context, then the shared files), and the other units' objects (``elsewhere``)."""

    unit: str | None
    loaded: Any                                   # runner.Loaded: the unit's input objects
    context: list[Any]
    elsewhere: dict[tuple[str, str], list[tuple[str | None, Any]]]
    kustomize_dirs: frozenset[str] = frozenset()  # folders holding a kustomization (display paths)


def without_fragments(inputs: Loaded, context_objects: list[Any], scope: Scope,
                      as_rendered: frozenset[int] = frozenset()) -> tuple[Any, list[Any]]:
    """Inputs and context without kustomize patch fragments (rules.md "Applied together"): the
    objects of patch files, and, where a kustomization sits in the folder or above, documents
    missing fields the API requires (a patch it names wrongly); the input ones are counted as
    skipped documents; likewise what test harnesses never apply: the expected state of their
    assert and error files, and their own configuration (a chainsaw Test, a kuttl TestStep).
    ``as_rendered``: ids of objects ``--kustomize`` rendered (whole objects)."""
    if not scope.fragments and not scope.has_kustomizations() and not scope.harness.checks \
            and not scope.harness_config:
        return inputs, context_objects

    def fragment(obj: K8sObject) -> bool:
        if id(obj) in as_rendered:
            return False
        if scope.is_fragment(obj.file) or scope.never_applied(obj):
            return True
        if not scope.kustomized(obj.file):
            return False
        from kqlint.domain.incomplete import lacks_required_fields

        return lacks_required_fields(obj)

    dropped = [obj for obj in inputs.objects if fragment(obj)]
    ids = {id(obj) for obj in dropped}
    kept = [obj for obj in inputs.objects if id(obj) not in ids]
    inputs = type(inputs)(sources=inputs.sources, objects=kept, documents=inputs.documents,
                          skipped=inputs.skipped + len({(obj.file, obj.doc) for obj in dropped}))
    # a context object is read (its cached body decoded) only where it could matter: a copy of
    # an input's identity (KQ003); an incomplete workload is never what a reference resolves to
    identities = {(obj.kind, obj.name) for obj in kept}
    return inputs, [obj for obj in context_objects if not (scope.is_fragment(obj.file) or scope.never_applied(obj)
                                                          or (obj.kind, obj.name) in identities and fragment(obj))]


def apply_rendered_namespaces(objects: list[Any], scope: Scope, as_rendered: frozenset[int] = frozenset()) -> None:
    """Give each namespaced object of a file a kustomization renders the namespace it is applied
    in (kustomize's ``namespace:`` overrides the file's own); several namespaces make it
    RenderedNamespaces. ``as_rendered``: ids of objects already rendered (``--kustomize``)."""
    from kqlint.domain.objects import RenderedNamespaces

    if not scope.sets_namespaces():  # the common case: nothing to look up per object
        return
    for obj in objects:
        if obj.namespace is None or id(obj) in as_rendered:
            continue
        namespaces = scope.rendered_namespaces(obj.file)
        if not namespaces:
            continue
        if len(namespaces) == 1:
            [obj.namespace] = namespaces
        elif not isinstance(obj.namespace, RenderedNamespaces):
            order = tuple(sorted(namespaces, key=lambda namespace: namespace or ""))
            obj.namespace = RenderedNamespaces(str(obj.namespace), obj.file, order)


def partitions(inputs: Loaded, context_objects: list[Any], config: Config, scope: Scope) -> list[Part]:
    """One Part when no object sits in a unit (a repository that is one platform); else the
    shared files' Part and one Part per unit that holds inputs."""
    folders = scope.kustomize_dirs()
    unit_in: dict[str | None, list[Any]] = {}
    unit_ctx: dict[str | None, list[Any]] = {}
    for obj in inputs.objects:
        unit_in.setdefault(scope.unit_of(obj.file), []).append(obj)
    for obj in context_objects:
        unit_ctx.setdefault(scope.unit_of(obj.file), []).append(obj)
    if set(unit_in) <= {None} and set(unit_ctx) <= {None}:
        return [Part(None, inputs, list(context_objects), {}, folders)]
    elsewhere: dict[tuple[str, str], list[tuple[str | None, Any]]] = {}
    for table in (unit_in, unit_ctx):
        for unit, objects in table.items():
            for obj in objects if unit is not None else ():
                elsewhere.setdefault((obj.kind, obj.name), []).append((unit, obj))
    shared_in, shared_ctx = unit_in.pop(None, []), unit_ctx.get(None, [])
    parts = [Part(None, _loaded(inputs, shared_in), list(shared_ctx), elsewhere, folders)] if shared_in else []
    shared = [_as_context(obj, config) for obj in shared_in] + list(shared_ctx)
    for unit in sorted(u for u in unit_in if u is not None):
        parts.append(Part(unit, _loaded(inputs, unit_in[unit]), unit_ctx.get(unit, []) + shared, elsewhere, folders))
    return parts


def _loaded(inputs: Loaded, objects: list[Any]) -> Any:
    return type(inputs)(sources=inputs.sources, objects=objects)


def _as_context(obj: K8sObject, config: Config) -> Any:
    """A shared input seen from a unit: resolved to, judged like any object, reported once
    (in the shared Part)."""
    from kqlint.domain.objects import CONTEXT, K8sObject

    return K8sObject(obj.file, obj.doc, obj.root, obj.base, obj.data, config.namespace, CONTEXT)
