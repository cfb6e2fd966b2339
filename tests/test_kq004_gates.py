"""KQ004's checks that depend on the platform's Kueue release and feature gates (rules.md KQ004;
kueue.md B30; Kueue ``pkg/features/kube_features.go``): the unknown release, pins that disagree,
gates set by the manager, and the evidence the platform model reads them from."""
from __future__ import annotations

from pathlib import Path

import pytest
from helpers import lint_files
from kqlint.domain.kueue_config import parse_gates
from kqlint.domain.pins import Pin
from kqlint.domain.platform import Platform
from kqlint.rules.engine._webhook_kueue_gates import KueueGates, kueue_gates

CONSTRAINTS = "kueue.x-k8s.io/podset-slice-required-topology-constraints"
VALID_LAYERS = '[{"topology": "block", "size": 8}, {"topology": "rack", "size": 4}]'


def _job(annotations: str, elastic: bool = False, parallelism: int = 8) -> str:
    owner = "  annotations:\n    kueue.x-k8s.io/elastic-job: \"true\"\n" if elastic else ""
    return ("apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\n  namespace: q004\n" + owner
            + f"spec:\n  parallelism: {parallelism}\n  template:\n    metadata:\n      annotations:\n"
            + "".join(f"        {line}\n" for line in annotations.splitlines())
            + "    spec:\n      restartPolicy: Never\n      containers: [{name: main, image: busybox}]\n")


ELASTIC_JOBSET = ("apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata:\n  name: js\n  namespace: q004\n"
                  "  annotations:\n    kueue.x-k8s.io/elastic-job: \"true\"\nspec:\n  replicatedJobs:\n"
                  "  - name: w\n    replicas: 1\n    template:\n      spec:\n        template:\n          spec:\n"
                  "            restartPolicy: Never\n            containers: [{name: main, image: busybox}]\n")


def _manager(name: str, image: str, args: str = "") -> str:
    """A Kueue manager Deployment (its image pins the release; ``args`` as a YAML flow list)."""
    return (f"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\n  namespace: kueue-system\nspec:\n"
            "  selector: {matchLabels: {app: kueue}}\n  template:\n    metadata:\n      labels: {app: kueue}\n"
            f"    spec:\n      containers:\n      - name: manager\n        image: {image}\n"
            + (f"        args: {args}\n" if args else ""))


def _messages(tmp_path: Path, *documents: str) -> list[str]:
    report = lint_files(tmp_path, {"m.yaml": "---\n".join(documents)}, ("KQ004",))
    return [f.message for f in report.findings]


# ------------------------------------------------------------------ the unknown release

def test_an_unknown_release_counts_as_the_newest(tmp_path: Path) -> None:
    """rules.md KQ004: unknown version → the gates are on by default (0.18/0.19 and later): the
    constraints annotation is checked, not refused; elastic-job is judged."""
    messages = _messages(tmp_path, _job(f"{CONSTRAINTS}: '{VALID_LAYERS}'"),
                         _job("kueue.x-k8s.io/podset-required-topology: rack", elastic=True), ELASTIC_JOBSET)
    assert len(messages) == 2, messages
    assert "required topology is not supported with elastic jobs" in messages[0]
    assert 'elastic job is not supported for "jobset.x-k8s.io/v1alpha2, Kind=JobSet"' in messages[1]


def test_an_unknown_release_still_checks_the_layers(tmp_path: Path) -> None:
    bad = '[{"topology": "block", "size": 8}, {"topology": "rack", "size": 3}]'
    messages = _messages(tmp_path, _job(f"{CONSTRAINTS}: '{bad}'"))
    assert len(messages) == 1 and "evenly divide" in messages[0] and "feature gate" not in messages[0]


def test_pins_that_disagree_leave_only_what_every_release_refuses(tmp_path: Path) -> None:
    """Kueue 0.17 and 0.19 pinned: the multi-layer gate may be on or off, elastic jobs may not
    exist: valid layers and the elastic JobSet are silent, invalid layers are refused by both."""
    old, new = _manager("kueue-controller-manager", "registry.k8s.io/kueue/kueue:v0.17.2"), \
        _manager("kueue-manager-next", "registry.k8s.io/kueue/kueue:v0.19.1")
    assert _messages(tmp_path, old, new, _job(f"{CONSTRAINTS}: '{VALID_LAYERS}'"), ELASTIC_JOBSET) == []
    messages = _messages(tmp_path, old, new, _job(f"{CONSTRAINTS}: 'not json'"))
    assert len(messages) == 1 and "valid JSON array" in messages[0]


