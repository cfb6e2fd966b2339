"""Kueue versions the repository pins (rules.md "Versions the repository pins", issue 31 item 6):
each kind of pin is read, wherever the file sits (input or context), once per run; pins that
disagree leave the version unknown; no fix writes an API version a pinned Kueue does not serve."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from helpers import chdir, lint_case
from kqlint.config import Config
from kqlint.domain.pins import chart_version, image_version, resource_version
from kqlint.engine.pipeline import Pipeline, lint
from kqlint.fix.model import Applicability

KQ005 = Path(__file__).parent / "fixtures" / "rules" / "KQ005"
PINNED = sorted(KQ005.glob("*-pinned-*"))
OLD_RELEASE = "https://github.com/kubernetes-sigs/kueue/releases/download/v0.12.3/manifests.yaml"
FLAVOR_V1BETA1 = "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ResourceFlavor\nmetadata:\n  name: default-flavor\n"
BORROW = """\
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata:
  name: team-a
spec:
  namespaceSelector: {}
  flavorFungibility:
    whenCanBorrow: Borrow
"""


def _repository(tmp_path: Path, files: dict[str, str]) -> Path:
    (tmp_path / ".git").mkdir(parents=True)
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return tmp_path


def _kueue_line(platform: tuple[str, ...]) -> str:
    return next(line for line in platform if line.startswith("kueue version:"))


@pytest.mark.parametrize("case", PINNED, ids=[p.name for p in PINNED])
def test_each_kind_of_pin_is_read_with_its_source(case: Path) -> None:
    """The fixture pairs of tests/fixtures/rules/KQ005 are silent or not *because* of the pin."""
    line = _kueue_line(lint_case(case, "KQ005").platform)
    expected = "0.12" if case.name.startswith("good") else "0.16"
    assert line.startswith(f"kueue version: {expected} (from "), line
    assert any(word in line for word in ("kustomization.yaml", "Chart.yaml", "values.yaml", "Deployment",
                                         "HelmRelease", "Application")), line


def test_pins_that_disagree_leave_the_version_unknown_and_say_so() -> None:
    line = _kueue_line(lint_case(KQ005 / "good-pins-disagree", "KQ005").platform)
    assert line.startswith("kueue version: unknown (the repository's pins disagree: 0.12: release manifest URL in "
                           "prod/kustomization.yaml; 0.16: release manifest URL in staging/kustomization.yaml")


def test_a_pin_in_the_context_counts(tmp_path: Path) -> None:
    """`kqlint check queues/flavor.yaml`: the kustomization that pins Kueue is context (and no
    object): it is read all the same."""
    repo = _repository(tmp_path, {"platform/kueue/kustomization.yaml": f"resources:\n- {OLD_RELEASE}\n",
                                  "queues/flavor.yaml": FLAVOR_V1BETA1})
    with chdir(repo):
        report = lint(["queues/flavor.yaml"], Config(select=("KQ005",)))
        assert report.findings == ()
        assert _kueue_line(report.platform) == ("kueue version: 0.12 (from release manifest URL in "
                                                "platform/kueue/kustomization.yaml)")
        # without context (--context given, or none), files the run does not read pin nothing
        alone = lint(["queues/flavor.yaml"], Config(select=("KQ005",)), auto_context=False)
        assert [f.code for f in alone.findings] == ["KQ005"]


def test_pins_reach_the_language_server_buffer(tmp_path: Path) -> None:
    repo = _repository(tmp_path, {"kueue/kustomization.yaml": f"resources:\n- {OLD_RELEASE}\n",
                                  "queues/flavor.yaml": "kind: ConfigMap\n"})
    with chdir(repo):
        pipeline = Pipeline(Config(select=("KQ005",)))
        kept = pipeline.keep_context(pipeline.context_of("queues/flavor.yaml"))
        report = pipeline.lint_text("queues/flavor.yaml", FLAVOR_V1BETA1.encode(), kept)
    assert report.findings == ()
    assert _kueue_line(report.platform).startswith("kueue version: 0.12")


def test_old_pin_silences_the_fungibility_alias_too(tmp_path: Path) -> None:
    repo = _repository(tmp_path, {"kueue/kustomization.yaml": f"resources:\n- {OLD_RELEASE}\n",
                                  "queues/cq.yaml": BORROW})
    with chdir(repo):
        assert lint(["."], Config(select=("KQ005",))).findings == ()


def test_configured_version_wins_but_the_fix_is_unsafe_where_a_pin_does_not_serve_v1beta2(tmp_path: Path) -> None:
    """rules.md: a fix that would produce an API version the pinned Kueue does not serve is
    not safe (offered as unsafe, with the reason)."""
    repo = _repository(tmp_path, {"kueue/kustomization.yaml": f"resources:\n- {OLD_RELEASE}\n",
                                  "queues/cq.yaml": BORROW})
    with chdir(repo):
        report = lint(["."], Config(select=("KQ005",), platform={"kueue": {"version": "0.16"}}))
    assert [(f.location.line, f.code) for f in report.findings] == [(1, "KQ005"), (8, "KQ005")]
    for finding in report.findings:
        assert finding.fix is not None and finding.fix.applicability is Applicability.UNSAFE
        assert "the repository pins Kueue 0.12 (release manifest URL in kueue/kustomization.yaml)" in finding.fix.title
    # without the pin the same findings carry safe fixes
    (repo / "kueue" / "kustomization.yaml").unlink()
    with chdir(repo):
        again = lint(["."], Config(select=("KQ005",), platform={"kueue": {"version": "0.16"}}))
    assert {f.fix.applicability for f in again.findings if f.fix} == {Applicability.SAFE}


def test_a_v1alpha1_cohort_still_served_by_one_pin_is_not_reported(tmp_path: Path) -> None:
    cohort = "apiVersion: kueue.x-k8s.io/v1alpha1\nkind: Cohort\nmetadata:\n  name: research\n"
    repo = _repository(tmp_path, {
        "prod/kustomization.yaml": f"resources:\n- {OLD_RELEASE}\n",
        "staging/kustomization.yaml": f"resources:\n- {OLD_RELEASE.replace('v0.12.3', 'v0.16.0')}\n",
        "cohort.yaml": cohort})
    with chdir(repo):
        assert lint(["cohort.yaml"], Config(select=("KQ005",))).findings == ()


@pytest.mark.parametrize("text,version", [
    ("0.12.3", (0, 12)), ("v0.12.3", (0, 12)), ("~0.12.3", (0, 12)), ("^0.12.3", (0, 12)), ("0.12.x", (0, 12)),
    ("0.12", (0, 12)), ("^1.2.0", None), (">=0.12.0", None), ("latest", None), (12, None), (None, None),
])
def test_only_a_version_that_fixes_the_minor_release_is_a_chart_pin(text: object, version: object) -> None:
    assert chart_version(text) == version


def test_release_urls_and_images() -> None:
    assert resource_version(OLD_RELEASE) == ((0, 12), "release manifest URL")
    assert resource_version("github.com/kubernetes-sigs/kueue/config/default?ref=v0.14.2") == \
        ((0, 14), "remote base at a release tag")
    assert resource_version("https://github.com/kubernetes-sigs/kueue/config/default?ref=main") is None
    assert resource_version("https://github.com/example/kueue/releases/download/v0.12.3/manifests.yaml") is None
    assert image_version("registry.k8s.io/kueue/kueue:v0.14.2") == (0, 14)
    assert image_version("example.com/notkueue:v0.14.2") is None


# ------------------------------------------------------------------ what the repository brings

def test_a_pin_file_symlinked_out_of_the_repository_is_not_read(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "kustomization.yaml").write_text(f"resources:\n- {OLD_RELEASE}\n")
    repo = _repository(tmp_path / "repo", {"flavor.yaml": FLAVOR_V1BETA1})
    (repo / "kueue").mkdir()
    os.symlink(outside / "kustomization.yaml", repo / "kueue" / "kustomization.yaml")
    with chdir(repo):
        report = lint(["."], Config(select=("KQ005",)))
    assert [f.code for f in report.findings] == ["KQ005"]
    assert not any("0.12" in line for line in report.platform)


def test_an_oversized_pin_file_is_not_read(tmp_path: Path) -> None:
    padding = "# " + "x" * 200 + "\n"
    repo = _repository(tmp_path, {"kueue/kustomization.yaml": padding * 20 + f"resources:\n- {OLD_RELEASE}\n",
                                  "flavor.yaml": FLAVOR_V1BETA1})
    with chdir(repo):
        report = lint(["."], Config(select=("KQ005",), max_file_size=1024))
    assert "KQ005" in {f.code for f in report.findings}
    assert not any("0.12" in line for line in report.platform)


@pytest.mark.skipif(not __import__("shutil").which("kubectl"), reason="kubectl is not installed")
def test_a_rendered_run_reads_the_pins_too(tmp_path: Path) -> None:
    repo = _repository(tmp_path, {
        "overlay/kustomization.yaml": "resources:\n- flavor.yaml\nimages:\n- name: registry.k8s.io/kueue/kueue\n"
                                      "  newTag: v0.12.3\n",
        "overlay/flavor.yaml": FLAVOR_V1BETA1})
    subprocess.run(["git", "init", "-q", str(repo)], check=False, capture_output=True)
    with chdir(repo):
        report = Pipeline(Config(select=("KQ005",))).lint_rendered(["overlay"], [])
    assert report.findings == ()
    assert _kueue_line(report.platform).startswith("kueue version: 0.12 (from image tag in overlay/kustomization.yaml")


def test_past_the_bound_no_file_pins_are_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A pin past the bound could be the one that disagrees: then none is read (version unknown)."""
    from kqlint.project.scope import pins

    repo = _repository(tmp_path, {"kueue/kustomization.yaml": f"resources:\n- {OLD_RELEASE}\n",
                                  "apps/kustomization.yaml": "resources: []\n", "flavor.yaml": FLAVOR_V1BETA1})
    with chdir(repo):
        assert lint(["."], Config(select=("KQ005",))).findings == ()
        monkeypatch.setattr(pins, "MAX_PIN_FILES", 1)
        assert [f.code for f in lint(["."], Config(select=("KQ005",))).findings] == ["KQ005"]


def test_a_pin_inside_a_declared_unit_pins_that_unit_only(tmp_path: Path) -> None:
    """config `units:` declares independent parts: a sample that installs Kueue 0.12 says
    nothing about its neighbour; a kustomization elsewhere (no declared unit) pins them all."""
    repo = _repository(tmp_path, {"a/kueue/kustomization.yaml": f"resources:\n- {OLD_RELEASE}\n",
                                  "a/flavor.yaml": FLAVOR_V1BETA1, "b/flavor.yaml": FLAVOR_V1BETA1})
    with chdir(repo):
        report = lint(["."], Config(select=("KQ005",), units=("a", "b")))
    assert [f.location.file for f in report.findings] == ["b/flavor.yaml"]
