"""Where kqlint, kubectl and the YAML test suite disagree (docs/yaml-compatibility.md).

    python scripts/yaml_suite_table.py ../shared/yaml-test-suite > /tmp/table.md

For every case (`in.yaml`): kqlint's documents (or its KQ001), the suite's expectation
(`in.json`, or `error`), and, where kubectl can read the case, kubectl's: a case whose single
document is a block mapping starting at column 1 is prefixed with `apiVersion`/`kind` lines
(the same text for both) and decoded with `kubectl label --local`; any other case without
document markers or directives is indented under a `value:` key of such an object; for the
rest, only whether kubectl's YAML parser accepts the raw case is compared.
"""
from __future__ import annotations

import json
import re
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from kqlint.loader import parse_bytes
from kubectl_oracle import _run, as_json

WRAP = b"apiVersion: v1\nkind: KqlintProbe\n"


def kqlint_view(data: bytes) -> tuple[str, list | None]:
    source = parse_bytes("in.yaml", data)
    problems = [p for p in source.problems if p.code in ("KQ001", "KQ006")]
    if problems:
        return f"refuses ({problems[0].message[:70]})", None
    return "reads", [as_json(d) for d in source.documents]


def suite_view(case: Path) -> tuple[str, list | None]:
    if (case / "error").exists():
        return "error", None
    if not (case / "in.json").exists():
        return "valid, no JSON", None
    text = (case / "in.json").read_text()
    decoder, values, index = json.JSONDecoder(), [], 0
    while True:
        while index < len(text) and text[index].isspace():
            index += 1
        if index >= len(text):
            break
        value, index = decoder.raw_decode(text, index)
        values.append(as_json(value))
    return "reads", values


def wrapped(data: bytes) -> bytes | None:
    """The case as (part of) a Kubernetes-shaped document, or None when it cannot be."""
    lines = [line for line in data.split(b"\n") if line.strip() and not line.lstrip().startswith(b"#")]
    if not lines or any(line.startswith((b"---", b"...", b"%")) for line in data.split(b"\n")):
        return None
    if re.match(rb"[A-Za-z0-9_\"'][^\n]*:( |$)", lines[0]):
        return WRAP + data
    return WRAP + b"value:\n" + b"".join(b"  " + line + b"\n" for line in data.rstrip(b"\n").split(b"\n"))


def unwrap(obj: dict, value_key: bool) -> object:
    obj = dict(obj)
    obj.pop("apiVersion", None), obj.pop("kind", None)
    return obj.get("value") if value_key else obj


def kubectl_view(text: bytes, workdir: Path) -> tuple[str, object]:
    path = workdir / "case.yaml"
    path.write_bytes(text)
    objects, errors = _run([path])
    if errors:
        return f"refuses ({errors[0][-70:]})", None
    if len(objects) != 1:
        return f"{len(objects)} objects", None
    obj = objects[0]
    obj["metadata"]["labels"].pop("kqlint-probe", None)
    if not obj["metadata"]["labels"]:
        del obj["metadata"]["labels"]
    if not obj["metadata"]:
        del obj["metadata"]
    return "reads", as_json(unwrap(obj, b"\nvalue:\n" in text[:40]))


NOTES = {
    "565N": "`!!binary`: kubectl decodes the base64 (bytes as UTF-8 text), so does kqlint; the suite keeps the text",
    "652Z": "libyaml (both parsers) reads `?foo` in a flow mapping as an explicit key `foo`",
    "HM87/01": ("libyaml (both parsers) reads `[?x]` as a single-pair mapping `{x: null}` "
                "(measured: kubectl gives the same)"),
    "C4HZ": ("kubectl refuses `--- !shape` (content after `---`; KQ001 in a Kubernetes object); kqlint reads "
             "the key `y` as the boolean true (JSON key `true`) as go-yaml does; the suite reads the string `y`"),
    "6ZKB": ("`...` then `%YAML 1.2` inside one `---` chunk: kubectl refuses; in a Kubernetes object kqlint "
             "reports KQ001 for the directive too"),
    "9DXL": ("`...` then `%YAML 1.2` inside one `---` chunk: kubectl refuses; in a Kubernetes object kqlint "
             "reports KQ001 for the directive too"),
    "Y2GN": "libyaml ends the anchor name at `:`: the value is `:chor value` (measured: kubectl gives the same)",
    "S4JQ": ("known difference: `! 12` (non-specific tag) is the string \"12\" for kubectl; "
             "ruamel.yaml.clib hands kqlint no sign of the `!`, so kqlint reads 12"),
    "3UYS": "known difference: `\\/` is a YAML 1.2 escape go-yaml lacks; kubectl refuses, kqlint reads the slash",
    "HRE5": "known difference: go-yaml accepts the non-standard escape `\\'`, ruamel's libyaml refuses it (KQ001)",
    "DK95/03": ("a first line holding only a tab: ruamel's libyaml refuses it at the start of a stream; "
                "after the wrapping lines both read it"),
}