def test_two_sources_that_set_a_gate_both_ways_leave_it_open(tmp_path: Path) -> None:
    one = _manager("kueue-controller-manager", "registry.k8s.io/kueue/kueue:v0.19.1",
                   "[--feature-gates=ElasticJobsViaWorkloadSlices=false]")
    other = _manager("kueue-manager-b", "registry.k8s.io/kueue/kueue:v0.19.1",
                     "[--feature-gates=ElasticJobsViaWorkloadSlices=true]")
    assert _messages(tmp_path, one, other, ELASTIC_JOBSET) == []
    assert len(_messages(tmp_path, other, ELASTIC_JOBSET)) == 1


def test_a_gate_in_the_manager_configuration_overrides_the_release_default(tmp_path: Path) -> None:
    config = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kueue-manager-config\n  namespace: kueue-system\n"
              "data:\n  controller_manager_config.yaml: |\n    apiVersion: config.kueue.x-k8s.io/v1beta2\n"
              "    kind: Configuration\n    featureGates:\n      ElasticJobsViaWorkloadSlices: true\n")
    pinned = _manager("kueue-controller-manager", "registry.k8s.io/kueue/kueue:v0.17.2")
    job = _job("kueue.x-k8s.io/podset-required-topology: rack", elastic=True)
    assert _messages(tmp_path, pinned, job) == []  # 0.17: the gate is off by default
    messages = _messages(tmp_path, config, pinned, job, ELASTIC_JOBSET)  # on: 0.17 has the Job check only
    assert len(messages) == 1 and "elastic jobs" in messages[0]


def test_topology_aware_scheduling_off_skips_every_tas_check(tmp_path: Path) -> None:
    manager = _manager("kueue-controller-manager", "registry.k8s.io/kueue/kueue:v0.19.1",
                       "[--feature-gates, TopologyAwareScheduling=false]")
    two_modes = "kueue.x-k8s.io/podset-required-topology: rack\nkueue.x-k8s.io/podset-preferred-topology: block"
    assert len(_messages(tmp_path, _job(two_modes))) == 1
    assert _messages(tmp_path, manager, _job(two_modes)) == []


def test_the_group_name_beside_the_layers_is_reported_at_the_group_name(tmp_path: Path) -> None:
    """validateSliceRequiredTopologyConstraintsAnnotation puts that error on podset-group-name."""
    annotations = f"kueue.x-k8s.io/podset-required-topology: rack\nkueue.x-k8s.io/podset-group-name: g\n" \
                  f"{CONSTRAINTS}: '{VALID_LAYERS}'"
    report = lint_files(tmp_path, {"m.yaml": _job(annotations)}, ("KQ004",))
    beside = [f for f in report.findings if f"may not be set when '{CONSTRAINTS}'" in f.message]
    assert [(f.location.line, f.location.column) for f in beside] == [(12, 9)]  # the group name (line 13: the layers)


# ------------------------------------------------------------------ the gates, per release

def _platform(version: tuple[int, int] | None = None, gates: tuple[tuple[str, bool], ...] = (),
              pins: tuple[tuple[int, int], ...] = ()) -> Platform:
    return Platform(kueue_version=version, kueue_gates=gates,
                    kueue_pins=tuple(Pin(pin, f"pin {pin}", "f.yaml") for pin in pins))


# KueueGates(tas, multi_layer, elastic_topology, elastic_kinds, slicing)
@pytest.mark.parametrize("platform,expected", [
    (_platform(), KueueGates(True, True, True, True, True)),
    (_platform((0, 19)), KueueGates(True, True, True, True, True)),
    (_platform((0, 18)), KueueGates(True, False, True, True, True)),
    (_platform((0, 17)), KueueGates(True, False, False, False, False)),
    (_platform((0, 17), (("ElasticJobsViaWorkloadSlices", True), ("TASMultiLayerTopology", True))),
     KueueGates(True, True, True, False, True)),
    (_platform((0, 16)), KueueGates(True, None, False, False, False)),
    (_platform((0, 13)), KueueGates(False, None, False, False, False)),
    (_platform(None, (("TASMultiLayerTopology", False),)),
     KueueGates(True, False, True, True, True)),
    (_platform(None, (("TASMultiLayerTopology", False), ("TASMultiLayerTopology", True))),
     KueueGates(True, True, True, True, True)),
    (_platform(None, pins=((0, 17), (0, 19))),
     KueueGates(True, True, False, False, False)),
    (_platform(None, pins=((0, 16), (0, 19))),
     KueueGates(True, None, False, False, False)),
], ids=["unknown", "0.19", "0.18", "0.17", "0.17-gates-on", "0.16", "0.13", "gate-off", "gate-disputed",
        "pins-0.17-0.19", "pins-0.16-0.19"])
def test_gates_per_release(platform: Platform, expected: KueueGates) -> None:
    assert kueue_gates(platform) == expected


# ------------------------------------------------------------------ evidence

