"""The admission model's shared parts (issue 32): the Cohort hierarchy (kqlint.domain.kueue.cohorts,
Kueue's ``hierarchy.HasCycle``) and the manager Configuration embedded in kueue-manager-config
(kqlint.domain.kueue_config: positions in the file, Fair Sharing for the platform model)."""
from __future__ import annotations

from kqlint.domain.graph import ObjectGraph
from kqlint.domain.kueue.cohorts import ancestors, cluster_queues_in_cycle, cohort_cycles, has_cycle
from kqlint.domain.kueue_config import configuration_of
from kqlint.domain.objects import INPUT, K8sObject, objects_from_file
from kqlint.domain.platform import build_platform
from kqlint.loader import parse_bytes


def objects(text: str, file: str = "x.yaml") -> list[K8sObject]:
    found, _, _ = objects_from_file(parse_bytes(file, text.encode()), "default", INPUT)
    return found


def cohort(name: str, parent: str | None = None) -> str:
    spec = f"spec: {{parentName: {parent}}}\n" if parent else ""
    return f"apiVersion: kueue.x-k8s.io/v1beta2\nkind: Cohort\nmetadata: {{name: {name}}}\n{spec}---\n"


def cluster_queue(name: str, cohort_name: str) -> str:
    return (f"apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {{name: {name}}}\n"
            f"spec: {{cohortName: {cohort_name}}}\n---\n")


# ------------------------------------------------------------------ cohorts


def test_a_loop_and_what_hangs_below_it_have_a_cycle_as_kueue_says() -> None:
    graph = ObjectGraph(objects(cohort("a", "b") + cohort("b", "a") + cohort("c", "a") + cohort("d", "e")
                                + cluster_queue("under", "c") + cluster_queue("free", "d")
                                + cluster_queue("implicit", "zzz")))
    assert [cycle.names for cycle in cohort_cycles(graph)] == [("a", "b")]
    assert has_cycle("c", graph) and has_cycle("a", graph)  # below the loop: HasCycle too
    assert not has_cycle("d", graph) and not has_cycle("e", graph) and not has_cycle("zzz", graph)
    assert ancestors("c", graph) == ["a", "b"]
    cycle, = cohort_cycles(graph)
    assert [cq.name for cq in cluster_queues_in_cycle(cycle, graph)] == ["under"]


def test_a_cohort_that_is_its_own_parent_is_one_loop_and_each_loop_is_reported_once() -> None:
    graph = ObjectGraph(objects(cohort("self", "self") + cohort("p", "q") + cohort("q", "r") + cohort("r", "p")))
    assert [cycle.names for cycle in cohort_cycles(graph)] == [("p", "q", "r"), ("self",)]


def test_a_chain_ending_in_an_implicit_cohort_has_no_cycle() -> None:
    graph = ObjectGraph(objects(cohort("a", "b") + cohort("b", "c")))
    assert cohort_cycles(graph) == [] and ancestors("a", graph) == ["b", "c"]


# ------------------------------------------------------------------ the manager Configuration

CONFIG_MAP = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: kueue-manager-config
  namespace: kueue-system
