"""Query sampling as a policy setting: the SetQueryAnalyzer ops a collection's `sampling:`
needs, and the sampled collections no policy names (reported as unmanaged, left alone).

configureQueryAnalyzer exists from 7.0 (configure_query_analyzer_cmd.cpp): before that the
policy line gets a warning and no op, as does a collection that does not exist (the server
answers NamespaceNotFound). Views and time-series collections cannot be sampled
(validateCollectionOptions): a plan error at the policy line.
"""

from __future__ import annotations

from zonectl.model.cluster import ClusterState
from zonectl.model.desired import DesiredState
from zonectl.plan.ops import Op, SetQueryAnalyzer, format_rate
from zonectl.plan.plan import Unmanaged
from zonectl.plan.ranges import Problems

FIRST_VERSION = 7


def sampling_ops(
    desired: DesiredState, actual: ClusterState, ns: str, problems: Problems
) -> list[Op]:
    cp = desired.collections[ns]
    wanted = cp.sampling
    if wanted is None:
        return []
    if actual.major < FIRST_VERSION:
        problems.warn(
            wanted.position,
            f"`sampling` of {ns} needs MongoDB 7.0+ (configureQueryAnalyzer); this cluster "
            f"runs {actual.version or 'an older version'}: nothing is written",
        )
        return []
    live = actual.unsharded.get(ns)
    if live is None and ns not in actual.collections and actual.databases:
        # Listed (needs_listing reads the databases for sampling on a namespace that is
        # not sharded) and not there: the server answers NamespaceNotFound.
        problems.warn(
            wanted.position, f"{ns} does not exist yet: `sampling` is planned once it is created"
        )
        return []
    if live is not None and live.kind in ("view", "timeseries"):
        kind = "a view" if live.kind == "view" else "a time-series collection"
        problems.error(
            wanted.position, f"{ns} is {kind}: its queries cannot be sampled; remove `sampling`"
        )
        return []
    if actual.samplers is None:
        problems.warn(
            wanted.position,
            f"config.queryAnalyzers could not be read: `sampling` of {ns} is not planned "
            "(grant find on config.queryAnalyzers; see `zonectl doctor`)",
        )
        return []
    current = actual.samplers.get(ns)
    if current == wanted.rate:
        return []
    return [SetQueryAnalyzer(ns, wanted.rate, current)]


def unmanaged_samplers(desired: DesiredState, actual: ClusterState) -> list[Unmanaged]:
    """Sampled collections whose policy (if any) does not say `sampling`."""
    out = []
    for ns, rate in sorted((actual.samplers or {}).items()):
        cp = desired.collections.get(ns)
        if cp is None or cp.sampling is None:
            detail = f"query sampling on at {format_rate(rate)} samples/s"
            out.append(Unmanaged("sampling", ns, detail))
    return out
