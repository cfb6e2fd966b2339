"""Independent samples and test-harness folders (issue 31 items 2 and 5; rules.md "Applied
together"). Fixture projects in tests/fixtures/scope/ are copied to a temporary folder with a
`.git` (the project root) before each run:
- independent-samples: gpu-gang/ (a gang with its own preempting class, a single-pod job
  without a class) and serving/ (a preempting global default, copies of the same ClusterQueue
  and ResourceFlavor names), each with a README and no reference between them.
- samples-platform: platform/ (a preempting global default, a preempting class, the
  ClusterQueue) and teams/ (a LocalQueue resolving into platform/, a gang), each with a README.
- harness-tests: a chainsaw test and kuttl tests whose steps apply a Job naming the LocalQueue
  an operator makes from its CR, and whose assert/error files hold expected state; outside/
  holds the same documents outside any harness.
"""
from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path

import pytest
from helpers import chdir
from kqlint.cli import main
from kqlint.config import Config
from kqlint.engine.pipeline import lint
from kqlint.model import Severity
from kqlint.project.scope.harness import named_check

SCOPE = Path(__file__).parent / "fixtures" / "scope"
PRIORITY = Config(select=("KQ0", "KQ1"))
HARNESS = Config(select=("KQ0", "KQ2", "KQ3", "KQ4"))


def project(tmp_path: Path, name: str) -> Path:
    root = tmp_path / name
    shutil.copytree(SCOPE / name, root)
    (root / ".git").mkdir()
    return root


def spots(report) -> set[tuple[str, int, int, str]]:  # type: ignore[no-untyped-def]
    return {(f.location.file, f.location.line, f.location.column, f.code) for f in report.findings}


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))


OWN = ("gpu-gang/jobs.yaml", 14, 7, "KQ101")             # the gang's own preempting class: true in its sample
LEAK = ("gpu-gang/jobs.yaml", 33, 5, "KQ102")            # serving's global default judged against gpu-gang
EXPOSURE = ("serving/priority.yaml", 5, 1, "KQ107")      # serving's class judged against gpu-gang's gang


# ------------------------------------------------------------------ item 2: independent samples

def test_independent_samples_are_never_judged_against_each_other(tmp_path: Path) -> None:
    root = project(tmp_path, "independent-samples")
    with chdir(root):
        for paths in (["."], ["gpu-gang"], ["gpu-gang/jobs.yaml"]):
            assert spots(lint(paths, PRIORITY)) == {OWN}, paths
        assert spots(lint(["serving"], PRIORITY)) == set()


def test_without_readmes_the_folders_are_applied_together(tmp_path: Path) -> None:
    root = project(tmp_path, "independent-samples")
    (root / "serving" / "README.md").unlink()
    with chdir(root):
        assert spots(lint(["."], PRIORITY)) == {OWN, LEAK, EXPOSURE}
        assert spots(lint(["gpu-gang"], PRIORITY)) == {OWN, LEAK}


def test_a_platform_repository_stays_one_deployment(tmp_path: Path) -> None:
    root = project(tmp_path, "samples-platform")  # teams/' LocalQueue resolves into platform/
    with chdir(root):
        assert spots(lint(["."], PRIORITY)) == {("platform/priority.yaml", 12, 1, "KQ107"),
                                                ("teams/team-a.yaml", 21, 5, "KQ102")}
        assert spots(lint(["teams"], PRIORITY)) == {("teams/team-a.yaml", 21, 5, "KQ102")}


def test_samples_a_reference_links_are_one_unit_and_the_others_stay_apart(tmp_path: Path) -> None:
    root = project(tmp_path, "independent-samples")
    write(root / "serving" / "job.yaml", """\
        apiVersion: batch/v1
        kind: Job
        metadata:
          name: warmup
          namespace: ml
          labels:
            kueue.x-k8s.io/queue-name: user-queue
        spec:
          template:
            spec:
              priorityClassName: serving-critical
              restartPolicy: Never
              containers:
              - name: main
                image: busybox
        """)  # user-queue is gpu-gang's: serving is applied with gpu-gang
    write(root / "burst" / "README.md", "# Burst\n")
    write(root / "burst" / "priority.yaml", """\
        apiVersion: scheduling.k8s.io/v1
        kind: PriorityClass
        metadata:
          name: burst
        value: 5000000
        """)
    with chdir(root):
        found = spots(lint(["."], PRIORITY))
    assert {OWN, LEAK, EXPOSURE} <= found
    assert not any(spot[0].startswith("burst/") for spot in found)  # burst is a sample of its own


