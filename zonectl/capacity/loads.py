"""What each route of a plan brings to each shard, in uncompressed bytes (capacity.md):

- ranges: a new range's migrating chunks (its impact estimate) go to the shards of its zone
  once the plan has run, spread evenly, as apply --migrate's `make_moves` (fewest chunks
  first) and the balancer (even chunk counts inside a zone) both leave them;
- reshard: a resharding needs ((collection + indexes) x 2) / shards on each shard that
  takes the copy: the shards of the zones it places the collection in, else every shard
  that stays;
- drain: a removed shard's collections go to the shards of the zones it carries that their
  ranges use, else to every shard that stays and is not draining;
- move_collection: an unsharded collection moved whole to its new shard.

Donors gain nothing: WiredTiger keeps a file's space when chunks leave, and orphans stay
until the range deleter runs. Pure."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from zonectl.model.cluster import ClusterState
from zonectl.model.desired import DesiredState
from zonectl.plan.impact import zone_shards_after
from zonectl.plan.plan import Plan
from zonectl.plan.shard_removal import drain_of


@dataclass
class Load:
    """One route's bytes arriving on one shard, and where they come from."""

    incoming: int = 0
    sources: set[str] = field(default_factory=set)
    databases: dict[str, int] = field(default_factory=dict)  # db -> bytes, to pick the read


# shard -> route -> Load
Loads = dict[str, dict[str, Load]]


def add_load(
    loads: Loads, route: str, shards: Iterable[str], total: int, source: str, ns: str
) -> None:
    """`total` bytes spread evenly over `shards` (the remainder on the first by name)."""
    targets = sorted(set(shards))
    if not targets or total <= 0:
        return
    share, rest = divmod(total, len(targets))
    for i, shard in enumerate(targets):
        part = share + (rest if i == 0 else 0)
        load = loads.setdefault(shard, {}).setdefault(route, Load())
        load.incoming += part
        load.sources.add(source)
        db = ns.split(".", 1)[0]
        load.databases[db] = load.databases.get(db, 0) + part


def staying_shards(actual: ClusterState, desired: DesiredState) -> frozenset[str]:
    """Shards that stay and take data: present, not removed by the policy, not draining."""
    gone = desired.removed_shards
    return frozenset(s.id for s in actual.shards if s.id not in gone and not s.draining)


def make_loads(plan: Plan, actual: ClusterState, desired: DesiredState) -> Loads:
    loads: Loads = {}
    zones = zone_shards_after(plan, actual)
    staying = staying_shards(actual, desired)
    for op in plan.ops:
        impact = op.impact
        change, key, moved = op.range_change(), op.key_change(), op.relocation()
        if change is not None and change.adds and op.moves == "migrates" and impact is not None:
            holders = zones.get(change.zone, frozenset()) & staying
            add_load(loads, "ranges", holders, impact.bytes, change.ns, change.ns)
        elif key is not None and key.reshards and impact is not None:
            # each recipient holds its share of the copy beside the original until the
            # commit: the shards of the zones it places the collection in (the reshard
            # route), else every shard that stays
            placed = {r.zone for r in op.ranges_after() or ()}
            recipients = {s for z in placed for s in zones.get(z, frozenset())} & staying
            add_load(loads, "reshard", recipients or staying, impact.bytes * 2, key.ns, key.ns)
        elif moved is not None and impact is not None:
            add_load(loads, "move_collection", [moved.to_shard], impact.bytes, moved.ns, moved.ns)
    if any(op.counts_as == "shard" and op.sign == "-" for op in plan.ops):
        _drains(loads, actual, desired, zones, staying)
    return loads


def _drains(
    loads: Loads,
    actual: ClusterState,
    desired: DesiredState,
    zones: dict[str, frozenset[str]],
    staying: frozenset[str],
) -> None:
    for shard in sorted(desired.removed_shards):
        live = actual.shard(shard)
        if live is None:
            continue
        for coll in drain_of(actual, shard).collections:
            used = {r.zone for r in actual.ranges_of(coll.namespace)} & set(live.zones)
            recipients = {s for z in used for s in zones.get(z, frozenset())} & staying
            add_load(loads, "drain", recipients or staying, coll.bytes or 0, shard, coll.namespace)


def database_to_read(loads: Loads) -> str:
    """The database most of the incoming bytes belong to (ties by name): its dbStats gives
    every shard's volume and that data's compression."""
    totals: dict[str, int] = {}
    for routes in loads.values():
        for load in routes.values():
            for db, n in load.databases.items():
                totals[db] = totals.get(db, 0) + n
    return min(totals, key=lambda db: (-totals[db], db)) if totals else ""
