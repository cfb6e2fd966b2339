"""
## What it catches
Unrendered templates, which are skipped: files under a Helm chart's `templates/` folder (one
finding per chart, at line 1 of its `Chart.yaml`); stray files that fail to parse because of
`{{ }}` (or Jinja's `{% %}`), or that parse only because `{{ .Values.name }}` was read as a flow
mapping (one finding per file, at the first template expression); Terraform `templatefile()`
templates that fail to parse because of a `%{ if … }`/`%{ for … }` directive or a
`${a ? "x" : "y"}` conditional (one finding per file, at the first `${ }` or directive); and
manifests meant for `envsubst`/`sed` (one finding per file, at the first placeholder): a field
whose schema expects a number, boolean, list or mapping holds `$VAR`, `${VAR}`, `${VAR:-x}` or
an upper-case token with an underscore such as `PLACEHOLDER_NUM_NODES`, or an enum field holds
only `$VAR`/`${VAR}` (for a kind without a schema: `metadata`, its labels or its annotations).
Valid YAML that merely contains `{{` or `$VAR` inside string values (Argo parameters, shell
commands, `image: $REGISTRY/app`) is linted normally.

## Why it breaks on a cluster
A template is not what reaches the cluster: the rendered output is. Linting the raw
template would either drown you in parse errors or judge values that Helm replaces.

## Bad
```yaml
apiVersion: batch/v1
kind: Job
metadata:
  name: {{ .Release.Name }}-train
```

## Good
```yaml
apiVersion: batch/v1
kind: Job
metadata:
  name: "{{ workflow.name }}"   # a string value that happens to contain braces
```

## How to fix
Render the chart and lint the result: `helm template my-release ./chart | kqlint check -`
(or `kustomize build overlay | kqlint check -`, `envsubst < job.yaml | kqlint check -`; a
Terraform template: lint what `templatefile()` renders).
Exclude chart folders with `--exclude` if you lint the rendered output elsewhere.
"""
import os
from collections.abc import Iterator

from kqlint.engine.rule import RuleContext, RuleMeta, Sources
from kqlint.model import Finding, Location, Severity

META = RuleMeta(code="KQ006", slug="unrendered-template", severity=Severity.INFO,
                summary="an unrendered template file or chart is skipped", scope="engine")


def check_sources(sources: Sources, ctx: RuleContext) -> Iterator[Finding]:
    """Files skipped as envsubst/sed templates (kqlint.loader.placeholders), and Helm charts whose
    templates/ folder discovery skipped."""
    from kqlint.project.discover import display_path

    for problem in sources.problems(META.code):
        yield ctx.finding(Location(problem.file, problem.line, problem.column), problem.message,
                          remedy=problem.remedy)
    for chart, templates in sorted(sources.charts.items()):
        chart_dir = display_path(os.path.dirname(chart))
        message = (f"Helm chart {chart_dir}: {len(templates)} unrendered template file(s) under "
                   "templates/ skipped, so nothing in them is linted")
        yield ctx.finding(Location(display_path(chart), 1, 1), message,
                          remedy=f"Lint the rendered output instead: `helm template {chart_dir} | kqlint check -`")
