"""What a run would use, as text or JSON: ``kqlint check --show-settings`` (the resolved
configuration, the rules, the context and each unit's platform model with where each fact came
from, and why a workload counts as Kueue-managed) and ``--show-files`` (the input and context
files). The JSON shapes are documented in README "See what kqlint assumed"; keys under
``configuration`` are spelt as in the configuration file."""
from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, fields, is_dataclass
from typing import TYPE_CHECKING, Any

from kqlint.version import __version__

if TYPE_CHECKING:
    from kqlint.config import Config
    from kqlint.engine.rule import Rule
    from kqlint.engine.survey import ContextChoice, Framework, RunFiles, UnitModel

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
# How the configuration file was chosen (cli.md "Configuration"), as the text report says it.
FOUND = {
    "--config": "named by --config",
    "discovered": "discovered: the first .kqlint.yaml, .kqlint.yml or pyproject.toml [tool.kqlint] from the "
                  "current folder up to the repository root",
    "--no-config": "none: --no-config (built-in defaults)",
    "none": "none found from the current folder up to the repository root (built-in defaults)",
}
CONTEXT = {
    "explicit": "named by --context or config `context:`",
    "project-root": "the project root's manifests (automatic)",
    "inputs-cover-root": "none: the inputs are the whole project",
    "none": "none: no project root above the inputs",
}
MANAGED = (f"with a `{QUEUE_LABEL}` label (where Kueue reads it): any kind Kueue integrates; without one: "
           "only a kind whose framework is routed below, in a namespace with a LocalQueue named `default` "
           "(LocalQueueDefaulting)")


@dataclass(frozen=True)
class Settings:
    config: Config
    found: str                   # a key of FOUND
    rules: Sequence[Rule]        # the rules the run selects
    choice: ContextChoice
    units: Sequence[UnitModel]
    cache: str | None            # kqlint's cache folder; None: --no-cache (or stdin)
    cache_from: str              # where its home came from


# ------------------------------------------------------------------ settings

def settings_document(settings: Settings) -> dict[str, Any]:
    """The settings as plain data (``--show-settings --format json``)."""
    from kqlint.project.discover import display_path

    config = settings.config
    choice = settings.choice
    return {
        "version": __version__,
        "configuration": _configuration(config, settings.found),
        "cache": {"dir": settings.cache, "from": settings.cache_from},
        "rules": [_rule(rule, config) for rule in settings.rules],
        "context": {"how": choice.how, "paths": [display_path(p) for p in choice.paths],
                    "projectRoot": choice.root},
        "units": [_unit(model) for model in settings.units],
    }


def render_settings(settings: Settings, format: str) -> str:
    """``format``: ``text`` or ``json``."""
    if format == "json":
        from kqlint.sanitize import json_safe

        return json_safe(json.dumps(settings_document(settings), indent=2, sort_keys=False)) + "\n"
    return _safe(_settings_text(settings))


def _configuration(config: Config, found: str) -> dict[str, Any]:
    from kqlint.project.discover import display_path

    return {
        "file": display_path(config.path) if config.path else None, "found": found,
        "profile": config.profile, "fail-on": config.fail_on.label if config.fail_on is not None else "never",
        "select": list(config.select), "ignore": list(config.ignore),
        "severity": {name: level.label for name, level in sorted(config.severity.items())},
        "namespace": config.namespace, "exclude": list(config.exclude), "force-exclude": config.force_exclude,
        "context": list(config.context), "units": list(config.units) if config.units is not None else None,
        "crds": list(config.crds),
        "external": {kind: sorted(_external_name(entry) for entry in entries)
                     for kind, entries in sorted(config.external.items())},
        "per-file-ignores": {glob: list(codes) for glob, codes in sorted(config.per_file_ignores.items())},
        "per-file-severity": {glob: {code: level.label for code, level in sorted(levels.items())}
                              for glob, levels in sorted(config.per_file_severity.items())},
        "platform": config.platform, "plugins": list(config.plugins),
        "custom-rules": [str(rule.get("code")) for rule in config.custom_rules],
        "max-file-size": config.max_file_size, "output-format": config.output_format,
        "follow-external-symlinks": config.follow_external_symlinks,
    }


def _external_name(entry: Any) -> str:
    if not isinstance(entry, dict):
        return str(entry)
    name, namespace = str(entry.get("name", "")), entry.get("namespace")
    return f"{namespace}/{name}" if namespace else name


def _rule(rule: Rule, config: Config) -> dict[str, Any]:
    severity = config.severity.get(rule.code) or config.severity.get(rule.slug) or rule.meta.severity
    return {"code": rule.code, "slug": rule.slug, "severity": severity.label,
            "default": rule.meta.severity.label, "options": rule_options(rule, config)}


def rule_options(rule: Rule, config: Config) -> dict[str, Any]:
    """The options a rule runs with (its defaults, then the configuration's), spelt as in the
    configuration; empty for a rule without options."""
    if rule.options_type is None:
        return {}
    from kqlint.engine.rule import options_from_mapping

    options = options_from_mapping(rule.options_type, config.rules.get(rule.code, {}))
    if not is_dataclass(options):
        return {}
    return {field.name.replace("_", "-"): _plain(getattr(options, field.name)) for field in fields(options)}


