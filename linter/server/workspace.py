"""What the language server lints with, without any LSP: the configuration of the workspace
folder (loaded as ``kqlint check`` loads it from there), the rules it selects and the context
of each project root (its other manifests, read once through the cache and kept in memory),
against which an editor's unsaved buffer is linted (kqlint.engine.pipeline.Pipeline.lint_text).

The context is loaded again after a file other than the buffer is saved, created or deleted
(:meth:`Workspace.files_changed`), and the configuration after a configuration file changes.
An editor may open several folders at once (:class:`Folders`): each is a Workspace of its own."""
from __future__ import annotations

import errno
import os
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kqlint.model import Report
from kqlint.project.containment import inside

if TYPE_CHECKING:
    from kqlint.cache import FileCache
    from kqlint.config import Config
    from kqlint.engine.pipeline import KeptContext, Pipeline
    from kqlint.engine.registry import RuleSet

CONFIG_FILES = frozenset({".kqlint.yaml", ".kqlint.yml", "pyproject.toml"})
_POSITIONED = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<column>\d+): (?P<message>.*)$", re.S)


@dataclass(frozen=True)
class ConfigProblem:
    """A configuration ``kqlint check`` refuses (exit 2): where, and what its one line says."""

    file: str  # absolute
    line: int
    column: int
    message: str


@dataclass(frozen=True)
class Settings:
    pipeline: Pipeline  # the folder's configuration, contained and checked, and the rules it selects
    rules: RuleSet  # every rule loaded (explain texts)

    @property
    def config(self) -> Config:
        return self.pipeline.config


class Workspace:
    """One workspace folder. Paths are absolute; lints run as ``kqlint check`` run in ``root``
    (the pipeline's working folder), so reports show paths relative to it."""

    def __init__(self, root: str, allow_plugins: bool = False, use_cache: bool = True) -> None:
        self.root = os.path.abspath(root)
        self.allow_plugins = allow_plugins
        self.use_cache = use_cache
        self._settings: Settings | ConfigProblem | None = None
        self._contexts: dict[tuple[str, ...], KeptContext] = {}  # context paths -> what they load

    def settings(self) -> Settings | ConfigProblem:
        if self._settings is None:
            self._settings = self._load_settings()
        return self._settings

    def config_file(self) -> str | None:
        """The configuration file ``kqlint check`` reads in the root, if any."""
        from kqlint.config import discover_config

        found = discover_config(self.root)
        return os.path.abspath(found) if found else None

    def _load_settings(self) -> Settings | ConfigProblem:
        from kqlint.config import Config
        from kqlint.config import load_config as load
        from kqlint.config.trust import PluginsNotAllowed, require_plugin_opt_in
        from kqlint.engine.pipeline import Pipeline
        from kqlint.engine.registry import load_rules
        from kqlint.errors import UserError
        from kqlint.project.workdir import working_in

        path = self.config_file()
        try:
            with working_in(self.root):
                config = load(path) if path else Config()
            require_plugin_opt_in(config, self.allow_plugins)
            rules = load_rules(config)
            pipeline = Pipeline(config, rules, workdir=self.root)
        except (UserError, PluginsNotAllowed) as exc:
            return self._problem(str(exc), path)
        return Settings(pipeline, rules)

    def _problem(self, text: str, path: str | None) -> ConfigProblem:
        """The refusal as a position in the configuration file (its ``file:line:col:`` prefix)."""
        match = _POSITIONED.match(text)
        if match and path and os.path.normpath(os.path.join(self.root, match["file"])) == path:  # shown from root
            return ConfigProblem(path, int(match["line"]), int(match["column"]), match["message"])
        return ConfigProblem(path or os.path.join(self.root, ".kqlint.yaml"), 1, 1, text)

    def lint(self, path: str, raw: bytes) -> Report:
        """``kqlint check path`` with ``raw`` as its content (ConfigProblem: call settings() first)."""
        settings = self.settings()
        assert isinstance(settings, Settings)
        return settings.pipeline.lint_text(path, raw, self._context(path, settings.pipeline))

    def _context(self, path: str, pipeline: Pipeline) -> KeptContext:
        named = pipeline.context_of(path)
        if named not in self._contexts:
            cache = self._cache(pipeline.config)
            self._contexts[named] = pipeline.keep_context(named, cache)
            if cache is not None:
                cache.flush()
        return self._contexts[named]

    def _cache(self, config: Config) -> FileCache | None:
        if not self.use_cache:
            return None
        from kqlint.cache import open_cache

        return open_cache(None, config.max_file_size)

    def files_changed(self, paths: list[str]) -> None:
        """Files saved, created or deleted: a configuration file of this folder reloads
        everything, a file inside a context that context (loaded again when next needed)."""
        config = self.config_file()
        if any(p == config or os.path.basename(p) in CONFIG_FILES and inside(p, self.root) for p in paths):
            self._settings = None
            self._contexts.clear()
            return
        self._contexts = {named: kept for named, kept in self._contexts.items()
                          if not any(inside(p, self._absolute(part)) for part in named for p in paths)}

    def _absolute(self, path: str) -> str:
        """A context path (relative to the root, where the lint ran) as the client spells paths."""
        return os.path.normpath(os.path.join(self.root, path))

    def explain(self, code: str) -> str | None:
        """``kqlint explain CODE``'s text for the rule ``code`` (None: no such rule loaded)."""
        from kqlint.engine.registry import load_rules
        from kqlint.reporters.explain import rule_text

        settings = self.settings()
        rules = settings.rules if isinstance(settings, Settings) else load_rules(None)
        rule = rules.find(code)
        return rule_text(rule) if rule is not None else None


