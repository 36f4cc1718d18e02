"""The live state a plan needs, with the policy's namespace patterns expanded against it:
config metadata, plus (when the policy has patterns or pins an unsharded collection) the
databases, unsharded collections and moves in flight that `unsharded_read` lists."""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass

from zonectl.firehose.slices import slice_boundaries
from zonectl.model.cluster import ClusterState
from zonectl.model.desired import DesiredState
from zonectl.mongo.connect import Connection
from zonectl.mongo.drain_read import with_drain_facts
from zonectl.mongo.reshard_read import read_indexes, read_reshardings
from zonectl.mongo.settings_read import with_settings_facts
from zonectl.mongo.state import EntriesRead, read_config_documents
from zonectl.mongo.unsharded_read import needs_listing, read_listing
from zonectl.plan.patterns import expand_patterns


@dataclass(frozen=True)
class Resolved:
    desired: DesiredState  # patterns expanded into `collections`
    actual: ClusterState
    origins: Mapping[str, str]  # namespace -> pattern
    notes: tuple[str, ...]
    round_trips: int = 0  # listing commands sent beyond the usual config reads
    read: EntriesRead | None = None  # the config entries read, for the run's later readers


def read_resolved(conn: Connection, desired: DesiredState, at: dt.datetime) -> Resolved:
    """Read the cluster for `desired` and expand its patterns at instant `at` (which slices
    of a collection-per-period window are hot); PlanError when two patterns overlap."""
    wanted = None if desired.patterns else desired.collections
    docs = read_config_documents(conn, wanted)
    actual = docs.cluster_state(conn)
    actual = with_key_change_facts(conn, desired, actual)
    actual = with_settings_facts(conn, desired, actual)
    actual = with_drain_facts(conn, desired, actual)  # only when a shard is removed or draining
    if not needs_listing(desired, actual.collections):
        return Resolved(desired, actual, {}, (), read=docs.read)
    # With patterns the state read took every config.collections entry: not read again.
    read = docs.read
    every = read.entries.values() if read is not None and read.asked is None else None
    listing = read_listing(conn, desired, every)
    kinds: dict[str, str] = {ns: "collection" for ns in actual.collections}
    for ns, live in listing.unsharded.items():
        kinds[ns] = "capped" if live.capped else live.kind
    for ns, kind in listing.kinds.items():
        kinds.setdefault(ns, kind)
    expanded = expand_patterns(desired, kinds, slice_boundaries(desired.patterns, at))
    actual = dataclasses.replace(
        actual,
        databases=listing.databases,
        unsharded=listing.unsharded,
        moves=tuple(listing.moves),
        shard_bytes=listing.shard_bytes,
    )
    return Resolved(
        expanded.desired,
        actual,
        expanded.origins,
        expanded.notes,
        listing.round_trips,
        read=docs.read,
    )


def with_key_change_facts(
    conn: Connection, desired: DesiredState, actual: ClusterState
) -> ClusterState:
    """The reshardings running, and the indexes of collections whose key the policy changes
    (a refine needs one that starts with the new key); one query when no key changes."""
    changing = [
        ns
        for ns, cp in desired.collections.items()
        if cp.key is not None
        and ns in actual.collections
        and list(cp.key.items()) != list(actual.collections[ns].key.items())
    ]
    reshardings = tuple(read_reshardings(conn)) if actual.major >= 5 else ()
    indexes = read_indexes(conn, changing) if changing else {}
    return dataclasses.replace(actual, reshardings=reshardings, indexes=indexes)
