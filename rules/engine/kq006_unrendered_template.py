"""
## What it catches
Unrendered templates: files under a Helm chart's `templates/` folder (one finding per
chart, at line 1 of its `Chart.yaml`) and stray files that fail to parse because of
`{{ }}` (one finding per file, at the parser's line and column). They are skipped.
Valid YAML that merely contains `{{` inside string values is linted normally.

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
(or `kustomize build overlay | kqlint check -`). Exclude chart folders with `--exclude`
if you lint the rendered output elsewhere.
"""
from kqlint.model import Severity
from kqlint.rule import RuleMeta

META = RuleMeta(code="KQ006", slug="unrendered-template", severity=Severity.INFO,
                summary="an unrendered template file or chart is skipped", scope="engine")
