"""Kubernetes label selectors as the API server evaluates them (``metav1.LabelSelector``), and
the labels every Namespace carries; the namespace-selector rule and ``kqlint simulate`` ask here."""
from __future__ import annotations

from typing import Any

from kqlint.domain.objects import K8sObject

NAME_LABEL = "kubernetes.io/metadata.name"


def namespace_labels(namespace: K8sObject) -> dict[str, str]:
    labels = {str(k): label_text(v) for k, v in namespace.labels.items()}
    labels[NAME_LABEL] = namespace.name  # set by the API server on every Namespace
    return labels


def label_text(value: Any) -> str:
    """A label value as the API server stores it (a YAML boolean or number becomes its text)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


def selector_matches(selector: Any, labels: dict[str, str]) -> bool | None:
    """Whether a LabelSelector matches ``labels``; None when the selector cannot be read."""
    if not isinstance(selector, dict):
        return None
    match_labels = selector.get("matchLabels") or {}
    expressions = selector.get("matchExpressions") or []
    if not isinstance(match_labels, dict) or not isinstance(expressions, list):
        return None
    if any(labels.get(str(k)) != label_text(v) for k, v in match_labels.items()):
        return False
    results = [_expression_matches(e, labels) for e in expressions]
    if None in results:
        return None
    return all(results)


def _expression_matches(expression: Any, labels: dict[str, str]) -> bool | None:
    if not isinstance(expression, dict):
        return None
    key, operator = str(expression.get("key")), expression.get("operator")
    values = expression.get("values") or []
    if not isinstance(values, list):
        return None
    values = [label_text(v) for v in values]
    if operator == "In":
        return key in labels and labels[key] in values
    if operator == "NotIn":
        return key not in labels or labels[key] not in values
    if operator == "Exists":
        return key in labels
    if operator == "DoesNotExist":
        return key not in labels
    return None
