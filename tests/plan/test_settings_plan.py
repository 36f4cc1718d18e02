"""Planning balancer settings on plain values: versions the sandbox has no profile for
(8.1's enableBalancing, 8.3's day-of-week windows), a defragmentation's progress, and the
order around the balancer switch."""

from __future__ import annotations

import dataclasses

from plan_builders import AT, cluster, policy

from zonectl.model.cluster import LiveBalancer
from zonectl.model.desired import BalancerPolicy, CollectionPolicy, SettingValue
from zonectl.plan.planner import make_plan

DOW = [{"day": "Monday", "start": "9:00", "stop": "17:00"}]


def _plan(desired, actual):  # type: ignore[no-untyped-def]
    return make_plan(desired, actual, boundaries={}, at=AT)


def test_balancing_goes_through_configure_collection_balancing_from_8_1() -> None:
    desired = policy(app=CollectionPolicy("app.users", balancing=False))
    for version, fcv, expected in (
        ("8.1.2", "8.1", {"configureCollectionBalancing": "app.users", "enableBalancing": False}),
        ("8.1.2", "8.0", None),  # binary 8.1 at FCV 8.0: mongosh still writes noBalance
        ("7.0.14", None, None),
    ):
        actual = dataclasses.replace(cluster(), version=version, fcv=fcv)
        (op,) = _plan(desired, actual).ops
        if expected is None:
            assert op.command()["update"] == "collections"
        else:
            assert op.command() == expected and op.database == "admin"


def test_day_of_week_windows_are_written_at_fcv_8_3_only() -> None:
    balancer = BalancerPolicy(settings={"activeWindowDOW": SettingValue(DOW)})
    desired = dataclasses.replace(policy(), balancer=balancer)
    on_83 = dataclasses.replace(cluster(), version="8.3.0", fcv="8.3")
    (op,) = _plan(desired, on_83).ops
    assert op.command()["updates"][0]["u"] == {"$set": {"activeWindowDOW": DOW}}
    at_82 = dataclasses.replace(on_83, fcv="8.2")
    plan = _plan(desired, at_82)
    assert plan.ops == () and "needs MongoDB 8.3+" in plan.warnings[0]
    stored = dataclasses.replace(on_83, settings={"balancer": {"activeWindowDOW": DOW}})
    assert _plan(desired, stored).ops == ()


def test_auto_merger_is_diffed_against_what_the_balancer_switch_leaves() -> None:
    """balancerStop writes automerge false on 7.0+: with the switch planned, a policy
    wanting the auto-merger off needs no write, and one wanting it on needs one after."""
    off = dataclasses.replace(cluster(), balancer=LiveBalancer(mode="off", stopped=True))
    start = BalancerPolicy(enabled=True, settings={"autoMerger": SettingValue(False)})
    kinds = [op.kind for op in _plan(dataclasses.replace(policy(), balancer=start), off).ops]
    assert kinds == ["set_balancer_enabled", "set_cluster_setting"]
    on = dataclasses.replace(cluster(), settings={"automerge": {"enabled": True}})
    stop = BalancerPolicy(enabled=False, settings={"autoMerger": SettingValue(False)})
    assert [op.kind for op in _plan(dataclasses.replace(policy(), balancer=stop), on).ops] == [
        "set_balancer_enabled"
    ]


def test_a_running_defragmentation_is_a_note_with_its_phase_and_no_op() -> None:
    desired = policy(app=CollectionPolicy("app.users", settings={"defragment": SettingValue(True)}))
    base = cluster()
    live = dataclasses.replace(
        base.collections["app.users"],
        settings={"defragmentCollection": True},
        balancer_status={
            "balancerCompliant": False,
            "firstComplianceViolation": "defragmentingChunks",
            "details": {
                "currentPhase": "moveAndMergeChunks",
                "progress": {"remainingChunksToProcess": 7},
            },
        },
    )
    plan = _plan(desired, dataclasses.replace(base, collections={"app.users": live}))
    assert plan.ops == ()
    assert plan.notes == (
        "app.users: defragment running, phase moveAndMergeChunks, 7 chunk(s) left in this phase",
    )
    done = dataclasses.replace(base, once_done=frozenset({("app.users", "defragment")}))
    assert _plan(desired, done).ops == ()
    assert [op.describe() for op in _plan(desired, base).ops] == ["start defragment of app.users"]
