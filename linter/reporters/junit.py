"""``--format junit``: JUnit XML for CI test-report views (GitLab, Jenkins, Azure, CircleCI).

One test case per linted file (``classname="kqlint"``, ``name`` and ``file`` the path). A
file with findings at or above ``--fail-on`` fails: its ``<failure>`` has the first
finding's code as ``type``, ``file:line:col code message`` as ``message``, and every
finding (position, severity, code, slug, message, remedy, related locations) in its text.
Findings below ``--fail-on`` are listed in ``<system-out>`` and the case passes, as the
exit status does. Internal errors become one ``<error>`` test case. Times are ``0``
and there is no timestamp: identical input gives identical bytes.
"""
from __future__ import annotations

import re
from typing import Any

from kqlint import __version__
from kqlint.model import Finding, Report, Severity

_DEFAULT = object()
_INVALID_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def render(report: Report, fail_on: Any = _DEFAULT, **_: Any) -> str:
    import xml.etree.ElementTree as ET

    threshold: Severity | None = Severity.WARNING if fail_on is _DEFAULT else fail_on
    by_file: dict[str, list[Finding]] = {file: [] for file in report.files}
    for finding in report.findings:
        by_file.setdefault(finding.location.file, []).append(finding)
    suite = ET.Element("testsuite", name="kqlint")
    ET.SubElement(ET.SubElement(suite, "properties"), "property", name="kqlint.version", value=__version__)
    failures = sum(_case(suite, file, by_file[file], threshold) for file in sorted(by_file))
    errors = _internal_errors(suite, report.internal_errors)
    counts = {"tests": str(len(by_file) + (1 if errors else 0)), "failures": str(failures),
              "errors": str(errors), "skipped": "0", "time": "0"}
    suite.attrib.update(counts)
    root = ET.Element("testsuites", {"name": "kqlint", **counts})
    root.append(suite)
    ET.indent(root, space="  ")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _clean(text: str) -> str:
    """XML 1.0 cannot carry most control characters, even escaped; a CR would be read back
    as a line break anyway (XML normalises line ends)."""
    from kqlint.sanitize import safe_lines

    return _INVALID_XML.sub("\ufffd", safe_lines(text.replace("\r\n", "\n").replace("\r", "\n")))


def _line(finding: Finding) -> str:
    loc = finding.location
    text = (f"{loc.file}:{loc.line}:{loc.column}: {finding.severity.label} {finding.code} "
            f"{finding.slug}: {finding.message}")
    if finding.remedy:
        text += f"\n    help: {finding.remedy}"
    for related in finding.related:
        note = f": {related.message}" if related.message else ""
        text += f"\n    related: {related.file}:{related.line}:{related.column}{note}"
    return _clean(text)


def _case(suite: Any, file: str, findings: list[Finding], threshold: Severity | None) -> int:
    import xml.etree.ElementTree as ET

    case = ET.SubElement(suite, "testcase", classname="kqlint", name=_clean(file), file=_clean(file), time="0")
    failing = [f for f in findings if threshold is not None and f.severity >= threshold]
    passing = [f for f in findings if f not in failing]
    if failing:
        first = failing[0]
        more = f" (and {len(failing) - 1} more)" if len(failing) > 1 else ""
        loc = first.location
        failure = ET.SubElement(case, "failure", type=first.code,
                                message=_clean(f"{loc.file}:{loc.line}:{loc.column} {first.code} "
                                               f"{first.message}{more}"))
        failure.text = "\n".join(_line(f) for f in failing) + "\n"
    if passing:
        ET.SubElement(case, "system-out").text = "\n".join(_line(f) for f in passing) + "\n"
    return 1 if failing else 0


def _internal_errors(suite: Any, errors: tuple[str, ...]) -> int:
    import xml.etree.ElementTree as ET

    if not errors:
        return 0
    case = ET.SubElement(suite, "testcase", classname="kqlint", name="kqlint internal errors", time="0")
    error = ET.SubElement(case, "error", type="InternalError", message=_clean(errors[0]))
    error.text = _clean("\n".join(errors)) + "\n"
    return 1
