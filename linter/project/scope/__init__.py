"""What is applied together (rules.md "Applied together", cli.md "Project root and context").

- The context of a run: ``--context``/config ``context:`` when given (exactly that), else the
  project root's manifests, whatever paths are named (files, folders or the root itself).
- Kustomize patch files (``patches`` with a ``path``, ``patchesStrategicMerge``,
  ``patchesJson6902``) are fragments, not objects: never reported on, never resolved to.
- Units: folders applied on their own. Every folder holding a ``kustomization.yaml`` (merged
  with the kustomizations it includes), every Helm chart folder, every chainsaw or kuttl test
  and every independent sample (sibling folders with a README that no reference links) is a
  unit; config ``units:`` globs replace that detection. Files in no unit are shared: every
  unit sees them.
- The assert and error files of a test harness are expected state, never applied; a test's
  unit is open: its objects may name what only the system under test creates.
  A unit never resolves into another unit; a name defined only in another unit is neither
  resolved nor reported unknown.
- A file a kustomization lists is applied in the namespace its ``namespace:`` sets (the
  outermost one rendering it), whatever the file says; several renderings in several
  namespaces make lookups from it uncertain (no unknown-reference finding).

Modules: ``context`` (the context plan), ``layout`` (kustomizations and charts on disk),
``harness`` (chainsaw and kuttl tests), ``samples`` (independent samples), ``units``
(fragments and the unit of each file) and ``partitions`` (one graph's objects per unit).
"""
from __future__ import annotations

from kqlint.project.scope.context import NO_ROOT_NOTE, context_plan
from kqlint.project.scope.partitions import apply_rendered_namespaces, partitions, without_fragments
from kqlint.project.scope.units import scope_of

__all__ = ["NO_ROOT_NOTE", "apply_rendered_namespaces", "context_plan", "partitions", "scope_of",
           "without_fragments"]
