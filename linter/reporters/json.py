"""``--format json``: the shape in cli.md, pinned by schemas/report.schema.json."""
from __future__ import annotations

import json
from typing import Any

from kqlint import __version__
from kqlint.model import Finding, Location, Report, Severity


def _location(location: Location) -> dict[str, Any]:
    return {"file": location.file, "line": location.line, "column": location.column,
            "message": location.message}


def finding_to_json(finding: Finding) -> dict[str, Any]:
    data: dict[str, Any] = {
        "code": finding.code, "slug": finding.slug, "severity": finding.severity.label,
        "message": finding.message, "file": finding.location.file,
        "line": finding.location.line, "column": finding.location.column,
        "object": finding.obj.to_json() if finding.obj else None,
        "related": [_location(r) for r in finding.related],
    }
    if finding.suppression is not None:
        data["suppression"] = {"justification": finding.suppression}
    if finding.remedy:
        data["remedy"] = finding.remedy
    if finding.fix is not None and finding.fix.text:
        fix = finding.fix
        data["fix"] = {"title": fix.title, "applicability": fix.applicability.value,
                       "edits": [{"start": {"line": e.line, "column": e.column},
                                  "end": {"line": e.end_line, "column": e.end_column},
                                  "content": e.content} for e in fix.text]}
    return data


def report_to_json(report: Report, report_suppressed: bool = False) -> dict[str, Any]:
    summary = report.summary
    findings = list(report.findings)
    if report_suppressed:
        findings = sorted(findings + list(report.suppressed), key=Finding.sort_key)
    return {
        "version": __version__,
        "summary": {
            "files": summary.files, "documents": summary.documents, "objects": summary.objects,
            "findings": len(findings),
            "by_severity": {s.label: sum(1 for f in findings if f.severity == s)
                            for s in (Severity.ERROR, Severity.WARNING, Severity.INFO)},
            "suppressed": len(report.suppressed), "baselined": report.baselined,
            "skipped": summary.skipped_documents,
        },
        "findings": [finding_to_json(f) for f in findings],
    }


def render(report: Report, report_suppressed: bool = False, **_: Any) -> str:
    return json.dumps(report_to_json(report, report_suppressed), indent=2, ensure_ascii=False) + "\n"
