"""What ``kqlint simulate`` assumes, said in every report (cli.md: nothing is assumed silently)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from kqlint.domain.kueue.podsets import FROM_OPTIONS
from kqlint.domain.kueue.priority import PRIORITY_BOOST, priority_boost_on

if TYPE_CHECKING:
    from kqlint.domain.graph import ObjectGraph
    from kqlint.domain.kueue.podsets import ResourceConfig

NEWEST_KUEUE = "0.19"
BASE_ASSUMPTIONS = (
    "nodes not modelled: a workload that fits quota is admitted even if no node could run it",
    "nothing finishes: usage is released only by preemption",
    "running usage is what admitted Workload objects (inputs, --running) and --running workloads hold",
    "creation order is the order kqlint reads the documents (files in sorted path order, documents in file order)"
    " after objects with metadata.creationTimestamp",
    "Fair Sharing off (no Kueue Configuration of the inputs turns it on), Admission Fair Sharing off;"
    " elastic jobs, waitForPodsReady and concurrent admission not simulated",
    "TAS node capacity not modelled",
    "the cluster's ClusterQueues, Cohorts, ResourceFlavors and AdmissionChecks are those of the inputs, their"
    " context, config external and the profile",
)
BLOCK_UNDECLARED = "quotaCheckStrategy BlockUndeclared"
IGNORE_UNDECLARED = ("quotaCheckStrategy IgnoreUndeclared (the Kueue Configuration, its QuotaCheckStrategy gate on):"
                     " a resource the ClusterQueue does not cover is left out of its quota")
NO_RESOURCE_CONFIG = ("no resources.excludeResourcePrefixes or transformations (no Kueue Configuration in the"
                      " inputs sets them, nor do the exceeds-quota and resource-not-covered rule options)")
CONFIGURED = "resources.excludeResourcePrefixes and transformations as the quota rules' options mirror them"
FROM_CONFIGURATION = "resources.excludeResourcePrefixes and transformations as the Kueue Configuration sets them"
BOOST = (f"PriorityBoost gate on: a Workload object's {PRIORITY_BOOST} annotation is added to its spec.priority"
         " (the priority shown and compared)")
PARTIAL = ("partial admission (job-min-parallelism, minCount) as Kueue's PartialAdmission gate does: a workload"
           " that fits neither whole nor by preemption is admitted with the most pods that fit, down to its minimum")
WHOLE = "PartialAdmission gate off: job-min-parallelism and minCount are dropped, every workload is simulated whole"
PER_POD = "a Deployment, StatefulSet, LeaderWorkerSet or pod integration object is simulated as one of its Workloads"


def starting_assumptions(graph: ObjectGraph, version_known: bool, resources: ResourceConfig,
                         partial: bool = True) -> list[str]:
    """What every simulation of ``graph`` assumes; the run adds what it meets (flavors known by
    name only, namespaces without labels, a queue cut short). ``resources``: Kueue's resource
    exclusions and transformations, and where they come from; ``partial``: the PartialAdmission
    gate is on."""
    source = resources.source
    written = NO_RESOURCE_CONFIG if not source else CONFIGURED if source == FROM_OPTIONS \
        else f"{FROM_CONFIGURATION} ({source})"
    found = [*BASE_ASSUMPTIONS, IGNORE_UNDECLARED if resources.ignore_undeclared else BLOCK_UNDECLARED, written,
             PARTIAL if partial else WHOLE]
    if not version_known:
        found.insert(0, f"Kueue version unknown: Kueue {NEWEST_KUEUE} behaviour used")
    if priority_boost_on(graph):
        found.append(BOOST)
    return found
