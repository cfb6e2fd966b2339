"""
## What it catches
An object of a kind kqlint knows (Kueue queues, flavors and priority classes, PriorityClass,
Volcano and KAI PodGroups and Queues, Volcano Job, JobSet, Kubeflow jobs, MPIJob, TrainJob and
training runtimes, LeaderWorkerSet, LLMInferenceService, DynamoGraphDeployment, RayJob,
RayCluster and the pod templates of core workloads) that does not match the API's schema:
an unknown or misspelt field, a value of the wrong type (`replicas: "4"`, `value: yes`), or a
value outside the allowed set (`preemptionPolicy: never`, `withinClusterQueue: lowerPriority`),
or a value outside the bounds the CRD's schema sets: too many items or entries (a
ResourceFlavor with more than 8 `nodeLabels`, a ClusterQueue with more than 16
`resourceGroups`), a string too long or too short, a number out of range (a JobSet's
`replicas: -1`), or, for the bundled schemas, a string that does not match its pattern
(`nominalQuota: 10Gb` is not a quantity, `cohortName: Team_A` not a DNS-1123 subdomain). A
bound rules.md gives KQ004 (LeaderWorkerSet `replicas`, a Volcano Job's task list and names) is
left to KQ004, and a string holding an envsubst placeholder is not judged against a pattern or
length. The finding sits on the offending key or value and suggests the closest valid name or
value. One object gives at most 100 findings; the last one says how many more there are.
A null field or map value is unset, as the API server reads it; a null item in a custom
resource's list (a `-` with nothing after it) is a wrong type: nothing prunes it, and the API
server rejects it (`must be of type string: "null"`).
The schemas come from the upstream CRDs (`kueue.x-k8s.io/v1beta1` and `v1beta2` differ);
`kqlint check --crd PATH` validates against the CRDs your cluster actually runs. Kinds kqlint
has no schema for are skipped; parts marked `x-kubernetes-preserve-unknown-fields` accept
any field.

It also evaluates the CRD's CEL rules (`x-kubernetes-validations`) as the API server does on
create, once the object matches the schema: on the object with the schema's `default`s
applied (an unset `reclaimWithinCohort` is `Never`), on every list item and map value the
rule sits on. A rule that evaluates to false, or that fails on the data (`no such key`), is
reported with the CRD's own message (or `messageExpression`) and reason, at the field the
rule sits on (a list's key for its items, the object for a rule at the root) or at its
`fieldPath`. Rules that read `oldSelf` (updates only) and rules on `status` are not
evaluated, nor are rules reading `metadata.name` of an object that has only `generateName`.
A rule kqlint's evaluator cannot compile or run is named once on stderr and never reported; so
is a rule that walks its own list inside a walk of it (a uniqueness check) on a list too long
for that to stay cheap (more than 141 items for two walks), which the CRDs cap far lower.

## Why it breaks on a cluster
`kubectl apply` validates fields strictly by default: the whole object is rejected, and with
validation turned off (`--validate=false`, older clients, some GitOps tools) an unknown field
is silently dropped. A misspelt `withinClusterQueue` then leaves preemption at `Never`, a
misspelt `priorityClassName` runs the pods at the default priority, and a wrong-case enum
value never reaches the scheduler. Every other kqlint rule reads the field under its real
name, so it cannot see the setting you meant either.

## Bad
```yaml
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: team-a
spec:
  namespaceSelector: {}
  preemption:
    withinClusterQueu: LowerPriority     # misspelt: did you mean `withinClusterQueue`?
    reclaimWithinCohort: any             # values are case-sensitive: `Any`
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: gang-pods
value: "1000"                            # must be an integer
preemptionPolicy: never                  # values are case-sensitive: `Never`
```

## Good
```yaml
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: team-a
spec:
  namespaceSelector: {}
  preemption:
    withinClusterQueue: LowerPriority
    reclaimWithinCohort: Any
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: gang-pods
value: 1000
preemptionPolicy: Never
```

## How to fix
For a CEL rule, change the object so that the rule holds (the finding quotes it; remember
the defaults the schema fills in). Otherwise rename the field or value as suggested (names
and values are case-sensitive), move a field that sits at the wrong level, unquote numbers
and booleans, quote strings YAML would read as booleans (`"true"`, `"on"`). When the field
exists in a newer API version than the one the object declares (or the reverse), change
`apiVersion` or use that version's spelling. If your cluster runs a different version of the
operator, pass its CRDs with `--crd PATH`. `kqlint check --fix` renames a key or replaces an
enum value (safe) when exactly one valid spelling is closest (a case difference, or one or
two typos in a longer word) and, for a key, the right key is not already there.
"""
from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from kqlint.domain.objects import K8sObject
from kqlint.engine.rule import MAX_PER_OBJECT, RuleContext, RuleMeta, Run
from kqlint.fix.model import Edit, Fix
from kqlint.loader.placeholders import holds_placeholder
from kqlint.model import Finding, Location, Severity
from kqlint.rules.engine._cel_findings import cel_findings
from kqlint.schema import (
    NOT_IN_ENUM,
    OUT_OF_BOUNDS,
    UNKNOWN_FIELD,
    SchemaCatalog,
    Violation,
    catalog,
    describe_expected,
    describe_type,
    dotted,
)
from kqlint.spelling import closest_spelling

