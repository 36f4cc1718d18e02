"""`pin` on an unsharded collection: moveCollection on 8.0, a documented message before,
refusals for what cannot be pinned, and a move already running on the server."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest
from unsharded_kit import CLUSTER, PIN_POLICY, home_of, start_move, ticking, zonectl


def _policy(tmp_path: Path, text: str = PIN_POLICY) -> str:
    path = tmp_path / "policy.yaml"
    path.write_text(text)
    return str(path)


def test_apply_moves_a_pinned_unsharded_collection_into_its_zone_on_8_0(
    served: Any, tmp_path: Path
) -> None:
    sb = served("8.0")
    policy = _policy(tmp_path)
    code, out, _ = zonectl("plan", policy, "--uri", sb.uri, "--detailed-exitcode")
    assert code == 4
    assert "moveCollection from s0 to s1 (zone logs, ~3.0 GiB to copy" in out
    assert "1 collection to move" in out
    with ticking(sb.sandbox):
        code, _, err = zonectl("apply", policy, "--uri", sb.uri, "--yes")
    assert code == 0, err
    assert home_of(sb.client, "shop.orders") in {"s1", "s2"}
    code, out, _ = zonectl("plan", policy, "--uri", sb.uri, "--detailed-exitcode")
    assert code == 0, out
    assert "in zone logs" in out


def test_before_8_0_the_plan_explains_and_nothing_is_written(served: Any, tmp_path: Path) -> None:
    sb = served("7.0")
    policy = _policy(tmp_path)
    before = list(sb.client.config.databases.find()), list(sb.client.config.collections.find())
    code, out, _ = zonectl("plan", policy, "--uri", sb.uri, "--detailed-exitcode")
    assert code == 0
    assert "shop.orders: unsharded, lives on s0 (its database's primary shard)" in out
    assert "no zone can reach an unsharded collection on MongoDB 7.0" in out
    assert "shard it, with `key:` in the policy" in out and "upgrade to 8.0" in out
    code, _, err = zonectl("apply", policy, "--uri", sb.uri, "--yes")
    assert code == 0, err
    assert "no zone can reach an unsharded collection on MongoDB 7.0" in err
    after = list(sb.client.config.databases.find({"_id": {"$ne": "zonectl"}}))
    assert (after, list(sb.client.config.collections.find())) == before
    assert home_of(sb.client, "shop.orders") == "s0"


def test_status_with_the_policy_forecasts_the_move_collection_as_plan_does(
    served: Any, tmp_path: Path
) -> None:
    sb = served("8.0")
    policy = _policy(tmp_path)
    code, out, _ = zonectl("plan", policy, "--uri", sb.uri, "--format", "json")
    assert code == 0
    planned = json.loads(out)["forecast"]["collections"]
    assert [(c["ns"], c["to_shard"], c["bytes"]) for c in planned] == [
        ("shop.orders", "s1", 3 * 1024**3)
    ]
    code, out, _ = zonectl("status", policy, "--uri", sb.uri, "--format", "json")
    assert code == 0
    assert json.loads(out)["forecast"]["collections"] == planned
    code, out, _ = zonectl("status", policy, "--uri", sb.uri)
    assert "shop.orders: moveCollection s0 -> s1, 3.0 GiB" in out


def test_an_8_0_cluster_at_fcv_7_0_gets_the_same_explanation_and_no_move(
    served: Any, tmp_path: Path
) -> None:
    sb = served("8.0", "featureCompatibilityVersion: '7.0'\n" + CLUSTER)
    policy = _policy(tmp_path)
    code, out, _ = zonectl("plan", policy, "--uri", sb.uri, "--detailed-exitcode")
    assert code == 0, out
    assert "no zone can reach an unsharded collection on MongoDB 8.0.4 at FCV 7.0" in out
    assert "setFeatureCompatibilityVersion 8.0" in out
    code, _, err = zonectl("apply", policy, "--uri", sb.uri, "--yes")
    assert code == 0, err
    assert home_of(sb.client, "shop.orders") == "s0"


def test_status_shows_database_primaries_and_where_pinned_collections_live(
    served: Any, tmp_path: Path
) -> None:
    sb = served("7.0")
    code, out, _ = zonectl("status", str(_policy(tmp_path)), "--uri", sb.uri)
    assert code == 0
    assert "shop: primary s0 (zones hot)" in out
    assert "shop.orders: unsharded, lives on s0" in out


@pytest.mark.parametrize(
    ("ns", "entry", "says"),
    [
        ("shop.report_view", "{pin: logs}", "is a view"),
        ("shop.metrics", "{pin: logs}", "is a time-series collection"),
        ("shop.eventlog", "{pin: logs, key: {_id: 1}}", "is a capped collection"),
    ],
)
def test_pins_on_views_time_series_and_keyed_capped_are_refused_at_plan_time(
    served: Any, tmp_path: Path, ns: str, entry: str, says: str
) -> None:
    sb = served("8.0")
    text = PIN_POLICY.replace("shop.orders: {pin: logs}", f"{ns}: {entry}")
    code, _, err = zonectl("apply", _policy(tmp_path, text), "--uri", sb.uri, "--yes")
    assert code == 1
    assert says in err and "policy.yaml:" in err
    assert sb.client.config.reshardingOperations.count_documents({}) == 0
    assert sb.client.zonectl.journal.count_documents({}) == 0


def test_a_capped_collection_without_key_is_moved(served: Any, tmp_path: Path) -> None:
    sb = served("8.0")
    text = PIN_POLICY.replace("shop.orders", "shop.eventlog")
    with ticking(sb.sandbox):
        code, _, err = zonectl("apply", _policy(tmp_path, text), "--uri", sb.uri, "--yes")
    assert code == 0, err
    assert home_of(sb.client, "shop.eventlog") in {"s1", "s2"}


def test_a_move_running_on_the_server_is_waited_for_not_doubled(
    served: Any, tmp_path: Path
) -> None:
    sb = served("8.0")
    policy = _policy(tmp_path)
    config = sb.client.config
    with sb.sandbox.clock.held():  # the move runs while plan and apply look at it
        thread = start_move(sb, "shop.orders", "s2")
        code, out, _ = zonectl("plan", policy, "--uri", sb.uri, "--detailed-exitcode")
        assert code == 0
        assert "a moveCollection to s2 is running on the server" in out
        code, _, err = zonectl("apply", policy, "--uri", sb.uri, "--yes")
        assert code == 0 and "No changes" in err
        assert config.reshardingOperations.count_documents({}) == 1
        with ticking(sb.sandbox):
            thread.join(10)
    assert home_of(sb.client, "shop.orders") == "s2"
    code, _, _ = zonectl("plan", policy, "--uri", sb.uri, "--detailed-exitcode")
    assert code == 0


def test_a_failed_move_is_journaled_and_the_next_apply_finishes_it(
    served: Any, tmp_path: Path
) -> None:
    sb = served("8.0")
    policy = _policy(tmp_path)
    # A refusal (one resharding at a time). Not a shutdown code (11600, 91): pymongo raises
    # those as a lost connection (NotPrimaryError), which is looked up (test below).
    sb.client.admin.command(
        {
            "configureFailPoint": "failCommand",
            "mode": {"times": 1},
            "data": {"failCommands": ["moveCollection"], "errorCode": 338},
        }
    )
    code, _, err = zonectl("apply", policy, "--uri", sb.uri, "--yes")
    assert code == 1 and "moveCollection of shop.orders failed" in err
    assert "ReshardCollectionInProgress (338)" in err
    steps = list(sb.client.zonectl.journal.find({"type": "step"}))
    assert [s["status"] for s in steps] == ["failed"]
    assert steps[0]["kind"] == "move_collection"
    assert home_of(sb.client, "shop.orders") == "s0"
    with ticking(sb.sandbox):
        code, _, err = zonectl("apply", policy, "--uri", sb.uri, "--yes")
    assert code == 0, err
    assert home_of(sb.client, "shop.orders") in {"s1", "s2"}


def test_recover_reports_a_move_still_running_on_the_server(served: Any) -> None:
    sb = served("8.0")
    with sb.sandbox.clock.held():  # the move runs while recover looks at it
        thread = start_move(sb, "shop.carts", "s1")
        code, _, err = zonectl("recover", "--uri", sb.uri)
        assert code == 0
        assert "a moveCollection of shop.carts to s1 is still running on the server" in err
        with ticking(sb.sandbox):
            thread.join(10)
    assert home_of(sb.client, "shop.carts") == "s1"


@pytest.mark.parametrize(
    "lost",
    [{"closeConnection": True}, {"errorCode": 11600}],  # a reset; a mongos shutting down
    ids=["reset", "shutdown"],
)
def test_a_connection_lost_before_the_move_ran_is_looked_up_and_sent_again(
    served: Any, tmp_path: Path, lost: dict[str, Any]
) -> None:
    sb = served("8.0")
    policy = _policy(tmp_path)
    sb.client.admin.command(
        {
            "configureFailPoint": "failCommand",
            "mode": {"times": 1},
            "data": {"failCommands": ["moveCollection"], **lost},
        }
    )
    code, _, err = zonectl("apply", policy, "--uri", sb.uri, "--yes")
    assert code == 0, err
    assert (
        "shop.orders (moveCollection) on s0 -> s1: the connection reset during the move and it "
        "has not committed; sent again (it joins the moveCollection if that still runs)"
    ) in err
    assert "; 1 connection reset (1 sent again);" in err
    steps = list(sb.client.zonectl.journal.find({"type": "step"}))
    assert [(s["kind"], s["status"]) for s in steps] == [("move_collection", "done")]
    # s1 and s2 tie (zonectl's own database aside), the first in order takes it, as plan said
    assert home_of(sb.client, "shop.orders") == "s1"
    log = sb.client.config.changelog.find({"what": "resharding.coordinator.transition"})
    assert [d["details"]["newState"] for d in log].count("cloning") == 1  # it ran once
    code, out, _ = zonectl("plan", policy, "--uri", sb.uri, "--detailed-exitcode")
    assert code == 0, out


def test_a_link_that_keeps_resetting_is_journaled_and_nothing_is_half_done(
    served: Any, tmp_path: Path
) -> None:
    sb = served("8.0")
    policy = _policy(tmp_path)
    stuck = {"failCommands": ["moveCollection"], "closeConnection": True}
    point = {"configureFailPoint": "failCommand", "mode": "alwaysOn", "data": stuck}
    sb.client.admin.command(point)
    code, _, err = zonectl("apply", policy, "--uri", sb.uri, "--yes")
    assert code == 1 and "the outcome is unknown" in err
    assert err.count("sent again (it joins the moveCollection") == 2  # 3 tries, then it gives up
    steps = list(sb.client.zonectl.journal.find({"type": "step"}))
    assert [(s["kind"], s["status"]) for s in steps] == [("move_collection", "failed")]
    assert sb.client.zonectl.locks.count_documents({}) == 0  # the lease was released
    assert sb.client.config.collections.find_one({"_id": "shop.orders"}) is None
    sb.client.admin.command({"configureFailPoint": "failCommand", "mode": "off"})
    with ticking(sb.sandbox):
        code, _, err = zonectl("apply", policy, "--uri", sb.uri, "--yes")
    assert code == 0, err
    assert home_of(sb.client, "shop.orders") in {"s1", "s2"}


def test_apply_of_a_saved_plan_waits_for_a_move_started_meanwhile_and_sends_none(
    served: Any, tmp_path: Path
) -> None:
    sb = served("8.0")
    saved = tmp_path / "plan.json"
    code, _, _ = zonectl("plan", _policy(tmp_path), "--uri", sb.uri, "--save-plan", str(saved))
    assert code == 0
    journal = sb.new_client().zonectl.journal

    def tick_once_applying() -> None:  # the move ends only after apply has planned
        while not journal.count_documents({"type": "apply"}):
            threading.Event().wait(0.01)
        with ticking(sb.sandbox):
            thread.join(10)

    with sb.sandbox.clock.held():  # only the ticking after apply has planned moves time
        thread = start_move(sb, "shop.orders", "s2")
        clock = threading.Thread(target=tick_once_applying, daemon=True)
        clock.start()
        code, _, err = zonectl(
            "apply", "--plan", str(saved), "--uri", sb.uri, "--yes", "--wait-timeout", "60s"
        )
        clock.join(10)
    assert code == 0, err
    assert "already running on the server" in err
    steps = list(sb.client.zonectl.journal.find({"type": "step"}))
    assert [s["status"] for s in steps] == ["done by the move to s2"]
    assert home_of(sb.client, "shop.orders") == "s2"


def test_apply_stops_when_a_running_move_outlasts_the_wait_timeout(
    served: Any, tmp_path: Path
) -> None:
    sb = served("8.0")
    saved = tmp_path / "plan.json"
    zonectl("plan", _policy(tmp_path), "--uri", sb.uri, "--save-plan", str(saved))
    with sb.sandbox.clock.held():  # the move outlasts the wait: time stands still
        thread = start_move(sb, "shop.orders", "s2")
        code, _, err = zonectl(
            "apply", "--plan", str(saved), "--uri", sb.uri, "--yes", "--wait-timeout", "0.3s"
        )
        assert code == 1
        assert "still running; zonectl does not start a second one" in err
        assert sb.client.config.reshardingOperations.count_documents({}) == 1
        with ticking(sb.sandbox):
            thread.join(10)
    assert home_of(sb.client, "shop.orders") == "s2"


def test_the_forecast_counts_the_moves_of_pinned_collections(served: Any, tmp_path: Path) -> None:
    sb = served("8.0")
    policy = _policy(tmp_path)
    args = ("plan", policy, "--uri", sb.uri, "--copy-rate", "64MiB/s")
    code, out, err = zonectl(*args, "--format", "json")
    assert code == 0, err
    forecast = json.loads(out)["forecast"]
    (move,) = forecast["collections"]
    size = 3221225472
    assert (move["ns"], move["from_shard"], move["bytes"]) == ("shop.orders", "s0", size)
    # The documented 5-minute floor of moveCollection, then 3 GiB at 64 MiB/s (48 s).
    assert move["seconds"] == pytest.approx(300 + 48)
    assert forecast["migrate"]["seconds"] == pytest.approx(348)  # no chunk moves here
    assert forecast["balancer"]["seconds"] == pytest.approx(348)  # apply moves it, not it
    code, text, _ = zonectl(*args)
    assert "and 1 collection (3.0 GiB) by moveCollection" in text
    assert f"shop.orders: moveCollection s0 -> {move['to_shard']}, 3.0 GiB; 5m48s" in text
    code, md, _ = zonectl(*args, "--format", "markdown")
    assert "| `shop.orders` | - | 3.0 GiB | moveCollection 5m48s |" in md
    with ticking(sb.sandbox):
        assert zonectl("apply", policy, "--uri", sb.uri, "--yes")[0] == 0
    code, out, _ = zonectl(*args, "--format", "json")
    assert json.loads(out)["forecast"]["collections"] == []
