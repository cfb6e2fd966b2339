"""``kqlint explain`` and ``kqlint rules``: documentation straight from the rule modules.

The README's rules table is generated here too (``kqlint rules --format markdown``);
``python -m kqlint.reporters.explain README.md`` rewrites the block between the markers, and a
test fails when the README and the registry disagree. So is each built-in rule's page,
``docs/rules/KQNNN.md`` (``scripts/rule_docs.py`` writes them; SARIF's ``helpUri``, the
language server's ``codeDescription.href`` and ``kqlint explain`` point at it).
"""
from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kqlint.config import Config
    from kqlint.engine.rule import Rule

SUPPRESS_HINT = """
## How to suppress
On the object: `metadata.annotations: {{kqlint.io/ignore: "{code}"}}`, or with a reason:
`ignore.kqlint.io/{code}: "<why>"`. In YAML: `# kqlint: ignore[{code}]` on the line or the
line above it, `# kqlint: ignore-file[{code}]` for a whole file. In config: `ignore: [{code}]`.
"""

README_START = "<!-- rules-table:start -->"
README_END = "<!-- rules-table:end -->"
README_UPDATE_COMMAND = "python -m kqlint.reporters.explain README.md"
DOCS_DIR = "docs/rules"
DOCS_URL = "https://github.com/kqlint/kqlint/blob/main/docs/rules/"
PAGE_NOTE = ("<!-- Generated from the docstring of {module} by scripts/rule_docs.py: edit the docstring, "
             "then run the script. -->")
FIX_LINE = {
    "safe": "Fix: safe: `kqlint check --fix` applies it (`--diff` shows it first).",
    "unsafe": "Fix: unsafe: `kqlint check --fix --unsafe-fixes` applies it; it changes what the workload "
              "does, so review it (`--unsafe-fixes --diff`).",
    None: "Fix: none: fix by hand (see How to fix).",
}


def explain_text(name: str, config: Config | None = None) -> str | None:
    """The full ``kqlint explain`` text of a rule (code or slug), or None when unknown."""
    from kqlint.engine.registry import load_rules

    rule = load_rules(config).find(name)
    return rule_text(rule) if rule is not None else None


def rule_text(rule: Rule) -> str:
    """The ``kqlint explain`` text of one rule (also SARIF's rule help): a built-in rule's
    ends with where its page lives."""
    meta = rule.meta
    header = (f"{meta.code} {meta.slug} (default severity: {meta.severity.label}"
              f"{'; profile ' + meta.profile if meta.profile else ''}"
              f"{'; off by default' if not meta.enabled else ''})\n\n{meta.summary}\n\n")
    url = doc_url(rule)
    where = f"\nDocumentation: {DOCS_DIR}/{meta.code}.md in the repository, {url}\n" if url else ""
    return header + _body(rule) + where


def _body(rule: Rule) -> str:
    """The fix line, the docstring and how to suppress: explain's text and the page share it."""
    meta = rule.meta
    doc = str(rule.doc).strip()
    fix = FIX_LINE[meta.fix]
    if "## How to fix" not in doc:  # a custom rule's generated text has no such section to point at
        fix = fix.replace(" (see How to fix)", "")
    return fix + "\n\n" + doc + "\n" + SUPPRESS_HINT.format(code=meta.code)


def is_builtin(rule: Rule) -> bool:
    """A rule kqlint ships (plugins and custom rules have no page in kqlint's repository)."""
    from kqlint.rules import BUILTIN

    return rule.origin in BUILTIN


def doc_url(rule: Rule) -> str | None:
    """Where a built-in rule's page is published (None for plugins and custom rules)."""
    return f"{DOCS_URL}{rule.code}.md" if is_builtin(rule) else None


def code_doc_url(code: str) -> str | None:
    """The page of the built-in rule ``code`` (a finding knows only its code); None for others.
    Built-in modules are named ``kqNNN_slug`` (tests/test_rule_catalogue.py holds them to it)."""
    from kqlint.rules import BUILTIN

    builtin = {module.rsplit(".", 1)[-1][:5].upper() for module in BUILTIN}
    return f"{DOCS_URL}{code}.md" if code in builtin else None


def rule_page(rule: Rule) -> str:
    """``docs/rules/KQNNN.md``: the rule's ``kqlint explain`` text as a Markdown page."""
    meta = rule.meta
    when = (f"only with profile `{meta.profile}`" if meta.profile
            else "on by default" if meta.enabled else "off by default")
    source = "rules/" + rule.origin.removeprefix("kqlint.rules.").replace(".", "/") + ".py"
    return (f"# {meta.code} {meta.slug}\n\n{PAGE_NOTE.format(module=source)}\n\n"
            f"Default severity: {meta.severity.label}; {when}.\n\n{meta.summary}\n\n{_body(rule)}")


def _enabled_label(row: dict[str, Any]) -> str:
    if row["enabled"]:
        return "yes"
    return f"profile {row['profile']}" if row["profile"] else "no"


def _fix_label(row: dict[str, Any]) -> str:
    return str(row["fix"] or "-")


def rule_rows(config: Config | None = None, effective: bool = False) -> list[dict[str, Any]]:
    """One row per rule; with ``effective`` (a configuration is in effect) each row also says
    the severity and whether the rule runs under that configuration."""
    from kqlint.engine.registry import load_rules

    rules = load_rules(config)
    rows: list[dict[str, Any]] = [{"code": r.code, "slug": r.slug, "severity": r.meta.severity.label,
             "enabled": r.meta.enabled and r.meta.profile is None, "profile": r.meta.profile,
             "fix": r.meta.fix, "summary": r.meta.summary} for r in rules]
    if effective and config is not None:
        from kqlint.config import check_rule_names
        from kqlint.engine.runner import select_rules

        checked = check_rule_names(config, rules)
        running = {rule.code for rule in select_rules(rules, checked)}
        for rule, row in zip(rules, rows, strict=True):
            level = checked.severity.get(rule.code, rule.meta.severity)
            row["effective"] = {"severity": level.label, "enabled": rule.code in running}
    return rows


