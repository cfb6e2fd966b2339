"""What makes the Kueue manager exit at start (kueue.md B28): ``cmd/kueue/main.go`` loads the
Configuration with a strict decoder (``pkg/config/config.go``: unknown or duplicate fields, wrong
types: "Unable to load the configuration"), checks feature gates ("conflicting feature gates
detected") and runs ``Validate`` (``pkg/config/validation.go``: "Unable to validate the
configuration"), each followed by ``os.Exit(1)``. Mirrored here per check, for KQ222.

Validation runs on the v1beta2 form after the document's own version's defaults: a v1beta1
``waitForPodsReady`` or ``fairSharing`` without ``enable: true`` is dropped by the conversion,
and only values the defaults cannot fill are judged. Version-dependent checks take the platform's
Kueue version; an unknown version counts as a maintained release (0.19 or later) unless a check
says it is silent then.
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from kqlint.domain.kueue_config import V1BETA1, V1BETA2, KueueConfiguration
from kqlint.domain.kueue_config_facts import FEATURE_GATES, FRAMEWORKS, STABLE_FRAMEWORK_KINDS
from kqlint.domain.kueue_config_facts import V1BETA1 as V1BETA1_KEYS
from kqlint.domain.kueue_config_facts import V1BETA2 as V1BETA2_KEYS
from kqlint.domain.selectors import selector_matches

Version = tuple[int, int] | None
LOAD, GATES, VALIDATE = "Unable to load the configuration", "conflicting feature gates detected", \
    "Unable to validate the configuration"
STRATEGY_SETS = (["LessThanOrEqualToFinalShare"], ["LessThanInitialShare"],
                 ["LessThanOrEqualToFinalShare", "LessThanInitialShare"])
# a number's digits split one way only (`\d+` then an optional fraction), so that a long run of
# digits without a unit (a hostile configuration) fails in linear time, not quadratic
_DURATION = re.compile(r"([-+]?)((?:(?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+)")
_DURATION_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)")
_UNIT_SECONDS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
_LABEL_VALUE = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?")
_TYPE_WORDS = {"str": "a string", "bool": "a boolean", "int": "an integer", "num": "a number",
               "dur": "a duration string such as 5m", "strs": "a list of strings", "ints": "a list of integers",
               "boolmap": "a map of booleans", "intmap": "a map of integers"}


@dataclass(frozen=True)
class ConfigProblem:
    """One reason the manager exits: where (a path in the document, or a line and column of
    its text) and what Kueue logs."""

    path: tuple[Any, ...]
    message: str
    text_at: tuple[int, int] | None = None


def manager_exits(config: KueueConfiguration, version: Version, flag_gates: bool) -> Iterator[ConfigProblem]:
    """Every problem that stops the manager. ``flag_gates``: the manager Deployment passes
    ``--feature-gates``."""
    api = config.api_version
    if api not in (V1BETA1, V1BETA2) or config.document is None:
        return
    yield from _duplicates(config)
    if api == V1BETA2 and version is not None and version < (0, 15):
        yield ConfigProblem(("apiVersion",),
                            f"{LOAD}: Kueue {_shown(version)} has no {V1BETA2} (it is served from 0.15)")
    yield from _strict(config.document, V1BETA1_KEYS if api == V1BETA1 else V1BETA2_KEYS, ())
    yield from _wait_for_pods_ready(config, version)
    yield from _integrations(config, version)
    yield from _namespace_selector(config)
    yield from _fair_sharing(config)
    yield from _resources(config, version)
    yield from _durations(config)
    yield from _feature_gates(config, version, flag_gates)


def go_duration(value: Any) -> float | None:
    """Seconds of a Go duration string (``time.ParseDuration``), None when it is not one."""
    if not isinstance(value, str):
        return None
    if value in ("0", "+0", "-0"):
        return 0.0
    match = _DURATION.fullmatch(value)
    if not match:
        return None
    seconds = sum(float(number) * _UNIT_SECONDS[unit] for number, unit in _DURATION_PART.findall(match.group(2)))
    return -seconds if match.group(1) == "-" else seconds


def _shown(version: tuple[int, int]) -> str:
    return f"{version[0]}.{version[1]}"


# ------------------------------------------------------------------ strict decoding

def _duplicates(config: KueueConfiguration) -> Iterator[ConfigProblem]:
    for problem in config.problems:
        key = re.match(r"duplicate key `(.*?)`", problem.message)
        if key:
            yield ConfigProblem((), f'{LOAD}: strict decoding error: mapping key "{key.group(1)}" already defined',
                                (problem.line, problem.column))


def _strict(value: Any, expected: Any, path: tuple[Any, ...]) -> Iterator[ConfigProblem]:
    if value is None or expected == "any":
        return
    if isinstance(expected, dict):
        if not isinstance(value, dict):
            yield _wrong_type(path, "an object", value)
            return
        for key, item in value.items():
            if str(key) not in expected:
                dotted = ".".join(str(p) for p in (*path, key) if not isinstance(p, int))
                yield ConfigProblem((*path, key), f'{LOAD}: strict decoding error: unknown field "{dotted}"')
            else:
                yield from _strict(item, expected[str(key)], (*path, key))
    elif isinstance(expected, list):
        if not isinstance(value, list):
            yield _wrong_type(path, "a list", value)
            return
        for index, item in enumerate(value):
            yield from _strict(item, expected[0], (*path, index))
    elif not _leaf_fits(value, expected):
        yield _wrong_type(path, _TYPE_WORDS[expected], value)


def _leaf_fits(value: Any, expected: str) -> bool:
    if expected in ("strs", "ints"):
        return isinstance(value, list) and all(item is None or _leaf_fits(item, expected[:-1]) for item in value)
    if expected in ("boolmap", "intmap"):
        return isinstance(value, dict) and all(v is None or _leaf_fits(v, expected[:-3]) for v in value.values())
    if expected == "bool":
        return isinstance(value, bool)
    if isinstance(value, bool):
        return False
    if expected == "int":
        return isinstance(value, int)
    if expected == "num":
        return isinstance(value, (int, float))
    if expected == "dur":
        return go_duration(value) is not None
    return isinstance(value, str)


def _wrong_type(path: tuple[Any, ...], wanted: str, value: Any) -> ConfigProblem:
    dotted = ".".join(str(p) for p in path if not isinstance(p, int))
    return ConfigProblem(path, f"{LOAD}: {dotted} must be {wanted}, not {_describe(value)}")


def _describe(value: Any) -> str:
    if isinstance(value, str):
        return f'"{value[:40]}"'
    return {bool: "a boolean", int: "a number", float: "a number", list: "a list", dict: "an object"}.get(
        type(value), "another type")


# ------------------------------------------------------------------ Validate

def _wait_for_pods_ready(config: KueueConfiguration, version: Version) -> Iterator[ConfigProblem]:
    section = config.get("waitForPodsReady")
    if not isinstance(section, dict):
        return
    if config.api_version == V1BETA1 and section.get("enable") is not True:
        return  # the conversion drops a section that is not enabled
    for key in ("timeout", "recoveryTimeout"):
        if (go_duration(section.get(key)) or 0) < 0:
            yield _negative(("waitForPodsReady", key))
    missing = section.get("timeout") is None or go_duration(section.get("timeout")) == 0.0
    if config.api_version == V1BETA2 and missing and version is not None and (0, 15) <= version < (0, 19):
        yield ConfigProblem(("waitForPodsReady",),
                            f"{VALIDATE}: waitForPodsReady.timeout: Required value: must be specified "
                            f"(Kueue {_shown(version)} has no default; 0.19 fills 30m)")
    strategy = section.get("requeuingStrategy")
    if not isinstance(strategy, dict):
        return
    timestamp = strategy.get("timestamp")
    if isinstance(timestamp, str) and timestamp not in ("Creation", "Eviction"):
        yield ConfigProblem(("waitForPodsReady", "requeuingStrategy", "timestamp"),
                            f'{VALIDATE}: requeuingStrategy.timestamp: Unsupported value: "{timestamp}": supported '
                            'values: "Creation", "Eviction"')
    for key in ("backoffLimitCount", "backoffBaseSeconds", "backoffMaxSeconds"):
        number = strategy.get(key)
        if isinstance(number, int) and not isinstance(number, bool) and number < 0:
            yield _negative(("waitForPodsReady", "requeuingStrategy", key))


def _negative(path: tuple[Any, ...]) -> ConfigProblem:
    return ConfigProblem(path, f"{VALIDATE}: {'.'.join(path)}: Invalid value: must be greater than or equal to 0")


def _frameworks(config: KueueConfiguration) -> list[Any]:
    listed = config.get("integrations", "frameworks")
    return listed if isinstance(listed, list) and listed else ["batch/job"]  # the default when empty


def _integrations(config: KueueConfiguration, version: Version) -> Iterator[ConfigProblem]:
    seen: set[str] = set()
    for index, name in enumerate(_frameworks(config) if config.has("integrations", "frameworks") else []):
        if not isinstance(name, str):
            continue
        span = FRAMEWORKS.get(name)
        known = span is not None and (version is None or version < (0, 9) or known_in(span, version))
        where = ("integrations", "frameworks", index)
        if not known:
            release = "any Kueue release" if span is None else f"Kueue {_shown(version)}" if version else "Kueue"
            yield ConfigProblem(where, f'{VALIDATE}: integrations.frameworks: Unsupported value: "{name}" '
                                       f"(not a framework {release} knows)")
        elif name in seen:
            yield ConfigProblem(where, f'{VALIDATE}: integrations.frameworks: Duplicate value: "{name}"')
        seen.add(name)
    kinds = {STABLE_FRAMEWORK_KINDS[n] for n in seen if n in STABLE_FRAMEWORK_KINDS}
    external = config.get("integrations", "externalFrameworks")
    for index, name in enumerate(external if isinstance(external, list) else []):
        if not isinstance(name, str):
            continue
        where = ("integrations", "externalFrameworks", index)
        if name.count(".") < 2:
            yield ConfigProblem(where, f'{VALIDATE}: integrations.externalFrameworks: Invalid value: "{name}": must '
                                      "be format, 'Kind.version.group.com'")
        elif name in kinds:
            yield ConfigProblem(where, f'{VALIDATE}: integrations.externalFrameworks: Duplicate value: "{name}"')
        kinds.add(name)


def _namespace_selector(config: KueueConfiguration) -> Iterator[ConfigProblem]:
    """``validatePodIntegrationOptions``: with ``pod`` enabled, the selector as written must not
    match kube-system nor Kueue's namespace (the default selector excludes both)."""
    selector = config.get("managedJobsNamespaceSelector")
    if "pod" not in _frameworks(config) or not isinstance(selector, dict):
        return
    own = config.get("namespace")
    matched = [f'should not match the "{namespace}" namespace'
               for namespace in ("kube-system", own if isinstance(own, str) and own else "kueue-system")
               if selector_matches(selector, {"kubernetes.io/metadata.name": namespace})]
    if matched:
        yield ConfigProblem(("managedJobsNamespaceSelector",),
                            f"{VALIDATE}: managedJobsNamespaceSelector: Invalid value: {'; '.join(matched)}")


