"""Hostile YAML for the loader (issue 14, yaml part), each run in a subprocess under an
address-space cap with a time bound: duplicate keys are linear with bounded output,
huge integers and sexagesimal-looking scalars never crash nor take quadratic time."""
from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

ADDRESS_SPACE = 1536 * 1024 * 1024  # RLIMIT_AS for the kqlint subprocess
HEAD = b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n"
SIZE = 4 * 1024 * 1024

RUN = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, ({cap}, {cap}))
from kqlint.cli import main
sys.exit(main(["check", {path!r}, "-f", "json", "--jobs", "1"]))
"""


def _check(path: Path, timeout: float) -> tuple[dict, float, int]:
    started = time.monotonic()
    result = subprocess.run([sys.executable, "-c", RUN.format(cap=ADDRESS_SPACE, path=str(path))],
                            capture_output=True, timeout=timeout * 3, check=False, stdin=subprocess.DEVNULL)
    elapsed = time.monotonic() - started
    assert result.returncode in (0, 1), result.stderr.decode()[-2000:]
    assert b"Traceback" not in result.stderr
    return json.loads(result.stdout), elapsed, len(result.stdout)


def test_one_mapping_of_duplicate_keys_is_one_finding(tmp_path: Path) -> None:
    path = tmp_path / "dup.yaml"
    path.write_bytes(HEAD + b"data:\n" + b"  a: x\n" * (SIZE // 7))
    report, elapsed, size = _check(path, 30)
    [finding] = report["findings"]
    assert finding["code"] == "KQ001" and (finding["line"], finding["column"]) == (7, 3)
    assert f"{SIZE // 7 - 2} more repeated key(s)" in finding["message"]
    assert "kubectl apply" in finding["message"]
    assert elapsed < 30 and size < 5_000


def test_many_mappings_with_duplicate_keys_are_capped_per_file(tmp_path: Path) -> None:
    path = tmp_path / "many.yaml"
    count = SIZE // 15
    path.write_bytes(HEAD + b"items:\n" + b"- {a: 1, a: 2}\n" * count)
    report, elapsed, size = _check(path, 60)
    codes = [f["code"] for f in report["findings"]]
    assert codes == ["KQ001"] * 21
    assert report["findings"][-1]["message"].startswith(f"{count - 20} more mapping(s) with duplicate keys")
    assert elapsed < 60 and size < 20_000


@pytest.mark.parametrize("scalar", [
    b"7" * 5000, b"0x" + b"f" * 5000, b"0o" + b"7" * 5000, b"0b" + b"1" * 20000,
    b"1" + b":59" * 600_000, b"-" + b"9" * 1_000_000, b"0." + b"9" * 1_000_000 + b"e5",
])
def test_huge_numbers_never_crash_and_stay_linear(tmp_path: Path, scalar: bytes) -> None:
    path = tmp_path / "big.yaml"
    item = scalar[:100_000]  # in a flow list `1:59…` sends the file to the slow parser (under 4 MiB)
    path.write_bytes(HEAD + b"data:\n  n: " + scalar + b"\n  m: [" + item + b", " + item + b"]\n")
    report, elapsed, _ = _check(path, 20)
    # a ConfigMap's data must hold strings: only the schema may say so, never an internal error
    assert all(f["code"] != "KQ001" for f in report["findings"])
    assert elapsed < 20


def test_the_slow_fallback_parser_is_bounded(tmp_path: Path) -> None:
    # a `:` in a flow scalar sends the file to ruamel's pure-Python parser, only up to 4 MiB
    flow = b"args: [" + b"a:b, " * (SIZE // 5 + 1000) + b"x]\n"
    path = tmp_path / "flow.yaml"
    path.write_bytes(HEAD + flow)
    report, elapsed, _ = _check(path, 10)
    [finding] = report["findings"]
    assert finding["code"] == "KQ001" and "too large for the slow parser" in finding["message"]
    assert elapsed < 10


@pytest.mark.parametrize("line", [b"${" + b"?:" * 1_000_000, b"${" * 1_000_000, (b"${x" + b"?" * 150) * 7_000,
                                  (b"${" + b"x" * 99 + b"?" + b"y" * 99 + b":" + b"z" * 99) * 7_000])
def test_looking_for_template_syntax_in_broken_yaml_stays_linear(tmp_path: Path, line: bytes) -> None:
    # a file that fails to parse is searched for `{{`, `%{ if }` and `${a ? b : c}` (KQ006): a
    # pattern with nested unbounded repeats took 50 s on 8 KB of `${?:?:…`
    path = tmp_path / "broken.yaml"
    path.write_bytes(HEAD + b"data: [\n  x: " + line + b"\n")
    report, elapsed, _ = _check(path, 20)
    assert [f["code"] for f in report["findings"]] in (["KQ001"], ["KQ006"])
    assert elapsed < 20


def _cohort_chain(count: int) -> bytes:
    """``count`` Cohorts, each the parent of the next, the first its own grandchild's child (a loop at the top)."""
    parts = [b"apiVersion: kueue.x-k8s.io/v1beta2\nkind: Cohort\nmetadata: {name: c0}\nspec: {parentName: c1}\n"]
    parts += [b"---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Cohort\nmetadata: {name: c%d}\nspec: {parentName: c%d}\n"
              % (i, i - 1) for i in range(1, count)]
    parts.append(b"---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Cohort\nmetadata: {name: c1}\n"
                 b"spec: {parentName: c0}\n")  # a second c1: the loop c0 <-> c1
    return b"".join(parts)


