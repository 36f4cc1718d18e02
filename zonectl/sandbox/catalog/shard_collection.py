"""shardCollection: key validation, existing-zone checks and the initial chunk layout.

Follows the 5.0+ shard-collection coordinator and InitialSplitPolicy
(src/mongo/db/s/config/initial_split_policy.cpp; reference §1.8): ranges already in
config.tags must match the key exactly, need NumberLong bounds on hashed fields and a zone
that some shard carries; an empty collection is pre-split at every range boundary.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

from bson import Int64
from bson.max_key import MaxKey
from bson.min_key import MinKey

from zonectl.sandbox.catalog import zone_rules as rules
from zonectl.sandbox.catalog.cluster import Cluster, ZoneRange
from zonectl.sandbox.errors import CommandError, required_object
from zonectl.sandbox.keyorder import encode
from zonectl.sandbox.tostring import to_string

_UNSUPPORTED = (
    "Unsupported shard key pattern {key}. Pattern must either be a single hashed field, "
    "or a list of ascending fields"
)


def shard_collection(cluster: Cluster, body: Mapping[str, Any], name: str) -> dict[str, Any]:
    """Run `{<name>: ns, key: ..., ...}` (`name` as the client spelled the command)."""
    ns = rules.parse_namespace(body, name)
    key = parse_key(body)
    unique = bool(body.get("unique", False))
    hashed = [f for f, v in key.items() if v == "hashed"]
    if unique and hashed:
        raise CommandError.of(
            "InvalidOptions",
            "Hashed shard keys cannot be declared unique. It's possible to ensure uniqueness on "
            "the hashed field by declaring an additional (non-hashed) unique index on the field.",
        )
    db = ns.split(".", 1)[0]
    if db in ("admin", "local", "config"):
        raise CommandError.of("IllegalOperation", f"can't shard {db} database")
    existing = cluster.collection_doc(ns)
    if existing is not None:
        if dict(existing["key"]) == key and bool(existing.get("unique")) == unique:
            return {"collectionsharded": ns}  # same options: idempotent
        raise CommandError(
            23,
            f"sharding already enabled for collection {ns} with options "
            f"{{ key: {to_string(existing['key'])}, unique: "
            f"{'true' if existing.get('unique') else 'false'} }}",
            "AlreadyInitialized",
        )
    dbdoc = cluster.database_doc(db)
    if cluster.version_major < 6 and (dbdoc is None or not dbdoc.get("partitioned")):
        # 5.0 still required enableSharding first (inferred; 6.0 made it implicit).
        raise CommandError.of("IllegalOperation", f"sharding not enabled for db {db}")
    if not cluster.shard_names():
        raise CommandError.of("ShardNotFound", "no shards found")
    ranges = cluster.zone_ranges(ns)
    _check_ranges(cluster, ns, key, ranges)
    primary = cluster.ensure_database(db)["primary"]
    bounds, shards = _initial_layout(cluster, ns, key, ranges, primary, body)
    cluster.log_change("shardCollection.start", ns, {"shardKey": key, "primary": primary})
    cluster.create_collection(ns, key, unique=unique, bounds=bounds, shards=shards)
    cluster.log_change("shardCollection.end", ns, {"numChunks": len(shards)})
    return {"collectionsharded": ns}


def parse_key(body: Mapping[str, Any], command: str = "shardCollection") -> dict[str, Any]:
    """`key` as ShardKeyPattern::isValid accepts it (shardCollection, refine, reshard)."""
    # IDL (shard_collection.idl): `key` is a required object.
    key = required_object(body, command, "key")
    # ShardKeyPattern::isValid: ascending (== 1) or "hashed", at most one hashed field,
    # no empty or $-prefixed path parts.
    valid = bool(key) and sum(v == "hashed" for v in key.values()) <= 1
    for field, value in key.items():
        parts = field.split(".")
        if any(not p or p.startswith("$") for p in parts):
            valid = False
        if value != "hashed" and not (
            isinstance(value, int | float) and not isinstance(value, bool) and value == 1
        ):
            valid = False
    if not valid:
        raise CommandError.of("BadValue", _UNSUPPORTED.format(key=to_string(key)))
    return key


def _check_ranges(cluster: Cluster, ns: str, key: dict[str, Any], ranges: list[ZoneRange]) -> None:
    """validateShardKeyAgainstExistingZones (InvalidOptions), then 50973 per zone."""
    for zr in ranges:
        span = f"{to_string(zr.min)} -->> {to_string(zr.max)}"
        if list(zr.min) != list(zr.max):
            raise CommandError.of(
                "InvalidOptions",
                f"the min and max of the existing zone {span} have non-matching keys",
            )
        if list(zr.min) != list(key):
            raise CommandError.of(
                "InvalidOptions",
                f"the proposed shard key {to_string(key)} does not match with the shard key "
                f"of the existing zone {span}",
            )
        for field, kind in key.items():
            if kind == "hashed" and not (
                rules.is_valid_hashed_value(zr.min[field])
                and rules.is_valid_hashed_value(zr.max[field])
            ):
                raise CommandError.of(
                    "InvalidOptions",
                    f"cannot do hash sharding with the proposed key {to_string(key)} because "
                    f"there exists a zone {span} whose boundaries are not of type NumberLong",
                )
    for zr in ranges:
        if not cluster.shards_in_zone(zr.zone):
            raise CommandError.assertion(
                50973,
                f"cannot shard collection {ns} due to zone {zr.zone} which is not associated "
                "with a shard",
            )


def _initial_layout(
    cluster: Cluster,
    ns: str,
    key: dict[str, Any],
    ranges: list[ZoneRange],
    primary: str,
    body: Mapping[str, Any],
) -> tuple[list[dict[str, Any]], list[str]]:
    """Chunk bounds and owners. Non-empty collection: one chunk on the primary shard (the
    balancer splits it later). Empty: split at zone boundaries (range chunks on their zone's
    shards, gaps round-robin), else hashed pre-splitting (2 chunks per shard by default)."""
    lo = {f: MinKey() for f in key}
    hi = {f: MaxKey() for f in key}
    data = cluster.catalog.get(ns)
    if data is not None and len(data) > 0:
        return [lo, hi], [primary]
    all_shards = cluster.shard_names()
    if ranges:
        return _split_at_zones(cluster, lo, hi, ranges, all_shards)
    first = next(iter(key))
    if key[first] == "hashed":
        n = body.get("numInitialChunks") or 2 * len(all_shards)
        if not isinstance(n, int) or n < 1:
            n = 2 * len(all_shards)
        bounds: list[dict[str, Any]] = [lo]
        bounds += [{**lo, first: Int64(-(2**63) + (k * 2**64) // n)} for k in range(1, int(n))]
        bounds.append(hi)
        cycle = itertools.cycle(all_shards)
        return bounds, [next(cycle) for _ in range(len(bounds) - 1)]
    return [lo, hi], [primary]


def _split_at_zones(
    cluster: Cluster,
    lo: dict[str, Any],
    hi: dict[str, Any],
    ranges: list[ZoneRange],
    all_shards: list[str],
) -> tuple[list[dict[str, Any]], list[str]]:
    bounds: list[dict[str, Any]] = [lo]
    shards: list[str] = []
    gap_cycle = itertools.cycle(all_shards)
    zone_cycles: dict[str, itertools.cycle[str]] = {}
    for zr in sorted(ranges, key=lambda r: encode(r.min)):
        if encode(bounds[-1]) < encode(zr.min):
            shards.append(next(gap_cycle))  # the gap before this range
            bounds.append(dict(zr.min))
        if zr.zone not in zone_cycles:
            zone_cycles[zr.zone] = itertools.cycle(cluster.shards_in_zone(zr.zone))
        shards.append(next(zone_cycles[zr.zone]))
        bounds.append(dict(zr.max))
    if encode(bounds[-1]) < encode(hi):
        shards.append(next(gap_cycle))
        bounds.append(hi)
    else:
        bounds[-1] = hi
    return bounds, shards
