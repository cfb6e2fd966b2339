"""``kqlint explain`` and ``kqlint rules``: documentation straight from the rule modules."""
from __future__ import annotations

import json
from typing import Any

from kqlint.rule import Rule

SUPPRESS_HINT = """
## How to suppress
On the object: `metadata.annotations: {{kqlint.io/ignore: "{code}"}}`, or with a reason:
`ignore.kqlint.io/{code}: "<why>"`. In YAML: `# kqlint: ignore[{code}]` on the line or the
line above it, `# kqlint: ignore-file[{code}]` for a whole file. In config: `ignore: [{code}]`.
"""


def _rules(config: Any = None) -> list[Rule]:
    from kqlint.registry import all_rules

    plugins = getattr(config, "plugins", ()) if config is not None else ()
    custom = []
    if config is not None and getattr(config, "custom_rules", ()):
        from kqlint.custom import custom_rules

        custom = custom_rules(config.custom_rules)
    return all_rules(plugins, custom)


def explain_text(name: str, config: Any = None) -> str | None:
    from kqlint.registry import find_rule

    rule = find_rule(_rules(config), name)
    if rule is None:
        return None
    meta = rule.meta
    header = (f"{meta.code} {meta.slug} (default severity: {meta.severity.label}"
              f"{'; profile ' + meta.profile if meta.profile else ''}"
              f"{'; off by default' if not meta.enabled else ''})\n\n{meta.summary}\n\n")
    return header + rule.doc.strip() + "\n" + SUPPRESS_HINT.format(code=meta.code)


def rule_rows(config: Any = None) -> list[dict[str, Any]]:
    return [{"code": r.code, "slug": r.slug, "severity": r.meta.severity.label,
             "enabled": r.meta.enabled and r.meta.profile is None, "profile": r.meta.profile,
             "summary": r.meta.summary} for r in _rules(config)]


def rules_json(config: Any = None) -> str:
    return json.dumps(rule_rows(config), indent=2) + "\n"


def rules_table(config: Any = None, color: bool = False) -> str:
    import io

    from rich.console import Console
    from rich.table import Table

    table = Table(box=None, show_edge=False, pad_edge=False)
    for column in ("code", "slug", "severity", "enabled", "summary"):
        table.add_column(column)
    for row in rule_rows(config):
        enabled = "yes" if row["enabled"] else (f"profile {row['profile']}" if row["profile"] else "no")
        table.add_row(row["code"], row["slug"], row["severity"], enabled, row["summary"])
    buffer = io.StringIO()
    Console(file=buffer, width=160, no_color=not color, force_terminal=color).print(table)
    return buffer.getvalue()
