"""
## What it catches
A file that Kubernetes cannot read: YAML that kubectl also refuses, a file that is not UTF-8,
a binary file, a file over the size limit (`max-file-size`, default 16 MiB), an alias bomb,
a document nested absurdly deep, and, in a Kubernetes object, what kubectl's decoder refuses
(`!!int twelve`, invalid `!!binary`, `.inf`, a mapping as a key, a `metadata` field of the
wrong type such as `labels: {tier: 1}`, content after `---`, `%` directives) or a duplicate
mapping key. YAML that kubectl decodes is never KQ001: `{image: reg.example.com/a:1.4}` in a
flow collection is valid, tags on scalars are ignored (`!Ref Foo` is `Foo`), and documents that
are not Kubernetes objects (CloudFormation, kustomizations) are skipped whatever their tags.
So is a JSON Lines file (a dataset: one JSON value per line, none of them an object), which
kubectl decodes value by value; a JSON stream of Kubernetes objects is still reported, since
kqlint reads a JSON file as one YAML document.

## Why it breaks on a cluster
`kubectl apply` refuses the whole file, so none of its objects reach the cluster. A duplicate
key in an object is rejected by `kubectl apply`'s strict field validation (its default) and by
kustomize; with validation off the API server silently keeps only the last value. In a Helm
`values*.yaml` the last value silently wins. A kustomization file is not an object: kustomize
reads it with the last value, and kqlint does not report it. In a kustomize patch fragment
(a file a kustomization lists under `patches`), kustomize applies the patch with the
**first** value and silently drops the later one, whatever their tags: reported as a
warning, since the value you meant may never reach the cluster. kqlint cannot lint what it
cannot read, so every other rule is blind to this file.

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
UTF-8, quote values that must be strings, remove duplicate keys. Unrendered Helm or
envsubst templates are KQ006, not KQ001: render them first. What kubectl reads and refuses:
docs/yaml-compatibility.md.
"""
from collections.abc import Iterator

from kqlint.engine.rule import RuleContext, RuleMeta, Sources
from kqlint.model import Finding, Location, Severity

META = RuleMeta(code="KQ001", slug="invalid-yaml", severity=Severity.ERROR,
                summary="a file cannot be read or parsed", scope="engine")


def check_sources(sources: Sources, ctx: RuleContext) -> Iterator[Finding]:
    """What the loader could not read or parse, and folders discovery could not read."""
    from kqlint.project.discover import display_path

    for problem in sources.problems(META.code):
        at = Location(problem.file, problem.line, problem.column)
        if problem.as_fragment is not None and problem.file in sources.fragments:
            yield ctx.finding(at, problem.as_fragment, severity=Severity.WARNING,
                              remedy="Remove one of the keys; keep the value the patch should apply")
        else:
            yield ctx.finding(at, problem.message, remedy=problem.remedy)
    for path, message in sources.unreadable:
        yield ctx.finding(Location(display_path(path), 1, 1), message)
