"""The message catalogue: every finding the rule fixtures produce says what breaks on the
cluster in at most 240 characters, and how to fix it apart, in its remedy (the ``help:``
line), as ruff keeps ``message`` and ``fix_title`` apart.

The catalogue is every finding of every ``bad*`` case under tests/fixtures/rules/ (the same
cases tests/test_rule_fixtures.py checks positions on), and of the docstrings' Bad examples.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers import chdir, lint_case
from kqlint.config import Config
from kqlint.engine.pipeline import lint
from kqlint.engine.registry import builtin_rules
from kqlint.model import Finding
from test_rule_catalogue import yaml_example

RULE_FIXTURES = Path(__file__).parent / "fixtures" / "rules"
MAX_MESSAGE = 240
# KQ001 reports what the YAML parser or kubectl's decoder says: there is no one remedy
WITHOUT_REMEDY = {"KQ001"}
# the verbs a remedy opens with: a message whose last clause starts with one still carries its fix
IMPERATIVES = frozenset(
    "add align annotate apply ask change choose correct create declare define delete disable drop enable "
    "fix give install keep label lint list lower make mark match merge move name pass pick point put "
    "quote raise recreate remove rename replace route run set shrink spell split use write".split())
SENTENCE = re.compile(r";\s+|\.\s+")


def _catalogue(examples: Path) -> list[tuple[str, Finding]]:
    found = []
    for rule_dir in sorted(p for p in RULE_FIXTURES.iterdir() if p.is_dir()):
        for case in sorted(p for p in rule_dir.iterdir() if p.name.startswith("bad")):
            report = lint_case(case, rule_dir.name)
            found += [(f"{rule_dir.name}/{case.name}", f) for f in report.findings]
    for rule in builtin_rules():  # the Bad example of each docstring (kqlint explain, docs/rules/)
        folder = examples / rule.code
        folder.mkdir()
        (folder / "example.yaml").write_text(yaml_example(rule, "Bad"), encoding="utf-8")
        with chdir(folder):
            report = lint(["."], Config(profile=rule.meta.profile).with_overrides(select=(rule.code,)))
        found += [(f"{rule.code} docstring", f) for f in report.findings]
    return found


@pytest.fixture(scope="module")
def catalogue(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[str, Finding]]:
    found = _catalogue(tmp_path_factory.mktemp("examples"))
    assert {case for case, _ in found if case.endswith("docstring")}  # the examples ran
    assert len({f.code for _, f in found}) >= 40  # every rule's bad cases, not an empty walk
    return found


def _last_clause_opens_with_a_verb(message: str) -> bool:
    """The last clause (after a ``;`` or a full stop), or a part of it after a ``:``, opens
    with an imperative verb: ``...; set minMember: 3``, ``...: add it``."""
    last = SENTENCE.split(message.rstrip(" ."))[-1]
    parts = [part.strip(" (`\"") for part in [last, *last.split(": ")[1:]]]
    return any(part and part.split()[0].lower() in IMPERATIVES for part in parts)


def test_every_message_fits_240_characters(catalogue: list[tuple[str, Finding]]) -> None:
    long = [(case, len(f.message), f.message) for case, f in catalogue if len(f.message) > MAX_MESSAGE]
    assert not long, long


def test_no_message_ends_in_an_imperative_clause(catalogue: list[tuple[str, Finding]]) -> None:
    commanding = [(case, f.message) for case, f in catalogue if _last_clause_opens_with_a_verb(f.message)]
    assert not commanding, commanding


def test_every_finding_but_a_parse_error_has_a_remedy_apart(catalogue: list[tuple[str, Finding]]) -> None:
    missing = [(case, f.message) for case, f in catalogue if f.code not in WITHOUT_REMEDY and not f.remedy]
    assert not missing, missing
    for case, f in catalogue:
        if f.remedy:
            assert f.remedy[0].isupper() or f.remedy[0] in "`(", (case, f.remedy)  # a sentence of its own
            assert f.remedy not in f.message, (case, f.message)


@pytest.mark.parametrize("message,commands", [
    ("Job ml/a: minMember 4 > 3 pods: the gang can never be scheduled; set minMember: 3", True),
    ("LocalQueue ml/q sets no spec.clusterQueue: the LocalQueue stays inactive. Set it", True),
    ("Job ml/a: minMember 4 > 3 pods: the gang can never be scheduled", False),
    ("Deployment ml/d: `kueue.x-k8s.io/queue-name` on the pod template: no effect", False),
])
def test_the_imperative_check_tells_a_fix_from_a_consequence(message: str, commands: bool) -> None:
    assert _last_clause_opens_with_a_verb(message) is commands
