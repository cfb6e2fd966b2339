#!/usr/bin/env python3
"""Generate schemas/kinds/ (KQ002's JSON Schemas) from the upstream CRDs in the corpus.

    python scripts/gen_schemas.py [--corpus ../shared/corpus] [--out schemas/kinds]

Input: ``<corpus>/crds/**`` (upstream CustomResourceDefinitions, copied verbatim) and
``<corpus>/MANIFEST.tsv`` (source repository and commit of every corpus file). Output: one
minified JSON Schema per served version of every kind kqlint validates
(``<group>_<version>_<Kind>.json``, core group ``core``) plus ``index.json`` mapping
apiVersion/kind to its file and source. Kinds with no CRD in the corpus come from
``handwritten_schemas.py``. The conversion is ``kqlint.schema.crd`` (the same code ``--crd`` uses);
identical sub-schemas are stored once under ``$defs``. Output is byte-for-byte reproducible.
"""
from __future__ import annotations

import argparse
import csv
import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any

from kqlint.loader import load_file
from kqlint.schema.crd import crd_versions, is_crd, to_schema

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import handwritten_schemas as hand

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = ROOT.parent / "shared" / "corpus"
DEFAULT_OUT = ROOT / "schemas" / "kinds"
DRAFT = "https://json-schema.org/draft/2020-12/schema"
MIN_SHARED_SIZE = 300   # sub-schemas at least this long (JSON chars) are stored once when repeated

