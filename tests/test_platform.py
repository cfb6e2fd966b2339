"""The platform model (linter/domain/platform.py): where each fact comes from, and how rules word
their findings for the platform they are told about."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from ci_helpers import cli
from helpers import chdir
from kqlint.config import Config, config_from_mapping
from kqlint.domain.platform import parse_version, platform_of
from kqlint.engine.pipeline import Pipeline, lint
from kqlint.errors import ConfigError

KUEUE_CONFIG = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: kueue-manager-config
  namespace: kueue-system
data:
  controller_manager_config.yaml: |
    apiVersion: config.kueue.x-k8s.io/v1beta2
    kind: Configuration
    integrations:
      frameworks:
      - batch/job
      - pod
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: kueue-controller-manager
  namespace: kueue-system
spec:
  selector: {matchLabels: {app: kueue}}
  template:
    metadata:
      labels: {app: kueue}
    spec:
      containers:
      - name: manager
        image: registry.k8s.io/kueue/kueue:v0.14.3
"""

JOB_TEMPLATE_LABELS = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: train
  namespace: ml
spec:
  parallelism: 2
  template:
    metadata:
      labels:
        kueue.x-k8s.io/queue-name: training
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox
"""

DEPLOYMENT_TEMPLATE_LABELS = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: chat
  namespace: ml
spec:
  replicas: 2
  selector: {matchLabels: {app: chat}}
  template:
    metadata:
      labels:
        app: chat
        kueue.x-k8s.io/queue-name: serving
    spec:
      containers:
      - name: main
        image: vllm
"""


def _model(tmp_path: Path, files: dict[str, str], config: Config | None = None):
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    with chdir(tmp_path):
        view = Pipeline(config or Config()).graph(["."])
    return platform_of(view.graphs[0])


def _messages(tmp_path: Path, code: str, files: dict[str, str], config: Config | None = None) -> list[str]:
    return [message for message, _ in _told(tmp_path, code, files, config)]


def _told(tmp_path: Path, code: str, files: dict[str, str],
          config: Config | None = None) -> list[tuple[str, str | None]]:
    """Each finding's message and remedy."""
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    with chdir(tmp_path):
        report = lint(["."], (config or Config()).with_overrides(select=(code,)), auto_context=False)
    return [(f.message, f.remedy) for f in report.findings]


# ------------------------------------------------------------------ sources and precedence

def test_nothing_known_without_config_profile_or_evidence(tmp_path: Path) -> None:
    model = _model(tmp_path, {"job.yaml": JOB_TEMPLATE_LABELS})
    assert not model.known()
    assert model.integration("pod") is None and model.pod_integration() is None
    assert model.kueue_version is None and not model.offers("nvidia.com/mlnxnics")


def test_kueue_configuration_and_image_are_evidence(tmp_path: Path) -> None:
    model = _model(tmp_path, {"kueue.yaml": KUEUE_CONFIG})
    assert model.integrations == {"batch/job", "pod"} and model.integrations_complete
    assert model.integration("deployment") is False and model.pod_integration() == "explicit"
    assert model.kueue_version == (0, 14)
    assert "ConfigMap kueue-system/kueue-manager-config" in model.sources["kueue.integrations"]


def test_config_wins_over_profile_and_evidence(tmp_path: Path) -> None:
    config = Config(profile="kakaocloud", platform={
        "kueue": {"version": "v0.16.1", "integrations": ["batch/job", "deployment"]},
        "nic-resources": ["rdma/ib"]})
    model = _model(tmp_path, {"kueue.yaml": KUEUE_CONFIG}, config)
    assert model.kueue_version == (0, 16)
    assert model.integrations == {"batch/job", "deployment"} and model.pod_integration() == "implicit"
    assert model.nic_resources == {"rdma/ib"}  # a configured list replaces the profile's
    assert model.gang_schedulers == {"volcano", "kai"}  # not configured: the profile's
    assert model.sources["kueue.version"] == "configuration `platform:`"


def test_profile_facts_and_partial_integrations(tmp_path: Path) -> None:
    model = _model(tmp_path, {"kueue.yaml": KUEUE_CONFIG}, Config(profile="kakaocloud"))
    assert model.offers("nvidia.com/mlnxnics") and model.integration("pod")
    assert model.integration("ray.io/rayjob") is None  # the seed does not say: unknown
    assert ("apps", "Deployment") in model.template_labels
    assert model.kueue_version == (0, 14)  # the profile sets no version: evidence fills it


