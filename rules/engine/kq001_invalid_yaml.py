"""
## What it catches
A file that cannot be read or parsed: invalid YAML or JSON, a file that is not UTF-8, a
binary file, a file over the size limit (`max-file-size`, default 16 MiB), an alias bomb,
a document nested absurdly deep, an unsupported tag such as `!!python/object`, or a
duplicate mapping key.

## Why it breaks on a cluster
`kubectl apply` refuses the whole file, so none of its objects reach the cluster; with
duplicate keys the API server silently keeps only the last value. kqlint cannot lint what
it cannot parse, so every other rule is blind to this file.

## Bad
```yaml
apiVersion: batch/v1
kind: Job
metadata:
  name: broken
spec:
  parallelism: 4
   completions: 4    # indented one space too far: not valid YAML
```

## Good
```yaml
apiVersion: batch/v1
kind: Job
metadata:
  name: fixed
spec:
  parallelism: 4
  completions: 4
```

## How to fix
Fix the syntax at the reported line and column (`yamllint` helps), save the file as
UTF-8, remove custom tags and duplicate keys. Unrendered Helm templates are KQ006, not
KQ001: render them first.
"""
from kqlint.model import Severity
from kqlint.rule import RuleMeta

META = RuleMeta(code="KQ001", slug="invalid-yaml", severity=Severity.ERROR,
                summary="a file cannot be read or parsed", scope="engine")
