"""``--format sarif``: SARIF 2.1.0 for code scanning (GitHub, GitLab, Azure DevOps).

- Every rule kqlint knows is in ``tool.driver.rules``: id, name (the slug), short and full
  description, the ``kqlint explain`` text as help, default level and whether it is on.
- Every result has the real region (start line/column, and where the node there ends, from
  the positions the loader keeps: no file is read again), its file relative to the
  ``SRCROOT`` base, the object as a logical location,
  ``relatedLocations``, and a ``partialFingerprints`` entry built from rule code + object +
  field path (not the line), so alerts survive edits.
- Suppressed findings (``--report-suppressed``) come with ``suppressions`` of kind
  ``inSource`` whose justification is the annotation's reason.
- No pseudo-artifacts: ``<stdin>`` (without ``--stdin-filename``), ``<profile NAME>`` (objects
  a built-in profile declares) and ``<config>`` (config ``external:``) are not files. They are
  not listed as artifacts and get no physical location; the message names them instead
  ("declared by the kakaocloud profile").

``SRCROOT`` is the project root (cli.md "Project root and context"; the directory kqlint ran
in when there is none), whatever folder kqlint runs from: code scanning resolves a relative
URI against the repository root, so a run from a subfolder (its files and the project context
beside it, ``../platform/x.yaml`` in the text report) gives the same URIs as a run from the
root. A file outside that folder gets an absolute ``file://`` URI.

No timestamps, no absolute paths of the machine: identical input gives identical bytes.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from kqlint import __version__
from kqlint.model import Finding, Location, Report, Severity

if TYPE_CHECKING:
    from kqlint.engine.rule import Rule

SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
INFORMATION_URI = "https://github.com/kqlint/kqlint"
SRCROOT = "SRCROOT"
FINGERPRINT = "kqlint/v1"
LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
FAMILIES = {"0": "engine", "1": "priority", "2": "queues", "3": "gang", "4": "podtemplate", "5": "kakaocloud"}


def render(report: Report, rules: Iterable[Any] | None = None, report_suppressed: bool = False,
           **_: Any) -> str:
    return json.dumps(sarif_log(report, rules, report_suppressed), indent=2, ensure_ascii=False) + "\n"


def sarif_log(report: Report, rules: Iterable[Any] | None = None,
              report_suppressed: bool = False) -> dict[str, Any]:
    findings = list(report.findings) + (list(report.suppressed) if report_suppressed else [])
    descriptors = _descriptors(_rules(rules), findings)
    index = {d["id"]: i for i, d in enumerate(descriptors)}
    artifacts = _Artifacts(report.files, findings, source_root(report.files))
    results = [_result(f, ordinal, index, artifacts) for f, ordinal in _ordinals(findings)]
    run: dict[str, Any] = {
        "tool": {"driver": {"name": "kqlint", "version": __version__, "semanticVersion": __version__,
                            "informationUri": INFORMATION_URI, "rules": descriptors}},
        "invocations": [_invocation(report)],
        "originalUriBaseIds": {SRCROOT: {"description": {
            "text": "The project root (the repository root, else the folder of the kqlint configuration, "
                    "else the directory kqlint ran in); file paths of results are relative to it."}}},
        "artifacts": artifacts.entries(),
        "columnKind": "unicodeCodePoints",
        "results": sorted(results, key=_result_order),
    }
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}


# ------------------------------------------------------------------ rules

def _rules(rules: Iterable[Any] | None) -> list[Any]:
    if rules is None:
        from kqlint.engine.registry import load_rules

        rules = load_rules()
    return sorted({rule.code: rule for rule in rules}.values(), key=lambda r: r.code)


def _descriptors(rules: list[Any], findings: list[Finding]) -> list[dict[str, Any]]:
    descriptors = [_descriptor(rule) for rule in rules]
    known = {rule.code for rule in rules}
    for finding in sorted(findings, key=lambda f: f.code):  # a finding of a rule not passed in
        if finding.code not in known:
            known.add(finding.code)
            descriptors.append({"id": finding.code, "name": finding.slug,
                                "shortDescription": {"text": finding.slug}})
    return sorted(descriptors, key=lambda d: d["id"])


def rule_help(rule: Rule) -> str:
    """The ``kqlint explain`` text of ``rule`` (tests hold it equal to explain_text)."""
    from kqlint.reporters.explain import rule_text

    return rule_text(rule)


def _section(doc: str, heading: str) -> str | None:
    match = re.search(rf"^## {re.escape(heading)}\s*\n(.*?)(?=^## |\Z)", doc, re.MULTILINE | re.DOTALL)
    text = " ".join(match.group(1).split()) if match else ""
    return text or None


def _descriptor(rule: Rule) -> dict[str, Any]:
    meta = rule.meta
    full = _section(rule.doc or "", "What it catches") or meta.summary
    text = rule_help(rule)
    tags = [FAMILIES.get(meta.code[2:3], "custom") if meta.code.startswith("KQ") else "custom"]
    if meta.profile:
        tags.append(f"profile:{meta.profile}")
    from kqlint.reporters.explain import doc_url

    url = doc_url(rule)
    return {
        "id": meta.code, "name": meta.slug,
        "shortDescription": {"text": meta.summary}, "fullDescription": {"text": full},
        "help": {"text": text, "markdown": text},
        **({"helpUri": url} if url else {}),  # docs/rules/KQNNN.md; plugins and custom rules have none
        "defaultConfiguration": {"level": LEVELS[meta.severity],
                                 "enabled": bool(meta.enabled and meta.profile is None)},
        "properties": {"tags": tags},
    }


# ------------------------------------------------------------------ results

def _ordinals(findings: list[Finding]) -> list[tuple[Finding, str]]:
    from kqlint.engine.baseline import occurrences

    result = []
    for finding, key, ordinal in occurrences(findings):
        identity = "|".join((key.code, key.object, key.path, key.file)).encode("utf-8", "surrogateescape")
        digest = hashlib.sha256(identity).hexdigest()
        result.append((finding, f"{digest[:32]}:{ordinal}"))
    return result


def is_pseudo(file: str) -> bool:
    """``<stdin>``, ``<profile kakaocloud>``, ``<config>``: names of inputs that are no file."""
    return file.startswith("<") and file.endswith(">")


def pseudo_note(file: str) -> str:
    if file.startswith("<profile "):
        return f"declared by the {file[len('<profile '):-1]} profile"
    if file == "<stdin>":
        return "read from stdin; name it with --stdin-filename to attach it to a file"
    if file == "<config>":
        return "declared in the configuration's external: section"
    return f"in {file}"


def _result(finding: Finding, fingerprint: str, index: dict[str, int], artifacts: _Artifacts) -> dict[str, Any]:
    location: dict[str, Any] = {}
    if not is_pseudo(finding.location.file):
        location["physicalLocation"] = _physical(finding.location, artifacts)
    if finding.obj is not None:
        obj = finding.obj
        location["logicalLocations"] = [{"name": obj.name, "kind": "resource",
                                         "fullyQualifiedName": obj.display().replace(" ", "/", 1)}]
    from kqlint.reporters.remedy import with_remedy

    message = with_remedy(finding)
    result: dict[str, Any] = {
        "ruleId": finding.code, "ruleIndex": index[finding.code], "level": LEVELS[finding.severity],
        "message": {"text": message if not is_pseudo(finding.location.file)
                    else f"{message} ({pseudo_note(finding.location.file)})"},
        "locations": [location],
    }
    if finding.related:
        result["relatedLocations"] = [_related(number, related, artifacts)
                                      for number, related in enumerate(finding.related, 1)]
    result["partialFingerprints"] = {FINGERPRINT: fingerprint}
    if finding.fix is not None and finding.fix.text and not is_pseudo(finding.location.file):
        result["fixes"] = [_fix(finding, artifacts)]
    if finding.suppression is not None:
        result["suppressions"] = [{"kind": "inSource", "justification": finding.suppression}]
    return result


def _related(number: int, related: Location, artifacts: _Artifacts) -> dict[str, Any]:
    text = related.message or "related location"
    if is_pseudo(related.file):
        return {"id": number, "message": {"text": f"{text} ({pseudo_note(related.file)})"}}
    return {"id": number, "physicalLocation": _physical(related, artifacts), "message": {"text": text}}


def _fix(finding: Finding, artifacts: _Artifacts) -> dict[str, Any]:
    """A SARIF ``fix``: the text replacements ``kqlint check --fix`` makes in the file."""
    fix = finding.fix
    assert fix is not None
    replacements = [{"deletedRegion": {"startLine": e.line, "startColumn": e.column,
                                       "endLine": e.end_line, "endColumn": e.end_column},
                     "insertedContent": {"text": e.content}} for e in fix.text]
    return {"description": {"text": fix.title},
            "artifactChanges": [{"artifactLocation": artifacts.location(finding.location.file),
                                 "replacements": replacements}],
            "properties": {"applicability": fix.applicability.value}}


def _result_order(result: dict[str, Any]) -> tuple[Any, ...]:
    physical = result["locations"][0].get("physicalLocation")
    if physical is None:
        return ("\uffff", 0, 0, result["ruleId"], result["message"]["text"], "suppressions" in result)
    region = physical["region"]
    return (physical["artifactLocation"]["uri"], region["startLine"], region["startColumn"],
            result["ruleId"], result["message"]["text"], "suppressions" in result)


def _physical(location: Location, artifacts: _Artifacts) -> dict[str, Any]:
    region: dict[str, Any] = {"startLine": location.line, "startColumn": location.column}
    if (location.end_line, location.end_column) > (location.line, location.column):
        region.update(endLine=location.end_line, endColumn=location.end_column)
    return {"artifactLocation": artifacts.location(location.file), "region": region}


def _invocation(report: Report) -> dict[str, Any]:
    invocation: dict[str, Any] = {"executionSuccessful": not report.internal_errors}
    if report.internal_errors:
        invocation["toolExecutionNotifications"] = [
            {"level": "error", "message": {"text": line}} for line in report.internal_errors]
    return invocation


# ------------------------------------------------------------------ artifacts and regions

def source_root(files: Iterable[str]) -> str:
    """The folder ``SRCROOT`` stands for: the project root of the linted files, else the
    directory kqlint ran in."""
    from kqlint.project.discover import inputs_folder
    from kqlint.project.root import project_root

    named = [file for file in files if not is_pseudo(file)]
    from kqlint.project.workdir import working_folder

    return project_root(inputs_folder(named)) or working_folder()


def artifact_uri(file: str, root: str) -> tuple[str, bool]:
    """(uri, relative to ``root``?) for a file path as reports display it."""
    from kqlint.project.containment import relative_below

    relative = relative_below(file, root)
    if relative is not None:
        return quote(relative, safe="/", errors="surrogateescape"), True
    absolute = os.path.abspath(file)
    return "file://" + quote(absolute.replace(os.sep, "/"), safe="/:", errors="surrogateescape"), False


class _Artifacts:
    """Every file of the run (the linted files, then files that only hold related locations)."""

    def __init__(self, files: Iterable[str], findings: list[Finding], root: str) -> None:
        names = set(files) | {f.location.file for f in findings}
        names |= {r.file for f in findings for r in f.related}
        self.files = sorted(name for name in names if not is_pseudo(name))
        self.index = {name: i for i, name in enumerate(self.files)}
        self.root = root

    def location(self, file: str) -> dict[str, Any]:
        uri, relative = artifact_uri(file, self.root)
        location: dict[str, Any] = {"uri": uri}
        if relative:
            location["uriBaseId"] = SRCROOT
        location["index"] = self.index[file]
        return location

    def entries(self) -> list[dict[str, Any]]:
        result = []
        for file in self.files:
            uri, relative = artifact_uri(file, self.root)
            location = {"uri": uri, "uriBaseId": SRCROOT} if relative else {"uri": uri}
            result.append({"location": location})
        return result
