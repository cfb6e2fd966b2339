"""Shell completion of option values (``kqlint --install-completion``): report formats,
severities, colour choices and rule names. Each function is a typer ``autocompletion``
callback, called with the word being completed; imports stay inside them, so a plain run
pays nothing for completion."""
from __future__ import annotations

from collections.abc import Iterable

FAIL_ON = ("error", "warning", "info", "never")  # --fail-on's values
RULES_FORMATS = ("text", "json", "markdown")  # kqlint rules --format's values


def _starting(values: Iterable[str], incomplete: str) -> list[str]:
    return [value for value in values if value.startswith(incomplete)]


def report_formats(incomplete: str) -> list[str]:
    from kqlint.reporters import FORMATS

    return _starting(FORMATS, incomplete)


def output_formats(incomplete: str) -> list[str]:
    from kqlint.cli.output import OUTPUT_STYLES
    from kqlint.reporters import FORMATS

    return _starting(dict.fromkeys([*OUTPUT_STYLES, *FORMATS]), incomplete)


def rules_formats(incomplete: str) -> list[str]:

    return _starting(RULES_FORMATS, incomplete)


def graph_formats(incomplete: str) -> list[str]:
    from kqlint.reporters.graph import FORMATS

    return _starting(FORMATS, incomplete)


def fail_on(incomplete: str) -> list[str]:

    return _starting(FAIL_ON, incomplete)


def colors(incomplete: str) -> list[str]:
    from kqlint.cli.output import COLOR_CHOICES

    return _starting(COLOR_CHOICES, incomplete)


def _rule_names() -> list[tuple[str, str]]:
    """(name, summary) for the codes, then the slugs, of the built-in rules and installed
    plugins; never a repository's `plugins:` or custom rules (completion imports nothing the
    repository names)."""
    from kqlint.engine.registry import all_rules
    from kqlint.errors import KqlintError

    try:
        rules = all_rules()
    except KqlintError:  # a broken installed plugin: `kqlint rules` says why; completion stays quiet
        return []
    return [(rule.code, rule.meta.summary) for rule in rules] + [(rule.slug, rule.code) for rule in rules]


def rule_name(incomplete: str) -> list[tuple[str, str]]:
    """A code or slug for ``kqlint explain RULE``, with its summary (zsh and fish show it).
    Codes match in any case and keep the case typed (``kq10`` offers ``kq101``), since the
    shell keeps only what starts with the word as typed."""
    return [(incomplete + name[len(incomplete):], about) for name, about in _rule_names()
            if name.upper().startswith(incomplete.upper())]


def rule_list(incomplete: str) -> list[tuple[str, str]]:
    """The last name of a comma-separated ``--select``/``--ignore`` list; the names before it
    are kept as typed (``KQ101,KQ2`` offers ``KQ101,KQ201``, ``KQ101,KQ202`` ...)."""
    head, _, last = incomplete.rpartition(",")
    prefix = f"{head}," if head else ""
    return [(prefix + name, about) for name, about in rule_name(last)]
