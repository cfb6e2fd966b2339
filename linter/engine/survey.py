"""What a run would read and assume, without linting (``kqlint check --show-files`` and
``--show-settings``): the input and context files, found as ``lint`` finds them, and for each
unit applied on its own the platform model and the facts that make a workload Kueue-managed,
built by the same stages (kqlint.engine.analysis) from the same loaded objects."""
from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kqlint.config import Config

if TYPE_CHECKING:
    from kqlint.domain.graph import ObjectGraph
    from kqlint.domain.objects import K8sObject
    from kqlint.domain.pins import Pin
    from kqlint.domain.platform import Platform
    from kqlint.engine.inputs import Loaded
    from kqlint.project.discover import Discovery


@dataclass(frozen=True)
class ContextChoice:
    """The context of a run and why it is that: ``explicit`` (``--context``/config
    ``context:``), ``project-root`` (the root's manifests), ``inputs-cover-root`` (the inputs
    are the whole project) or ``none`` (no project root above the inputs)."""

    how: str
    paths: tuple[str, ...]
    root: str | None
    note: str | None = None


@dataclass(frozen=True)
class RunFiles:
    inputs: tuple[str, ...]    # the files linted (display paths, sorted)
    context: tuple[str, ...]   # the files read only to resolve references (display paths, sorted)
    choice: ContextChoice
    notes: tuple[str, ...] = ()  # files skipped for leaving the repository


@dataclass(frozen=True)
class Framework:
    """One Kueue integration and whether an unlabelled workload of it is routed to a
    LocalQueue named ``default`` (kqlint.domain.platform.Platform.routes_unlabelled)."""

    name: str
    kinds: tuple[str, ...]      # ``Job``, ``apps/Deployment``: the kinds it integrates
    enabled: bool | None        # None: unknown
    opt_in: bool                # off unless a Kueue Configuration lists it
    routes_unlabelled: bool


@dataclass(frozen=True)
class UnitModel:
    """One unit's graph as the rules see it: its platform model and the Kueue-managed facts."""

    unit: str | None            # kqlint.project.scope's unit key; None: the shared files (or no units)
    inputs: int                 # input objects in the unit
    platform: Platform
    frameworks: tuple[Framework, ...]
    default_queues: tuple[str, ...]  # ``namespace (file)`` of each LocalQueue named ``default``


def choose_context(paths: list[str], context: Iterable[str], config: Config) -> ContextChoice:
    """The context ``lint(paths)`` reads (kqlint.engine.inputs.context_paths) and why."""
    from kqlint.engine.inputs import context_paths
    from kqlint.project.discover import inputs_folder
    from kqlint.project.root import project_root

    context = tuple(context)
    named, note = context_paths(paths, context, config)
    root = project_root(inputs_folder(paths))
    if context or config.context:
        how = "explicit"
    elif named:
        how = "project-root"
    else:
        how = "inputs-cover-root" if root is not None else "none"
    return ContextChoice(how, tuple(named), root, note)


def run_files(paths: list[str], context: Iterable[str], config: Config) -> RunFiles:
    """The files ``lint(paths)`` reads, found, contained and de-duplicated as it does
    (kqlint.engine.inputs.load_paths and load_context), without reading them."""
    from kqlint.engine.inputs import context_beyond_inputs
    from kqlint.errors import UsageError
    from kqlint.project.discover import STDIN, display_path

    found, notes = _discovered(paths, config)
    if found.missing:
        raise UsageError(f"path does not exist: {found.missing[0]}")
    choice = choose_context(paths, context, config)
    beyond = context_beyond_inputs(choice.paths, paths)
    context_found, context_notes = _discovered(beyond, config)
    linted = {os.path.abspath(f) for f in found.files if f != STDIN}
    context_files = [f for f in context_found.files if os.path.abspath(f) not in linted]
    return RunFiles(tuple(sorted({display_path(f) for f in found.files})),
                    tuple(sorted({display_path(f) for f in context_files})), choice,
                    tuple(dict.fromkeys(notes + context_notes)))


def _discovered(paths: list[str], config: Config) -> tuple[Discovery, list[str]]:
    from dataclasses import replace

    from kqlint.project.containment import contain_files
    from kqlint.project.discover import discover

    found = discover(paths, config.exclude)
    files, notes = contain_files(found.files, paths, config.follow_external_symlinks)
    return replace(found, files=files), notes


def unit_models(inputs: Loaded, context_objects: list[K8sObject], config: Config,
                file_pins: tuple[Pin, ...] = ()) -> list[UnitModel]:
    """Each unit's graph, built as ``analyze`` builds it (``file_pins``: the Kueue versions the
    run's files that are no objects pin), as a UnitModel."""
    from kqlint.engine.analysis import scoped, unit_graphs

    scope, inputs, kept = scoped(inputs, context_objects, config)
    return [_model(part.unit, len(part.loaded.objects), graph)
            for part, graph in unit_graphs(inputs, kept, config, scope, file_pins)]


def _model(unit: str | None, inputs: int, graph: ObjectGraph) -> UnitModel:
    from kqlint.domain.kinds import KUEUE_GROUP
    from kqlint.domain.kueue.routing import DEFAULT_LOCAL_QUEUE
    from kqlint.domain.kueue_config_facts import KIND_FRAMEWORKS, OPT_IN_FRAMEWORKS
    from kqlint.domain.platform import platform_of

    platform = platform_of(graph)
    kinds: dict[str, list[str]] = {}
    for (group, kind), framework in KIND_FRAMEWORKS.items():
        kinds.setdefault(framework, []).append(f"{group}/{kind}" if group else kind)
    frameworks = tuple(Framework(name, tuple(kinds[name]), platform.integration(name), name in OPT_IN_FRAMEWORKS,
                                 platform.routes_unlabelled(name)) for name in sorted(kinds))
    defaults = sorted({f"{queue.namespace or ''} ({queue.file})" for queue in graph.of_kind("LocalQueue", KUEUE_GROUP)
                       if queue.name == DEFAULT_LOCAL_QUEUE})
    return UnitModel(unit, inputs, platform, frameworks, tuple(defaults))
