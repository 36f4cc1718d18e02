"""configureFailPoint failCommand in each mode, as tests against real MongoDB use it."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from pymongo.errors import AutoReconnect, OperationFailure


@pytest.fixture
def sb(sandbox_server: Any) -> Any:
    return sandbox_server()


def configure(sb: Any, mode: Any, **data: Any) -> dict[str, Any]:
    return dict(sb.client.admin.command("configureFailPoint", "failCommand", mode=mode, data=data))


def ping_fails(sb: Any) -> bool:
    try:
        sb.client.test.command("count", "x")
    except OperationFailure as exc:
        assert exc.code == 2
        assert "Failing command via 'failCommand' failpoint" in str(exc)
        return True
    return False


def test_times_fails_exactly_n_times_and_reports_count(sb: Any) -> None:
    assert configure(sb, {"times": 2}, failCommands=["count"], errorCode=2)["count"] == 0
    assert [ping_fails(sb) for _ in range(3)] == [True, True, False]
    assert configure(sb, "off")["count"] == 2


def test_skip_passes_n_then_fails(sb: Any) -> None:
    configure(sb, {"skip": 2}, failCommands=["count"], errorCode=2)
    assert [ping_fails(sb) for _ in range(4)] == [False, False, True, True]


def test_always_on_until_off(sb: Any) -> None:
    configure(sb, "alwaysOn", failCommands=["count"], errorCode=2)
    assert ping_fails(sb) and ping_fails(sb)
    configure(sb, "off")
    assert not ping_fails(sb)


def test_only_listed_commands_fail_and_configure_is_exempt(sb: Any) -> None:
    configure(sb, "alwaysOn", failCommands=["find", "configureFailPoint"], errorCode=2)
    sb.client.admin.command("ping")
    with pytest.raises(OperationFailure):
        sb.client.test.x.find_one()
    configure(sb, "off")


def test_error_labels_and_unknown_codes_are_reported(sb: Any) -> None:
    configure(sb, {"times": 1}, failCommands=["count"], errorCode=9999, errorLabels=["X"])
    with pytest.raises(OperationFailure) as info:
        sb.client.test.command("count", "x")
    assert info.value.code == 9999
    assert info.value.details is not None
    assert info.value.details["codeName"] == "Location9999"
    assert info.value.has_error_label("X")


def test_close_connection_drops_the_socket_without_reply(sb: Any) -> None:
    configure(sb, {"times": 1}, failCommands=["count"], closeConnection=True)
    with pytest.raises(AutoReconnect):
        sb.client.test.command("count", "x")
    assert sb.client.test.command("count", "x")["n"] == 0


def test_block_connection_delays_then_runs(sb: Any) -> None:
    configure(sb, {"times": 1}, failCommands=["count"], blockConnection=True, blockTimeMS=50)
    assert sb.client.test.command("count", "x")["ok"] == 1.0
    assert configure(sb, "off")["count"] == 1


def test_block_connection_requires_block_time(sb: Any) -> None:
    configure(sb, {"times": 1}, failCommands=["count"], blockConnection=True)
    with pytest.raises(OperationFailure) as info:
        sb.client.test.command("count", "x")
    assert info.value.code == 72


def test_app_name_limits_the_fail_point(sb: Any) -> None:
    configure(sb, "alwaysOn", failCommands=["count"], errorCode=2, appName="other")
    assert not ping_fails(sb)
    mine = sb.new_client(appName="other")
    with pytest.raises(OperationFailure):
        mine.test.command("count", "x")
    configure(sb, "off")


def test_write_concern_error_is_attached_to_a_successful_write(sb: Any) -> None:
    configure(
        sb,
        {"times": 1},
        failCommands=["insert"],
        writeConcernError={"code": 91, "errmsg": "Replication is being shut down"},
    )
    reply = sb.client.test.command("insert", "x", documents=[{"_id": 1}])
    assert reply["n"] == 1
    assert reply["writeConcernError"]["code"] == 91


def test_configure_fail_point_is_admin_only_and_validates_mode(sb: Any) -> None:
    with pytest.raises(OperationFailure) as info:
        sb.client.test.command("configureFailPoint", "failCommand", mode="off")
    assert info.value.code == 13
    with pytest.raises(OperationFailure) as info:
        sb.client.admin.command("configureFailPoint", "failCommand", mode="sometimes")
    assert info.value.code == 2


def test_a_held_command_ends_unrun_when_the_server_closes(sb: Any, sandbox_server: Any) -> None:
    """As a mongod's shutdown interrupts what it runs: the held insert never runs, even once
    its hold is over, and the client sees its connection close."""
    hold = {"failCommands": ["insert"], "blockConnection": True, "blockTimeMS": 1_000}
    configure(sb, "alwaysOn", **hold)
    errors: list[BaseException] = []

    def insert() -> None:
        try:
            sb.client.test.command("insert", "x", documents=[{"_id": 1}])
        except BaseException as exc:  # what the held client saw, asserted below
            errors.append(exc)

    held = threading.Thread(target=insert, daemon=True)
    held.start()
    while configure(sb, "alwaysOn", **hold)["count"] == 0:
        time.sleep(0.01)
    started = time.monotonic()
    sb.server.close()
    held.join()
    assert len(errors) == 1 and isinstance(errors[0], AutoReconnect), errors
    time.sleep(max(0.0, started + 2.0 - time.monotonic()))  # past the 1 s hold
    again = sandbox_server(sandbox=sb.sandbox)  # the same cluster behind a new mongos
    assert again.client.test.x.count_documents({}) == 0
