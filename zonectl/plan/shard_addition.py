"""Shards joining (reference shard-lifecycle.md §2, §4): addShard for a `host:` the cluster
lacks, a warning for a `host:` that differs from the live one, and a drain the policy takes
back (stopShardDraining on 8.3+, a note saying what to do before). Pure."""

from __future__ import annotations

from collections.abc import Set

from zonectl.model.cluster import ClusterState
from zonectl.model.desired import DesiredState
from zonectl.plan.op_base import Op
from zonectl.plan.ranges import Problems
from zonectl.plan.shard_ops import AddShard, StopShardDraining

STOP_DRAINING_SINCE = (8, 3)  # stopShardDraining (docs reference/command/stopShardDraining)


def removed_present(desired: DesiredState, actual: ClusterState) -> frozenset[str]:
    """The shards the policy removes that the cluster still has (a removed shard the cluster
    lacks is gone already: nothing to do)."""
    return frozenset(desired.removed_shards & {s.id for s in actual.shards})


def shards_to_add(desired: DesiredState, actual: ClusterState) -> frozenset[str]:
    """Active shards with a `host:` the cluster does not have under that name."""
    known = {s.id for s in actual.shards}
    return frozenset(
        name
        for name, spec in desired.shard_specs.items()
        if spec.state == "active" and spec.host and name not in known
    )


def stopped_draining(desired: DesiredState, actual: ClusterState) -> frozenset[str]:
    """The draining shards whose drain the plan stops (8.3+): before 8.3 they keep
    draining whatever the policy says."""
    if actual.features < STOP_DRAINING_SINCE:
        return frozenset()
    return kept_draining(desired, actual)


def kept_draining(desired: DesiredState, actual: ClusterState) -> frozenset[str]:
    """Shards config.shards marks draining that the policy keeps active: listed under
    `shards` (either form) and not `state: removed`."""
    return frozenset(
        s.id
        for s in actual.shards
        if s.draining and s.id in desired.shards and s.id not in desired.removed_shards
    )


def join_ops(
    desired: DesiredState, actual: ClusterState, problems: Problems, notes: list[str]
) -> list[Op]:
    """The join stage's shard ops, before any membership: each AddShard (by name), then each
    StopShardDraining (8.3+; a note before 8.3). A `host:` the cluster has under that
    shard's name with another replica set is a warning, never an op."""
    ops: list[Op] = []
    for name in sorted(shards_to_add(desired, actual)):
        host = desired.shard_specs[name].host
        assert host is not None
        ops.append(AddShard(name, host))
    for name, spec in sorted(desired.shard_specs.items()):
        live = actual.shard(name)
        if live is None or not spec.host or spec.state != "active":
            continue
        if replica_set(spec.host) != replica_set(live.host):
            problems.warn(
                spec.position,
                f"shard {name}: the policy's host {spec.host} is not the cluster's "
                f"({live.host}); zonectl never re-adds a shard: fix `host:` or the shard's name",
            )
    for name in sorted(kept_draining(desired, actual)):
        if actual.features >= STOP_DRAINING_SINCE:
            ops.append(StopShardDraining(name))
        else:
            notes.append(cannot_stop_note(name, actual.features_text))
    return ops


def cannot_stop_note(shard: str, version: str) -> str:
    return (
        f"shard {shard} is draining (config.shards) and the policy keeps it active: MongoDB "
        f"{version or '< 8.3'} has no command that cancels a drain (stopShardDraining is new "
        "in 8.3). The balancer keeps moving its chunks away. Either let it drain, and once it "
        "is removed clear the storage.dbPath of its members before adding it back (the "
        "manual, removeShard), or upgrade to 8.3 and run zonectl apply, which stops the drain"
    )


def replica_set(host: str) -> str:
    """The replica set name of "rs/host:port,..." (the whole string when it has none)."""
    return host.split("/", 1)[0] if "/" in host else host


def recipients(actual: ClusterState, gone: Set[str], stopped: Set[str]) -> frozenset[str]:
    """Shards that can receive data once the plan's join stage has run: present, not removed,
    and not draining (unless the plan stops the drain)."""
    return frozenset(
        s.id for s in actual.shards if s.id not in gone and (not s.draining or s.id in stopped)
    )
