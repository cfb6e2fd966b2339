"""Configuration: discovery, schema validation with positions, rule names and options,
rule selection and severity overrides (cli.md "Configuration")."""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers import chdir
from kqlint.cli import main
from kqlint.config import (
    Config,
    check_rule_names,
    config_from_mapping,
    config_schema,
    discover_config,
    load_config,
    options_schema,
)
from kqlint.engine.analysis import _with_severity
from kqlint.engine.registry import all_rules
from kqlint.engine.rule import ModuleRule, Rule, RuleMeta
from kqlint.engine.runner import select_rules
from kqlint.errors import ConfigError
from kqlint.model import Finding, Location, Severity

CONFIG_FIXTURES = Path(__file__).parent / "fixtures" / "config"
INVALID = sorted((CONFIG_FIXTURES / "invalid").glob("*.yaml"))
ERROR_RE = re.compile(r"^# error: (\d+:\d+: .+)$")


# ------------------------------------------------------------------ helpers

@dataclass(frozen=True)
class NicOptions:
    resource: str = "nvidia.com/mlnxnics"


@dataclass(frozen=True)
class SchedulerOptions:
    volcano_scheduler_names: tuple[str, ...] = ("volcano", "volcano-scheduler")
    kai_scheduler_names: tuple[str, ...] = ("kai-scheduler",)
    max_pods: int = 8
    strict: bool = False
    label: str | None = None


def fake_rule(code: str, slug: str, options: type | None = None, *, enabled: bool = True,
              profile: str | None = None, severity: Severity = Severity.ERROR) -> Rule:
    meta = RuleMeta(code=code, slug=slug, severity=severity, summary=slug, enabled=enabled, profile=profile)
    return ModuleRule(meta, None, options)


FAKE_RULES = [
    fake_rule("KQ101", "pod-preemption-enabled"),
    fake_rule("KQ106", "non-uniform-pod-priority", severity=Severity.INFO),
    fake_rule("KQ302", "gang-group-missing", SchedulerOptions),
    fake_rule("KQ401", "missing-rdma-nic", NicOptions, severity=Severity.WARNING),
    fake_rule("KQ404", "some-later-rule", enabled=False),
    fake_rule("KQ501", "trainjob-scheduler-queue", profile="kakaocloud"),
    fake_rule("X001", "gpu-jobs-need-team-label", severity=Severity.WARNING),
]


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def config_error(tmp_path: Path, text: str, rules: list[Rule] | None = None) -> str:
    write(tmp_path / ".kqlint.yaml", text)
    with chdir(tmp_path), pytest.raises(ConfigError) as caught:
        config = load_config(".kqlint.yaml")
        check_rule_names(config, rules if rules is not None else FAKE_RULES)
    return str(caught.value)


# ------------------------------------------------------------------ discovery

