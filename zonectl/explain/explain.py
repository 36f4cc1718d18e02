"""A collection's state from the policy's outcome and what else holds it, in the balancer's
own order of checks (balancer.cpp `_mainThread`: the balancer's mode and window first, then
per collection `canBalanceCollection`: noBalance, allowMigrations, permitMigrations,
defragmentCollection; then `BalancerPolicy::balance`)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence

from zonectl.explain.facts import ClusterFacts, CollectionFacts
from zonectl.explain.findings import below, blockers, pending
from zonectl.explain.policy import select, zone_checks
from zonectl.explain.reasons import (
    BALANCED,
    MOVING,
    STUCK,
    WAITING,
    Explanation,
    Reason,
    iso,
    plural,
    span,
)

# zonectl's own line, not MongoDB's: the balancer retries a failing migration every round,
# so this many failures in a row with no commit between is taken as one that will not pass.
FAILING_IN_A_ROW = 3


def explain(
    coll: CollectionFacts, cluster: ClusterFacts, eta: dt.datetime | None = None
) -> Explanation:
    """The state and reasons of one collection; `eta` (the forecast's) is kept when it
    moves or waits for its window."""
    moves = select(coll, cluster)
    checks = zone_checks(coll, cluster)
    todo = pending(coll, cluster, moves)
    stays = blockers(coll, cluster, checks)
    extra = [*_failing(coll), *_orphans(coll), *_unknown(coll)]
    if coll.ddl:
        held = _ddl(coll)
        return Explanation(coll.ns, WAITING, (held, *todo, *stays, *extra))
    if not todo:
        quiet = below(coll, cluster, checks)
        switches = _switches(coll)
        if stays:
            return Explanation(coll.ns, STUCK, (*stays, *switches, *extra))
        if coll.defragmenting:
            off = _off(cluster)  # a defragmentation advances only in the balancer's rounds
            state = STUCK if off else WAITING
            return Explanation(coll.ns, state, (*off, _defragmenting(coll), *quiet, *extra))
        return Explanation(coll.ns, BALANCED, (*quiet, *switches, *extra))
    hold = _switches(coll)
    if hold:
        return Explanation(coll.ns, STUCK, (*hold, *todo, *stays, *extra))
    off = _off(cluster)
    if off:  # before the defragmentation: with no round it does not advance either
        defrag = [_defragmenting(coll)] if coll.defragmenting else []
        return Explanation(coll.ns, STUCK, (*off, *defrag, *todo, *stays, *extra))
    if coll.defragmenting:
        return Explanation(coll.ns, WAITING, (_defragmenting(coll), *todo, *stays, *extra))
    balancer = cluster.balancer
    failing = coll.failures is not None and coll.failures.in_a_row >= FAILING_IN_A_ROW
    if failing:
        return Explanation(coll.ns, STUCK, (*extra, *todo, *stays))
    if not balancer.window_open:
        closed = _window(cluster)
        return Explanation(coll.ns, WAITING, (closed, *todo, *stays, *extra), eta=eta)
    return Explanation(coll.ns, MOVING, (*todo, *stays, *extra), eta=eta)


def explain_all(
    colls: Sequence[CollectionFacts],
    cluster: ClusterFacts,
    etas: Mapping[str, dt.datetime | None] | None = None,
) -> list[Explanation]:
    return [explain(c, cluster, (etas or {}).get(c.ns)) for c in colls]


def _switches(coll: CollectionFacts) -> list[Reason]:
    out = []
    if coll.no_balance:
        out.append(
            Reason(
                "collection-balancing-off",
                "balancing is off for this collection (noBalance: true): the balancer skips it",
                f"sh.enableBalancing('{coll.ns}'), or `balancing: true` in its policy entry",
            )
        )
    if not coll.allow_migrations:
        field = coll.migrations_field or "permitMigrations"
        out.append(
            Reason(
                "migrations-not-allowed",
                f"migrations of this collection are not allowed ({field}: false): the "
                "balancer skips it and moveChunk fails",
                f"db.adminCommand({{setAllowMigrations: '{coll.ns}', allowMigrations: true}})",
            )
        )
    return out


def _off(cluster: ClusterFacts) -> list[Reason]:
    """balancer-off, when the balancer's mode runs no round (balancer.cpp `_mainThread`
    skips the round, defragmentation included, as the sandbox's run_round does)."""
    balancer = cluster.balancer
    if balancer.enabled:
        return []
    return [
        Reason(
            "balancer-off",
            f"the balancer is off (mode {balancer.mode}): no round runs",
            "sh.startBalancer() (balancerStart), or `balancer: {enabled: true}` in the policy",
        )
    ]


def _defragmenting(coll: CollectionFacts) -> Reason:
    phase = f", phase {coll.defrag_phase}" if coll.defrag_phase else ""
    return Reason(
        "defragmenting",
        f"a defragmentation runs (defragmentCollection: true{phase}): the balancer does "
        "not balance the collection until it ends",
        "wait for it, or stop it: configureCollectionBalancing with defragmentCollection: false",
    )


def _ddl(coll: CollectionFacts) -> Reason:
    return Reason(
        "ddl-in-progress",
        f"{coll.ddl} holds the collection: the balancer leaves it until that ends",
        "wait for it to finish (or abort it: abortReshardCollection / abortMoveCollection)",
    )


def _window(cluster: ClusterFacts) -> Reason:
    balancer = cluster.balancer
    when = ""
    if balancer.opens is not None:
        when = f"; it opens at {iso(balancer.opens)}"
        if cluster.now is not None:
            when += f" (in {span((balancer.opens - cluster.now).total_seconds())})"
    return Reason(
        "outside-window",
        f"the balancer's {balancer.window or 'window'} is closed{when}",
        "wait for the window, or widen it (activeWindow; the policy's balancer.activeWindow)",
    )


def _failing(coll: CollectionFacts) -> list[Reason]:
    f = coll.failures
    if f is None or f.in_a_row == 0:
        return []
    at = f" (the newest at {iso(f.last)})" if f.last is not None else ""
    said = f": {f.message}" if f.message else " (the server logged no message)"
    return [
        Reason(
            "migration-failing",
            f"the last {plural(f.in_a_row, 'migration')} of this collection failed with no "
            f"commit since{at}{said}",
            "read the message in config.changelog (moveChunk.error, moveChunk.from) and the "
            "donor's log, and fix its cause; the balancer retries every round",
        )
    ]


def _orphans(coll: CollectionFacts) -> list[Reason]:
    held = {s: n for s, n in sorted(coll.orphans.items()) if n}
    if not held:
        return []
    where = ", ".join(f"{plural(n, 'orphaned document')} on {s}" for s, n in held.items())
    return [
        Reason(
            "range-deletions-pending",
            f"{where} wait for the range deleter ($shardedDataDistribution numOrphanedDocs); "
            "a migration into a range still being deleted waits for it",
            "nothing to do: the range deleter removes them after orphanCleanupDelaySecs",
        )
    ]


def _unknown(coll: CollectionFacts) -> list[Reason]:
    return [
        Reason(code, what, fix, unknown=True)
        for code, (what, fix) in sorted((c, _split(t)) for c, t in coll.unknown.items())
    ]


def _split(text: str) -> tuple[str, str]:
    what, _, fix = text.partition(" | ")
    return what, fix or "grant the privilege named, or run as a user with clusterMonitor"