data:
  controller_manager_config.yaml: |
    apiVersion: config.kueue.x-k8s.io/{version}
    kind: Configuration
{body}"""


def configuration(version: str, body: str) -> K8sObject:
    obj, = objects(CONFIG_MAP.format(version=version, body=body))
    return obj


def test_embedded_positions_map_onto_the_configmap_file() -> None:
    parsed = configuration_of(configuration("v1beta2", "    fairSharing:\n      preemptionStrategies: []\n"))
    assert parsed is not None
    at = parsed.at("fairSharing", "preemptionStrategies")
    assert (at.line, at.column) == (11, 7)
    assert (parsed.at("kind").line, parsed.at("kind").column) == (9, 5)


def test_four_space_layout_is_followed() -> None:
    obj, = objects("apiVersion: v1\nkind: ConfigMap\nmetadata:\n    name: kueue-manager-config\ndata:\n"
                   "    controller_manager_config.yaml: |\n        apiVersion: config.kueue.x-k8s.io/v1beta2\n"
                   "        kind: Configuration\n\n        fairSharing: {}\n")
    parsed = configuration_of(obj)
    assert parsed is not None and (parsed.at("fairSharing").line, parsed.at("fairSharing").column) == (10, 9)


def test_a_quoted_value_places_everything_at_the_key() -> None:
    obj, = objects("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: kueue-manager-config}\ndata:\n"
                   '  controller_manager_config.yaml: "apiVersion: config.kueue.x-k8s.io/v1beta2\\nkind: '
                   'Configuration\\nfairSharing: {}\\n"\n')
    parsed = configuration_of(obj)
    assert parsed is not None and parsed.has("fairSharing")
    assert (parsed.at("fairSharing").line, parsed.at("fairSharing").column) == (5, 3)


def test_fair_sharing_per_api_version() -> None:
    cases = {("v1beta2", "    fairSharing: {}\n"): True, ("v1beta2", "    waitForPodsReady: {}\n"): False,
             ("v1beta1", "    fairSharing:\n      enable: true\n"): True,
             ("v1beta1", "    fairSharing:\n      preemptionStrategies: [LessThanInitialShare]\n"): False,
             ("v1alpha9", "    fairSharing: {}\n"): None}
    for (version, body), expected in cases.items():
        parsed = configuration_of(configuration(version, body))
        assert parsed is not None and parsed.fair_sharing() is expected, (version, body)


def test_the_platform_model_takes_fair_sharing_from_the_configuration_or_the_settings() -> None:
    graph = ObjectGraph([configuration("v1beta2", "    fairSharing:\n      preemptionStrategies: []\n")])
    model = build_platform(None, None, graph)
    assert model.fair_sharing is True and "kueue-manager-config" in model.sources["kueue.fair-sharing"]
    assert build_platform({"kueue": {"fair-sharing": False}}, None, graph).fair_sharing is False
    assert build_platform(None, None, ObjectGraph([])).fair_sharing is None


# ------------------------------------------------------------------ why the manager exits (KQ222)

def test_go_durations_parse_as_time_parse_duration() -> None:
    from kqlint.domain.kueue_config_checks import go_duration

    assert go_duration("5m") == 300 and go_duration("1h30m") == 5400 and go_duration("-1.5s") == -1.5
    assert go_duration("0") == 0 and go_duration("300ms") == 0.3
    assert go_duration("5") is None and go_duration("5 minutes") is None and go_duration(5) is None
    assert go_duration("5.m") == 300 and go_duration(".5s") == 0.5 and go_duration("1.2.3s") is None
    # a hostile Kueue Configuration: a number split two ways at every digit made this quadratic
    # (4,000 digits took 0.1 s, these 400,000 would take minutes); now one pass
    assert go_duration("1" * 400_000 + "x") is None and go_duration("1m" * 200_000 + "x") is None
    assert go_duration("") is None and go_duration("m") is None


def test_names_a_release_knows() -> None:
    from kqlint.domain.kueue_config_checks import known_in

    assert known_in((17, None), (0, 19)) and not known_in((17, None), (0, 16))
    assert known_in((9, 10), (0, 10)) and not known_in((9, 10), (0, 11))  # removed after 0.10
    assert known_in((9, None), (1, 0)) and not known_in((9, 18), (1, 0)) and not known_in(None, (0, 19))


def test_a_configmap_that_is_no_configuration_is_not_judged() -> None:
    cases = ["apiVersion: v1\nkind: ConfigMap\nmetadata: {name: kueue-manager-config}\n"
             "data: {controller_manager_config.yaml: {nested: map}}\n",
             "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: other-config}\n"
             "data: {controller_manager_config.yaml: 'apiVersion: config.kueue.x-k8s.io/v1beta2'}\n"]
    for text in cases:
        obj, = objects(text)
        assert configuration_of(obj) is None


def test_a_hostile_embedded_document_is_bounded_and_never_crashes() -> None:
    from kqlint.domain.kueue_config import MAX_CONFIG_BYTES
    from kqlint.domain.kueue_config_checks import manager_exits

    huge = "    a: " + "x" * (MAX_CONFIG_BYTES + 1) + "\n"
    assert configuration_of(configuration("v1beta2", huge)) is None
    deep = "    x: " + "[" * 300 + "]" * 300 + "\n"
    broken = "    waitForPodsReady: [unclosed\n"
    for body in (deep, broken, "    7: {}\n    featureGates: [1]\n    integrations: {frameworks: 3}\n"):
        parsed = configuration_of(configuration("v1beta2", body))
        assert parsed is not None
        list(manager_exits(parsed, (0, 19), True))


# ------------------------------------------------------------------ TAS (KQ218)

def _template(annotations: dict[str, str]) -> object:
    import json

    from kqlint.domain.workloads import pod_templates

    text = ("apiVersion: batch/v1\nkind: Job\nmetadata: {name: j, namespace: ml}\nspec:\n  template:\n"
            f"    metadata:\n      annotations: {json.dumps(annotations)}\n"
            "    spec: {containers: [{name: c, image: x}]}\n")
    obj, = objects(text)
    template, = pod_templates(obj)
    return template


def test_the_explicit_request_is_what_kueue_builds_from_the_annotations() -> None:
    from kqlint.domain.kueue.tas import (
        CONSTRAINTS,
        PREFERRED,
        REQUIRED,
        SLICE_REQUIRED,
        SLICE_SIZE,
        UNCONSTRAINED,
        TopologyRequest,
        explicit_request,
    )

    def request(annotations: dict[str, str], version: tuple[int, int] | None = None) -> object:
        return explicit_request(_template(annotations), version)  # type: ignore[arg-type]

    assert request({}) is False and request({"other": "x"}) is False
    assert request({REQUIRED: "rack", PREFERRED: "block"}) == TopologyRequest((("rack", REQUIRED),), REQUIRED)
    assert request({UNCONSTRAINED: "true"}) == TopologyRequest((), UNCONSTRAINED)  # the lowest level: always there
    assert request({UNCONSTRAINED: "false"}) is None and request({UNCONSTRAINED: "maybe"}) is None
    both = request({PREFERRED: "block", SLICE_REQUIRED: "rack", SLICE_SIZE: "2"})
    assert both == TopologyRequest((("block", PREFERRED), ("rack", SLICE_REQUIRED)), PREFERRED)
    assert request({SLICE_REQUIRED: "rack"}) is False  # without a size Kueue builds no request
    layers = '[{"topology": "block", "size": 8}, {"topology": "rack", "size": 2}]'
    assert request({CONSTRAINTS: layers}) == TopologyRequest((("block", CONSTRAINTS), ("rack", CONSTRAINTS)),
                                                             CONSTRAINTS)
    assert request({CONSTRAINTS: layers}, (0, 18)) is None  # TASMultiLayerTopology off before 0.19
    assert request({CONSTRAINTS: "not json"}) is None and request({CONSTRAINTS: "[]"}) is None


def test_tas_is_checked_before_taints_in_the_shared_flavor_model() -> None:
    from kqlint.domain.kueue.flavors import TOPOLOGY, check_flavor
    from kqlint.domain.kueue.tas import TopologyRequest, tas_verdict

    flavor, = objects("apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: plain}\n"
                      "spec: {nodeTaints: [{key: gpu, effect: NoSchedule}]}\n")
    verdict = tas_verdict(TopologyRequest((), "x"), False, ObjectGraph([flavor]))
    tas_first = check_flavor({}, flavor, verdict)
    assert tas_first.blocker == TOPOLOGY
    assert tas_first.reason == 'Flavor "plain" does not support TopologyAwareScheduling'
    assert check_flavor({}, flavor).reason == "untolerated taint {gpu  NoSchedule <nil>} in flavor plain"  # as Kueue
    no_tas = tas_verdict(False, False, ObjectGraph([flavor]))
    assert check_flavor({}, flavor, no_tas).blocker == "tolerations"