def test_discovery_prefers_yaml_then_yml_then_pyproject(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", "[tool.kqlint]\nselect = ['KQ1']\n")
    assert discover_config(str(tmp_path)) == str(tmp_path / "pyproject.toml")
    write(tmp_path / ".kqlint.yml", "select: [KQ1]\n")
    assert discover_config(str(tmp_path)) == str(tmp_path / ".kqlint.yml")
    write(tmp_path / ".kqlint.yaml", "select: [KQ1]\n")
    assert discover_config(str(tmp_path)) == str(tmp_path / ".kqlint.yaml")


def test_discovery_walks_upwards_and_nearest_wins(tmp_path: Path) -> None:
    write(tmp_path / ".kqlint.yaml", "fail-on: error\n")
    deep = tmp_path / "a" / "b" / "c"
    deep.mkdir(parents=True)
    assert discover_config(str(deep)) == str(tmp_path / ".kqlint.yaml")
    write(tmp_path / "a" / "pyproject.toml", "[tool.kqlint]\nfail-on = 'info'\n")
    assert discover_config(str(deep)) == str(tmp_path / "a" / "pyproject.toml")


def test_pyproject_without_kqlint_section_is_skipped(tmp_path: Path) -> None:
    write(tmp_path / ".kqlint.yaml", "fail-on: error\n")
    write(tmp_path / "sub" / "pyproject.toml", "[tool.kqlint-other]\nx = 1\n[tool.ruff]\nline-length = 99\n")
    assert discover_config(str(tmp_path / "sub")) == str(tmp_path / ".kqlint.yaml")


def test_no_config_gives_defaults(tmp_path: Path) -> None:
    assert load_config(None) == Config()
    assert Config().fail_on is Severity.WARNING and Config().namespace == "default"


def test_cli_uses_discovered_config(in_tmp_cwd: Path) -> None:
    write(in_tmp_cwd / ".kqlint.yaml", "selct: [KQ1]\n")
    write(in_tmp_cwd / "job.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n")
    assert main(["check", "job.yaml"]) == 2


# ------------------------------------------------------------------ a full, valid config

def test_cli_md_example_loads() -> None:
    with chdir(CONFIG_FIXTURES / "valid"):
        config = load_config(".kqlint.yaml")
    assert config.profile == "kakaocloud"
    assert config.fail_on is Severity.WARNING
    assert config.select == ("KQ",) and config.ignore == ("KQ404",)
    assert config.severity == {"KQ106": Severity.WARNING}
    assert config.exclude == (str(CONFIG_FIXTURES / "valid" / "charts/**/templates/**"),)  # anchored at its folder
    assert config.context == ("platform/",)  # relative to the config file's folder (here: cwd)
    assert config.external["LocalQueue"] == [{"namespace": "team-a", "name": "training"}]
    assert config.rules["KQ302"]["kai-scheduler-names"] == ["kai-scheduler"]
    assert config.custom_rules[0]["code"] == "X001"
    assert config.max_file_size == 1048576
    checked = check_rule_names(config, FAKE_RULES)
    assert checked.rules["KQ401"] == {"resource": "nvidia.com/mlnxnics"}


def test_context_is_relative_to_the_config_folder(tmp_path: Path) -> None:
    write(tmp_path / "repo" / ".kqlint.yaml", "context: [platform]\n")
    (tmp_path / "repo" / "platform").mkdir()
    config = load_config(str(tmp_path / "repo" / ".kqlint.yaml"))
    assert config.context == (str(tmp_path / "repo" / "platform"),)


def test_pyproject_section() -> None:
    with chdir(CONFIG_FIXTURES / "toml"):
        config = load_config("pyproject.toml")
    assert config.fail_on is Severity.ERROR
    assert config.select == ("KQ0",) and config.ignore == ("KQ006",)
    assert config.namespace == "team-a"
    assert config.severity == {"KQ001": Severity.WARNING}
    assert config.custom_rules[0]["slug"] == "team-label"
    assert config.external == {"LocalQueue": [{"namespace": "team-a", "name": "training"}]}


def test_empty_config_file_is_the_defaults(tmp_path: Path) -> None:
    write(tmp_path / ".kqlint.yaml", "# nothing configured yet\n")
    assert load_config(str(tmp_path / ".kqlint.yaml")) == Config(path=str(tmp_path / ".kqlint.yaml"))


def test_null_collections_mean_empty(tmp_path: Path) -> None:
    write(tmp_path / ".kqlint.yaml", "select:\nignore:\nexternal:\nrules:\ncustom-rules:\nplugins:\n")
    config = load_config(str(tmp_path / ".kqlint.yaml"))
    assert (config.select, config.external, config.rules, config.custom_rules) == ((), {}, {}, ())


def test_fail_on_never(tmp_path: Path) -> None:
    write(tmp_path / ".kqlint.yaml", "fail-on: never\n")
    assert load_config(str(tmp_path / ".kqlint.yaml")).fail_on is None


# ------------------------------------------------------------------ invalid configs: one line, a position

@pytest.mark.parametrize("case", INVALID, ids=[p.stem for p in INVALID])
def test_invalid_config_fixture(case: Path) -> None:
    """Each fixture's first line says `# error: LINE:COL: message start`."""
    match = ERROR_RE.match(case.read_text(encoding="utf-8").splitlines()[0])
    assert match, f"{case.name}: first line must be `# error: LINE:COL: message`"
    with chdir(case.parent), pytest.raises(ConfigError) as caught:
        check_rule_names(load_config(case.name), all_rules())
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"{case.name}:{match.group(1)}"), message


