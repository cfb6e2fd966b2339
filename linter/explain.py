"""``kqlint explain`` and ``kqlint rules``: documentation straight from the rule modules.

The README's rules table is generated here too (``kqlint rules --format markdown``);
``python -m kqlint.explain README.md`` rewrites the block between the markers, and a
test fails when the README and the registry disagree.
"""
from __future__ import annotations

import json
import sys
from typing import Any

from kqlint.rule import Rule

SUPPRESS_HINT = """
## How to suppress
On the object: `metadata.annotations: {{kqlint.io/ignore: "{code}"}}`, or with a reason:
`ignore.kqlint.io/{code}: "<why>"`. In YAML: `# kqlint: ignore[{code}]` on the line or the
line above it, `# kqlint: ignore-file[{code}]` for a whole file. In config: `ignore: [{code}]`.
"""

README_START = "<!-- rules-table:start -->"
README_END = "<!-- rules-table:end -->"
README_UPDATE_COMMAND = "python -m kqlint.explain README.md"


def available_rules(config: Any = None) -> list[Rule]:
    """Every rule a run can use: built-in, plugins and the config's custom rules, sorted by code."""
    from kqlint.registry import all_rules

    plugins = getattr(config, "plugins", ()) if config is not None else ()
    custom: list[Rule] = []
    if config is not None and getattr(config, "custom_rules", ()):
        from kqlint.custom import custom_rules

        custom = custom_rules(config.custom_rules)
    return all_rules(plugins, custom)


def explain_text(name: str, config: Any = None) -> str | None:
    """The full ``kqlint explain`` text of a rule (code or slug), or None when unknown."""
    from kqlint.registry import find_rule

    rule = find_rule(available_rules(config), name)
    if rule is None:
        return None
    meta = rule.meta
    header = (f"{meta.code} {meta.slug} (default severity: {meta.severity.label}"
              f"{'; profile ' + meta.profile if meta.profile else ''}"
              f"{'; off by default' if not meta.enabled else ''})\n\n{meta.summary}\n\n")
    return header + rule.doc.strip() + "\n" + SUPPRESS_HINT.format(code=meta.code)


def _enabled_label(row: dict[str, Any]) -> str:
    if row["enabled"]:
        return "yes"
    return f"profile {row['profile']}" if row["profile"] else "no"


def rule_rows(config: Any = None) -> list[dict[str, Any]]:
    return [{"code": r.code, "slug": r.slug, "severity": r.meta.severity.label,
             "enabled": r.meta.enabled and r.meta.profile is None, "profile": r.meta.profile,
             "summary": r.meta.summary} for r in available_rules(config)]


def rules_json(config: Any = None) -> str:
    return json.dumps(rule_rows(config), indent=2) + "\n"


def rules_table(config: Any = None, color: bool = False) -> str:
    import io

    from rich.console import Console
    from kqlint.sanitize import markup_safe as escape
    from rich.table import Table

    table = Table(box=None, show_edge=False, pad_edge=False)
    for column in ("code", "slug", "severity", "enabled", "summary"):
        table.add_column(column)
    for row in rule_rows(config):
        table.add_row(row["code"], row["slug"], row["severity"], _enabled_label(row), escape(row["summary"]))
    buffer = io.StringIO()
    Console(file=buffer, width=160, no_color=not color, force_terminal=color,
            highlight=False).print(table)
    return buffer.getvalue()


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def rules_markdown(config: Any = None) -> str:
    """The rules as a Markdown table (the README block between the rules-table markers)."""
    lines = ["| code | slug | severity | enabled | summary |", "| --- | --- | --- | --- | --- |"]
    for row in rule_rows(config):
        lines.append(f"| {row['code']} | `{row['slug']}` | {row['severity']} | {_enabled_label(row)} "
                     f"| {_cell(row['summary'])} |")
    return "\n".join(lines) + "\n"


def readme_with_rules_table(readme: str, table: str) -> str:
    """``readme`` with the block between the markers replaced by ``table``."""
    start, end = readme.find(README_START), readme.find(README_END)
    if start < 0 or end < start:
        raise ValueError(f"README has no {README_START} ... {README_END} block")
    return readme[:start + len(README_START)] + "\n\n" + table + "\n" + readme[end:]


def readme_rules_table(readme: str) -> str:
    """The table currently between the markers (without the markers)."""
    start, end = readme.find(README_START), readme.find(README_END)
    if start < 0 or end < start:
        raise ValueError(f"README has no {README_START} ... {README_END} block")
    return readme[start + len(README_START):end].strip("\n") + "\n"


def _update_readme(path: str) -> int:
    with open(path, encoding="utf-8") as handle:
        old = handle.read()
    new = readme_with_rules_table(old, rules_markdown())
    if new != old:
        with open(path, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(new)
        print(f"updated the rules table in {path}")
    return 0


if __name__ == "__main__":
    sys.exit(_update_readme(sys.argv[1] if len(sys.argv) > 1 else "README.md"))
