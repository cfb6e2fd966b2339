"""``--format gitlab``: a GitLab Code Quality report (``artifacts:reports:codequality``), the
JSON array the merge-request widget and the diff annotations read.

- ``check_name`` is ``CODE slug``; ``description`` the message and the remedy; ``location.path`` the file
  relative to the project root (the repository root, wherever kqlint ran) with
  ``lines.begin`` and ``positions.begin`` (line and column).
- ``fingerprint``: the same stable key SARIF's ``partialFingerprints`` use (rule code +
  object + field path + file, and an ordinal among equal keys), hashed; never the line, so
  an edit elsewhere in a file neither resolves nor re-opens an issue in the widget.
- severity: error -> ``major``, warning -> ``minor``, info -> ``info`` (``critical`` and
  ``blocker`` are left for security scanners, which GitLab ranks alongside).
- Findings without a file in the repository (stdin without ``--stdin-filename``, objects a
  profile declares) keep their display name; GitLab shows them without a diff link.
"""
from __future__ import annotations

import hashlib
import json
from typing import Any

from kqlint.model import Finding, Report, Severity

SEVERITIES = {Severity.ERROR: "major", Severity.WARNING: "minor", Severity.INFO: "info"}


def fingerprints(findings: list[Finding]) -> list[tuple[Finding, str]]:
    from kqlint.engine.baseline import occurrences

    result = []
    for finding, key, ordinal in occurrences(findings):
        text = "|".join((key.code, key.object, key.path, key.file, str(ordinal)))
        result.append((finding, hashlib.sha256(text.encode()).hexdigest()[:32]))
    return result


def issue(finding: Finding, fingerprint: str, path: str) -> dict[str, Any]:
    """``path``: the finding's file from the project root (kqlint.reporters.paths)."""
    from kqlint.reporters.remedy import with_remedy

    loc = finding.location
    return {
        "type": "issue",
        "check_name": f"{finding.code} {finding.slug}",
        "description": with_remedy(finding),
        "categories": ["Bug Risk"],
        "severity": SEVERITIES[finding.severity],
        "fingerprint": fingerprint,
        "location": {"path": path, "lines": {"begin": loc.line},
                     "positions": {"begin": {"line": loc.line, "column": loc.column}}},
    }


def render(report: Report, **_: Any) -> str:
    from kqlint.reporters.paths import repository_paths

    path = repository_paths(report)
    issues = [issue(f, fp, path(f.location.file)) for f, fp in fingerprints(list(report.findings))]
    issues.sort(key=lambda i: (i["location"]["path"], i["location"]["lines"]["begin"],
                               i["location"]["positions"]["begin"]["column"], i["check_name"], i["fingerprint"]))
    return json.dumps(issues, indent=2, ensure_ascii=False) + "\n"
