"""Helpers for the CI-integration tests: run the CLI in-process, golden files, SARIF and
JUnit validation."""
from __future__ import annotations

import contextlib
import functools
import io
import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from helpers import chdir
from kqlint.cli import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
GOLDEN = ROOT / "tests" / "fixtures" / "golden"
SARIF_SCHEMA = ROOT / "tests" / "data" / "sarif-2.1.0.json"  # OASIS SARIF 2.1.0, see tests/data/README.md


def cli(*args: str, cwd: Path) -> tuple[int, str, str]:
    """Exit status, stdout and stderr of ``kqlint ARGS`` run in ``cwd`` (in-process)."""
    out, err = io.StringIO(), io.StringIO()
    with chdir(cwd), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


def check_golden(name: str, text: str, update: bool) -> None:
    path = GOLDEN / name
    if update:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="\n")
    assert path.is_file(), f"{path} missing: run `pytest --update-golden`"
    expected = path.read_text(encoding="utf-8")
    assert text == expected, f"{name} differs from its golden file; if intended: pytest --update-golden"


@functools.lru_cache(maxsize=1)
def _sarif_validator() -> Any:
    import jsonschema

    schema = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))
    validator = jsonschema.validators.validator_for(schema)
    validator.check_schema(schema)
    return validator(schema)


def validate_sarif(text: str) -> dict[str, Any]:
    """Parse a SARIF log and validate it against the official SARIF 2.1.0 schema (a
    draft-04 schema, vendored in tests/data); plus what the schema cannot say."""
    data: dict[str, Any] = json.loads(text)
    errors = sorted(_sarif_validator().iter_errors(data), key=lambda e: list(e.path))
    assert not errors, [f"{list(e.path)}: {e.message}" for e in errors[:5]]
    run = data["runs"][0]
    rule_ids = [rule["id"] for rule in run["tool"]["driver"]["rules"]]
    assert rule_ids == sorted(set(rule_ids))
    for result in run["results"]:
        assert rule_ids[result["ruleIndex"]] == result["ruleId"]
        physical = result["locations"][0].get("physicalLocation")
        if physical is None:  # stdin without --stdin-filename: no pseudo-artifact, the message says so
            assert "stdin" in result["message"]["text"]
            continue
        region = physical["region"]
        assert region["startLine"] >= 1 and region["startColumn"] >= 1
        assert result["partialFingerprints"]["kqlint/v1"]
    return data


def parse_junit(text: str) -> ET.Element:
    """Parse JUnit XML and check what CI parsers rely on: the declaration, one testsuite in
    testsuites, integer counts that add up, every testcase named, one failure at most."""
    assert text.startswith('<?xml version="1.0" encoding="UTF-8"?>\n')
    root = ET.fromstring(text.encode("utf-8"))
    assert root.tag == "testsuites"
    suites = root.findall("testsuite")
    assert len(suites) == 1
    suite = suites[0]
    cases = suite.findall("testcase")
    for element in (root, suite):
        assert int(element.get("tests", "-1")) == len(cases)
        assert int(element.get("failures", "-1")) == sum(1 for c in cases if c.find("failure") is not None)
        assert int(element.get("errors", "-1")) == sum(1 for c in cases if c.find("error") is not None)
        assert float(element.get("time", "x")) == 0
    for case in cases:
        assert case.get("name") and case.get("classname") == "kqlint"
        assert len(case.findall("failure")) <= 1
        failure = case.find("failure")
        if failure is not None:
            assert failure.get("type") and failure.get("message") and failure.text
    return root
