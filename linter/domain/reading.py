"""Groups of kinds a rule declares it reads besides its own object (``RuleMeta.reads``): the
findings cache (kqlint.cache.findings) reuses a rule's stored findings while the objects of
those kinds are unchanged, so a rule that reads a kind it does not declare could be stale.
tests/test_cache_reads.py checks every declaration against what the rule really reads."""
from __future__ import annotations

from kqlint.domain import kinds as K
from kqlint.domain.kueue import routing
from kqlint.domain.workloads.extract import TEMPLATE_KINDS

GroupKinds = frozenset[K.GroupKind]

RUNTIMES: GroupKinds = frozenset({K.TRAINING_RUNTIME, K.CLUSTER_TRAINING_RUNTIME})  # a TrainJob's templates
ROUTING: GroupKinds = RUNTIMES | {K.LOCAL_QUEUE}  # a workload's queue route and its templates
POD_GROUPS: GroupKinds = frozenset({K.VOLCANO_PODGROUP, K.KAI_PODGROUP, K.COSCHEDULING_PODGROUP})
# every workload Kueue may manage and what ranks it: graph rules over a ClusterQueue's workloads
ROUTED: GroupKinds = frozenset(routing.MANAGED) | {K.LOCAL_QUEUE, K.CLUSTER_QUEUE, K.WORKLOAD_PRIORITY_CLASS,
                                                   K.PRIORITY_CLASS}
TEMPLATES: GroupKinds = frozenset(K.GroupKind(*kind) for kind in TEMPLATE_KINDS)  # every kind with pod templates
