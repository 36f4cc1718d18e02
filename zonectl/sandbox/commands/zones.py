"""The zone commands: addShardToZone, removeShardFromZone, updateZoneKeyRange (reference §1).

Each runs the mongos-side parsing first, then the config server's checks in the version's
order (§8 "Check order"); the first failing check decides the error. All three are
admin-only and refuse a client writeConcern (§1.1).
"""

from __future__ import annotations

from typing import Any

from bson import ObjectId

from zonectl.sandbox.bounds import is_prefix_of, pad_bound, ranges_overlap
from zonectl.sandbox.catalog import zone_rules as rules
from zonectl.sandbox.catalog.cluster import SHARDS, TAGS, Cluster
from zonectl.sandbox.commands.registry import Request, command
from zonectl.sandbox.errors import CommandError
from zonectl.sandbox.keyorder import encode, equal


def _parse_shard_and_zone(request: Request) -> tuple[str, str]:
    """add_shard_to_zone_request_type.cpp: the shard name, then `zone` (NoSuchKey/TypeMismatch)."""
    shard = request.arg
    if not isinstance(shard, str):
        raise rules.wrong_type(request.name, "string", shard)
    return shard, rules.string_field(request.body, "zone")


def _shard_not_found(shard: str) -> CommandError:
    return CommandError.of("ShardNotFound", f"shard {shard} does not exist")


@command(
    "addShardToZone",
    aliases=("addshardtozone",),
    admin_only=True,
    supports_write_concern=False,
)
def add_shard_to_zone(request: Request) -> dict[str, Any]:
    shard, zone = _parse_shard_and_zone(request)
    cluster = request.sandbox.cluster
    doc = cluster.shard_doc(shard)
    if doc is None:
        raise _shard_not_found(shard)
    tags = list(doc.get("tags", []))
    if zone not in tags:  # $addToSet: idempotent, insertion order, creates the array
        cluster.coll(SHARDS).put({**doc, "tags": [*tags, zone]})
    return {}


@command(
    "removeShardFromZone",
    aliases=("removeshardfromzone",),
    admin_only=True,
    supports_write_concern=False,
)
def remove_shard_from_zone(request: Request) -> dict[str, Any]:
    shard, zone = _parse_shard_and_zone(request)
    cluster = request.sandbox.cluster
    doc = cluster.shard_doc(shard)
    if doc is None:
        raise _shard_not_found(shard)
    holders = cluster.shards_in_zone(zone)
    # §1.3: only the last holder is guarded, and a range of any namespace counts.
    if holders == [shard] and cluster.zone_has_ranges(zone):
        raise CommandError.of(
            "ZoneStillInUse",
            "cannot remove a shard from zone if a chunk range is associated with it",
        )
    if "tags" in doc:  # $pull leaves [] after the last zone; no field means nothing to pull
        cluster.coll(SHARDS).put({**doc, "tags": [t for t in doc["tags"] if t != zone]})
    return {}


@command(
    "updateZoneKeyRange",
    aliases=("updatezonekeyRange",),
    admin_only=True,
    supports_write_concern=False,
)
def update_zone_key_range(request: Request) -> dict[str, Any]:
    body = request.body
    ns = rules.parse_namespace(body, request.name)
    lo, hi = rules.parse_range(body)
    if "zone" not in body:
        raise rules.missing("zone")
    zone = body["zone"]
    if zone is not None and not isinstance(zone, str):
        raise rules.wrong_type("zone", "string or null", zone)
    cluster = request.sandbox.cluster
    if zone is None:
        _remove_range(cluster, ns, lo, hi)
    else:
        assign_range(cluster, ns, lo, hi, zone, zone_check_first=_zone_check_first(request))
    return {}


def _zone_check_first(request: Request) -> bool:
    return request.sandbox.version.zone_check_first


def assign_range(
    cluster: Cluster,
    ns: str,
    lo: dict[str, Any],
    hi: dict[str, Any],
    zone: str,
    *,
    zone_check_first: bool = True,
) -> None:
    """assignKeyRangeToZone: 4.4 checks (a) fit, (b) zone, (c) hashed, (d) overlap; 5.0+
    checks (b) first (§1.5). (e), the time-series rule, has no subject: the sandbox has no
    time-series collections."""
    if zone_check_first:
        _check_zone_exists(cluster, zone)
    for bound in (lo, hi):
        rules.check_storage(bound)
    key = cluster.key_pattern(ns) if cluster.is_sharded(ns) else None
    lo, hi = rules.fit_range(ns, key, lo, hi)
    if not zone_check_first:
        _check_zone_exists(cluster, zone)
    if key is not None:
        rules.check_hashed(key, lo, hi)
    for existing in cluster.zone_ranges(ns):
        # Existing ranges are re-filled against the current key (ZoneInfo::addRangeToZone).
        ex_lo, ex_hi = existing.min, existing.max
        if key is not None and is_prefix_of(ex_lo, key) and is_prefix_of(ex_hi, key):
            ex_lo, ex_hi = pad_bound(ex_lo, key), pad_bound(ex_hi, key)
        same = equal(ex_lo, lo) and equal(ex_hi, hi)
        if same and existing.zone == zone:
            return  # the identical range already exists: nothing is written
        if same or ranges_overlap(ex_lo, ex_hi, lo, hi):
            raise CommandError.of(
                "RangeOverlapConflict",
                f"Zone range: {rules.range_text(lo, hi, zone)} is overlapping with existing: "
                f"{rules.range_text(ex_lo, ex_hi, existing.zone)}",
            )
    # Upsert keyed by {ns, min} (unique index); 4.4+ gives new documents an ObjectId _id.
    cluster.coll(TAGS).put({"_id": ObjectId(), "ns": ns, "min": lo, "max": hi, "tag": zone})


def _check_zone_exists(cluster: Cluster, zone: str) -> None:
    if not cluster.zone_exists(zone):
        raise CommandError.of("ZoneNotFound", f"zone {zone} does not exist")


def _remove_range(cluster: Cluster, ns: str, lo: dict[str, Any], hi: dict[str, Any]) -> None:
    """removeKeyRangeFromZone (§1.6): no zone check; bounds fitted as for assign; delete the
    document whose {ns, min, max} match exactly; nothing matched is still ok."""
    key = cluster.key_pattern(ns) if cluster.is_sharded(ns) else None
    lo, hi = rules.fit_range(ns, key, lo, hi)
    lo_key, hi_key = encode(lo), encode(hi)
    for existing in cluster.zone_ranges(ns):
        if encode(existing.min) == lo_key and encode(existing.max) == hi_key:
            cluster.coll(TAGS).remove(existing.id)
