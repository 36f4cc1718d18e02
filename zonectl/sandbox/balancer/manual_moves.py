"""A manual chunk migration (moveChunk / moveRange), run to completion inside the command.

It costs what a balancer migration costs (`costs.MigrationCosts`: MongoDB's steps, the
shards' copy rates, per-document part, jitter): the command registers the migration in the
active-migrations registry and blocks until the sandbox clock reaches its commit, as a
real moveChunk/moveRange only answers once the migration committed (mongo:src/mongo/db/s/
balancer/balancer.cpp `Balancer::moveRange` waits on the scheduled migration's future).

The config server path is `Balancer::moveSingleChunk` (5.0, with `checkMoveAllowed`'s zone
and draining checks) or `Balancer::moveRange` (6.0+, no such checks, SERVER-81352); then
the donor refuses a move to itself and a chunk that is too big, and the active-migrations
registry refuses a conflicting one or joins an identical one (reference §4.1, §4.3, §4.4).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from zonectl.sandbox.balancer import view
from zonectl.sandbox.balancer.migrations import InFlight, log_move, too_big_error
from zonectl.sandbox.errors import CommandError, max_time_expired

if TYPE_CHECKING:
    from zonectl.sandbox.balancer.balancer import Balancer
    from zonectl.sandbox.catalog.cluster import Cluster


def check_move_allowed(cluster: Cluster, ns: str, i: int, to: str) -> None:
    """`isShardSuitableReceiver` as `checkMoveAllowed` applies it to a manual move (5.0)."""
    store = cluster.chunks(ns)
    assert store is not None
    doc = cluster.shard_doc(to) or {}
    if doc.get("draining"):
        raise CommandError.of("IllegalOperation", f"{to} is currently draining.")
    zone = cluster.zone_for_range(ns, store.min_at(i), store.max_at(i))
    if zone is not None and zone not in doc.get("tags", []):
        raise CommandError.of("IllegalOperation", f"{to} is not in the correct zone {zone}")


def refresh_for_move(balancer: Balancer) -> None:
    """6.0+: `Balancer::moveRange`, the config server's half of moveChunk and moveRange,
    reads the chunk size through getMaxChunkSizeBytes (mongo:src/mongo/db/s/balancer/
    balancer.cpp), which runs refreshAndCheck and raises its error: a config.settings
    document that does not parse fails every manual move before the donor is asked. 5.0's
    moveSingleChunk is handed the size instead (the cached settings are used)."""
    if balancer.cluster.version.has_move_range:
        balancer.reload_settings()


def move_chunk(
    balancer: Balancer,
    ns: str,
    i: int,
    to: str,
    *,
    force_jumbo: bool,
    deadline: float | None,
) -> None:
    """Migrate chunk i of ns to shard `to`, blocking until it committed; raise the donor's
    or registry's error."""
    try:
        _move_chunk(balancer, ns, i, to, force_jumbo=force_jumbo, deadline=deadline)
    finally:
        balancer.manual_move_answered()


def _move_chunk(
    balancer: Balancer,
    ns: str,
    i: int,
    to: str,
    *,
    force_jumbo: bool,
    deadline: float | None,
) -> None:
    cluster = balancer.cluster
    balancer.poll()  # migrations whose simulated time has passed are done by now
    store = cluster.chunks(ns)
    assert store is not None
    lo, hi, donor = store.min_at(i), store.max_at(i), store.shard_at(i)
    if donor == to:
        # migration_source_manager.cpp: the donor refuses a move to itself.
        raise CommandError.of("InvalidOptions", "Destination shard cannot be the same as source")
    running = balancer.active.find_identical(ns, lo, hi, to)
    if running is not None:
        # An identical request joins the running migration and returns its outcome.
        _await(balancer, running, deadline)
        return
    conflict = balancer.active.conflict(donor, to)
    if conflict is not None:
        raise conflict
    doc = cluster.collection_doc(ns) or {}
    if doc.get("allowMigrations", True) is False or doc.get("permitMigrations", True) is False:
        # migration_source_manager.cpp: the donor refuses while the collection's metadata
        # disallows migrations (setAllowMigrations false, a resharding, a DDL coordinator);
        # jstests/sharding/move_chunk_permitMigrations.js asserts this code after
        # setAllowMigrations false.
        raise CommandError.of(
            "ConflictingOperationInProgress",
            "Collection is undergoing changes so moveChunk is not allowed.",
        )
    if not force_jumbo:
        max_bytes = view.max_chunk_size_bytes(cluster, ns, balancer.current_settings())
        error = too_big_error(ns, lo, hi, store.size_at(i), store.count_at(i), max_bytes)
        if error is not None:
            raise error  # a failed manual move never sets the jumbo flag (§4.3)
    now = cluster.clock.now()
    steps = balancer.migration_cost(donor, to, store.size_at(i), store.count_at(i))
    flight = InFlight(
        ns, lo, hi, donor, to, "manual", now, now + steps.duration, by_balancer=False, cost=steps
    )
    balancer.active.register(flight)
    log_move(cluster, "moveChunk.start", flight, {}, by=donor)
    # The migration goes on if the command gives up (maxTimeMS): it commits at `due`.
    _await(balancer, flight, deadline)


def _await(balancer: Balancer, flight: InFlight, deadline: float | None) -> None:
    """Wait until `flight` has left the registry (committed or abandoned) and raise its
    error, or MaxTimeMSExpired when `deadline` passes first."""
    if not balancer.wait_for(lambda: all(m is not flight for m in balancer.active), deadline):
        raise max_time_expired()
    if flight.error is not None:
        raise flight.error