def _fair_sharing(config: KueueConfiguration) -> Iterator[ConfigProblem]:
    section = config.get("fairSharing")
    if not isinstance(section, dict) or config.api_version == V1BETA1 and section.get("enable") is not True:
        return  # v1beta1: dropped unless enabled
    strategies = section.get("preemptionStrategies")
    if not strategies:
        if config.api_version == V1BETA2:  # v1beta1 defaults them
            yield ConfigProblem(("fairSharing",), f"{VALIDATE}: fairSharing.preemptionStrategies: Required value: "
                                                  "must be specified")
    elif isinstance(strategies, list) and strategies not in STRATEGY_SETS:
        yield ConfigProblem(("fairSharing", "preemptionStrategies"),
                            f"{VALIDATE}: fairSharing.preemptionStrategies: Unsupported value: supported values: "
                            '"LessThanOrEqualToFinalShare", "LessThanInitialShare", '
                            '"LessThanOrEqualToFinalShare,LessThanInitialShare"')


def _resources(config: KueueConfiguration, version: Version) -> Iterator[ConfigProblem]:
    inputs: set[str] = set()
    transformations = config.get("resources", "transformations")
    for index, item in enumerate(transformations if isinstance(transformations, list) else []):
        if not isinstance(item, dict):
            continue
        strategy, name = item.get("strategy"), item.get("input")
        if isinstance(strategy, str) and strategy and strategy not in ("Retain", "Replace"):
            yield ConfigProblem(("resources", "transformations", index, "strategy"),
                                f'{VALIDATE}: resources.transformations[{index}].strategy "{strategy}" is not a '
                                'supported value (Retain or Replace)')
        if isinstance(name, str) and name in inputs:
            yield ConfigProblem(("resources", "transformations", index, "input"),
                                f'{VALIDATE}: resources.transformations[{index}].input: Duplicate value: "{name}"')
        inputs.add(str(name))
    gate = config.get("featureGates", "QuotaCheckStrategy")
    gate_on = gate if isinstance(gate, bool) else version is None or version >= (0, 19)  # beta, on from 0.19
    if (gate_on and config.get("resources", "quotaCheckStrategy") == "IgnoreUndeclared"
            and config.get("resources", "excludeResourcePrefixes")):
        yield ConfigProblem(("resources", "quotaCheckStrategy"),
                            f"{VALIDATE}: resources.quotaCheckStrategy: Invalid value: \"IgnoreUndeclared\": "
                            "excludeResourcePrefixes is not allowed when quotaCheckStrategy is IgnoreUndeclared")


