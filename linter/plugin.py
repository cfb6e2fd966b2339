"""The plugin author's API: everything a rule plugin may import, and nothing else.

A plugin imports from ``kqlint.plugin`` only; every other module of kqlint is internal and
may change between releases. docs/configuration.md ("Plugins") shows a complete plugin.

- :class:`RuleMeta`: the rule's code (letters then digits, never ``KQ``), slug, default
  severity, summary, and ``kinds``: the (group, kind) identities it checks, as
  :class:`GroupKind` values (``GroupKind("batch", "Job")``; core kinds have group ``""``).
- ``check(obj, ctx)`` gets each input object of those kinds, a :class:`K8sObject`:
  ``obj.get(*path)``, ``obj.at(*path)`` / ``obj.at_value(*path)`` (a :class:`Location`),
  ``obj.labels``, ``obj.annotations``, ``obj.display()``. ``check_graph(graph, ctx)`` gets
  the whole graph once instead (``scope="graph"``).
- ``ctx`` is a :class:`RuleContext`: ``ctx.options`` (the ``Options`` dataclass, from
  config ``rules:``), ``ctx.graph``, ``ctx.state`` (what ``prepare(run)`` returned) and
  ``ctx.finding(at, message, related=...)``, which builds a :class:`Finding`. **Yield
  it**: findings are what the rule yields; one built and not yielded is not reported.
- ``prepare(run)`` (optional) runs once per lint run, before ``--jobs`` workers fork, with a
  :class:`Run` (``run.config``, ``run.kinds``: the input objects' apiVersion and kind); its
  result is ``ctx.state``.
- :class:`Fix`, :class:`Edit`, :class:`Applicability`: the change a finding proposes,
  as edits of nodes by path inside the object (``--fix`` applies safe ones).
"""
from __future__ import annotations

from kqlint.domain.graph import ObjectGraph
from kqlint.domain.kinds import GroupKind
from kqlint.domain.objects import K8sObject
from kqlint.engine.rule import RuleContext, RuleMeta, Run
from kqlint.fix.model import Applicability, Edit, Fix
from kqlint.model import Finding, Location, Severity

__all__ = ["RuleMeta", "RuleContext", "Run", "Severity", "K8sObject", "ObjectGraph", "Location",
           "Finding", "Fix", "Edit", "Applicability", "GroupKind"]