def _kai_subgroup_chain(count: int) -> bytes:
    return b"apiVersion: scheduling.run.ai/v2alpha2\nkind: PodGroup\nmetadata: {name: pg, namespace: ns}\nspec:\n" \
        b"  minMember: 1\n  subGroups:\n" + b"".join(
            b"  - {name: s%d, minMember: 1%s}\n" % (i, b", parent: s%d" % (i - 1) if i else b"") for i in range(count))


def _volcano_task_chain(count: int) -> bytes:
    return b"apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: vj, namespace: ns}\nspec:\n" \
        b"  minAvailable: 1\n  tasks:\n" + b"".join(
            b"  - name: t%d%s\n    replicas: 1\n    template: {spec: {containers: [{name: c, image: x}]}}\n"
            % (i, b"\n    dependsOn: {name: [t%d]}" % (i - 1) if i else b"") for i in range(count))


def _volcano_queue_chain(count: int, gangs: int) -> bytes:
    """``count`` Volcano Queues, each the parent of the next, with a capability each, and
    ``gangs`` PodGroups on the deepest one, needing more than every capability."""
    queues = b"".join(b"---\napiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: v%d}\n"
                      b"spec: {weight: 1, capability: {cpu: %d}%s}\n"
                      % (i, count - i, b", parent: v%d" % (i - 1) if i else b"") for i in range(count))
    return queues + b"".join(b"---\napiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\nmetadata: {name: g%d, "
                             b"namespace: ns}\nspec: {minMember: 1, queue: v%d, minResources: {cpu: %d}}\n"
                             % (i, count - 1, count + 1) for i in range(gangs))


@pytest.mark.parametrize(("name", "text"), [("cohorts", _cohort_chain(5000)), ("kai", _kai_subgroup_chain(40_000)),
                                            ("volcano", _volcano_task_chain(30_000)),
                                            ("queues", _volcano_queue_chain(3000, 3000))])
def test_long_chains_of_references_stay_linear(tmp_path: Path, name: str, text: bytes) -> None:
    # each walked up from every member: 5,000 Cohorts took 132 s (KQ220), 20,000 KAI subgroups or
    # Volcano tasks 12 s (KQ004's cycle and DAG checks), growing with the square of the count; 300
    # gangs under 3,000 nested Volcano Queues 26 s (KQ309 scanned each chain at every step), then
    # 3,000 gangs there 17 s (each gang walked its whole chain: now 64 levels at most)
    path = tmp_path / f"{name}.yaml"
    path.write_bytes(text)
    report, elapsed, _ = _check(path, 20)
    assert elapsed < 20 and report["summary"]["objects"] >= 1
