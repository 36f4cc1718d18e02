"""The Plan value: ordered ops plus what they were computed from (instant, policy digest,
fingerprint of the live metadata), unmanaged items and warnings. Pure data."""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from bson import json_util
from bson.binary import UuidRepresentation

from zonectl.balancer_settings.table import CLUSTER, COLLECTION
from zonectl.model.capacity import CapacityReport
from zonectl.model.cluster import ClusterState
from zonectl.model.keys import sort_key
from zonectl.plan.ops import Impact, Op

FORMAT_VERSION = 1


# Canonical extended JSON for hashing. A uuid read through a client whose URI sets
# uuidRepresentation=standard is a uuid.UUID, not a Binary: encoded as the same subtype-4
# $binary, so the fingerprint does not depend on the URI (it raised ValueError before).
CANONICAL = json_util.CANONICAL_JSON_OPTIONS.with_options(
    uuid_representation=UuidRepresentation.STANDARD
)


@dataclass(frozen=True)
class Unmanaged:
    """A zone, namespace or setting on the cluster that no policy manages: reported, untouched."""

    kind: str  # "zone" | "namespace" | "balancing" | "sampling"
    name: str
    detail: str


@dataclass(frozen=True)
class Summary:
    to_add: int
    to_remove: int
    shards_rezoned: int
    settings: int
    chunks: int
    bytes: int
    impact_known: bool
    collections: int = 0  # moveCollection ops (8.0+ unsharded pins)
    primaries: int = 0  # movePrimary ops (a database's primary, and its unsharded data)
    key_changes: int = 0  # refineCollectionShardKey and reshardCollection ops
    blocked: int = 0  # of those, ops that cannot run yet (opt-in, index, one at a time)
    same_key: int = 0  # of those, reshardings to the same key (the reshard route)
    # Shards joining (`+`), drained and removed (`-`), and drains stopped (`~`).
    shards_added: int = 0
    shards_removed: int = 0
    drains_stopped: int = 0


@dataclass(frozen=True)
class Plan:
    ops: tuple[Op, ...]
    at: dt.datetime
    policy_digest: str
    fingerprint: str
    sources: tuple[str, ...] = ()
    cluster_version: str = ""
    unmanaged: tuple[Unmanaged, ...] = ()
    warnings: tuple[str, ...] = ()
    namespaces: tuple[str, ...] = ()  # the --namespace filter; () = every managed namespace
    # A window plan is stale once the next firehose tick has passed (ARCHITECTURE.md,
    # "The journey of apply --migrate", step 3).
    valid_until: dt.datetime | None = None
    meta: Mapping[str, Any] = field(default_factory=dict)
    # Where unsharded pinned collections live and why nothing moves them, patterns that
    # matched nothing: shown with the plan (stdout), not as warnings.
    notes: tuple[str, ...] = ()
    origins: Mapping[str, str] = field(default_factory=dict)  # namespace -> its pattern
    # Each shard's volume now and once the plan has run (zonectl/capacity/); None when the
    # plan moves no data or no volume could be read.
    capacity: CapacityReport | None = None

    @property
    def has_changes(self) -> bool:
        return bool(self.ops)

    @property
    def plan_id(self) -> str:
        """Short id naming this plan in leases and journals: a hash of ops + fingerprint."""
        text = json_util.dumps(
            [[op.kind, op.command()] for op in self.ops] + [self.fingerprint],
            json_options=CANONICAL,
        )
        return hashlib.sha256(text.encode()).hexdigest()[:12]

    def summary(self) -> Summary:
        """The counts every view shows, read from what each op declares (`counts_as`,
        `moves`), never from its type."""
        ops = self.ops
        migrated = [op.impact for op in ops if op.moves == "migrates"]
        copied = [op.impact for op in ops if op.moves == "copies"]
        keys = [(op, k) for op in ops if (k := op.key_change()) is not None]
        shards = {m.shard for op in ops if (m := op.membership_change()) is not None}
        known = [i for i in migrated if i is not None]
        return Summary(
            to_add=sum(op.counts_as == "range_added" for op in ops),
            to_remove=sum(op.counts_as == "range_removed" for op in ops),
            shards_rezoned=len(shards),
            settings=sum(op.counts_as == "setting" for op in ops),
            chunks=sum(i.migrating for i in known),
            bytes=sum(i.bytes for i in known) + sum(i.bytes for i in copied if i is not None),
            impact_known=len(known) == len(migrated) and all(i is not None for i in copied),
            collections=sum(op.counts_as == "collection_moved" for op in ops),
            primaries=sum(op.counts_as == "primary_moved" for op in ops),
            key_changes=len(keys),
            blocked=sum(bool(op.blocked) for op, _ in keys),
            same_key=sum(k.same_key for _, k in keys),
            shards_added=sum(op.counts_as == "shard" and op.sign == "+" for op in ops),
            shards_removed=sum(op.counts_as == "shard" and op.sign == "-" for op in ops),
            drains_stopped=sum(op.counts_as == "shard" and op.sign == "~" for op in ops),
        )

    def with_impacts(self, impacts: Mapping[int, Impact]) -> Plan:
        """A copy whose ops at the given indexes (those that carry an impact estimate)
        carry it."""
        ops = list(self.ops)
        for index, impact in impacts.items():
            op = ops[index]
            if any(f.name == "impact" for f in fields(op)):  # the ops that carry one
                ops[index] = replace(op, **{"impact": impact})
        return replace(self, ops=tuple(ops))


