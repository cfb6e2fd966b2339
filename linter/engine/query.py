"""``kqlint query``: try JMESPath on real objects, to write or debug a custom rule.

``kqlint query EXPR PATH...`` prints, for every object in PATH, what EXPR returns (as JSON)
and whether that counts as true. ``kqlint query --rule X001 PATH...`` evaluates a configured
custom rule instead: whether it applies (kinds, apiVersions), what ``when`` and ``assert``
return, and whether it fires -- the answer to "why does my rule never fire?". Expressions
see the object as custom rules do (plain mappings and lists).
"""
from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from kqlint.sanitize import terminal_safe

if TYPE_CHECKING:
    from kqlint.config import Config
    from kqlint.domain.objects import K8sObject


class QueryError(Exception):
    pass


def _evaluate(compiled: Any, data: Any) -> tuple[Any, str | None]:
    from jmespath.exceptions import JMESPathError

    try:
        return compiled.search(data), None
    except (JMESPathError, TypeError, ValueError, ArithmeticError, RecursionError) as exc:
        return None, (str(exc).splitlines() or [type(exc).__name__])[0]


def _show(value: Any, error: str | None) -> str:
    from kqlint.engine.custom import truthy

    if error is not None:
        return f"error: {error}"
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    if len(text) > 400:
        text = text[:400] + "..."
    return f"{text}  ({'true' if truthy(value) else 'false'})"


def _objects(paths: list[str], config: Config) -> list[Any]:
    from kqlint.domain.objects import INPUT
    from kqlint.engine.inputs import load_paths

    loaded, found = load_paths(paths, config, INPUT)
    if found.missing:
        raise QueryError(f"path does not exist: {terminal_safe(found.missing[0])}")
    return loaded.objects


def _head(obj: K8sObject) -> str:
    loc = obj.location()
    return terminal_safe(f"{loc.file}:{loc.line}:{loc.column}: {obj.display()}")


def query(expression: str, paths: list[str], config: Config, as_json: bool = False) -> str:
    from kqlint.domain.fields import plain
    from kqlint.engine.custom import ExpressionError, compile_expression, truthy

    try:
        compiled = compile_expression(expression)
    except ExpressionError as exc:
        raise QueryError(str(exc)) from None
    rows = []
    for obj in _objects(paths, config):
        value, error = _evaluate(compiled, plain(obj.data))
        rows.append((obj, value, error))
    if as_json:
        return json.dumps([{"file": o.file, "line": o.location().line, "object": o.ref.to_json(),
                            "value": v, "true": truthy(v), "error": e} for o, v, e in rows],
                          indent=2, ensure_ascii=False, default=str) + "\n"
    lines = [f"{_head(o)}\n    {terminal_safe(_show(v, e))}" for o, v, e in rows]
    return "\n".join(lines) + ("\n" if lines else "no Kubernetes objects in the named paths\n")


def explain_rule(code: str, paths: list[str], config: Config) -> str:
    from kqlint.engine.custom import _spec, truthy

    entries = [(i, e) for i, e in enumerate(config.custom_rules)
               if str(e.get("code", "")).upper() == code.upper() or e.get("slug") == code]
    if not entries:
        known = ", ".join(str(e.get("code")) for e in config.custom_rules) or "none"
        raise QueryError(f"no custom rule {terminal_safe(code)!r} in the configuration (custom rules: {known})")
    index, entry = entries[0]
    spec = _spec(entry, index)
    lines = [terminal_safe(f"{spec.code} {spec.slug}: when `{spec.when_text or '(always)'}`, "
                           f"assert `{spec.assert_text}`")]
    for obj in _objects(paths, config):
        lines.append(_head(obj))
        if not spec.applies_to(obj):
            lines.append("    skipped: kind/apiVersion not matched by `match`")
            continue
        from kqlint.domain.fields import plain

        data = plain(obj.data)
        if spec.when is not None:
            value, error = _evaluate(spec.when, data)
            lines.append(f"    when:   {terminal_safe(_show(value, error))}")
            if error is not None or not truthy(value):
                lines.append("    -> does not apply (when is false)")
                continue
        value, error = _evaluate(spec.assertion, data)
        lines.append(f"    assert: {terminal_safe(_show(value, error))}")
        lines.append("    -> FIRES" if error is not None or not truthy(value) else "    -> passes")
    return "\n".join(lines) + "\n"
