"""Every op class has a branch in every view; saved plans round-trip into equal ops."""

from __future__ import annotations

import dataclasses

import pytest
from bson import Int64
from op_samples import ONE_OF_EACH, D
from plan_builders import AT

from zonectl.errors import ZonectlError
from zonectl.plan.kinds import OP_CLASSES
from zonectl.plan.ops import (
    Op,
)
from zonectl.plan.plan import Plan, Unmanaged
from zonectl.plan.serialize import dump_plan, load_plan
from zonectl.render import markdown, text
from zonectl.render.summary import summary_line


def a_plan(ops: list[Op]) -> Plan:
    return Plan(
        ops=tuple(ops),
        at=AT,
        policy_digest="sha256:p",
        fingerprint="sha256:f",
        sources=("policies/a.yaml",),
        cluster_version="7.0.14",
        unmanaged=(Unmanaged("zone", "legacy", "shards shard-std-3"),),
        warnings=("policy.yaml:3:1: app.new is not sharded",),
        valid_until=D,
    )


def test_every_op_class_is_in_the_fixture() -> None:
    assert {type(op) for op in ONE_OF_EACH} == set(OP_CLASSES)


@pytest.mark.parametrize("op", ONE_OF_EACH, ids=lambda op: type(op).__name__)
def test_every_op_describes_itself_and_gives_its_command(op: Op) -> None:
    assert op.describe()
    name = next(iter(op.command()))
    assert name in {
        "addShardToZone",
        "removeShardFromZone",
        "updateZoneKeyRange",
        "update",
        "balancerStart",
        "balancerStop",
        "split",
        "moveRange",
        "moveCollection",
        "refineCollectionShardKey",
        "reshardCollection",
        "configureQueryAnalyzer",
        "configureCollectionBalancing",
        "addShard",
        "removeShard",
        "stopShardDraining",
        "movePrimary",
    }


@pytest.mark.parametrize("op", ONE_OF_EACH, ids=lambda op: type(op).__name__)
def test_every_op_says_how_the_executor_reads_its_answer(op: Op) -> None:
    """An `update` answers ok with writeErrors inside (the executor reads them); every
    other command answers with its error (zonectl/mongo/executor.py, one path for all)."""
    assert (op.reply != "command") == (next(iter(op.command())) == "update")


def test_a_saved_plan_round_trips_into_equal_ops() -> None:
    plan = a_plan(ONE_OF_EACH)
    loaded = load_plan(dump_plan(plan))
    assert loaded.ops == plan.ops
    assert dataclasses.replace(loaded, meta={}) == plan
    # NumberLong bounds of hashed keys stay NumberLong, not int.
    assert type(loaded.ops[1].min["x"]) is Int64  # type: ignore[attr-defined]
    assert loaded.plan_id == plan.plan_id


def test_loading_refuses_another_format_version() -> None:
    with pytest.raises(ZonectlError, match="format_version 2"):
        load_plan('{"format_version": 2, "ops": []}')


def test_summary_line_counts_adds_removes_rezoned_shards_and_migration() -> None:
    assert summary_line(a_plan(ONE_OF_EACH)) == (
        "2 to add, 1 to remove, 2 shards to re-zone, 1 shard to add to the cluster, "
        "1 shard to drain and remove, 1 drain to stop, 8 settings to change, "
        "1 collection to move, 1 database primary to move, 2 shard keys to change (1 blocked); "
        "migration impact not estimated."
    )
    with_impact = a_plan([ONE_OF_EACH[0], ONE_OF_EACH[2]])
    assert summary_line(with_impact).endswith("~5 chunks (~5.0 GiB) will migrate.")
    assert summary_line(a_plan([])) == "No changes: the cluster matches the policy."


def test_text_uses_colour_only_when_asked() -> None:
    plan = a_plan(ONE_OF_EACH)
    assert "\x1b[" not in text.render_text(plan)
    assert "\x1b[32m" in text.render_text(plan, color=True)


def test_markdown_calls_out_destructive_changes_and_rollback() -> None:
    out = markdown.render_markdown(a_plan(ONE_OF_EACH))
    assert "destructive change(s)" in out
    assert "shard `shard-std-0` leaves zone `hot`" in out
    assert "### Rollback" in out and "db.adminCommand({ removeShardFromZone:" in out
    assert "### Unmanaged (not touched)" in out