@pytest.mark.parametrize("flag,gates", [
    ("A=true,B=false", {"A": True, "B": False}),
    (" A = T , B=0 ", {"A": True, "B": False}),
    ("A=yes,B", {}),  # featuregate.Set refuses them: the manager exits (KQ222), nothing is read
])
def test_feature_gates_flag_as_featuregate_set_reads_it(flag: str, gates: dict[str, bool]) -> None:
    assert parse_gates(flag) == gates


def test_the_platform_model_shows_the_gates_and_where_they_come_from(tmp_path: Path) -> None:
    from helpers import chdir
    from kqlint.config import Config
    from kqlint.domain.platform import platform_of
    from kqlint.engine.pipeline import Pipeline

    (tmp_path / "m.yaml").write_text(_manager("kueue-controller-manager", "registry.k8s.io/kueue/kueue:v0.19.1",
                                              "[--feature-gates=TASMultiLayerTopology=false]"), encoding="utf-8")
    with chdir(tmp_path):
        platform = platform_of(Pipeline(Config()).graph(["."]).graphs[0])
    assert platform.kueue_gates == (("TASMultiLayerTopology", False),)
    assert platform.describe()["kueue"]["featureGates"] == ["TASMultiLayerTopology=false"]
    assert "kueue feature gates: TASMultiLayerTopology=false (from --feature-gates of" in "\n".join(platform.lines())


def test_gates_a_hostile_repository_writes_are_bounded_and_plain(tmp_path: Path) -> None:
    """The platform model shows the gates: names not spelled as Kueue's (escape sequences,
    spaces) are dropped, and so are gates beyond a bound, whatever the flag holds."""
    from helpers import chdir
    from kqlint.config import Config
    from kqlint.domain.kueue_config import MAX_GATES
    from kqlint.domain.platform import platform_of
    from kqlint.engine.pipeline import Pipeline

    def flag(i: int) -> str:
        return ",".join(f"Gate{i}x{j}=true" for j in range(5000)) + ",\x1b[31mRed=true,Two Words=false"

    managers = [_manager(f"kueue-{i}", "registry.k8s.io/kueue/kueue:v0.19.1", f"['--feature-gates={flag(i)}']")
                for i in range(40)]
    (tmp_path / "m.yaml").write_text("---\n".join(managers), encoding="utf-8")
    with chdir(tmp_path):
        platform = platform_of(Pipeline(Config()).graph(["."]).graphs[0])
    assert len(platform.kueue_gates) <= MAX_GATES
    assert all(name.isalnum() for name, _ in platform.kueue_gates)
    assert all(len(line) < 10_000 and "\x1b" not in line for line in platform.lines())


# ------------------------------------------------------------------ numbers as Go reads them

@pytest.mark.parametrize(("annotations", "refused"), [
    ("kueue.x-k8s.io/podset-slice-required-topology: rack\nkueue.x-k8s.io/podset-slice-size: '4'", None),
    # strconv.ParseInt(v, 10, 32): out of range and non-ASCII digits are errors, not numbers
    ("kueue.x-k8s.io/podset-slice-required-topology: rack\nkueue.x-k8s.io/podset-slice-size: '99999999999'",
     "podset-slice-size: must be a numeric value"),
    ("kueue.x-k8s.io/podset-slice-required-topology: rack\nkueue.x-k8s.io/podset-slice-size: '\u0663'",
     "podset-slice-size: must be a numeric value"),
])
def test_a_slice_size_is_a_number_as_go_parses_it(tmp_path: Path, annotations: str, refused: str | None) -> None:
    found = [m for m in _messages(tmp_path, _job(annotations)) if "podset-slice-size" in m]
    assert found == [] if refused is None else len(found) == 1 and refused in found[0], found


@pytest.mark.parametrize(("name", "numeric"), [("'12'", True), ("'\u0663'", False), ("'123456789012345678901'", False)])
def test_a_group_name_is_numeric_only_where_parse_uint_reads_it(tmp_path: Path, name: str, numeric: bool) -> None:
    """strconv.ParseUint(v, 10, 64) succeeding is what makes Kueue refuse a pod-set group name."""
    messages = _messages(tmp_path, _job(f"kueue.x-k8s.io/podset-required-topology: rack\n"
                                        f"kueue.x-k8s.io/podset-group-name: {name}"))
    assert any("podset-group-name: must not be a number" in m for m in messages) is numeric, messages


def test_a_max_exec_time_in_other_digits_is_not_an_integer(tmp_path: Path) -> None:
    job = _job("").replace("  namespace: q004\n", "  namespace: q004\n  labels:\n"
                           "    kueue.x-k8s.io/queue-name: q\n    kueue.x-k8s.io/max-exec-time-seconds: '\u0663'\n", 1)
    messages = _messages(tmp_path, job)
    assert len(messages) == 1 and "max-exec-time-seconds: Invalid value: '\u0663': not an integer" in messages[0], \
        messages