def explain(name: str, ours: str, theirs: str, suite: str) -> str:
    if name in NOTES:
        return NOTES[name]
    if ours.startswith("refuses") and theirs.startswith("refuses"):
        return "libyaml lineage: neither parser implements this construct; KQ001 is what kubectl does"
    if "document separator" in theirs:
        return ("kubectl splits streams at `---` lines and refuses content after `---`; in a Kubernetes "
                "object kqlint reports that KQ001 too (this case is not one)")
    if "document start" in theirs or "incompatible YAML" in theirs:
        return ("directives: kubectl's `---` splitter leaves `%YAML`/`%TAG` alone in a document (or go-yaml "
                "knows only YAML 1.1); in a Kubernetes object kqlint reports that KQ001 too")
    if "invalid map key" in theirs:
        return "a collection as a mapping key: kubectl refuses; in a Kubernetes object kqlint reports KQ001 too"
    if ours.startswith("refuses") and theirs.startswith("parses"):
        return ("content after a `...` document end: sigs.k8s.io/yaml reads the first document of each `---` "
                "chunk and drops the rest; kqlint refuses the stream (KQ001)")
    if ours == "reads" and suite == "error" and not theirs.startswith("refuses"):
        return "libyaml leniency that kubectl shares: kqlint reads it as kubectl does"
    if ours == "reads" and suite == "reads" and theirs.startswith("reads"):
        return "YAML 1.1 scalars as Kubernetes reads them (the suite's JSON follows YAML 1.2)"
    if ours.startswith("refuses") and suite != "error" and theirs.startswith("parses"):
        return "kqlint refuses what kubectl's parser accepts (see the note below)"
    return "see the notes below"


def main(root: Path) -> None:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for case in sorted(p.parent for p in root.rglob("in.yaml")):
            data = (case / "in.yaml").read_bytes()
            name = case.relative_to(root).as_posix()
            ours, our_docs = kqlint_view(data)
            suite, suite_docs = suite_view(case)
            theirs, their_doc = ("n/a", None)
            text = wrapped(data)
            kubectl_agrees = None
            if text is None:  # kubectl's verdict on the raw case: does its YAML parse?
                path = Path(tmp) / "raw.yaml"
                path.write_bytes(data)
                _, errors = _run([path])
                yaml_errors = [e for e in errors if "converting YAML to JSON" in e or "yaml:" in e]
                theirs = f"refuses ({yaml_errors[0][-60:]})" if yaml_errors else "parses (no object)"
                kubectl_agrees = bool(yaml_errors) == (our_docs is None)
            else:
                theirs, their_doc = kubectl_view(text, Path(tmp))
                _, wrapped_docs = kqlint_view(text)
                if theirs.startswith("refuses") or wrapped_docs is None:
                    kubectl_agrees = theirs.startswith("refuses") == (wrapped_docs is None)
                else:
                    kubectl_agrees = unwrap(wrapped_docs[0], b"\nvalue:\n" in text[:40]) == their_doc
            suite_agrees = (suite == "error") == (our_docs is None) and (
                suite != "reads" or our_docs is None or our_docs == suite_docs)
            if not suite_agrees or kubectl_agrees is False:
                title = (case / "===").read_text().strip() if (case / "===").exists() else ""
                if not title and (case.parent / "===").exists():
                    title = (case.parent / "===").read_text().strip()
                rows.append((name, title, ours, theirs, suite, kubectl_agrees))
    print("| case | title | kqlint | kubectl | suite | kubectl = kqlint | why |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name, title, ours, theirs, suite, agrees in rows:
        cell = {True: "yes", False: "**no**", None: "n/a"}[agrees]
        theirs = re.sub(r"\S*(raw|case)\.yaml", "case", theirs)
        print(f"| {name} | {title} | {_short(ours)} | {_short(theirs)} | {suite} | {cell} | "
              f"{explain(name, ours, theirs, suite)} |")
    print(f"\n{len(rows)} disagreements")


def _short(text: str) -> str:
    return text.replace("|", "/").replace("invalid YAML: ", "").replace("error converting YAML to JSON: ", "")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