def test_pods_requesting_a_nic_are_evidence(tmp_path: Path) -> None:
    pod = ("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n"
           "    image: x\n    resources:\n      limits: {nvidia.com/mlnxnics: 1, example.com/ib: 1}\n")
    model = _model(tmp_path, {"pod.yaml": pod})
    assert model.nic_resources == {"nvidia.com/mlnxnics"}
    assert model.offers("example.com/ib")  # requested by some pod: offered, though not NIC-looking


@pytest.mark.parametrize("text,expected", [("0.14", (0, 14)), ("v0.15.2", (0, 15)), (0.16, (0, 16)),
                                           ("latest", None), (True, None), (None, None)])
def test_parse_version(text: object, expected: object) -> None:
    assert parse_version(text) == expected


@pytest.mark.parametrize("platform,message", [
    ({"kueue": {"version": "latest"}}, "a Kueue version"),
    ({"nic": []}, "unknown key `nic`"),
    ({"gang-schedulers": ["slurm"]}, "is not one of volcano, kai, coscheduling"),
])
def test_config_platform_section_is_validated(platform: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace("`", ".")):
        config_from_mapping({"platform": platform}, "cfg.yaml")


# ------------------------------------------------------------------ rules word what is true here

def test_kq208_says_which_outcome_the_platform_has(tmp_path: Path) -> None:
    files = {"job.yaml": JOB_TEMPLATE_LABELS}
    unknown, = _messages(tmp_path, "KQ208", files)
    assert "with the `pod` integration on" in unknown and "otherwise it runs at once outside the quota" in unknown
    pod_on = Config(platform={"kueue": {"integrations": ["batch/job", "pod"]}})
    explicit, = _messages(tmp_path, "KQ208", files, pod_on)
    assert "the `pod` integration queues each pod alone (no all-or-nothing admission)" in explicit
    assert "outside the quota" not in explicit
    pod_off = Config(platform={"kueue": {"integrations": ["batch/job"]}})
    off, = _messages(tmp_path, "KQ208", files, pod_off)
    assert "the `pod` integration is not enabled: it runs at once outside the quota" in off


def test_kq208_deployment_template_labels_depend_on_the_pod_integration(tmp_path: Path) -> None:
    files = {"deployment.yaml": DEPLOYMENT_TEMPLATE_LABELS}
    assert _messages(tmp_path, "KQ208", files) == []  # unknown: silent
    assert _messages(tmp_path, "KQ208", files, Config(platform={"kueue": {"integrations": ["pod"]}})) == []
    implicit, = _messages(tmp_path, "KQ208", files, Config(platform={"kueue": {"integrations": ["deployment"]}}))
    assert "the `pod` integration, only implicitly on, skips pods of an unmanaged owner" in implicit
    assert _messages(tmp_path, "KQ208", files, Config(profile="kakaocloud")) == []  # documented placement


def test_kq205_mentions_kueue_only_for_managed_workloads(tmp_path: Path) -> None:
    job = ("apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: {name}\n  namespace: ml\n{labels}spec:\n"
           "  template:\n    spec:\n      priorityClassName: missing\n      restartPolicy: Never\n"
           "      containers: [{{name: c, image: x}}]\n")
    managed = job.format(name="queued", labels="  labels: {kueue.x-k8s.io/queue-name: training}\n")
    plain = job.format(name="plain", labels="")
    messages = sorted(_messages(tmp_path, "KQ205", {"a.yaml": managed, "b.yaml": plain}))
    assert "Kueue cannot compute" in messages[1] and "Job ml/queued pod template" in messages[1]
    assert "Kueue" not in messages[0] and "Job ml/plain pod template" in messages[0]


NIC_JOBSET = """\
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: train, namespace: ml}
spec:
  replicatedJobs:
    - name: workers
      replicas: 2
      template:
        spec:
          template:
            spec:
              restartPolicy: Never
              containers:
                - name: train
                  image: x
                  resources:
                    limits: {nvidia.com/gpu: 8, nvidia.com/mlnxnics: 4}
"""
NIC_PROBE = ("apiVersion: v1\nkind: Pod\nmetadata: {name: probe, namespace: ml}\nspec:\n"
             "  containers: [{name: c, image: x, resources: {limits: {nvidia.com/mlnxnics: 1}}}]\n")


@pytest.mark.parametrize("profile", [None, "kakaocloud"])
def test_kq401_configured_resource_wins_over_inferred_and_profile_nics(tmp_path: Path, profile: str | None) -> None:
    """rules.KQ401.resource names this cluster's NIC: pods requesting nvidia.com/mlnxnics (and the
    profile's nvidia.com/mlnxnics) neither silence the rule nor make the message suggest another."""
    configured = Config(rules={"KQ401": {"resource": "rdma/ib"}}, profile=profile)
    (message, remedy), = _told(tmp_path, "KQ401", {"jobset.yaml": NIC_JOBSET, "probe.yaml": NIC_PROBE}, configured)
    assert "no container asks for rdma/ib" in message
    assert remedy is not None and remedy.endswith(
        "(rdma/ib is this cluster's NIC resource: configuration `rules.KQ401.resource`). The pod asks for "
        "nvidia.com/mlnxnics instead, which is not the NIC the configuration names")
    assert _messages(tmp_path, "KQ401", {}, Config(profile=profile)) == []  # the default NIC is asked for


