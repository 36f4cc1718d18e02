"""The planner's shard rules on values (plan/shard_removal.py, plan/shard_addition.py), for
what policy validation keeps the CLI from reaching: a policy that removes every shard the
cluster has (ZP307 refuses it first) still gets the server's refusal named on the op."""

from __future__ import annotations

import dataclasses

from plan_builders import AT, SHARDS, cluster, policy

from zonectl.model.desired import DesiredState
from zonectl.model.shard_lifecycle import DrainCollection, ShardDrain, ShardSpec
from zonectl.plan.planner import make_plan
from zonectl.plan.shard_ops import AddShard, RemoveShard


def _removing(names: set[str], **more: ShardSpec) -> DesiredState:
    specs = {s: ShardSpec("removed") for s in names} | more
    return dataclasses.replace(policy({s: set() for s in specs}), shard_specs=specs)


def test_removing_every_shard_of_the_cluster_is_refused_on_each_removal() -> None:
    desired = _removing(set(SHARDS))
    plan = make_plan(desired, cluster(), boundaries={}, at=AT)
    removals = [op for op in plan.ops if isinstance(op, RemoveShard)]
    assert [op.shard for op in removals] == sorted(SHARDS)
    for op in removals:
        [last] = [b for b in op.blockers if b.code == "last-shard"]
        assert last.refuses and "without a shard" in last.message
        assert "without a shard" in op.blocked


def test_a_shard_the_plan_adds_keeps_the_cluster_from_being_left_empty() -> None:
    new = ShardSpec("active", "rs9/h9:27018")
    desired = _removing(set(SHARDS), **{"shard-new": new})
    plan = make_plan(desired, cluster(), boundaries={}, at=AT)
    assert isinstance(plan.ops[0], AddShard)
    assert not any(op.blocked for op in plan.ops)


def test_a_draining_shard_with_nothing_left_but_orphans_continues() -> None:
    actual = cluster()
    shards = tuple(
        dataclasses.replace(s, draining=True) if s.id == "shard-std-1" else s for s in actual.shards
    )
    empty = ShardDrain("shard-std-1", True, orphan_docs=3, orphan_bytes=300)
    actual = dataclasses.replace(actual, shards=shards, drains={"shard-std-1": empty})
    desired = _removing({"shard-std-1"})
    [op] = make_plan(desired, actual, boundaries={}, at=AT).ops
    assert isinstance(op, RemoveShard) and op.step == "continue"
    assert "orphans: 3 documents (300 B) waiting for range deletion" in op.details()
    done = dataclasses.replace(actual, drains={"shard-std-1": ShardDrain("shard-std-1", True)})
    [op] = make_plan(desired, done, boundaries={}, at=AT).ops
    assert isinstance(op, RemoveShard) and op.step == "commit"
    busy = ShardDrain("shard-std-1", True, (DrainCollection("app.users", 1, 10),))
    busy_state = dataclasses.replace(actual, drains={"shard-std-1": busy})
    [op] = make_plan(desired, busy_state, boundaries={}, at=AT).ops
    assert isinstance(op, RemoveShard) and op.step == "continue"
