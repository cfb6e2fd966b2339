"""Chains of parent links by name (Cohort ``parentName``, a KAI subgroup's ``parent``, a Volcano or
KAI Queue's parent): the loops among them and what lies below a loop, each name walked once in
all, and one object's ancestry, bounded. The links come from the repository, so a chain
thousands long must cost as many steps, not their square."""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TypeVar

_N = TypeVar("_N")
# levels of one object's ancestry walked: every object walks its own, so a hostile tree thousands
# deep would cost objects x depth (as a Kueue Cohort tree deeper than capacity.MAX_DEPTH, 64, is
# not simulated)
MAX_ANCESTRY = 64


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


def ancestry(start: _N | None, parent_of: Callable[[_N], _N | None], limit: int = MAX_ANCESTRY) -> list[_N]:
    """``start`` and its ancestors by ``parent_of``, nearest first, stopping at a missing parent,
    at a loop (an ancestor met again, by identity) or after ``limit`` of them."""
    found: list[_N] = []
    seen: set[int] = set()
    current = start
    while current is not None and id(current) not in seen and len(found) < limit:
        found.append(current)
        seen.add(id(current))
        current = parent_of(current)
    return found