def test_kai_installed_by_configuration_resolves_its_classes_everywhere(tmp_path: Path) -> None:
    pod = ("apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ml}\nspec:\n"
           "  priorityClassName: inference\n  containers: [{name: c, image: x}]\n")
    message, = _messages(tmp_path, "KQ205", {"pod.yaml": pod})
    assert message.startswith("Pod ml/p: priorityClassName") and "rejects the pod" in message
    assert _messages(tmp_path, "KQ205", {"pod.yaml": pod}, Config(platform={"gang-schedulers": ["kai"]})) == []


def test_kq005_advice_names_the_version_that_serves_v1beta2(tmp_path: Path) -> None:
    lq = ("apiVersion: kueue.x-k8s.io/v1beta1\nkind: LocalQueue\nmetadata: {name: q, namespace: ml}\n"
          "spec: {clusterQueue: cq}\n")
    (message, remedy), = _told(tmp_path, "KQ005", {"lq.yaml": lq})
    assert "deprecated since Kueue 0.16" in message and remedy is not None and "which Kueue serves from 0.15" in remedy
    assert _messages(tmp_path, "KQ005", {"lq.yaml": lq}, Config(platform={"kueue": {"version": "0.13"}})) == []


# ------------------------------------------------------------------ where the model is shown

def test_graph_json_and_tree_show_the_model(tmp_path: Path) -> None:
    (tmp_path / "kueue.yaml").write_text(KUEUE_CONFIG, encoding="utf-8")
    code, out, _ = cli("graph", ".", "-f", "json", cwd=tmp_path)
    assert code == 0
    platform = json.loads(out)["platform"]
    assert platform["kueue"] == {"version": "0.14", "integrations": ["batch/job", "pod"],
                                 "integrationsComplete": True, "fairSharing": False}
    code, out, _ = cli("graph", ".", cwd=tmp_path)
    assert "Platform model:\n  kueue version: 0.14 (from image of Deployment" in out


def test_statistics_print_the_model(tmp_path: Path) -> None:
    (tmp_path / "kueue.yaml").write_text(KUEUE_CONFIG, encoding="utf-8")
    (tmp_path / "job.yaml").write_text(JOB_TEMPLATE_LABELS, encoding="utf-8")
    code, out, _ = cli("check", ".", "--statistics", "--no-color", cwd=tmp_path)
    assert "platform: kueue integrations: batch/job, pod (from ConfigMap" in out
    assert "1  KQ208 kueue-label-misplaced" in out


# ------------------------------------------------------------------ resources of the Kueue Configuration

def _resources_config(name: str, resources: str) -> str:
    return f"""\
apiVersion: v1
kind: ConfigMap
metadata:
  name: {name}
  namespace: kueue-system
data:
  controller_manager_config.yaml: |
    apiVersion: config.kueue.x-k8s.io/v1beta2
    kind: Configuration
{resources}"""


HAMI = """\
    resources:
      excludeResourcePrefixes: [example.com/]
      transformations:
      - input: nvidia.com/gpucores
        strategy: Replace
        multiplyBy: nvidia.com/gpu
        outputs: {nvidia.com/total-gpucores: "1"}
"""


def test_the_kueue_configurations_resources_section_is_evidence(tmp_path: Path) -> None:
    from kqlint.domain.kueue.podsets import resource_config

    model = _model(tmp_path, {"kueue.yaml": _resources_config("kueue-manager-config", HAMI)})
    prefixes, transformations, ignore_undeclared = model.kueue_resources or ((), (), True)
    assert not ignore_undeclared
    assert prefixes == ("example.com/",) and [t["input"] for t in transformations] == ["nvidia.com/gpucores"]
    assert "ConfigMap kueue-system/kueue-manager-config (kueue.yaml)" in model.sources["kueue.resources"]
    assert model.describe()["kueue"]["resources"] == ["exclude example.com/*", "nvidia.com/gpucores Replace"]
    assert any(line.startswith("kueue resources: exclude example.com/*, nvidia.com/gpucores Replace (from ")
               for line in model.lines())
    with chdir(tmp_path):
        graph = Pipeline(Config()).graph(["."]).graphs[0]
    found = resource_config(None, graph)
    assert found.exclude_prefixes == ("example.com/",) and found.source.startswith("ConfigMap kueue-system/")

    class Options:  # the rule options mirror a Configuration: they win over the one in the inputs
        exclude_resource_prefixes = ("other.io/",)
        transformations = ()

    assert resource_config(Options(), graph).exclude_prefixes == ("other.io/",)


