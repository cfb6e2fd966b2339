"""
## What it catches
Suppressions that silenced nothing in this run: a `kqlint.io/ignore` or
`ignore.kqlint.io/<rule>` annotation, a `# kqlint: ignore[...]` comment or a
`# kqlint: ignore-file[...]` comment. Reported only with
`kqlint check --report-unused-suppressions` (or when KQ000 is selected by name).
A suppression is judged only against the rules that ran, so `--select KQ1` never
flags a suppression of KQ401; a blanket suppression (`all`, or no rule list) and one
naming no known rule (a typo) are always judged.

## Why it breaks on a cluster
A stale suppression is a loaded gun: the object was fixed (or the rule's name was
mistyped from the start), so the comment silences nothing today, but the next time
someone reintroduces the mistake — a preempting PriorityClass on a gang, a queue that
does not exist — kqlint stays quiet and the problem reaches the cluster. A mistyped
rule name is worse: it never silenced anything and suggests a review that never
happened.

## Bad
```yaml
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: gpu-gang
value: 100000
preemptionPolicy: Never
---
apiVersion: batch/v1
kind: Job
metadata:
  name: nightly-eval
  namespace: research
  annotations:
    kqlint.io/ignore: "pod-preemtion-enabled"   # a typo: the slug is pod-preemption-enabled
spec:
  template:
    spec:
      priorityClassName: gpu-gang   # kqlint: ignore  (left over after the class was fixed)
      restartPolicy: Never
      containers:
        - name: eval
          image: busybox
```

## Good
```yaml
apiVersion: batch/v1
kind: Job
metadata:
  name: nightly-eval
  namespace: research
  annotations:
    # the class is created by the platform's Helm chart, outside this repository
    ignore.kqlint.io/KQ205: "platform-batch is installed by the platform chart"
spec:
  template:
    spec:
      priorityClassName: platform-batch
      restartPolicy: Never
      containers:
        - name: eval
          image: busybox
```

## How to fix
Delete the suppression, or correct the rule code or slug it names (`kqlint rules`
lists them). Prefer a suppression that names its rule with a reason
(`ignore.kqlint.io/KQ205: "<why>"`) over a blanket `# kqlint: ignore`. To keep an
intentionally unused suppression, silence this rule for it explicitly:
`# kqlint: ignore[KQ000]` on the line above (a blanket `ignore` does not silence KQ000).
"""
from kqlint.model import Severity
from kqlint.rule import RuleMeta

META = RuleMeta(code="KQ000", slug="unused-suppression", severity=Severity.INFO,
                summary="a suppression silenced nothing (with --report-unused-suppressions)",
                scope="engine", enabled=False)
