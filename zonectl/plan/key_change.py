"""A policy key that differs from the live shard key, as a plan op (pure).

- The new key extends the live key with suffix fields: RefineShardKey (4.4+). The live zone
  ranges are then re-read in the refined key as the server rewrites them (suffix fields
  MinKey, MaxKey after the global max: refine_collection_shard_key_basic.js), so the range
  diff that follows compares like with like. Without an index that starts with the new key
  (not sparse, not partial, simple collation) the op is blocked and names the index.
- Otherwise ReshardCollection (5.0+), with the policy's ranges (written in the new key) as
  its `zones`; no range ops for the namespace, since the resharding replaces its zones.
  Blocked without the policy's `reshard: true`, while another resharding runs, or before 5.0.
- `migrate: reshard` on a zone change (same key): the reshard route, ReshardCollection with
  forceRedistribution (7.2+) and the new zones; `migrate: reshard` is itself the opt-in.
A resharding already running on the namespace is never doubled: to the policy's key (or
the same key: the reshard route), the plan leaves the namespace to it and says so; to
another key, the plan is refused.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bson.max_key import MaxKey
from bson.min_key import MinKey

from zonectl.model.cluster import ClusterState, LiveRange, LiveResharding
from zonectl.model.desired import CollectionPolicy
from zonectl.model.keys import format_value, is_max_key
from zonectl.plan.ops import Op, RefineShardKey, ReshardCollection
from zonectl.plan.ranges import Problems, WantedRange, same_key

KeyPattern = Mapping[str, Any]
IN_PROGRESS = "is in progress on the server"  # in_progress()'s words, which views look for


@dataclass(frozen=True)
class KeyChange:
    kind: str  # "refine" | "reshard" | "running" (a resharding to this key is in flight)
    key: KeyPattern  # the key the policy's ranges are written in
    live: KeyPattern


def classify(cp: CollectionPolicy, actual: ClusterState, problems: Problems) -> KeyChange | None:
    """None when the namespace keeps its key (or is not sharded); a PlanError-bound problem
    is recorded (and None returned) when a resharding to another key is running."""
    live = actual.collections.get(cp.namespace)
    if live is None or cp.key is None or same_key(cp.key, live.key):
        return None
    running = actual.resharding_of(cp.namespace)
    if running is not None:
        if same_key(running.key, cp.key):
            return KeyChange("running", cp.key, live.key)
        problems.error(
            cp.position,
            f"{cp.namespace}: a resharding to {format_value(running.key)} is running on the "
            f"server (state {running.state or 'unknown'}); zonectl never starts a second one",
        )
        return None
    if sum(v == "hashed" for v in cp.key.values()) > 1:
        problems.error(cp.position, f"{cp.namespace}: a shard key has at most one hashed field")
        return None
    kind = "refine" if extends(cp.key, live.key) else "reshard"
    return KeyChange(kind, cp.key, live.key)


def in_progress(running: LiveResharding) -> str:
    """The plan's note for a namespace a running resharding owns until it commits: its
    zones are the resharding's, and range updates would conflict with it."""
    since = f", started {running.started:%Y-%m-%d %H:%M} UTC" if running.started else ""
    state = f"state {running.state}" if running.state else "state unknown"
    return (
        f"{running.namespace}: a resharding to {format_value(running.key)} {IN_PROGRESS} "
        f"({state}{since}); nothing is planned for it until it ends (`zonectl "
        "status` shows its progress; `zonectl recover --resharding wait|abort`)"
    )


def extends(new: KeyPattern, old: KeyPattern) -> bool:
    """`new` is `old` followed by at least one suffix field (refineCollectionShardKey)."""
    head = list(new.items())[: len(old)]
    return len(new) > len(old) and same_key(dict(head), old)


def refined_bound(bound: Mapping[str, Any], key: KeyPattern) -> dict[str, Any]:
    """A bound as the refine rewrites it: MaxKey suffixes after the global max, else MinKey."""
    at_max = bool(bound) and all(is_max_key(v) for v in bound.values())
    return {f: bound[f] if f in bound else (MaxKey() if at_max else MinKey()) for f in key}


def refined_ranges(ranges: Sequence[LiveRange], key: KeyPattern) -> tuple[LiveRange, ...]:
    return tuple(
        LiveRange(r.namespace, r.zone, refined_bound(r.min, key), refined_bound(r.max, key))
        for r in ranges
    )