def make_fingerprint(actual: ClusterState, namespaces: frozenset[str]) -> str:
    """sha256 over canonical extended JSON of the metadata a plan depends on: every shard's
    zones, the ranges and collection entries of the managed namespaces, the balancer settings.

    Tag order inside a shard and document order in config.tags carry no meaning, so both
    are sorted; shard-key field order does, so bounds are kept as stored.
    """
    ranges = sorted(
        (r for r in actual.ranges if r.namespace in namespaces),
        key=lambda r: (r.namespace, sort_key(r.min), sort_key(r.max), r.zone),
    )
    collections = [actual.collections[ns] for ns in sorted(namespaces & set(actual.collections))]
    data = {
        "shards": [[s.id, sorted(s.zones)] for s in sorted(actual.shards, key=lambda s: s.id)],
        "tags": [[r.namespace, r.min, r.max, r.zone] for r in ranges],
        "collections": [[c.namespace, c.uuid, c.key, c.no_balance] for c in collections],
        "balancer": [
            actual.balancer.mode,
            actual.balancer.stopped,
            dict(actual.balancer.active_window) if actual.balancer.active_window else None,
        ],
    }
    homes = sorted((ns, u.shard) for ns, u in actual.unsharded.items() if ns in namespaces)
    if homes:  # where managed unsharded collections live (only then, so older plans match)
        data["unsharded"] = [list(pair) for pair in homes]
    stored = {
        f"{r.doc}.{r.field}": actual.settings[r.doc][r.field]
        for r in CLUSTER
        if r.is_stored(actual.settings.get(r.doc))
    }
    steady = {r.field for r in COLLECTION if not r.once}  # a running defragmentation moves on
    stored.update(
        {
            f"{c.namespace}.{k}": v
            for c in collections
            for k, v in sorted(c.settings.items())
            if k in steady
        }
    )
    if stored:  # balancer settings (only when stored, so older plans match)
        data["settings"] = stored
    sampled = sorted((ns, r) for ns, r in (actual.samplers or {}).items() if ns in namespaces)
    if sampled:  # query sampling of managed namespaces (only then, so older plans match)
        data["sampling"] = [list(pair) for pair in sampled]
    text = json_util.dumps(data, json_options=CANONICAL)
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()