def rules_json(config: Config | None = None, effective: bool = False) -> str:
    return json.dumps(rule_rows(config, effective), indent=2) + "\n"


def _effective_cells(row: dict[str, Any]) -> tuple[str, str]:
    severity, enabled = row["severity"], _enabled_label(row)
    effective = row.get("effective")
    if effective is None:
        return severity, enabled
    if effective["severity"] != row["severity"]:
        severity = f"{effective['severity']} (default {row['severity']})"
    now = "yes" if effective["enabled"] else "no"
    if now != ("yes" if row["enabled"] else "no"):
        enabled = f"{now} (default {enabled})"
    return severity, enabled


def rules_table(config: Config | None = None, color: bool = False, width: int | None = None,
                effective: bool = False) -> str:
    """The rules as a table, ``width`` columns wide (the terminal's; 160 when piped): the
    summary column wraps. With ``effective``, severity and enabled show the configuration's
    values, with the default in parentheses where they differ."""
    import io

    from kqlint.sanitize import markup_safe as escape
    from kqlint.sanitize import terminal_safe
    from rich.console import Console
    from rich.table import Table

    rows = rule_rows(config, effective)
    if width is not None and width < 120:
        return _narrow_rules(rows, width, config.path if effective and config is not None else None)
    table = Table(box=None, show_edge=False, pad_edge=False)
    for column in ("code", "slug", "severity", "enabled", "fix"):
        table.add_column(column, no_wrap=True)
    table.add_column("summary", overflow="fold", ratio=1)
    for row in rows:
        severity, enabled = _effective_cells(row)
        table.add_row(escape(terminal_safe(row["code"])), escape(terminal_safe(row["slug"])), severity, enabled,
                      _fix_label(row), escape(terminal_safe(row["summary"])))
    buffer = io.StringIO()
    console = Console(file=buffer, width=width or 160, no_color=not color, force_terminal=color,
                      highlight=False)
    if effective and config is not None and getattr(config, "path", None):
        console.print(f"configuration: {escape(terminal_safe(str(config.path)))}")
    console.print(table)
    # rich pads every row to the full width: piped into a file or `cat`, lines end at their text
    return "\n".join(line.rstrip() for line in buffer.getvalue().split("\n"))


def _narrow_rules(rows: list[dict[str, Any]], width: int, config_path: Any) -> str:
    """A terminal narrower than the table: each rule on one line, its summary wrapped under it."""
    import textwrap

    from kqlint.sanitize import terminal_safe

    headings = ("code", "slug", "severity", "enabled", "fix")
    cells = [(row["code"], row["slug"], *_effective_cells(row), _fix_label(row)) for row in rows]
    widths = [max(len(c[i]) for c in [*cells, headings]) for i in range(len(headings))]
    lines = [f"configuration: {terminal_safe(str(config_path))}"] if config_path else []
    lines.append("  ".join(h.ljust(w) for h, w in zip(headings, widths, strict=True)).rstrip())
    for row, cell in zip(rows, cells, strict=True):
        lines.append("  ".join(terminal_safe(c).ljust(w) for c, w in zip(cell, widths, strict=True)).rstrip())
        lines.extend(textwrap.wrap(terminal_safe(row["summary"]), width=max(30, width - 1),
                                   initial_indent="    ", subsequent_indent="    "))
    return "\n".join(lines) + "\n"


def suggest(name: str, config: Config | None = None) -> str:
    """`` (did you mean KQ101 pod-preemption-enabled?)`` for a near miss, else ''."""
    import difflib

    from kqlint.engine.registry import load_rules

    rules = load_rules(config)
    names = {r.code: r for r in rules} | {r.slug: r for r in rules}
    close = difflib.get_close_matches(name.strip(), list(names), n=1, cutoff=0.6) or \
        difflib.get_close_matches(name.strip().upper(), [r.code for r in rules], n=1, cutoff=0.6) or \
        difflib.get_close_matches(name.strip().lower(), [r.slug for r in rules], n=1, cutoff=0.6)
    if not close:
        return ""
    rule = names[close[0]]
    return f" (did you mean {rule.code} {rule.slug}?)"


def render_markdown(text: str, color: bool, width: int | None) -> str:
    """``text`` (Markdown) rendered for a terminal by rich; unchanged when piped."""
    if width is None and not color:
        return text
    import io

    from rich.console import Console
    from rich.markdown import Markdown

    buffer = io.StringIO()
    Console(file=buffer, width=width or 100, force_terminal=color, no_color=not color,
            highlight=False).print(Markdown(text))
    return "\n".join(line.rstrip() for line in buffer.getvalue().split("\n"))


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def rules_markdown(config: Config | None = None) -> str:
    """The rules as a Markdown table (the README block between the rules-table markers)."""
    lines = ["| code | slug | severity | enabled | fix | summary |", "| --- | --- | --- | --- | --- | --- |"]
    for row in rule_rows(config):
        lines.append(f"| {row['code']} | `{row['slug']}` | {row['severity']} | {_enabled_label(row)} "
                     f"| {_fix_label(row)} | {_cell(row['summary'])} |")
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