def test_config_units_override_the_detection(tmp_path: Path) -> None:
    root = project(tmp_path, "independent-samples")
    (root / ".kqlint.yaml").write_text('units: ["."]\n')
    config = Config(select=("KQ0", "KQ1"), units=(".",), path=str(root / ".kqlint.yaml"))
    with chdir(root):
        found = spots(lint(["."], config))
    assert {OWN, LEAK, EXPOSURE} <= found
    assert {spot[3] for spot in found if spot[0] == "serving/priority.yaml"} >= {"KQ003", "KQ107"}


def test_graph_shows_a_sample_without_the_other_samples_default(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    root = project(tmp_path, "independent-samples")
    with chdir(root):
        main(["graph", "gpu-gang"])
        alone = capsys.readouterr().out
        (root / "serving" / "README.md").unlink()
        main(["graph", "gpu-gang"])
        together = capsys.readouterr().out
    assert "serving-critical" not in alone and "0 unresolved" in alone
    assert "(global default)" in together and "serving-critical" in together


# ------------------------------------------------------------------ item 5: test harnesses

OUTSIDE = {("outside/job.yaml", 6, 32, "KQ203"), ("outside/job.yaml", 15, 9, "KQ402"),
           ("outside/expected/expected-queue.yaml", 7, 32, "KQ203"),
           ("outside/expected/no-queue.yaml", 6, 17, "KQ204")}
STEP_PROBES = {(path, 15, 9, "KQ402") for path in (
    "chainsaw/queue-from-cr/resources/job.yaml",   # applied by the chainsaw test
    "kuttl/tests/queue-from-cr/00-install.yaml",   # a kuttl step beside 00-assert.yaml
    "kuttl/tests/apply-only/00-job.yaml",          # a test case of kuttl-test.yaml's testDirs
    "kuttl/tests/step-folders/00-job.yaml")}       # a case whose assert sits in a step folder


def test_harness_checks_are_never_applied_and_steps_name_what_the_system_creates(tmp_path: Path) -> None:
    root = project(tmp_path, "harness-tests")
    with chdir(root):
        report = lint(["."], HARNESS)
    assert spots(report) == OUTSIDE | STEP_PROBES


def test_one_harness_file_at_a_time(tmp_path: Path) -> None:
    root = project(tmp_path, "harness-tests")
    with chdir(root):
        for check in ("chainsaw/queue-from-cr/expected-queue.yaml", "chainsaw/queue-from-cr/no-queue.yaml",
                      "kuttl/tests/queue-from-cr/00-assert.yaml", "kuttl/tests/queue-from-cr/01-errors.yaml",
                      "kuttl/tests/step-folders/01-check/assert.yaml"):
            assert lint([check], HARNESS).findings == (), check
        assert spots(lint(["kuttl/tests/queue-from-cr/00-install.yaml"], HARNESS)) == {
            ("kuttl/tests/queue-from-cr/00-install.yaml", 15, 9, "KQ402")}
        assert spots(lint(["outside/expected/expected-queue.yaml"], HARNESS)) == {
            ("outside/expected/expected-queue.yaml", 7, 32, "KQ203")}


def test_a_chainsaw_test_file_names_its_checks(tmp_path: Path) -> None:
    """Without the chainsaw-test.yaml, expected-queue.yaml is an ordinary manifest."""
    root = project(tmp_path, "harness-tests")
    (root / "chainsaw" / "queue-from-cr" / "chainsaw-test.yaml").unlink()
    with chdir(root):
        found = spots(lint(["chainsaw"], HARNESS))
    assert ("chainsaw/queue-from-cr/expected-queue.yaml", 7, 32, "KQ203") in found
    assert ("chainsaw/queue-from-cr/resources/job.yaml", 6, 32, "KQ203") in found


def test_gang_queues_named_in_a_harness_step_may_be_created_by_the_system(tmp_path: Path) -> None:
    root = project(tmp_path, "harness-tests")
    write(root / "queues.yaml", """\
        apiVersion: scheduling.volcano.sh/v1beta1
        kind: Queue
        metadata:
          name: research
        """)
    job = """\
        apiVersion: batch.volcano.sh/v1alpha1
        kind: Job
        metadata:
          name: vcjob
        spec:
          queue: operator-queue
          minAvailable: 1
          tasks:
          - name: worker
            replicas: 1
            template:
              spec:
                restartPolicy: Never
                containers:
                - name: main
                  image: busybox
        """
    write(root / "kuttl" / "tests" / "queue-from-cr" / "02-vcjob.yaml", job)
    write(root / "outside" / "vcjob.yaml", job)
    with chdir(root):
        found = {spot for spot in spots(lint(["."], Config(select=("KQ312",))))}
    assert found == {("outside/vcjob.yaml", 6, 10, "KQ312")}


def test_duplicate_keys_in_a_check_file_are_not_called_a_kustomize_patch(tmp_path: Path) -> None:
    root = project(tmp_path, "harness-tests")
    write(root / "kuttl" / "tests" / "queue-from-cr" / "03-assert.yaml", """\
        apiVersion: batch/v1
        kind: Job
        metadata:
          name: trainer
          name: trainer2
        """)
    with chdir(root):
        report = lint(["kuttl/tests/queue-from-cr/03-assert.yaml"], Config(select=("KQ001",)))
    assert [f.severity for f in report.findings] == [Severity.ERROR]  # not the patch fragment's warning


@pytest.mark.parametrize(("name", "check"), [
    ("00-assert.yaml", True), ("01-errors.yaml", True), ("01-assert.yml", True),   # chainsaw TryFindStepFiles
    ("02-assert-pods.yaml", True), ("03-Errors.gotmpl.yaml", True),                # kuttl file.Parse
    ("00-install-assert.yaml", False),  # kuttl: first name `install`, chainsaw: `install-assert`: applied
    ("assert.yaml", False), ("00-install.yaml", False), ("assert-00.yaml", False)])
def test_check_file_names_follow_the_harnesses(name: str, check: bool) -> None:
    assert named_check(name) is check


def test_a_hostile_chainsaw_test_reads_nothing_outside(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = project(tmp_path, "harness-tests")
    outside = tmp_path / "secret.yaml"
    outside.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: secret\n")
    globs = ["expected-*.yaml", "a\u0000b", "/etc/*", "../../../*", "../../../../**/*", "[" * 600, "*" * 500 + "a",
             *(f"f{i}.yaml" for i in range(400))]
    test = {"apiVersion": "chainsaw.kyverno.io/v1alpha1", "kind": "Test", "metadata": {"name": "x"},
            "spec": {"steps": [{"try": [{"assert": {"file": glob}} for glob in globs]}]}}
    (root / "chainsaw" / "queue-from-cr" / "chainsaw-test.yaml").write_text(json.dumps(test))
    (root / "kuttl" / "kuttl-test.yaml").write_text(json.dumps({"kind": "TestSuite", "testDirs": [
        "./tests", "t\u0000x", "/", "../../..", 7, None]}))
    with chdir(root):
        try:
            code = main(["check", "--no-cache", "-f", "json", "--select", "KQ2,KQ4", "."])
        except SystemExit as exc:
            code = int(exc.code or 0)
    report = json.loads(capsys.readouterr().out)
    assert code == 1 and all("secret" not in f["file"] for f in report["findings"])
    assert ("chainsaw/queue-from-cr/expected-queue.yaml", 7) not in {(f["file"], f["line"]) for f in report["findings"]}


def test_a_readme_added_between_runs_is_not_answered_from_the_cache(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    root = project(tmp_path, "independent-samples")
    readme = root / "serving" / "README.md"
    readme.unlink()

    def codes() -> list[str]:
        try:
            main(["check", "-f", "json", "--select", "KQ1", "."])
        except SystemExit:
            pass
        return sorted(f["code"] for f in json.loads(capsys.readouterr().out)["findings"])

    with chdir(root):
        together = codes()
        readme.write_text("# Serving\n")
        apart = codes()
    assert together == ["KQ101", "KQ102", "KQ107"] and apart == ["KQ101"]


def test_kuttl_objects_make_a_test_case_but_the_suite_file_does_not(tmp_path: Path) -> None:
    root = project(tmp_path, "harness-tests")
    shutil.copy(root / "kuttl" / "tests" / "apply-only" / "00-job.yaml", root / "kuttl" / "job.yaml")
    write(root / "kuttl" / "other" / "kinds-only" / "00-step.yaml", """\
        apiVersion: kuttl.dev/v1beta1
        kind: TestStep
        commands:
        - script: kubectl apply -f ../../team.yaml
        """)
    shutil.copy(root / "kuttl" / "job.yaml", root / "kuttl" / "other" / "kinds-only" / "00-job.yaml")
    with chdir(root):
        found = spots(lint(["kuttl"], Config(select=("KQ203",))))
    # kuttl-test.yaml beside job.yaml is no step file; 00-step.yaml's TestStep makes kinds-only a test
    assert found == {("kuttl/job.yaml", 6, 32, "KQ203")}


def test_a_sample_built_by_kustomize_is_a_sample_too(tmp_path: Path) -> None:
    """serving/ (plain files) beside trainer/ (a kustomization): serving's global default is
    neither trainer's default nor judged against its gang."""
    root = project(tmp_path, "independent-samples")
    shutil.rmtree(root / "gpu-gang")
    write(root / "trainer" / "README.md", "# Trainer\n")
    write(root / "trainer" / "kustomization.yaml", "resources: [job.yaml]\n")
    write(root / "trainer" / "job.yaml", (SCOPE / "independent-samples" / "gpu-gang" / "jobs.yaml").read_text()
          .split("---")[0].replace("      priorityClassName: gang\n", ""))
    with chdir(root):
        assert spots(lint(["."], PRIORITY)) == set()
        (root / "serving" / "README.md").unlink()
        assert spots(lint(["."], PRIORITY)) == {("trainer/job.yaml", 13, 5, "KQ102")}


def test_chainsaw_files_named_like_checks_are_checks_unless_a_step_applies_them(tmp_path: Path) -> None:
    root = project(tmp_path, "harness-tests")
    test = root / "chainsaw" / "queue-from-cr"
    job = (test / "resources" / "job.yaml").read_text()
    (test / "pod-assert.yaml").write_text(job)       # named like a check, applied by no step
    (test / "applied-assert.yaml").write_text(job)   # named like a check, but a step applies it
    chainsaw = (test / "chainsaw-test.yaml").read_text()
    step = "        file: resources/job.yaml\n"
    applied = "    - apply:\n        file: applied-*.yaml\n"
    (test / "chainsaw-test.yaml").write_text(chainsaw.replace(step, step + applied))
    with chdir(root):
        found = spots(lint(["chainsaw"], HARNESS))
    assert found == {("chainsaw/queue-from-cr/resources/job.yaml", 15, 9, "KQ402"),
                     ("chainsaw/queue-from-cr/applied-assert.yaml", 15, 9, "KQ402")}


def test_the_harnesses_own_configuration_is_no_object(tmp_path: Path) -> None:
    """A chainsaw Test or kuttl TestStep is read by the harness, never applied: no KQ003 for two
    tests of one name (chainsaw's own testdata has such a file), while the Job beside the
    TestStep is judged."""
    root = project(tmp_path, "harness-tests")
    test = root / "chainsaw" / "queue-from-cr" / "chainsaw-test.yaml"
    test.write_text(test.read_text() + "---\n" + test.read_text())
    install = root / "kuttl" / "tests" / "queue-from-cr" / "00-install.yaml"
    install.write_text("apiVersion: kuttl.dev/v1beta1\nkind: TestStep\ntimeout: 30\n---\n" + install.read_text())
    with chdir(root):
        found = spots(lint(["chainsaw", "kuttl/tests/queue-from-cr"], Config(select=("KQ0", "KQ4"))))
    assert found == {("chainsaw/queue-from-cr/resources/job.yaml", 15, 9, "KQ402"),
                     ("kuttl/tests/queue-from-cr/00-install.yaml", 19, 9, "KQ402")}
