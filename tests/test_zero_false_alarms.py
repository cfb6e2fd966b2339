"""Issue 31 (zero false alarms): cases that span rules or commands, beyond one rule's fixtures."""
from __future__ import annotations

from pathlib import Path

from helpers import found, lint_case
from kqlint.config import Config

RULE_FIXTURES = Path(__file__).parent / "fixtures" / "rules"


def test_a_misspelt_priority_class_without_queue_name_gets_both_findings() -> None:
    case = RULE_FIXTURES / "KQ202" / "bad-no-queue-name"
    report = lint_case(case, None, Config(select=("KQ202", "KQ207")))
    assert found(report) == {("workload.yaml", 10, 36, "KQ202"), ("workload.yaml", 10, 5, "KQ207")}


def test_kq107_advises_system_node_critical_for_a_node_agent_and_never_for_others() -> None:
    agent = lint_case(RULE_FIXTURES / "KQ107" / "bad-node-agent", "KQ107").findings
    plain = lint_case(RULE_FIXTURES / "KQ107" / "bad-gang-own-class", "KQ107").findings
    assert [f.code for f in agent] == ["KQ107"] and [f.code for f in plain] == ["KQ107"]
    assert "`system-node-critical`" in (agent[0].remedy or "")
    assert "DaemonSet gpu-operator/gpu-health" in (agent[0].remedy or "")
    assert "system-node-critical" not in (plain[0].remedy or "") and "Never" in (plain[0].remedy or "")


def test_graph_says_when_only_the_default_local_queue_makes_a_workload_kueue_managed() -> None:
    from ci_helpers import cli

    note = "no queue-name label: Kueue-managed only through LocalQueue `default`"
    code, out, _ = cli("graph", ".", "--no-color", cwd=RULE_FIXTURES / "KQ102" / "bad-deployment-integration-on")
    assert code == 0 and note in out
    code, out, _ = cli("graph", ".", "--no-color", cwd=RULE_FIXTURES / "KQ102" / "good-deployment-integration-off")
    assert code == 0 and note not in out and "Workloads not queued by Kueue" in out
