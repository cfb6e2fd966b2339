"""Write docs/rules/KQNNN.md, one page per built-in rule, from the rule's docstring.

    python scripts/rule_docs.py          # write the pages (and remove pages of rules that are gone)
    python scripts/rule_docs.py --check  # exit 1 when a page is missing, stale or left over

The page is kqlint.reporters.explain.rule_page(rule): what `kqlint explain KQNNN` prints, as Markdown.
tests/test_rule_docs.py fails when the checked-in pages and the docstrings disagree. Only
pages this script wrote (they open with its note) are ever removed.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "rules"
PAGE_NAME = re.compile(r"^KQ\d{3}\.md$")


def expected_pages() -> dict[str, str]:
    """File name -> content of every built-in rule's page."""
    from kqlint.engine.registry import builtin_rules
    from kqlint.reporters.explain import rule_page

    return {f"{rule.code}.md": rule_page(rule) for rule in builtin_rules()}


def generated(path: Path) -> bool:
    """A page this script wrote: its name is a rule code and it carries the script's note."""
    return bool(PAGE_NAME.match(path.name)) and "by scripts/rule_docs.py" in path.read_text(encoding="utf-8")


def differences(pages: dict[str, str]) -> list[str]:
    """What is missing, stale or left over in docs/rules/ (empty: in step)."""
    found = [f"missing {name}" for name in sorted(pages) if not (DOCS / name).is_file()]
    found += [f"stale {name}" for name, text in sorted(pages.items())
              if (DOCS / name).is_file() and (DOCS / name).read_text(encoding="utf-8") != text]
    if DOCS.is_dir():
        found += [f"left over {p.name}" for p in sorted(DOCS.iterdir()) if p.name not in pages and generated(p)]
    return found


def write(pages: dict[str, str]) -> None:
    DOCS.mkdir(parents=True, exist_ok=True)
    for name, text in pages.items():
        target = DOCS / name
        if not target.is_file() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8")
    for page in sorted(DOCS.iterdir()):
        if page.name not in pages and generated(page):
            page.unlink()


def main(argv: list[str]) -> int:
    pages = expected_pages()
    if argv == ["--check"]:
        found = differences(pages)
        for line in found:
            print(f"docs/rules: {line}; run python scripts/rule_docs.py", file=sys.stderr)
        return 1 if found else 0
    if argv:
        print(__doc__, file=sys.stderr)
        return 2
    write(pages)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
