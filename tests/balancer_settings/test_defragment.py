"""`defragment: true` as a convergent intent (issue 30 part 3): apply starts
configureCollectionBalancing defragmentCollection once; while it runs the plan has no op and
shows the phase balancerCollectionStatus reports; once the balancer has finished it, the
plan is empty again without a policy edit (reference balancer-settings §5)."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

from tests.balancer_settings.kit import cli, collection_doc, policy, serve
from zonectl.sandbox.balancer.main_loop import run_rounds_until

BODY = "collections:\n  app.events:\n    defragment: true\n"


def test_apply_starts_defragmentation_once_and_the_plan_shows_it_running(
    sandbox_server: Any, tmp_path: Path
) -> None:
    handle = serve(sandbox_server, "7.0")
    handle.client.admin.command({"balancerStop": 1})  # it stays running while stopped (§5.4)
    path = policy(tmp_path, BODY)
    code, out, err = cli("plan", path, "--uri", handle.uri, "--format", "json")
    assert code == 0, err
    ops = json.loads(out)["ops"]
    assert [(o["kind"], o["command"]) for o in ops] == [
        (
            "set_collection_setting",
            {"configureCollectionBalancing": "app.events", "defragmentCollection": True},
        )
    ]
    assert cli("apply", path, "--uri", handle.uri, "--yes")[0] == 0
    assert collection_doc(handle, "app.events")["defragmentCollection"] is True
    code, out, err = cli("plan", path, "--uri", handle.uri, "--detailed-exitcode")
    assert code == 0, out + err
    assert "app.events: defragment running, phase not started yet" in out


def test_a_finished_defragmentation_leaves_the_plan_empty(
    sandbox_server: Any, tmp_path: Path
) -> None:
    handle = serve(sandbox_server, "7.0")
    path = policy(tmp_path, BODY)
    assert cli("apply", path, "--uri", handle.uri, "--yes")[0] == 0
    assert _defragmentation_ends(handle)
    code, out, err = cli("plan", path, "--uri", handle.uri, "--detailed-exitcode")
    assert code == 0, out + err
    assert "defragment" not in out


def test_a_recreated_collection_is_defragmented_again(sandbox_server: Any, tmp_path: Path) -> None:
    """zonectl's record names the collection's UUID: the same name re-created is new."""
    handle = serve(sandbox_server, "7.0")
    path = policy(tmp_path, BODY)
    assert cli("apply", path, "--uri", handle.uri, "--yes")[0] == 0
    record = handle.client.zonectl.once.find_one({"_id": "app.events|defragment"})
    assert record is not None
    assert record["uuid"] == collection_doc(handle, "app.events")["uuid"]
    handle.client.zonectl.once.update_one(
        {"_id": "app.events|defragment"}, {"$set": {"uuid": "another collection"}}
    )
    handle.client.admin.command(
        {"configureCollectionBalancing": "app.events", "defragmentCollection": False}
    )
    assert _defragmentation_ends(handle)
    code, out, _ = cli("plan", path, "--uri", handle.uri, "--detailed-exitcode")
    assert code == 4 and "defragment: start it" in out


def _defragmentation_ends(handle: Any) -> bool:
    """Balancer rounds on the virtual clock until the flag is gone (at most 2 simulated h)."""
    ended = run_rounds_until(
        handle.sandbox.balancer,
        lambda: not collection_doc(handle, "app.events").get("defragmentCollection"),
        limit=dt.timedelta(hours=2),
    )
    return ended is not None


STOP = "collections:\n  app.events:\n    defragment: false\n"


def test_false_stops_a_running_defragmentation_once_and_waits_for_the_balancer(
    sandbox_server: Any, tmp_path: Path
) -> None:
    """`defragment: false`: none runs. A running one gets configureCollectionBalancing
    `defragmentCollection: false` once; MongoDB marks it `finished` and keeps the flag until
    the balancer's next round (§5.4), which the plan waits for without resending."""
    handle = serve(sandbox_server, "7.0")
    path = policy(tmp_path, STOP)
    assert cli("validate", path)[0] == 0
    code, out, err = cli("plan", path, "--uri", handle.uri, "--detailed-exitcode")
    assert code == 0, out + err  # nothing runs: nothing to stop
    handle.client.admin.command({"balancerStop": 1})
    handle.client.admin.command(
        {"configureCollectionBalancing": "app.events", "defragmentCollection": True}
    )
    code, out, err = cli("plan", path, "--uri", handle.uri, "--format", "json")
    assert code == 0, err
    assert [o["command"] for o in json.loads(out)["ops"]] == [
        {"configureCollectionBalancing": "app.events", "defragmentCollection": False}
    ]
    code, out, err = cli("status", path, "--uri", handle.uri)
    assert code == 0, err
    assert "app.events defragment: running, phase not started yet" in out
    assert "the policy says not running (drift)" in out
    assert cli("apply", path, "--uri", handle.uri, "--yes")[0] == 0
    doc = collection_doc(handle, "app.events")
    assert (doc["defragmentCollection"], doc["defragmentationPhase"]) == (True, "finished")
    code, out, err = cli("plan", path, "--uri", handle.uri, "--detailed-exitcode")
    assert code == 0, out + err
    assert "app.events: defragment stopping, asked to stop" in out
    handle.client.admin.command({"balancerStart": 1})
    assert _defragmentation_ends(handle)
    code, out, err = cli("plan", path, "--uri", handle.uri, "--detailed-exitcode")
    assert code == 0, out + err
    assert "defragment" not in out
