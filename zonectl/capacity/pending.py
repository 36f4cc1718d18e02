"""What the cluster still has to move, as loads per shard (for `zonectl status` and its
metrics): the chunks lying outside their zone go to the shards of that zone (the balancer
moves them, or apply --migrate), and a draining shard's collections go to the shards that
stay. Sized like status sizes out-of-zone bytes: per shard, its owned bytes of the
collection over its chunk count ($shardedDataDistribution). Pure."""

from __future__ import annotations

from collections.abc import Mapping

from zonectl.capacity.loads import Loads, add_load
from zonectl.model.cluster import ClusterState

# (shard, zone) -> [chunks, jumbo chunks]: a namespace's chunk tally (mongo.chunk_scan)
Tally = Mapping[tuple[str, str | None], list[int]]


def pending_loads(
    state: ClusterState,
    tallies: Mapping[str, Tally],
    owned: Mapping[str, Mapping[str, int]] | None,
) -> Loads:
    """`tallies`: per namespace its chunks by (shard, zone); `owned`: ns -> shard -> bytes
    (None: the server does not report them, and out-of-zone chunks cannot be sized)."""
    loads: Loads = {}
    staying = frozenset(s.id for s in state.shards if not s.draining)
    carriers: dict[str, set[str]] = {}
    for s in state.shards:
        for zone in s.zones:
            carriers.setdefault(zone, set()).add(s.id)
    zones_of = {s.id: set(s.zones) for s in state.shards}
    # a draining shard's chunks are its drain's load, counted below
    drained = {s for s, d in state.drains.items() if d.draining}
    for ns, tally in sorted(tallies.items()):
        if owned is None:
            break
        per_shard: dict[str, int] = {}
        for (shard, _), counts in tally.items():
            per_shard[shard] = per_shard.get(shard, 0) + counts[0]
        for (shard, belongs), counts in sorted(tally.items(), key=str):
            if belongs is None or not counts[0] or shard in drained:
                continue
            if belongs in zones_of.get(shard, ()):
                continue
            held = owned.get(ns, {}).get(shard, 0)
            size = held // per_shard[shard] * counts[0]
            targets = carriers.get(belongs, set()) & staying
            add_load(loads, "ranges", targets, size, ns, ns)
    for shard, drain in sorted(state.drains.items()):
        live = state.shard(shard)
        if not drain.draining or live is None:
            continue
        for coll in drain.collections:
            used = {r.zone for r in state.ranges_of(coll.namespace)} & set(live.zones)
            targets = {s for z in used for s in carriers.get(z, set())} & staying
            add_load(loads, "drain", targets or staying, coll.bytes or 0, shard, coll.namespace)
    return loads
