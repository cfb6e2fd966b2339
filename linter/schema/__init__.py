"""Per-kind JSON Schemas, CRDs and KQ002's validation.

KQ002's engine: the per-kind JSON Schemas in ``schemas/kinds/`` (plus ``--crd`` files),
compiled once per run into plain-Python validators that report the path of every unknown
field, wrong type, value outside an enum and size, range or pattern the API server checks,
with a suggestion.

Why not ``jsonschema``: the schemas use a small, fixed subset (type, enum, properties,
additionalProperties, items, local ``$ref``, and the bounds: sizes, ranges, ``pattern``), the
linter needs the offending path and the schema node to suggest a name, and a closure per
schema node validates a 10,000-manifest repository in a fraction of jsonschema's time without
its 80 ms import. ``null`` is valid
everywhere: Kubernetes treats an explicit null as "unset".

Only the schemas of kinds present in the inputs are read and compiled (lazily, on first
use); one :class:`SchemaCatalog` per set of ``--crd`` files is kept for the process.

The CRDs' CEL rules (``x-kubernetes-validations``) are evaluated by ``cel`` (rules, where they
sit, messages) and ``cel_runtime`` (cel-python, imported only when a kind with rules is checked).

Modules: ``compile`` (schema -> closures), ``validator`` (violations and their hints),
``hints`` (wording of a wrong value or type), ``catalog`` (which schema a kind has, ``--crd``
loading), ``crd`` (a CustomResourceDefinition -> kqlint schema, also used by
``scripts/gen_schemas.py``). The shipped JSON files are the data package ``kqlint.schemas``.
"""
from __future__ import annotations

from kqlint.schema.catalog import SchemaCatalog, catalog
from kqlint.schema.compile import NOT_IN_ENUM, OUT_OF_BOUNDS, UNKNOWN_FIELD, WRONG_TYPE, Violation
from kqlint.schema.hints import describe_expected, describe_type
from kqlint.schema.validator import Validator
from kqlint.spelling import dotted  # KQ002 and its tests import it from here

__all__ = ["NOT_IN_ENUM", "OUT_OF_BOUNDS", "UNKNOWN_FIELD", "WRONG_TYPE", "SchemaCatalog", "Validator", "Violation",
           "catalog", "describe_expected", "describe_type", "dotted"]
