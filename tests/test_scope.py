"""What is applied together (rules.md "Applied together", cli.md "Project root and context"):
the project root, the same project context for file/folder/root runs, explicit context,
config discovery bounded by the repository root, kustomize patch fragments, units, and
KQ003 on many copies. Fixture projects live in tests/fixtures/scope/ and are copied to a
temporary folder (with or without `.git`) before each run."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from helpers import chdir
from kqlint.cli import main
from kqlint.config import Config, discover_config
from kqlint.engine.pipeline import lint
from kqlint.model import Severity
from kqlint.project.root import project_root
from kqlint.project.scope import NO_ROOT_NOTE
from kqlint.project.scope.units import _glob_unit

SCOPE = Path(__file__).parent / "fixtures" / "scope"
RULES = Path(__file__).parent / "fixtures" / "rules"
QUEUES = Config(select=("KQ2",))


def project(tmp_path: Path, name: str, marker: str | None = "git") -> Path:
    """A copy of a fixture project; ``marker``: "git" (a .git folder), "config" (a
    .kqlint.yaml), "pyproject" ([tool.kqlint]) or None."""
    root = tmp_path / name
    shutil.copytree(SCOPE / name, root)
    if marker == "git":
        (root / ".git").mkdir()
    elif marker == "config":
        (root / ".kqlint.yaml").write_text("fail-on: error\n")
    elif marker == "pyproject":
        (root / "pyproject.toml").write_text("[tool.kqlint]\nfail-on = \"error\"\n")
    return root


def spots(report) -> set[tuple[str, int, int, str]]:  # type: ignore[no-untyped-def]
    return {(f.location.file, f.location.line, f.location.column, f.code) for f in report.findings}


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    try:
        code = main(list(args))
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


# ------------------------------------------------------------------ project root

def test_project_root_is_the_nearest_git_else_the_nearest_config(tmp_path: Path) -> None:
    deep = tmp_path / "repo" / "team" / "jobs"
    deep.mkdir(parents=True)
    (tmp_path / "repo" / "team" / ".kqlint.yaml").write_text("fail-on: error\n")
    assert project_root(str(deep)) == str(tmp_path / "repo" / "team")  # no .git: the config
    (tmp_path / "repo" / ".git").mkdir()
    assert project_root(str(deep)) == str(tmp_path / "repo")             # .git wins
    plain = tmp_path / "export" / "manifests"
    plain.mkdir(parents=True)
    (tmp_path / "export" / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    if project_root(str(tmp_path)) is not None:
        pytest.skip(f"the temporary folder is inside a project ({project_root(str(tmp_path))})")
    assert project_root(str(plain)) is None   # a pyproject.toml without [tool.kqlint] is no marker
    (tmp_path / "export" / "pyproject.toml").write_text("[tool.kqlint]\nfail-on = 'error'\n")
    assert project_root(str(plain)) == str(tmp_path / "export")


@pytest.mark.parametrize("marker", ["git", "config", "pyproject"])
def test_file_folder_and_root_runs_give_the_same_answer(tmp_path: Path, marker: str) -> None:
    root = project(tmp_path, "platform-tenants", marker)
    expected = {("tenants/ml/jobs/pretrain.yaml", 10, 3, "KQ210")}
    with chdir(root):
        for paths in (["tenants/ml/jobs"], ["tenants/ml/jobs/pretrain.yaml", "tenants/ml/jobs/finetune.yaml"],
                      ["tenants/ml/jobs/pretrain.yaml"], ["."]):
            report = lint(paths, QUEUES)
            assert spots(report) == expected, paths
            assert report.notes == ()
    with chdir(root / "tenants" / "ml"):  # from below the root: the same
        assert {(f.location.line, f.code) for f in lint(["jobs"], QUEUES).findings} == {(10, "KQ210")}


def test_kq210_judges_a_cluster_queue_and_cohort_from_the_context(tmp_path: Path) -> None:
    root = project(tmp_path, "platform-tenants")
    with chdir(root):
        [finding] = lint(["tenants/ml/jobs/pretrain.yaml"], Config(select=("KQ210",))).findings
    assert "(flavor h100)" in finding.message  # the capacity, and where it comes from in the related notes:
    assert any("16 the rest of cohort gpu-pool can lend" in r.message for r in finding.related)
    assert finding.related[0].file == "platform/queues.yaml"
    route = finding.related[-1]  # the reference crossed folders: where it resolved
    assert (route.file, route.line) == ("tenants/ml/queues/local-queues.yaml", 1)
    assert "resolves to LocalQueue ml/training (in another folder)" in route.message


def test_without_a_project_root_the_note_is_said_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = project(tmp_path, "platform-tenants", marker=None)
    with chdir(root / "tenants"):
        code, _, err = run_cli(capsys, "check", "ml/jobs/pretrain.yaml", "ml/jobs/finetune.yaml", "--select", "KQ2")
        assert err.count("no project root") == 1 and NO_ROOT_NOTE in err
        assert code == 1  # nothing resolves: the queue is unknown
        _, _, err = run_cli(capsys, "check", "ml/jobs/pretrain.yaml", "--select", "KQ2", "--quiet")
        assert "no project root" not in err


def test_explicit_context_replaces_the_project_context(tmp_path: Path) -> None:
    root = project(tmp_path, "platform-tenants")
    with chdir(root):
        report = lint(["tenants/ml/jobs/pretrain.yaml"], QUEUES, context=["platform"])
        assert {f.code for f in report.findings} == {"KQ203"}  # the LocalQueue is not in the named context
        report = lint(["tenants/ml/jobs/pretrain.yaml"], Config(select=("KQ2",), context=("platform",)))
        assert {f.code for f in report.findings} == {"KQ203"}
        report = lint(["tenants/ml/jobs/pretrain.yaml"], QUEUES, context=["platform", "tenants/ml/queues"])
        assert {f.code for f in report.findings} == {"KQ210"}


# ------------------------------------------------------------------ config discovery

def test_a_parent_folders_config_does_not_silence_a_repository(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / ".kqlint.yaml").write_text("ignore: [KQ]\nfail-on: never\n")
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "sub").mkdir()
    (repo / "sub" / "broken.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x\n")
    assert discover_config(str(repo / "sub")) is None
    with chdir(repo / "sub"):
        code, out, _ = run_cli(capsys, "check", "broken.yaml", "--format", "json")
    assert code == 1 and [f["code"] for f in json.loads(out)["findings"]] == ["KQ001"]
    (repo / ".kqlint.yaml").write_text("fail-on: error\n")  # the repository's own config is found
    assert discover_config(str(repo / "sub")) == str(repo / ".kqlint.yaml")


def test_without_git_the_nearest_config_is_still_found(tmp_path: Path) -> None:
    (tmp_path / ".kqlint.yaml").write_text("fail-on: error\n")
    (tmp_path / "a" / "b").mkdir(parents=True)
    assert discover_config(str(tmp_path / "a" / "b")) == str(tmp_path / ".kqlint.yaml")


# ------------------------------------------------------------------ kustomize fragments

def test_kustomize_layout_renders(tmp_path: Path) -> None:
    if shutil.which("kubectl") is None:
        pytest.skip("kubectl is not installed: cannot check that the fixture renders")
    for overlay in ("overlays/prod", "overlays/dev"):
        done = subprocess.run(["kubectl", "kustomize", str(SCOPE / "kustomize-patches" / overlay)],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert "name: train" in done.stdout


def test_patch_files_are_fragments_not_objects(tmp_path: Path) -> None:
    root = project(tmp_path, "kustomize-patches")
    everything = Config(select=("KQ",))
    with chdir(root):
        for patch in ("overlays/prod/train-priority.yaml", "overlays/prod/train-parallelism.yaml"):
            report = lint([patch], everything)
            assert report.findings == (), patch
            assert (report.summary.objects, report.summary.skipped_documents) == (0, 1)
        folder = lint(["overlays/prod"], everything)
        assert folder.findings == () and folder.summary.objects == 1  # the kustomization itself
        whole = lint(["."], Config(select=("KQ2", "KQ003")))
        assert whole.findings == ()
    with chdir(root / "overlays" / "prod"):  # named from inside the overlay, no context needed
        assert lint(["train-priority.yaml"], everything, auto_context=False).findings == ()


def test_a_patch_listed_from_another_folder_is_not_a_fragment(tmp_path: Path) -> None:
    """kustomize loads a patch only in or below its kustomization's folder: one listed from
    elsewhere (or a link leading out of the folder) never silences the file (issue 28)."""
    root = project(tmp_path, "kustomize-patches")
    shared = root / "patches"
    shared.mkdir()
    (root / "overlays" / "prod" / "train-priority.yaml").rename(shared / "train-priority.yaml")
    kustomization = root / "overlays" / "prod" / "kustomization.yaml"
    (root / "overlays" / "prod" / "train-parallelism.yaml").unlink()  # no object left beside the overlay
    text = kustomization.read_text().replace("- train-priority.yaml", "- ../../patches/train-priority.yaml")
    kustomization.write_text(text.replace("- path: train-parallelism.yaml\n", ""))
    if shutil.which("kubectl") is not None:
        done = subprocess.run(["kubectl", "kustomize", str(root / "overlays" / "prod")],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode != 0 and "is not in or below" in done.stderr, done.stderr
    with chdir(root):
        named = lint(["patches/train-priority.yaml"], Config(select=("KQ205",)))
        folder = lint(["."], Config(select=("KQ205",)))
    assert [f.code for f in named.findings] == ["KQ205"] and named.summary.skipped_documents == 0
    assert [f.location.file for f in folder.findings] == ["patches/train-priority.yaml"]
    (root / "overlays" / "prod" / "linked-priority.yaml").symlink_to(shared / "train-priority.yaml")
    kustomization.write_text(text.replace("../../patches/train-priority.yaml", "linked-priority.yaml"))
    with chdir(root):
        named = lint(["patches/train-priority.yaml"], Config(select=("KQ205",)))
    assert [f.code for f in named.findings] == ["KQ205"]


def test_a_file_that_is_not_listed_as_a_patch_is_still_linted(tmp_path: Path) -> None:
    root = project(tmp_path, "kustomize-patches")
    whole = (root / "base" / "train.yaml").read_text().replace(
        "      restartPolicy: Never\n", "      restartPolicy: Never\n      priorityClassName: no-such-class\n")
    (root / "overlays" / "prod" / "stray-job.yaml").write_text(whole)
    with chdir(root):
        report = lint(["overlays/prod/stray-job.yaml"], Config(select=("KQ205",)))
    assert {f.code for f in report.findings} == {"KQ205"}


def test_an_incomplete_document_under_a_kustomization_is_a_fragment(tmp_path: Path) -> None:
    """rules.md: a document missing fields the API requires (a Job without containers), with a
    kustomization in its folder or above, is a patch named wrongly; the same document where no
    kustomization sits above is an object (the API server refuses it: reported)."""
    root = project(tmp_path, "kustomize-patches")
    patch = (root / "overlays" / "prod" / "train-priority.yaml").read_text()
    (root / "overlays" / "prod" / "stray-job.yaml").write_text(patch)
    (root / "loose").mkdir()
    (root / "loose" / "stray-job.yaml").write_text(patch)
    with chdir(root):
        under = lint(["overlays/prod/stray-job.yaml"], Config(select=("KQ205",)))
        loose = lint(["loose/stray-job.yaml"], Config(select=("KQ205",)))
    assert under.findings == () and under.summary.skipped_documents == 1
    assert [f.code for f in loose.findings] == ["KQ205"]


# ------------------------------------------------------------------ units

def test_kustomization_roots_are_units(tmp_path: Path) -> None:
    root = project(tmp_path, "samples-monorepo")
    with chdir(root):
        for paths in (["."], ["tutorials/gpu-training"], ["tutorials/gpu-training/job.yaml"]):
            assert lint(paths, Config(select=("KQ0", "KQ1", "KQ2"))).findings == (), paths


def test_config_units_replace_detection(tmp_path: Path) -> None:
    root = project(tmp_path, "samples-monorepo")
    for kustomization in root.glob("tutorials/*/kustomization.yaml"):
        kustomization.unlink()
    with chdir(root):
        # no unit: the two ClusterQueues are different copies, but in different files that
        # nothing declares applied together: no duplicate; both LocalQueues `lq` float
        report = lint(["."], Config(select=("KQ0", "KQ2")))
        assert report.findings == ()
        (root / ".kqlint.yaml").write_text('units: ["."]\n')  # one platform, applied as a whole
        report = lint(["."], Config(select=("KQ003",), units=(".",), path=str(root / ".kqlint.yaml")))
        assert {(f.location.file, f.code) for f in report.findings} == {("tutorials/tpu-training/queues.yaml", "KQ003")}
        first = report.findings[0].related[0]
        assert first.file == "tutorials/gpu-training/queues.yaml" and "another folder" in first.message
        units = Config(select=("KQ0", "KQ2"), units=("tutorials/*",), path=str(root / ".kqlint.yaml"))
        assert lint(["."], units).findings == ()
        assert lint(["tutorials/tpu-training/job.yaml"], units).findings == ()


def test_a_name_defined_only_in_another_unit_is_not_reported_unknown(tmp_path: Path) -> None:
    root = project(tmp_path, "samples-monorepo")
    job = root / "tutorials" / "priority-demo" / "job.yaml"
    job.write_text(textwrap.dedent("""\
        apiVersion: batch/v1
        kind: Job
        metadata:
          name: demo
          labels:
            kueue.x-k8s.io/queue-name: lq
        spec:
          template:
            spec:
              restartPolicy: Never
              containers:
              - name: main
                image: busybox
        """))
    with chdir(root):
        assert lint(["tutorials/priority-demo"], Config(select=("KQ203",))).findings == ()
        job.write_text(job.read_text().replace("queue-name: lq", "queue-name: no-such-queue"))
        assert {f.code for f in lint(["tutorials/priority-demo"], Config(select=("KQ203",))).findings} == {"KQ203"}


def test_objects_without_namespace_meet_only_in_one_folder_or_unit(tmp_path: Path) -> None:
    root = project(tmp_path, "floating-namespaces")
    job = ("jobs/gpu-job.yaml", 7, 5, "KQ209")
    with chdir(root):
        for paths in (["."], ["jobs"], ["jobs/gpu-job.yaml"]):
            assert lint(paths, QUEUES).findings == (), paths  # neither resolved (KQ209) nor unknown (KQ203)
        units = Config(select=("KQ2",), units=(".",), path=str(root / ".kqlint.yaml"))
        assert spots(lint(["jobs"], units)) == {job}     # one unit, applied as a whole: they meet
        shutil.move("queues/tpu-queue.yaml", "jobs/tpu-queue.yaml")
        assert spots(lint(["jobs/gpu-job.yaml"], QUEUES)) == {job}  # one folder: one namespace


@pytest.mark.parametrize("globs,path,unit", [
    (("samples/*",), "samples/a/deep/job.yaml", "units:samples/a"),
    (("samples/*",), "platform/pc.yaml", None),
    (("tests/**",), "tests/x/y.yaml", "units:tests/x/y.yaml"),
    (("a/**/b",), "a/x/y/b/c.yaml", "units:a/x/y/b"),
    (("samples/*", "samples/*/overlays/*"), "samples/a/overlays/prod/p.yaml", "units:samples/a/overlays/prod"),
    ((".",), "anything/at/all.yaml", "units:."),
    (("**/**/**/**/**/**/**/**/**/**/**/**/**/**/**/**/**/**/x",), "a/" * 30 + "y.yaml", None),
])
def test_unit_globs(tmp_path: Path, globs: tuple[str, ...], path: str, unit: str | None) -> None:
    assert _glob_unit(str(tmp_path / path), str(tmp_path), globs) == unit


# ------------------------------------------------------------------ KQ003 bounds

HOSTILE = textwrap.dedent("""\
    import json, resource, sys, time
    resource.setrlimit(resource.RLIMIT_AS, (1536 * 1024 * 1024, 1536 * 1024 * 1024))
    from kqlint.config import Config
    from kqlint.reporters import render
    from kqlint.engine.pipeline import lint
    start = time.perf_counter()
    report = lint(["copies.yaml"], Config(select=("KQ003",)), auto_context=False)
    elapsed = time.perf_counter() - start
    text = render("json", report)
    print(json.dumps({"elapsed": elapsed, "findings": len(report.findings), "bytes": len(text),
                      "related": max(len(f.related) for f in report.findings)}))
    """)


def test_kq003_is_linear_on_2000_copies(tmp_path: Path) -> None:
    copy = "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata:\n  name: same\nvalue: {n}\n"
    (tmp_path / "copies.yaml").write_text("---\n".join(copy.format(n=n) for n in range(2000)))
    (tmp_path / "probe.py").write_text(HOSTILE)
    done = subprocess.run([sys.executable, "probe.py"], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONHASHSEED": "0"})
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout)
    assert result["findings"] == 1999          # one per extra copy
    assert result["related"] <= 5               # bounded related list
    assert result["bytes"] < 4 * 1024 * 1024    # linear output (was 706 MB)
    assert result["elapsed"] < 10               # was 56 s; well under a second unloaded


def test_a_folder_linted_as_input_is_not_walked_again_as_context(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """``check .`` at the project root: the root is both the input and the automatic context;
    its files are walked once, and the report is the same as with the context named apart."""
    import shutil

    from kqlint.engine import inputs
    from kqlint.engine.pipeline import lint

    shutil.copytree(Path(__file__).resolve().parent.parent / "examples", tmp_path / "project")
    (tmp_path / "project" / ".git").mkdir()
    monkeypatch.chdir(tmp_path / "project")
    walks: list[list[str]] = []
    real = inputs.discover

    def counting(paths: list[str], excludes: tuple[str, ...]) -> object:
        walks.append(list(paths))
        return real(paths, excludes)
    monkeypatch.setattr(inputs, "discover", counting)
    whole = lint(["."])
    assert len(walks) == 1
    assert whole.findings and whole == lint(["."], auto_context=False)


def test_duplicate_keys_in_a_patch_are_a_warning_that_kustomize_keeps_the_first(tmp_path: Path) -> None:
    """rules.md KQ001: in a patch fragment kustomize keeps the first value silently (a warning
    that says so); the same document applied as an object is an error (kubectl refuses it)."""
    case = RULES / "KQ001" / "bad-duplicate-key-in-patch"
    shutil.copytree(case, tmp_path / "case")
    (tmp_path / "case" / ".git").mkdir()
    with chdir(tmp_path / "case"):
        [patch] = lint(["."], Config(select=("KQ001",))).findings
        Path("loose").mkdir()  # no kustomization in the folder or above: an object, applied
        shutil.copy(Path("overlay") / "env.yaml", Path("loose") / "env.yaml")
        [applied] = lint(["loose/env.yaml"], Config(select=("KQ001",))).findings
    assert patch.severity is Severity.WARNING and patch.location.file == "overlay/env.yaml"
    assert "kustomize applies this patch with the first value and silently drops the later one" in patch.message
    assert patch.remedy and len(patch.message) <= 240
    assert applied.severity is Severity.ERROR and "`kubectl apply` rejects duplicate fields" in applied.message
    if shutil.which("kubectl") is not None:
        rendered = subprocess.run(["kubectl", "kustomize", str(case / "overlay")], capture_output=True, text=True,
                                  timeout=120)
        assert rendered.returncode == 0 and "LOG_LEVEL" in rendered.stdout and "CACHE_DIR" not in rendered.stdout
