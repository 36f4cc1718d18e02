"""The explain families of the metrics: each sharded namespace's balancer state, one series
per state (1 for its state, 0 for the other three, so an alert sees a value change, not a
series appear), and a series per reason it has (docs/explain.md lists the codes). Pure."""

from __future__ import annotations

from collections.abc import Callable

from zonectl.explain.reasons import STATES
from zonectl.render.exposition import Labels, make_labels
from zonectl.render.status import StatusReport

HELP: dict[str, str] = {
    "zonectl_collection_balancer_state": (
        "1 for the namespace's state as zonectl explain gives it (balanced, moving, waiting, "
        "stuck), 0 for the other three."
    ),
    "zonectl_collection_balancer_reason": (
        "1 for each reason zonectl explain gives the namespace (code: balancer-off, jumbo, "
        "zone-violation, ...; docs/explain.md); a reason whose facts could not be read is left out."
    ),
}

Put = Callable[[str, float, Labels], None]


def put_explain(put: Put, cluster: str, report: StatusReport) -> None:
    """Both families for every sharded namespace status explained."""
    for c in report.collections:
        found = c.explained
        if found is None:
            continue
        for state in STATES:
            put("zonectl_collection_balancer_state", int(found.state == state),
                make_labels(cluster=cluster, namespace=c.namespace, state=state))  # fmt: skip
        codes = dict.fromkeys(r.code for r in found.reasons if not r.unknown)
        for code in codes:
            put("zonectl_collection_balancer_reason", 1,
                make_labels(cluster=cluster, namespace=c.namespace, code=code))  # fmt: skip