def refine_op(change: KeyChange, cp: CollectionPolicy, actual: ClusterState) -> Op:
    ns = cp.namespace
    specs = actual.indexes.get(ns, ())
    unique = actual.collections[ns].unique
    blocked = "" if supporting_index(specs, change.key, unique) else missing_index(ns, change.key)
    return RefineShardKey(ns, change.key, change.live, blocked)


def supporting_index(specs: Sequence[Mapping[str, Any]], key: KeyPattern, unique: bool) -> bool:
    """An index whose key starts with `key` (exactly `key` for a unique collection), not
    sparse, not partial, simple collation (refine_collection_shard_key_basic.js)."""
    for spec in specs:
        fields = dict(spec.get("key", {}))
        head = dict(list(fields.items())[: len(key)])
        if not same_key(head, key) or (unique and len(fields) != len(key)):
            continue
        collation = spec.get("collation")
        simple = not isinstance(collation, Mapping) or collation.get("locale") == "simple"
        if not spec.get("sparse") and "partialFilterExpression" not in spec and simple:
            return True
    return False


def missing_index(ns: str, key: KeyPattern) -> str:
    db, coll = ns.split(".", 1)
    return (
        f"no index supports the new key; build one first (zonectl does not build indexes): "
        f'db.getSiblingDB("{db}").getCollection("{coll}").createIndex({format_value(key)})'
    )


def reshard_op(
    change: KeyChange,
    cp: CollectionPolicy,
    actual: ClusterState,
    zones: Sequence[WantedRange],
    *,
    force: bool = False,
) -> ReshardCollection:
    return ReshardCollection(
        cp.namespace,
        change.key,
        change.live,
        tuple({"zone": z.zone, "min": dict(z.min), "max": dict(z.max)} for z in zones),
        force,
        reshard_blocked(cp, actual),
    )


def takes_route(cp: CollectionPolicy, actual: ClusterState, problems: Problems) -> bool:
    """Whether `migrate: reshard` applies: only a sharded collection can be resharded. On a
    namespace not sharded (or not there yet) its ranges are planned as range ops, warned."""
    if cp.migrate != "reshard":
        return False
    if cp.namespace in actual.collections:
        return True
    problems.warn(
        cp.position,
        f"{cp.namespace} is not sharded: `migrate: reshard` has nothing to reshard; its "
        "ranges are planned as range ops",
    )
    return False


def route_op(
    cp: CollectionPolicy, actual: ClusterState, zones: Sequence[WantedRange]
) -> ReshardCollection:
    """`migrate: reshard`: the zone change as one reshardCollection to the same key with
    forceRedistribution (7.2+) and the new zones, instead of range ops and migrations."""
    live = actual.collections[cp.namespace].key
    op = reshard_op(KeyChange("reshard", live, live), cp, actual, zones, force=True)
    if actual.features < (7, 2) and not op.blocked:
        op = dataclasses.replace(
            op,
            blocked=f"the reshard route (forceRedistribution) needs MongoDB 7.2 or later, at "
            f"that feature compatibility version; the cluster runs {actual.features_text}: "
            "drop `migrate: reshard` to move by migrations",
        )
    return op


def reshard_blocked(cp: CollectionPolicy, actual: ClusterState) -> str:
    """Why a ReshardCollection of `cp` cannot start now; "" when it can."""
    if actual.major < 5:
        return f"reshardCollection needs MongoDB 5.0 or later; the cluster runs {actual.version}"
    if actual.fcv and _version(actual.fcv) < (5, 0):
        return f"reshardCollection needs featureCompatibilityVersion 5.0+; it is {actual.fcv}"
    others = [r.namespace for r in actual.reshardings if r.namespace != cp.namespace]
    if others:
        return f"a resharding of {others[0]} is running: one resharding at a time in a cluster"
    if not cp.manages_ranges and actual.ranges_of(cp.namespace):
        # The server refuses a resharding of a zoned collection without `zones` (BadValue
        # "Must specify value for zones field"), and zonectl would send none: the entry
        # leaves the ranges alone, but they cannot outlive the old key.
        return (
            f"{cp.namespace} has live zone ranges, written in the old key, that a resharding "
            "replaces: list them in the new key under `ranges:` (or `ranges: []` for none)"
        )
    if not cp.reshard and cp.migrate != "reshard":
        where = f" ({cp.position})" if cp.position is not None else ""
        return (
            f"resharding needs the opt-in: add `reshard: true` under {cp.namespace}{where} "
            "so a reviewer sees it"
        )
    return ""


def _version(text: str) -> tuple[int, int]:
    parts = [*(int(p) for p in text.split(".")[:2] if p.isdigit()), 0, 0]
    return parts[0], parts[1]