def test_invalid_config_exits_2_with_one_line(in_tmp_cwd: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(in_tmp_cwd / "kq.yaml", "fail-on: error\nseverity: {KQ001: fatal}\n")
    write(in_tmp_cwd / "job.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n")
    assert main(["check", "--config", "kq.yaml", "job.yaml"]) == 2
    err = capsys.readouterr().err
    assert err == "kqlint: kq.yaml:2:19: severity.KQ001: 'fatal' is not one of error, warning, info\n"


def test_unknown_rule_in_config_exits_2(in_tmp_cwd: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(in_tmp_cwd / ".kqlint.yaml", "ignore: [KQ006, KQ0999]\n")
    write(in_tmp_cwd / "job.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n")
    assert main(["check", "job.yaml"]) == 2
    assert capsys.readouterr().err.startswith("kqlint: .kqlint.yaml:1:17: ignore[1]: 'KQ0999' matches no rule")


def test_missing_config_file_exits_2(in_tmp_cwd: Path) -> None:
    assert main(["check", "--config", "nope.yaml", "."]) == 2


def test_the_first_problem_in_document_order_is_reported(tmp_path: Path) -> None:
    message = config_error(tmp_path, "namespace: 5\nfail-on: loud\nbogus: 1\n")
    assert message.startswith(".kqlint.yaml:1:12: namespace: must be a string")


def test_multi_document_config_is_refused(tmp_path: Path) -> None:
    assert "single YAML document" in config_error(tmp_path, "fail-on: error\n---\nfail-on: info\n")


@pytest.mark.parametrize("text,expected", [
    ("[tool.kqlint]\nselect = ['KQ1']\nbogus = 1\n", "pyproject.toml:3:1: bogus: unknown key `bogus`"),
    ("[tool.kqlint]\nfail-on = 'error'\n\n[tool.kqlint.severity]\nKQ001 = 'fatal'\n",
     "pyproject.toml:5:1: severity.KQ001: 'fatal' is not one of"),
    ("[tool.kqlint]\nselect = ['KQ1'\n", "pyproject.toml:3:1: invalid TOML: Unclosed array"),
    ("[tool.kqlint]\nselect = = 1\n", "pyproject.toml:2:10: invalid TOML: Invalid value"),
    ("[tool.kqlint]\n\n[[tool.kqlint.custom-rules]]\ncode = 'X001'\nslug = 'a'\nseverity = 'info'\n"
     "message = 'm'\nassert = 'a'\n\n[[tool.kqlint.custom-rules]]\ncode = 'KQ002'\nslug = 'b'\n"
     "severity = 'info'\nmessage = 'm'\nassert = 'a'\n",
     "pyproject.toml:11:1: custom-rules[1].code: custom rule codes must not start with KQ"),
    ("[tool.kqlint]\nrules = {KQ401 = {resourse = 'x'}}\n",
     "pyproject.toml:2:19: rules.KQ401.resourse: unknown key `resourse` (did you mean `resource`?)"),
])
def test_toml_errors_point_at_the_line(tmp_path: Path, text: str, expected: str) -> None:
    write(tmp_path / "pyproject.toml", text)
    with chdir(tmp_path), pytest.raises(ConfigError) as caught:
        check_rule_names(load_config("pyproject.toml"), FAKE_RULES)
    assert str(caught.value).startswith(expected), str(caught.value)


# ------------------------------------------------------------------ rule names and options

def test_slugs_are_normalised_to_codes(tmp_path: Path) -> None:
    write(tmp_path / ".kqlint.yaml", "severity: {missing-rdma-nic: error}\n"
                                     "rules: {gang-group-missing: {max-pods: 4}}\n")
    config = check_rule_names(load_config(str(tmp_path / ".kqlint.yaml")), FAKE_RULES)
    assert config.severity == {"KQ401": Severity.ERROR}
    assert config.rules == {"KQ302": {"max-pods": 4}}


def test_codes_are_case_insensitive(tmp_path: Path) -> None:
    write(tmp_path / ".kqlint.yaml", "select: [kq1]\nseverity: {kq101: warning}\n")
    config = check_rule_names(load_config(str(tmp_path / ".kqlint.yaml")), FAKE_RULES)
    assert config.severity == {"KQ101": Severity.WARNING}


def test_prefixes_codes_and_slugs_are_accepted_in_select_and_ignore(tmp_path: Path) -> None:
    """Each kind of name is accepted (kept as written) and picks the rules it names."""
    write(tmp_path / ".kqlint.yaml", "select: [kq3, KQ401, X, gang-group-missing]\nignore: [KQ40, x001]\n")
    checked = check_rule_names(load_config(str(tmp_path / ".kqlint.yaml")), FAKE_RULES)
    assert (checked.select, checked.ignore) == (("kq3", "KQ401", "X", "gang-group-missing"), ("KQ40", "x001"))
    assert codes(select_rules(FAKE_RULES, checked)) == ["KQ302"]
    write(tmp_path / ".kqlint.yaml", "select: [KQ9]\n")
    with pytest.raises(ConfigError, match="'KQ9' matches no rule code, slug or code prefix"):
        check_rule_names(load_config(str(tmp_path / ".kqlint.yaml")), FAKE_RULES)


def test_options_given_twice_by_code_and_slug(tmp_path: Path) -> None:
    message = config_error(tmp_path, "rules:\n  KQ401: {}\n  missing-rdma-nic: {}\n")
    assert message == ".kqlint.yaml:3:3: rules.missing-rdma-nic: options for KQ401 are given twice"


@pytest.mark.parametrize("options,expected", [
    ("{resourse: x}", "1:17: rules.KQ401.resourse: unknown key `resourse` (did you mean `resource`?)"),
    ("{resource: [a]}", "1:27: rules.KQ401.resource: must be a string, not a list"),
    ("{resource: 5}", "1:27: rules.KQ401.resource: must be a string, not a number (5)"),
    ("[nvidia.com/mlnxnics]", "1:16: rules.KQ401: must be a mapping, not a list"),
])
def test_rule_options_are_checked_against_the_options_dataclass(tmp_path: Path, options: str,
                                                                 expected: str) -> None:
    message = config_error(tmp_path, f"rules: {{KQ401: {options}}}\n")
    assert message.startswith(f".kqlint.yaml:{expected}"), message


@pytest.mark.parametrize("options,expected", [
    ("volcano-scheduler-names: volcano", "volcano-scheduler-names: must be a list, not a string ('volcano')"),
    ("volcano-scheduler-names: [volcano, 7]", "volcano-scheduler-names[1]: must be a string, not a number (7)"),
    ("max-pods: 2.5", "max-pods: must be an integer, not a number (2.5)"),
    ("max-pods: true", "max-pods: must be an integer, not a boolean (true)"),
    ("strict: 'yes'", "strict: must be true or false, not a string ('yes')"),
    ("label: [a]", "label: must be a string, not a list"),
])
def test_option_types(tmp_path: Path, options: str, expected: str) -> None:
    message = config_error(tmp_path, f"rules:\n  KQ302:\n    {options}\n")
    assert f"rules.KQ302.{expected}" in message, message


def test_valid_option_types_pass(tmp_path: Path) -> None:
    write(tmp_path / ".kqlint.yaml", "rules:\n  KQ302:\n    volcano-scheduler-names: [a, b]\n"
                                     "    max-pods: 3\n    strict: true\n    label: null\n")
    config = check_rule_names(load_config(str(tmp_path / ".kqlint.yaml")), FAKE_RULES)
    assert config.rules["KQ302"]["max-pods"] == 3


def test_options_schema_is_derived_from_the_dataclass() -> None:
    schema = options_schema(SchedulerOptions)
    assert schema["additionalProperties"] is False
    assert schema["properties"]["volcano-scheduler-names"] == {"type": "array", "items": {"type": "string"}}
    assert schema["properties"]["max-pods"] == {"type": "integer"}
    assert schema["properties"]["label"] == {"anyOf": [{"type": "string"}, {"type": "null"}]}


def test_cli_select_unknown_rule_has_no_file_position() -> None:
    config = Config().with_overrides(select=("KQ9",))
    with pytest.raises(ConfigError, match=r"^--select: 'KQ9' matches no rule"):
        check_rule_names(config, FAKE_RULES)


def test_cli_profile_unknown_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match=r"^--profile: unknown profile 'aws' \(available: kakaocloud\)"):
        check_rule_names(Config(profile="aws"), FAKE_RULES)


def test_config_from_mapping_validates_plain_data() -> None:
    with pytest.raises(ConfigError, match="unknown key `selct`"):
        config_from_mapping({"selct": ["KQ1"]}, "settings")
    assert config_from_mapping({"select": ["KQ1"]}, "settings").select == ("KQ1",)


def test_schema_is_valid_draft_2020_12() -> None:
    from jsonschema import Draft202012Validator

    schema = config_schema()
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"


# ------------------------------------------------------------------ selection and severity (runner)

def codes(rules: list[Rule]) -> list[str]:
    return [r.code for r in rules]


@pytest.mark.parametrize("select,ignore,profile,expected", [
    ((), (), None, ["KQ101", "KQ106", "KQ302", "KQ401", "X001"]),
    (("KQ1",), (), None, ["KQ101", "KQ106"]),
    (("KQ",), (), None, ["KQ101", "KQ106", "KQ302", "KQ401"]),
    (("missing-rdma-nic", "X001"), (), None, ["KQ401", "X001"]),
    (("kq3",), (), None, ["KQ302"]),
    ((), ("KQ1", "gang-group-missing"), None, ["KQ401", "X001"]),
    (("KQ1",), ("KQ106",), None, ["KQ101"]),
    (("KQ4",), (), None, ["KQ401"]),                  # KQ404 is off by default: a prefix does not enable it
    (("KQ404",), (), None, ["KQ404"]),                # naming it does
    (("some-later-rule",), (), None, ["KQ404"]),
    ((), (), "kakaocloud", ["KQ101", "KQ106", "KQ302", "KQ401", "KQ501", "X001"]),
    (("KQ5",), (), None, []),                         # profile rules only with their profile
    (("KQ5",), (), "kakaocloud", ["KQ501"]),
    ((), ("trainjob-scheduler-queue",), "kakaocloud", ["KQ101", "KQ106", "KQ302", "KQ401", "X001"]),
])
def test_select_rules(select: tuple[str, ...], ignore: tuple[str, ...], profile: str | None,
                      expected: list[str]) -> None:
    config = Config(select=select, ignore=ignore, profile=profile)
    assert codes(select_rules(FAKE_RULES, config)) == expected


def test_severity_override_by_code_and_slug() -> None:
    finding = Finding("KQ401", "missing-rdma-nic", Severity.WARNING, "m", Location("f.yaml", 1, 1))
    assert _with_severity(finding, Config(severity={"KQ401": Severity.ERROR})).severity is Severity.ERROR
    assert _with_severity(finding, Config(severity={"missing-rdma-nic": Severity.INFO})).severity is Severity.INFO
    assert _with_severity(finding, Config(severity={"KQ101": Severity.INFO})).severity is Severity.WARNING


def test_severity_override_end_to_end(in_tmp_cwd: Path) -> None:
    from kqlint.engine.pipeline import lint

    write(in_tmp_cwd / ".kqlint.yaml", "severity: {invalid-yaml: info}\n")
    write(in_tmp_cwd / "broken.yaml", "a: [1\n")
    report = lint(["broken.yaml"], load_config(".kqlint.yaml"))
    assert [(f.code, f.severity) for f in report.findings] == [("KQ001", Severity.INFO)]
    assert main(["check", "broken.yaml"]) == 0  # info is below the default --fail-on warning


def test_select_and_ignore_end_to_end(in_tmp_cwd: Path) -> None:
    from kqlint.engine.pipeline import lint

    write(in_tmp_cwd / "broken.yaml", "a: [1\n")
    assert [f.code for f in lint(["broken.yaml"], Config(select=("KQ0",))).findings] == ["KQ001"]
    assert lint(["broken.yaml"], Config(ignore=("invalid-yaml",))).findings == ()
    assert lint(["broken.yaml"], Config(select=("KQ006",))).findings == ()


def _as_json(value: object) -> object:
    if isinstance(value, (tuple, list, frozenset, set)):
        return [_as_json(v) for v in value]
    if isinstance(value, dict):
        return {k: _as_json(v) for k, v in value.items()}
    return value


def test_every_builtin_options_dataclass_yields_a_schema_its_defaults_satisfy() -> None:
    """Each built-in rule's option types are understood (no `{}` catch-all) and the
    defaults, written as config, pass the derived schema."""
    import dataclasses

    from jsonschema import Draft202012Validator

    for rule in all_rules():
        if rule.options_type is None:
            continue
        schema = options_schema(rule.options_type)
        Draft202012Validator.check_schema(schema)
        assert all(schema["properties"].values()), f"{rule.code}: an option type is not understood: {schema}"
        defaults = {f.name.replace("_", "-"): _as_json(getattr(rule.options_type(), f.name))
                    for f in dataclasses.fields(rule.options_type)}
        assert not list(Draft202012Validator(schema).iter_errors(defaults)), rule.code
        config = Config(rules={rule.code: defaults})
        assert check_rule_names(config, all_rules()).rules[rule.code] == defaults


def test_docs_list_every_builtin_rule_option() -> None:
    """docs/configuration.md has a row `| <codes> | `<option>` |` for every built-in option."""
    docs = (Path(__file__).parent.parent / "docs" / "configuration.md").read_text(encoding="utf-8")
    rows = [line.split("|") for line in docs.splitlines() if line.startswith("| KQ")]
    documented = {(code.strip(), cells[2].strip().strip("`")) for cells in rows for code in cells[1].split(",")}
    import dataclasses

    for rule in all_rules():
        fields = dataclasses.fields(rule.options_type) if rule.options_type is not None else ()
        for name in [f.name.replace("_", "-") for f in fields]:
            assert (rule.code, name) in documented, f"docs/configuration.md: document {rule.code} option {name}"


# ------------------------------------------------------------------ profiles plumbing

def test_profile_objects_registry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from kqlint.config import profiles
    from kqlint.domain.graph import ObjectGraph

    (tmp_path / "kqtest_profile_full.py").write_text(
        "from kqlint.domain.graph import declared_object\n"
        "def declared_objects(graph, config):\n"
        "    return [declared_object('WorkloadPriorityClass', {'name': 'high', 'value': 1000},\n"
        "                            'profile', '<profile test>', config.namespace)]\n", encoding="utf-8")
    (tmp_path / "kqtest_profile_empty.py").write_text("", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(profiles, "PROFILES", {"full": "kqtest_profile_full", "empty": "kqtest_profile_empty"})
    try:
        graph = ObjectGraph()
        (obj,) = profiles.profile_objects("full", graph, Config())
        assert (obj.kind, obj.name, obj.source) == ("WorkloadPriorityClass", "high", "profile")
        assert profiles.profile_objects("empty", graph, Config()) == []
        with pytest.raises(ConfigError, match=r"unknown profile 'nope' \(available: empty, full\)"):
            profiles.profile_objects("nope", graph, Config())
    finally:
        for name in ("kqtest_profile_full", "kqtest_profile_empty"):
            sys.modules.pop(name, None)


def test_cli_unknown_profile_exits_2(in_tmp_cwd: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(in_tmp_cwd / "job.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n")
    assert main(["check", "--profile", "aws", "job.yaml"]) == 2
    assert "unknown profile 'aws' (available: kakaocloud)" in capsys.readouterr().err
