"""Pins that zone ranges cannot reach: an unsharded collection lives on one shard (its
database's primary, or its single chunk once 8.0 tracks it), and only 8.0's moveCollection
moves it. Pure: the live locations, kinds and in-flight moves are read by `zonectl.mongo`.

On 8.0+ a pinned collection outside its zone gets a MoveCollection op to the least-loaded
shard of the zone; before 8.0 nothing is written and the plan says where it lives and the two
fixes. A view, a time-series collection, and a capped one that would need a shard key are
refused at plan time, before anything is sent.
"""

from __future__ import annotations

from collections.abc import Mapping

from zonectl.model.cluster import ClusterState
from zonectl.model.desired import CollectionPolicy
from zonectl.plan.ops import MoveCollection
from zonectl.plan.ranges import Problems

MIN_MOVE_VERSION = 8
UNREACHABLE = "no zone can reach"  # the wording of the pre-8.0 note (summary lines look for it)


def is_unsharded_pin(cp: CollectionPolicy, actual: ClusterState) -> bool:
    """A pin with no `key:` on a namespace that is not sharded: moveCollection's job."""
    return bool(cp.pin) and cp.key is None and cp.namespace not in actual.collections


def refuse_kind(cp: CollectionPolicy, actual: ClusterState, problems: Problems) -> bool:
    """A pin or window on what cannot hold one; True when refused (an error was added)."""
    live = actual.unsharded.get(cp.namespace)
    if live is None or not (cp.pin or cp.firehose or cp.ranges):
        return False
    ns = cp.namespace
    if live.kind == "view":
        problems.error(cp.position, f"{ns} is a view: it holds no data to pin; pin its source")
        return True
    if live.kind == "timeseries":
        problems.error(
            cp.position,
            f"{ns} is a time-series collection: moveCollection refuses it on 8.0 "
            "(IllegalOperation) and zonectl does not manage its buckets; remove the entry",
        )
        return True
    if live.capped and (cp.key is not None or cp.firehose or cp.ranges):
        problems.error(
            cp.position,
            f"{ns} is a capped collection, which cannot be sharded, so no range or window "
            "applies; drop `key:` to pin it whole (moveCollection, 8.0+)",
        )
        return True
    return False


def pin_unsharded(
    cp: CollectionPolicy,
    actual: ClusterState,
    zone_shards: frozenset[str],
    load: dict[str, int],
    problems: Problems,
    notes: list[str],
    stuck: dict[tuple[str, str], list[str]] | None = None,
) -> list[MoveCollection]:
    """The MoveCollection op that puts `cp`'s collection on a shard of its zone, if needed.
    `load` (shard -> bytes) starts from listDatabases and grows with each planned move."""
    ns, zone = cp.namespace, cp.pin or ""
    live = actual.unsharded.get(ns)
    origin = f" (from pattern {cp.pattern!r})" if cp.pattern else ""
    if live is None or not live.shard:
        notes.append(f"{ns}{origin}: does not exist yet; pinned to zone {zone} once created")
        return []
    where = "its single chunk" if live.tracked else "its database's primary shard"
    if live.shard in zone_shards:
        if not cp.pattern:  # a pattern's note already counts what it matched
            notes.append(f"{ns}: unsharded, on {live.shard} ({where}), in zone {zone}")
        return []
    running = actual.move_of(ns)
    if running is not None:
        since = f" since {running.started}" if running.started else ""
        notes.append(
            f"{ns}{origin}: a moveCollection to {running.to_shard} is running on the server"
            f"{since}; zonectl starts no second one: rerun when it has finished"
        )
        return []
    if actual.features < (MIN_MOVE_VERSION, 0):
        if cp.pattern and stuck is not None:  # one note per pattern, not one per collection
            stuck.setdefault((cp.pattern, zone), []).append(ns)
            return []
        notes.append(
            f"{ns}{origin}: unsharded, lives on {live.shard} ({where}), outside zone {zone}; "
            f"{UNREACHABLE} an unsharded collection on MongoDB "
            f"{actual.features_text or '< 8.0'}. "
            f"Fix: shard it, with `key:` in the policy so the {zone} range applies; or upgrade "
            "to 8.0 (and setFeatureCompatibilityVersion 8.0), where zonectl moves it with "
            "moveCollection"
        )
        return []
    if not zone_shards:
        problems.error(cp.position, f"{ns}: zone {zone} has no shard to move the collection to")
        return []
    target = min(sorted(zone_shards), key=lambda shard: load.get(shard, 0))
    return [MoveCollection(ns, target, live.shard, zone)]


def stuck_notes(stuck: dict[tuple[str, str], list[str]], version: str) -> list[str]:
    """One note per pattern whose matched collections no zone can reach on this version."""
    out = []
    for (pattern, zone), names in sorted(stuck.items()):
        shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
        out.append(
            f"{len(names)} unsharded collection(s) from pattern {pattern!r} live outside zone "
            f"{zone} ({shown}); {UNREACHABLE} an unsharded collection on MongoDB "
            f"{version or '< 8.0'}. Fix: shard them, with `key:` in the pattern so the {zone} "
            "range applies; or upgrade to 8.0 (and its FCV), where zonectl moves them with "
            "moveCollection"
        )
    return out


def book_move(op: MoveCollection, load: dict[str, int], size: int | None) -> None:
    """Count a planned move on its target, so the next one picks another shard on a tie."""
    load[op.to_shard] = load.get(op.to_shard, 0) + (size if size is not None else 1)


def initial_load(actual: ClusterState) -> dict[str, int]:
    return {s.id: int(actual.shard_bytes.get(s.id, 0)) for s in actual.shards}


def locations(actual: ClusterState) -> Mapping[str, str]:
    """namespace -> shard of every known unsharded collection (for status)."""
    return {ns: u.shard for ns, u in actual.unsharded.items()}