def test_kueue_configurations_that_disagree_exclude_what_either_touches(tmp_path: Path) -> None:
    """Which one the manager runs is unknown: no request either one excludes or transforms is judged."""
    model = _model(tmp_path, {"a.yaml": _resources_config("kueue-manager-config", HAMI),
                              "b.yaml": _resources_config("staging-kueue-manager-config",
                                                          "    resources:\n      excludeResourcePrefixes: [x.io/]\n")})
    assert model.kueue_resources == (("example.com/", "nvidia.com/gpucores", "x.io/"), (), False)
    assert model.sources["kueue.resources"].startswith("2 Kueue Configurations that disagree, the first ")
    (tmp_path / "plain").mkdir()
    assert _model(tmp_path / "plain", {"kueue.yaml": KUEUE_CONFIG}).kueue_resources is None


def test_kq209_and_simulate_count_requests_as_the_configuration_transforms_them(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parent / "fixtures" / "rules" / "KQ209" / "good-transformations-in-kueue-config"
    for file in root.iterdir():
        (tmp_path / file.name).write_text(file.read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / ".git").mkdir()
    with chdir(tmp_path):
        assert not lint(["workload.yaml"], Config().with_overrides(select=("KQ209", "KQ210"))).findings
    code, out, _ = cli("simulate", ".", "--format", "json", cwd=tmp_path)
    report = json.loads(out)
    assert code == 0
    assert [w["status"] for w in report["workloads"]] == ["admitted"]
    assert ("resources.excludeResourcePrefixes and transformations as the Kueue Configuration sets them (ConfigMap "
            "kueue-system/kueue-manager-config (kueue-manager-config.yaml))") in report["assumptions"]
    (tmp_path / "kueue-manager-config.yaml").unlink()
    with chdir(tmp_path):
        report = lint(["workload.yaml"], Config().with_overrides(select=("KQ209",)))
    assert [f.code for f in report.findings] == ["KQ209"]


def yaml_settings(text: str) -> dict[str, Any]:
    from ruamel.yaml import YAML

    return dict(YAML(typ="safe").load(text))


IGNORE_UNDECLARED = "    resources:\n      quotaCheckStrategy: IgnoreUndeclared\n"


@pytest.mark.parametrize(("gates", "settings", "ignored"), [
    ("", "", True),                                               # unknown version: the newest, gate on by default
    ("", "platform: {kueue: {version: '0.18'}}\n", False),        # alpha in 0.18: off by default
    ("", "platform: {kueue: {version: '0.19'}}\n", True),         # beta in 0.19: on by default
    ("    featureGates: {QuotaCheckStrategy: false}\n", "", False),
])
def test_ignore_undeclared_silences_kq209_and_simulate_admits_as_kueue_does(tmp_path: Path, gates: str, settings: str,
                                                                           ignored: bool) -> None:
    """With quotaCheckStrategy IgnoreUndeclared and its gate on, Kueue's flavor assigner skips a
    resource the ClusterQueue does not cover (IgnoreUndeclaredResources, flavorassigner.go)."""
    if settings:
        (tmp_path / ".kqlint.yaml").write_text(settings, encoding="utf-8")
    root = Path(__file__).resolve().parent / "fixtures" / "rules" / "KQ209" / "bad-gpu-limit-only"
    for file in root.iterdir():
        if file.suffix == ".yaml":
            (tmp_path / file.name).write_text(file.read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "kueue.yaml").write_text(_resources_config("kueue-manager-config", IGNORE_UNDECLARED + gates),
                                         encoding="utf-8")
    (tmp_path / ".git").mkdir()
    config = config_from_mapping(yaml_settings(settings), ".kqlint.yaml") if settings else Config()
    with chdir(tmp_path):
        report = lint(["."], config.with_overrides(select=("KQ209",)))
    assert [f.code for f in report.findings] == ([] if ignored else ["KQ209"])
    code, out, _ = cli("simulate", ".", "--format", "json", cwd=tmp_path)
    result = json.loads(out)
    assert [w["status"] for w in result["workloads"]] == (["admitted"] if ignored else ["pending"])
    assert any(a.startswith("quotaCheckStrategy IgnoreUndeclared") for a in result["assumptions"]) is ignored
    assert ("quotaCheckStrategy BlockUndeclared" in result["assumptions"]) is not ignored