def unreadable_root(root: str) -> str | None:
    """Why a workspace folder cannot be read (a symlink loop, gone), as one clear line: its
    buffers are then linted alone, as their text, without the folder's other files; None: readable."""
    try:
        os.stat(root)
    except OSError as exc:
        from kqlint.sanitize import terminal_safe

        reason = "a symlink loop" if exc.errno == errno.ELOOP else (exc.strerror or type(exc).__name__)
        return (f"kqlint: the workspace folder {terminal_safe(root)} cannot be read ({reason}); its files are "
                "linted alone, without the folder's other manifests as context")
    return None


class Folders:
    """The workspace folders an editor has open, each linted as its own Workspace: a file in the
    innermost folder that holds it, a file outside every folder as ``kqlint check FILE`` run in
    its own folder (which finds its repository's manifests as context, as ``check`` does)."""

    def __init__(self, roots: list[str], allow_plugins: bool = False, use_cache: bool = True) -> None:
        self.allow_plugins, self.use_cache = allow_plugins, use_cache
        self.roots: list[str] = []
        self._workspaces: dict[str, Workspace] = {}
        for root in roots:
            self.add(root)

    def add(self, root: str) -> None:
        root = os.path.abspath(root)
        if root not in self.roots:
            self.roots.append(root)
            self._workspaces.pop(root, None)  # known as a file's own folder until now: its settings may differ

    def remove(self, root: str) -> None:
        root = os.path.abspath(root)
        if root in self.roots:
            self.roots.remove(root)
            self._workspaces.pop(root, None)

    def root_of(self, path: str) -> str:
        holding = [root for root in self.roots if inside(path, root)]
        return max(holding, key=len) if holding else os.path.dirname(os.path.abspath(path))

    def of(self, path: str) -> Workspace:
        root = self.root_of(path)
        if root not in self._workspaces:
            self._workspaces[root] = Workspace(root, self.allow_plugins, self.use_cache)
        return self._workspaces[root]

    def files_changed(self, paths: list[str]) -> None:
        """Each workspace whose context (or configuration) holds one of ``paths`` reads it again."""
        for workspace in self._workspaces.values():
            workspace.files_changed(paths)
