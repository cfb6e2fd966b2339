"""Chains of parent links by name (Cohort ``parentName``, a KAI subgroup's ``parent``): the loops
among them and what lies below a loop, each name walked once in all. The links come from the
repository, so a chain thousands long must cost as many steps, not their square."""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TypeVar

_N = TypeVar("_N")


def parent_loops(parents: Mapping[_N, _N | None]) -> list[list[_N]]:
    """Each loop of ``parents`` (name -> its parent; a name that is no key ends a chain) once, its
    names in parent order from where the walk that found it entered it; walks start from the
    names in ``parents``' order."""
    state: dict[_N, bool] = {}  # True: on the walk under way; False: walked before
    loops = []
    for name in parents:
        path: list[_N] = []
        current: _N | None = name
        while current is not None and current in parents and current not in state:
            state[current] = True
            path.append(current)
            current = parents[current]
        if current is not None and state.get(current):  # back on this walk: a new loop
            loops.append(path[path.index(current):])
        for walked in path:
            state[walked] = False
    return loops


def reaching(targets: Iterable[_N], parents: Mapping[_N, _N | None]) -> frozenset[_N]:
    """The names of ``parents`` whose chain (themselves included) reaches one of ``targets``: a
    name's answer is its parent's unless it is a target, worked out once per name."""
    wanted = frozenset(targets)
    known: dict[_N, bool] = {}
    for name in parents:
        path: list[_N] = []
        current: _N | None = name
        while current is not None and current in parents and current not in known and current not in wanted:
            known[current] = False  # provisional: a loop without a target ends the walk here
            path.append(current)
            current = parents[current]
        answer = current is not None and (current in wanted or known.get(current, False))
        for walked in path:
            known[walked] = answer
    return frozenset(name for name, reaches in known.items() if reaches) | (wanted & parents.keys())
