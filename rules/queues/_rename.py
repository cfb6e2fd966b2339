"""The unsafe fix of the unknown-reference rules (KQ202-KQ206): write the one known name the
reference is a slip of (kqlint.domain.refs.unresolved finds it) in place of the written one."""
from __future__ import annotations

from kqlint.domain.refs import Reference
from kqlint.fix.model import Edit, Fix


def rename_fix(ref: Reference, name: str | None) -> Fix | None:
    """Replace exactly the reference's value node by ``name``; unsafe: the workload (or queue)
    then uses another object than the one written, which may not be the one meant."""
    if name is None:
        return None
    return Fix.unsafe(f"Replace `{ref.name}` with `{name}`", Edit.replace(ref.site.path, name))
