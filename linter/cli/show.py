"""``kqlint check --show-settings`` and ``--show-files`` (ruff's spelling): what a run with
these options would use and read, through the run's own Pipeline, printed instead of linting
(exit 0)."""
from __future__ import annotations

import os
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from kqlint.cli.app import STDOUT, Exit, emit, err

if TYPE_CHECKING:
    from kqlint.config import Config
    from kqlint.engine.pipeline import Pipeline
    from kqlint.model import Severity

# --format (or --output-format) values a show prints as text; json is the other
TEXT_STYLES = ("text", "full", "concise")


@dataclass(frozen=True)
class ShowRequest:
    settings: bool                  # --show-settings
    files: bool                     # --show-files
    kustomize: bool                 # --kustomize was given (not supported here)
    paths: list[str]
    context: tuple[str, ...]
    formats: list[str]              # --format values and --output-format
    outputs: list[str]              # --output values
    config_file: str | None
    no_config: bool
    no_cache: bool
    cache_dir: str | None


def show(request: ShowRequest, pipeline: Pipeline, fail_on: Severity | None) -> None:
    """Print the settings or the files of the run ``pipeline`` would make of ``request.paths``."""
    if request.settings and request.files:
        raise Exit(2, "kqlint: --show-settings and --show-files exclude each other")
    if request.kustomize:
        raise Exit(2, "kqlint: --show-settings and --show-files do not combine with --kustomize")
    format = _format(request.formats)
    if len(request.outputs) > 1:
        raise Exit(2, "kqlint: --show-settings and --show-files write one output: give --output once")
    target = request.outputs[0] if request.outputs else None
    for note in pipeline.notes:
        err(f"kqlint: note: {note}")
    if not request.settings:
        from kqlint.reporters.settings import render_files

        files = pipeline.files(request.paths, context=request.context)
        for note in files.notes:
            err(f"kqlint: note: {note}")
        emit(render_files(files, format), target)
        return
    from kqlint.reporters.settings import Settings, render_settings

    choice, units = pipeline.survey(request.paths, context=request.context)
    config = replace(pipeline.config, fail_on=fail_on)
    cache, cache_from = _cache(request)
    settings = Settings(config, _found(request, config), list(pipeline.selected), choice, units, cache, cache_from)
    emit(render_settings(settings, format), target)


def _format(formats: list[str]) -> str:
    if len(formats) > 1:
        raise Exit(2, "kqlint: --show-settings and --show-files print one format: give --format once")
    chosen = formats[0] if formats else "text"
    if chosen == "json":
        return "json"
    if chosen in TEXT_STYLES:
        return "text"
    raise Exit(2, f"kqlint: --show-settings and --show-files print text or json, not {chosen!r}")


def _found(request: ShowRequest, config: Config) -> str:
    """How the configuration file was chosen (kqlint.cli.options.load_config)."""
    if request.no_config:
        return "--no-config"
    if request.config_file:
        return "--config"
    return "discovered" if config.path else "none"


def _cache(request: ShowRequest) -> tuple[str | None, str]:
    """kqlint's cache folder for this run and where its home came from (kqlint.cache.home)."""
    if request.no_cache:
        return None, "--no-cache"
    if request.paths == [STDOUT]:
        return None, "stdin is never cached"
    from kqlint.cache.home import ENV_VAR, cache_home, owned_folder

    folder = owned_folder(cache_home(request.cache_dir))
    if request.cache_dir:
        return folder, ENV_VAR if os.environ.get(ENV_VAR) == request.cache_dir else "--cache-dir"
    xdg = os.environ.get("XDG_CACHE_HOME")
    return folder, "XDG_CACHE_HOME" if xdg and os.path.isabs(xdg) else "~/.cache"