# findings cache: pure, validates obj.data against its kind's schema: kqlint's shipped schemas or the --crd files
META = RuleMeta(code="KQ002", slug="schema-violation", severity=Severity.ERROR,
                summary="an object violates its kind's schema: unknown field, wrong type, value outside an "
                        "enum (suggests the closest valid name or value), a size, range or (bundled schemas) "
                        "pattern the CRD sets, or a CEL rule of its CRD",
                kinds=None, scope="object", fix="safe",
                pure=True)
MAX_SHOWN_CHOICES = 8


def prepare(run: Run) -> SchemaCatalog:
    """One catalog per run (``ctx.state``): the --crd files are not read again per object. The
    CEL rules of the inputs' kinds are compiled here, before --jobs forks: every worker inherits
    the programs (and the CEL library) instead of building its own."""
    schemas = catalog(tuple(run.config.crds or ()))
    for api_version, kind in sorted(run.kinds):
        rules = schemas.cel(api_version, kind)
        if rules is not None:
            rules.compile()
    return schemas


def check(obj: K8sObject, ctx: RuleContext) -> Iterator[Finding]:
    schemas: SchemaCatalog = ctx.state
    validator = schemas.validator(obj.api_version, obj.kind)
    if validator is None:
        return
    violations = [v for v in validator.validate(obj.data) if _kept(obj, v)]
    for index, violation in enumerate(violations[:MAX_PER_OBJECT]):  # the engine's cap, before any message is made
        message, remedy = _message(obj, violation, schemas)
        if index == MAX_PER_OBJECT - 1 and len(violations) > MAX_PER_OBJECT:
            message += f" ({len(violations) - MAX_PER_OBJECT} more violations of this object are not listed)"
        yield ctx.finding(at=_position(obj, violation), message=message, remedy=remedy,
                          fix=spelling_fix(obj, violation))
    rules = schemas.cel(obj.api_version, obj.kind)
    if rules is not None and not violations and isinstance(obj.data, dict):
        # CEL only on an object of the right shape: rules read fields by their real names and
        # types, so on a misspelt or mistyped field they would repeat the finding above.
        yield from cel_findings(obj, ctx, rules)


# Bounds of a CRD's schema that rules.md gives KQ004 (webhook parity) to report, with the webhook's
# own words: KQ002 leaves them alone rather than report one mistake twice. "*" is any list index.
WEBHOOK_OWNED_BOUNDS: dict[tuple[str, str], frozenset[tuple[Any, ...]]] = {
    ("leaderworkerset.x-k8s.io", "LeaderWorkerSet"): frozenset({("spec", "replicas")}),
    ("batch.volcano.sh", "Job"): frozenset({
        ("spec", "tasks"), ("spec", "tasks", "*", "name"),
        ("spec", "tasks", "*", "partitionPolicy", "totalPartitions"),
        ("spec", "tasks", "*", "partitionPolicy", "partitionSize")}),
}


def _kept(obj: K8sObject, violation: Violation) -> bool:
    """Whether KQ002 reports ``violation``: not a bound judged on a string holding an envsubst
    placeholder (`flavor-${TOPOLOGY}`: a template's value, known once it is rendered; rules.md
    KQ006), nor a bound KQ004 reports."""
    if violation.problem != OUT_OF_BOUNDS:
        return True
    if isinstance(violation.value, str) and holds_placeholder(violation.value):
        return False
    owned = WEBHOOK_OWNED_BOUNDS.get((obj.group, obj.kind))
    return owned is None or tuple("*" if isinstance(step, int) else step for step in violation.path) not in owned


def _position(obj: K8sObject, violation: Violation) -> Location:
    """Unknown fields and wrong-typed mappings/lists point at the key; bad scalars at the value."""
    if violation.problem == UNKNOWN_FIELD or isinstance(violation.value, (dict, list)):
        return obj.at(*violation.path)
    return obj.at_value(*violation.path)