# The kinds kqlint validates, by CRD group (every served version of each).
CRD_KINDS: dict[str, tuple[str, ...]] = {
    "kueue.x-k8s.io": ("ClusterQueue", "LocalQueue", "ResourceFlavor", "WorkloadPriorityClass",
                       "Cohort", "Topology", "AdmissionCheck", "MultiKueueCluster",
                       "MultiKueueConfig", "ProvisioningRequestConfig"),
    "scheduling.volcano.sh": ("PodGroup", "Queue"),
    "batch.volcano.sh": ("Job",),
    "scheduling.run.ai": ("PodGroup", "Queue"),
    "jobset.x-k8s.io": ("JobSet",),
    "kubeflow.org": ("PyTorchJob", "MPIJob"),
    "trainer.kubeflow.org": ("TrainJob", "TrainingRuntime", "ClusterTrainingRuntime"),
    "leaderworkerset.x-k8s.io": ("LeaderWorkerSet",),
    "serving.kserve.io": ("LLMInferenceService",),
    "nvidia.com": ("DynamoGraphDeployment",),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", default=str(DEFAULT_CORPUS), help="the shared corpus folder")
    parser.add_argument("--out", default=str(DEFAULT_OUT), help="output folder (schemas/kinds)")
    args = parser.parse_args(argv)
    corpus, out = Path(args.corpus), Path(args.out)
    if not (corpus / "crds").is_dir():
        parser.error(f"{corpus}/crds not found")
    from_crds = crd_schemas(corpus)
    entries = from_crds + handwritten(from_crds)
    write(out, entries)
    print(f"wrote {len(entries)} schemas to {out}")
    return 0


# ---------------------------------------------------------------- inputs

def manifest(corpus: Path) -> dict[str, dict[str, str]]:
    with open(corpus / "MANIFEST.tsv", encoding="utf-8", newline="") as handle:
        rows = csv.DictReader(handle, delimiter="\t")
        return {row["corpus_path"]: {"repository": row["source_repo"], "commit": row["commit"],
                                     "path": row["original_path"]} for row in rows}


def crd_schemas(corpus: Path) -> list[tuple[str, str, dict[str, Any], dict[str, Any]]]:
    """(apiVersion, kind, schema, source) for every wanted kind's served versions."""
    sources = manifest(corpus)
    found = []
    for path in sorted((corpus / "crds").rglob("*.yaml")):
        relative = path.relative_to(corpus).as_posix()
        for document in load_file(str(path), relative).documents:
            if not is_crd(document):
                continue
            for api_version, kind, openapi in crd_versions(document):
                if kind in CRD_KINDS.get(api_version.rpartition("/")[0], ()):
                    found.append((api_version, kind, to_schema(openapi, patterns=True), dict(sources[relative])))
    return found


def handwritten(from_crds: list[tuple[str, str, dict[str, Any], dict[str, Any]]]
                ) -> list[tuple[str, str, dict[str, Any], dict[str, Any]]]:
    entries = []
    core = {"hand-written": "scripts/handwritten_schemas.py", "reference": hand.K8S_REFERENCE}
    for (api_version, kind), schema in sorted(hand.core_kinds().items()):
        entries.append((api_version, kind, schema, core))
    ray = {"hand-written": "scripts/handwritten_schemas.py",
           "reference": "ray-project/kuberay ray-operator/apis/ray/v1 (RayClusterSpec, RayJobSpec)"}
    for (api_version, kind), schema in sorted(hand.ray_kinds().items()):
        entries.append((api_version, kind, schema, ray))
    pytorch = [e for e in from_crds if e[0] == "kubeflow.org/v1" and e[1] == "PyTorchJob"]
    if pytorch:
        _, _, schema, source = pytorch[0]
        derived = dict(source, derived="ReplicaSpec and RunPolicy of this PyTorchJob CRD; spec fields "
                                       "from pkg/apis/kubeflow.org/v1/*_types.go (release-1.9)")
        for (api_version, kind), built in sorted(hand.kubeflow_v1_kinds(schema).items()):
            entries.append((api_version, kind, built, derived))
    return entries


# ---------------------------------------------------------------- output

def file_name(api_version: str, kind: str) -> str:
    group, _, version = api_version.rpartition("/")
    return f"{group or 'core'}_{version}_{kind}.json"


def write(out: Path, entries: list[tuple[str, str, dict[str, Any], dict[str, Any]]]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for stale in out.glob("*.json"):
        stale.unlink()
    index: dict[str, dict[str, Any]] = {}
    for api_version, kind, schema, source in sorted(entries, key=lambda e: (e[0], e[1])):
        name = file_name(api_version, kind)
        document = {"$schema": DRAFT, "title": f"{api_version} {kind}", "x-kqlint-source": source,
                    **share_repeated(schema)}
        (out / name).write_text(json.dumps(document, sort_keys=True, separators=(",", ":")) + "\n",
                                encoding="utf-8")
        index.setdefault(api_version, {})[kind] = {"file": name, "source": source}
    header = {"comment": "Generated by scripts/gen_schemas.py from ../shared/corpus/crds; do not edit.",
              "kinds": index}
    (out / "index.json").write_text(json.dumps(header, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def share_repeated(schema: dict[str, Any]) -> dict[str, Any]:
    """Store every sub-schema that occurs more than once (and is not tiny) once, in ``$defs``."""
    counts: dict[str, int] = {}
    _count(schema, counts)
    sharer = _Sharer({text for text, n in counts.items() if n > 1 and len(text) >= MIN_SHARED_SIZE})
    rewritten = sharer.rewrite(schema, None)
    if sharer.defs:
        rewritten["$defs"] = sharer.defs
    return rewritten


def _children(node: dict[str, Any]) -> list[tuple[str, str | None, Any]]:
    """(where, property name, child schema) of one node."""
    found: list[tuple[str, str | None, Any]] = []
    for name, child in (node.get("properties") or {}).items():
        found.append(("properties", name, child))
    for key in ("items", "additionalProperties"):
        if isinstance(node.get(key), dict):
            found.append((key, None, node[key]))
    return found


def _canonical(node: Any) -> str:
    return json.dumps(node, sort_keys=True, separators=(",", ":"))


def _count(node: dict[str, Any], counts: dict[str, int]) -> None:
    text = _canonical(node)
    counts[text] = counts.get(text, 0) + 1
    for _, _, child in _children(node):
        _count(child, counts)


class _Sharer:
    def __init__(self, shared: set[str]) -> None:
        self.shared = shared
        self.names: dict[str, str] = {}      # canonical text -> def name
        self.defs: dict[str, Any] = {}

    def rewrite(self, node: dict[str, Any], hint: str | None) -> dict[str, Any]:
        out = {k: v for k, v in node.items() if k not in ("properties", "items", "additionalProperties")}
        if isinstance(node.get("additionalProperties"), bool):
            out["additionalProperties"] = node["additionalProperties"]
        for where, name, child in _children(node):
            new = self.child(child, name or hint)
            if where == "properties":
                out.setdefault("properties", {})[name] = new
            else:
                out[where] = new
        return out

    def child(self, node: dict[str, Any], hint: str | None) -> dict[str, Any]:
        text = _canonical(node)
        if text not in self.shared:
            return self.rewrite(node, hint)
        name = self.names.get(text)
        if name is None:
            name = f"{hint or 'node'}-{hashlib.sha256(text.encode()).hexdigest()[:10]}"
            self.names[text] = name
            self.defs[name] = self.rewrite(node, hint)
        return {"$ref": f"#/$defs/{name}"}


if __name__ == "__main__":
    sys.exit(main())