NEGATIVE_DURATIONS = (("multiKueue", "gcInterval"), ("multiKueue", "workerLostTimeout"),
                      ("objectRetentionPolicies", "workloads", "afterFinished"),
                      ("objectRetentionPolicies", "workloads", "afterDeactivatedByKueue"),
                      ("admissionFairSharing", "usageHalfLifeTime"), ("admissionFairSharing", "usageSamplingInterval"))


def _durations(config: KueueConfiguration) -> Iterator[ConfigProblem]:
    for path in NEGATIVE_DURATIONS:
        if (go_duration(config.get(*path)) or 0) < 0:
            yield _negative(path)
    origin = config.get("multiKueue", "origin")
    if isinstance(origin, str) and (len(origin) > 63 or not _LABEL_VALUE.fullmatch(origin)):
        yield ConfigProblem(("multiKueue", "origin"), f'{VALIDATE}: multiKueue.origin: Invalid value: "{origin[:63]}": '
                                                      "a valid label must be 63 characters or less, alphanumeric, "
                                                      "'-', '_' or '.'")


def _feature_gates(config: KueueConfiguration, version: Version, flag_gates: bool) -> Iterator[ConfigProblem]:
    gates = config.get("featureGates")
    if not isinstance(gates, dict):
        return
    if flag_gates:  # LoadAndValidateFeatureGates: checked first, and then the map is not read
        yield ConfigProblem(("featureGates",), f"{GATES}: featureGates: Invalid value: feature gates for CLI and "
                                               "configuration cannot both specified")
        return
    if version is None or version < (0, 9):
        return  # which gates a release knows is known from 0.9 on
    for name in gates:
        if not known_in(FEATURE_GATES.get(str(name)), version):
            yield ConfigProblem(("featureGates", name), f"{GATES}: unrecognized feature gate: {name} "
                                                        f"(Kueue {_shown(version)})")


def known_in(span: tuple[int, int | None] | None, version: tuple[int, int]) -> bool:
    """Whether a name whose (first, last) 0.x minor releases are ``span`` exists in ``version``."""
    if span is None:
        return False
    first, last = span
    if version[0] > 0:
        return last is None
    return first <= version[1] and (last is None or version[1] <= last)
