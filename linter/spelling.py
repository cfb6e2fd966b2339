"""Names, paths and types as messages spell them: the closest of a set of names ("did you
mean"), a key path as ``spec.resourceGroups[0].flavors``, a JSON Schema type in words. Used by
configuration and schema errors as well as by rules, so it knows nothing of the domain."""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

# A JSON Schema type as a message names it ("must be a list", "expected a mapping").
TYPE_WORDS = {"string": "a string", "integer": "an integer", "number": "a number",
              "boolean": "a boolean", "object": "a mapping", "array": "a list"}


def closest(word: str, candidates: Iterable[str], cutoff: float = 0.6, ignore_case: bool = False) -> str | None:
    """The candidate closest to ``word`` (difflib's ratio at least ``cutoff``), if any."""
    import difflib  # only when there is something to suggest

    if not ignore_case:
        found = difflib.get_close_matches(word, list(candidates), n=1, cutoff=cutoff)
        return found[0] if found else None
    lowered = {c.lower(): c for c in candidates}
    found = difflib.get_close_matches(word.lower(), list(lowered), n=1, cutoff=cutoff)
    return lowered[found[0]] if found else None


def suggest(word: str, choices: Iterable[str]) -> str:
    """`` (did you mean `x`?)`` for the closest of ``choices``; else `` (expected one of: a, b)``
    when there are at most 16 of them; else ``""``."""
    choices = list(choices)
    close = closest(word, choices)
    if close:
        return f" (did you mean `{close}`?)"
    return f" (expected one of: {', '.join(choices)})" if 0 < len(choices) <= 16 else ""


def dotted(path: tuple[Any, ...]) -> str:
    """``spec.resourceGroups[0].flavors`` for ``("spec", "resourceGroups", 0, "flavors")``."""
    text = ""
    for step in path:
        if isinstance(step, int) and not isinstance(step, bool):
            text += f"[{step}]"
        else:
            text += ("." if text else "") + str(step)
    return text


def closest_spelling(word: str, candidates: Iterable[str]) -> str | None:
    """The one candidate nearest ``word`` (case ignored, then edit distance), or None when the
    nearest is too far or shared by several."""
    nearest = nearest_spellings(word, candidates)
    return nearest[0] if len(nearest) == 1 else None


def nearest_spellings(word: str, candidates: Iterable[str]) -> list[str]:
    """Every candidate at the smallest edit distance from ``word`` (case ignored), sorted, when
    that distance is within the limit for the word's length (0 under 4 characters, 1 under 8,
    else 2); ``word`` itself is never one."""
    if not word:
        return []
    limit = 0 if len(word) < 4 else 1 if len(word) < 8 else 2
    scored = [(edit_distance(word.lower(), c.lower()), c) for c in set(candidates) if c and c != word]
    best = min((d for d, _ in scored), default=None)
    if best is None or best > limit:
        return []
    return sorted(c for d, c in scored if d == best)


def affix_variants(word: str, candidates: Iterable[str], suffixes: Iterable[str] = (),
                   prefixes: Iterable[str] = ()) -> list[str]:
    """The candidates that are ``word`` with one of ``suffixes`` or ``prefixes`` added, removed
    or swapped for another (``ml-cq`` and ``ml``, ``ml-queue``; case ignored), sorted."""
    suffixes, prefixes = tuple(s.lower() for s in suffixes), tuple(p.lower() for p in prefixes)

    def stems(name: str) -> set[str]:
        name = name.lower()
        found = {name}
        found |= {name[:-len(s)] for s in suffixes if name.endswith(s) and len(name) > len(s)}
        found |= {name[len(p):] for p in prefixes if name.startswith(p) and len(name) > len(p)}
        return found

    if not word or not (suffixes or prefixes):
        return []
    own = stems(word)
    return sorted(c for c in set(candidates) if c and c.lower() != word.lower() and stems(c) & own)


def edit_distance(a: str, b: str) -> int:
    """Optimal string alignment distance (a swap of two neighbours is one typo); 3 for any pair
    whose lengths differ by more than 2 (beyond every limit a caller uses)."""
    if abs(len(a) - len(b)) > 2:
        return 3  # beyond any limit: not worth the table
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                current[j] = min(current[j], previous2[j - 2] + 1)
        previous2, previous = previous, current
    return previous[-1]