def _plain(value: Any) -> Any:
    if isinstance(value, (tuple, list, frozenset, set)):
        items = [_plain(v) for v in value]
        return sorted(items, key=str) if isinstance(value, (frozenset, set)) else items
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value if value is None or isinstance(value, (str, int, float, bool)) else str(value)


def unit_label(unit: str | None, alone: bool = False) -> str:
    """``kustomize overlays/prod``, ``chart charts/x``, ``units teams/a``; None: the shared files
    (``alone``: the only graph, the whole project)."""
    if unit is None:
        return "the whole project (no units)" if alone else "shared files (in no unit; every unit sees them)"
    from kqlint.project.discover import display_path

    kind, _, where = unit.partition(":")
    return f"{kind} {display_path(where) if kind in ('kustomize', 'chart') else where}"


def _unit(model: UnitModel) -> dict[str, Any]:
    return {"unit": unit_label(model.unit) if model.unit is not None else None,
            "inputObjects": model.inputs, "platform": model.platform.describe(),
            "kueueManaged": {"frameworks": [_framework(f) for f in model.frameworks],
                             "defaultLocalQueues": list(model.default_queues)}}


def _framework(framework: Framework) -> dict[str, Any]:
    return {"name": framework.name, "kinds": list(framework.kinds), "enabled": framework.enabled,
            "optIn": framework.opt_in, "routesUnlabelled": framework.routes_unlabelled}


def _settings_text(settings: Settings) -> str:
    data = settings_document(settings)
    config = data["configuration"]
    lines = [f"kqlint {__version__}: the settings of this run (nothing is linted)", "", "Configuration"]
    lines.append(f"  file: {config['file'] or 'none'} ({FOUND[settings.found]})")
    for key, value in config.items():
        if key not in ("file", "found"):
            lines.append(f"  {key}: {_words(value, key)}")
    cache = data["cache"]
    lines.append(f"  cache: {cache['dir'] or 'off'} ({cache['from']})")
    lines += ["", f"Rules ({len(data['rules'])} selected; severity as configured, default in brackets)"]
    for rule in data["rules"]:
        default = f" [{rule['default']}]" if rule["default"] != rule["severity"] else ""
        options = "  " + ", ".join(f"{k}={_words(v)}" for k, v in rule["options"].items()) if rule["options"] else ""
        lines.append(f"  {rule['code']} {rule['slug']}: {rule['severity']}{default}{options}")
    context = data["context"]
    lines += ["", "Context (files read only to resolve references; --show-files lists them)",
              f"  {CONTEXT[context['how']]}" + (f": {', '.join(context['paths'])}" if context["paths"] else ""),
              f"  project root: {context['projectRoot'] or 'none'}"]
    for model in settings.units:
        label = unit_label(model.unit, alone=len(settings.units) == 1)
        lines += ["", f"Unit: {label}, {model.inputs} input object(s)", "  platform model:"]
        lines += [f"    {line}" for line in model.platform.lines()]
        lines += ["  Kueue-managed workloads:", f"    {MANAGED}"]
        routed = [f"{f.name} ({', '.join(f.kinds)})" for f in model.frameworks if f.routes_unlabelled]
        lines.append(f"    routed without a label: {', '.join(routed) or 'none'}")
        unrouted: dict[str, list[str]] = {}
        for framework in model.frameworks:
            if not framework.routes_unlabelled:
                unrouted.setdefault(_why_not(framework), []).append(framework.name)
        lines += [f"    not routed without a label, {why}: {', '.join(names)}" for why, names in unrouted.items()]
        queues = ", ".join(model.default_queues) or "none, so no workload without the label is Kueue-managed"
        lines.append(f"    LocalQueues named `default`: {queues}")
    return "\n".join(lines) + "\n"


def _why_not(framework: Framework) -> str:
    if framework.enabled is False:
        return "not among the enabled integrations"
    return "opt-in integrations not known to be enabled (config `platform: {kueue: {integrations: [...]}}`)"


def _words(value: Any, key: str = "") -> str:
    """A setting as the text report writes it: lists joined, mappings as ``k=v``, null as unset."""
    if value is None:
        return "detected (kustomization folders and Helm charts)" if key == "units" else "unset"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ", ".join(_words(v) for v in value) or "none"
    if isinstance(value, dict):
        return "; ".join(f"{k}=" + (f"{{{_words(v)}}}" if isinstance(v, dict) else _words(v))
                         for k, v in value.items()) or "none"
    return str(value)


# ------------------------------------------------------------------ files

def files_document(files: RunFiles) -> dict[str, Any]:
    """The files as plain data (``--show-files --format json``)."""
    return {"version": __version__, "inputs": list(files.inputs), "context": list(files.context),
            "contextHow": files.choice.how}


def render_files(files: RunFiles, format: str) -> str:
    """One file a line, sorted, inputs first: ``input   PATH`` or ``context PATH``."""
    if format == "json":
        from kqlint.sanitize import json_safe

        return json_safe(json.dumps(files_document(files), indent=2)) + "\n"
    lines = [f"input   {path}" for path in files.inputs] + [f"context {path}" for path in files.context]
    return _safe("".join(line + "\n" for line in lines))


def _safe(text: str) -> str:
    """File names and values are the repository's: no control character reaches the terminal."""
    from kqlint.sanitize import safe_lines

    return safe_lines(text)