def _message(obj: K8sObject, violation: Violation, schemas: SchemaCatalog) -> tuple[str, str]:
    """What the API server does with the object, and the remedy."""
    where = f"{obj.display()}: `{dotted(violation.path)}`"
    source = schemas.source(obj.api_version, obj.kind)
    origin = "" if source == "kqlint's schema" else f" (schema from {source})"
    if violation.problem == UNKNOWN_FIELD:
        return _unknown_field(obj, violation, schemas, origin)
    if violation.problem == NOT_IN_ENUM:
        fix = violation.hint or "use one of the valid values"
        other = _other_version(obj, violation.path, schemas, violation.value)
        if other:
            fix += f" (`{_plain(violation.value)}` is valid in {other}, not in {obj.api_version})"
        return (f"{obj.display()}: `{dotted(violation.path)}: {_plain(violation.value)}` is not a valid "
                f"value{origin} ({_choices(violation.expected)}): the API server rejects the object"), _sentence(fix)
    if violation.problem == OUT_OF_BOUNDS:
        return (f"{where}: {violation.expected[0]}{origin}: the API server rejects the object",
                f"Change `{dotted(violation.path)}`: it must {violation.expected[1]}")
    plain = violation.value is not None and not isinstance(violation.value, (dict, list))
    shown = f" ({_shown(violation.value)})" if plain else ""
    return (f"{where} must be {describe_expected(violation.expected)}, not "
            f"{describe_type(violation.value)}{shown}{origin}: the API server "
            "rejects the object"), _sentence(violation.hint or "write a value of that type")


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]


def _unknown_field(obj: K8sObject, violation: Violation, schemas: SchemaCatalog,
                   origin: str) -> tuple[str, str]:
    fix = violation.hint or "remove it or check its spelling and indentation"
    other = _other_version(obj, violation.path, schemas)
    if other:
        fix += f" (`{dotted(violation.path)}` exists in {other}; this object is {obj.api_version})"
    return (f"{obj.display()}: unknown field `{dotted(violation.path)}` in {obj.api_version} "
            f"{obj.kind}{origin}: `kubectl apply` rejects the object, or without strict validation "
            "drops the field"), _sentence(fix)


def _other_version(obj: K8sObject, path: tuple[Any, ...], schemas: SchemaCatalog,
                   value: Any = None) -> str | None:
    """Another apiVersion of the same kind where this field (with ``value``, for an enum)
    is valid: Kueue v1beta1 and v1beta2 differ in both."""
    for api_version in schemas.versions(obj.group, obj.kind):
        other = schemas.validator(api_version, obj.kind) if api_version != obj.api_version else None
        if other is None:
            continue
        if other.schema_at(path) is not None if value is None else other.accepts(path, value):
            return api_version
    return None


def _plain(value: Any) -> str:
    text = str(value).lower() if isinstance(value, bool) else str(value)
    return text[:60] + ("…" if len(text) > 60 else "")


def _shown(value: Any) -> str:
    """A scalar as YAML would need it written: strings in double quotes."""
    return f"`{json.dumps(value) if isinstance(value, str) else _plain(value)}`"


def _choices(choices: tuple[Any, ...]) -> str:
    shown = ", ".join(f"`{c}`" for c in choices[:MAX_SHOWN_CHOICES])
    more = f" and {len(choices) - MAX_SHOWN_CHOICES} more" if len(choices) > MAX_SHOWN_CHOICES else ""
    return f"valid: {shown}{more}"


# ------------------------------------------------------------------ fix: one close valid spelling

def spelling_fix(obj: K8sObject, violation: Violation) -> Fix | None:
    """Rename an unknown key, or replace a value outside an enum, when exactly one valid
    spelling is closest: a case difference, or one or two typos in a long enough word.
    A key whose correct spelling is already in the mapping is left alone (two entries)."""
    if violation.problem not in (UNKNOWN_FIELD, NOT_IN_ENUM) or not isinstance(violation.value, str):
        return None
    target = closest_spelling(violation.value, [c for c in violation.expected if isinstance(c, str)])
    if target is None:
        return None
    if violation.problem == NOT_IN_ENUM:
        return Fix.safe(f"Replace `{violation.value}` with `{target}`", Edit.replace(violation.path, target))
    siblings = obj.get(*violation.path[:-1])
    if not isinstance(siblings, dict) or target in siblings:
        return None
    return Fix.safe(f"Rename `{violation.value}` to `{target}`", Edit.rename(violation.path, target))
