"""pymongo against the sandbox over TCP: handshake, probes, error replies, cursors."""

from __future__ import annotations

import threading
from typing import Any

import pymongo
import pytest
from bson import Int64
from pymongo.errors import OperationFailure

from zonectl.errors import ZonectlError
from zonectl.sandbox.launch import serve
from zonectl.sandbox.state import Sandbox


@pytest.fixture(scope="module")
def sb(module_sandbox_server: Any) -> Any:
    return module_sandbox_server()


def test_ping_and_server_info_report_the_profile_version(
    sandbox_server: Any, server_version: str
) -> None:
    handle = sandbox_server(server_version)
    assert handle.client.admin.command("ping")["ok"] == 1.0
    info = handle.client.server_info()
    assert info["version"].startswith(server_version)
    assert info["versionArray"][:2] == [int(p) for p in server_version.split(".")]


def test_hello_looks_like_a_mongos_without_topology_version(sb: Any) -> None:
    reply = sb.client.admin.command("hello")
    assert reply["msg"] == "isdbgrid"
    assert reply["isWritablePrimary"] is True
    assert reply["maxWireVersion"] == 21
    assert reply["logicalSessionTimeoutMinutes"] == 30
    assert "topologyVersion" not in reply and "compression" not in reply
    legacy = sb.client.admin.command("isMaster")
    assert legacy["ismaster"] is True


def test_pymongo_sees_a_mongos(sb: Any) -> None:
    sb.client.admin.command("ping")
    assert sb.client.topology_description.topology_type_name == "Sharded"


def test_unknown_command_is_command_not_found(sb: Any) -> None:
    with pytest.raises(OperationFailure) as info:
        sb.client.admin.command("atlasVersion")
    assert info.value.code == 59
    assert info.value.details is not None
    assert info.value.details["codeName"] == "CommandNotFound"
    assert info.value.details["errmsg"] == "no such command: 'atlasVersion'"


def test_command_names_are_case_sensitive(sb: Any) -> None:
    with pytest.raises(OperationFailure) as info:
        sb.client.admin.command("PING")
    assert info.value.code == 59


def test_admin_only_commands_refuse_other_databases(sb: Any) -> None:
    with pytest.raises(OperationFailure) as info:
        sb.client.test.command("getCmdLineOpts")
    assert info.value.code == 13
    assert "getCmdLineOpts may only be run against the admin database." in str(info.value)


def test_probes_answer_like_a_mongos(sb: Any) -> None:
    admin = sb.client.admin
    assert admin.command("serverStatus")["process"] == "mongos"
    fcv = admin.command("getParameter", 1, featureCompatibilityVersion=1)
    assert fcv["featureCompatibilityVersion"] == {"version": "7.0"}
    with pytest.raises(OperationFailure) as info:
        admin.command("getParameter", 1, noSuchParameter=1)
    assert info.value.code == 72
    assert admin.command("getLog", "startupWarnings")["log"] == []
    assert "authInfo" in admin.command("connectionStatus")
    assert "you" in admin.command("whatsmyuri")
    assert "parsed" in admin.command("getCmdLineOpts")
    assert "system" in admin.command("hostInfo")


def test_list_database_names_includes_config_and_admin(sb: Any) -> None:
    sb.client.listdb.c.insert_one({"x": 1})
    names = sb.client.list_database_names()
    assert {"admin", "config", "listdb"} <= set(names)


def test_cursor_streams_many_documents_through_get_more(sb: Any) -> None:
    coll = sb.client.cur.many
    coll.insert_many([{"_id": i, "pad": "x" * 100} for i in range(5000)])
    got = [d["_id"] for d in coll.find({}, batch_size=300).sort("_id", 1)]
    assert got == list(range(5000))


def test_limit_and_single_batch_close_the_cursor(sb: Any) -> None:
    coll = sb.client.cur.lim
    coll.insert_many([{"_id": i} for i in range(50)])
    reply = sb.client.cur.command("find", "lim", limit=10, batchSize=3)
    assert len(reply["cursor"]["firstBatch"]) == 3 and reply["cursor"]["id"] != 0
    reply = sb.client.cur.command("find", "lim", batchSize=3, singleBatch=True)
    assert reply["cursor"]["id"] == 0
    assert len(list(coll.find().limit(10))) == 10


def test_kill_cursors_then_get_more_is_cursor_not_found(sb: Any) -> None:
    db = sb.client.cur
    db.kc.insert_many([{"_id": i} for i in range(20)])
    cursor_id = db.command("find", "kc", batchSize=2)["cursor"]["id"]
    killed = db.command("killCursors", "kc", cursors=[cursor_id])
    assert killed["cursorsKilled"] == [cursor_id]
    with pytest.raises(OperationFailure) as info:
        db.command("getMore", Int64(cursor_id), collection="kc")
    assert info.value.code == 43


def test_get_more_on_another_namespace_is_unauthorized(sb: Any) -> None:
    db = sb.client.cur
    db.ns1.insert_many([{"_id": i} for i in range(5)])
    cursor_id = db.command("find", "ns1", batchSize=1)["cursor"]["id"]
    with pytest.raises(OperationFailure) as info:
        db.command("getMore", Int64(cursor_id), collection="other")
    assert info.value.code == 13


def test_concurrent_connections_are_served_in_parallel(sb: Any) -> None:
    errors: list[BaseException] = []

    def worker(n: int) -> None:
        try:
            client: pymongo.MongoClient[dict[str, Any]] = pymongo.MongoClient(
                sb.uri, serverSelectionTimeoutMS=5000
            )
            for i in range(20):
                client.conc[f"c{n}"].insert_one({"i": i})
            assert client.conc[f"c{n}"].count_documents({}) == 20
            client.close()
        except BaseException as exc:  # collected for the main thread
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_a_port_in_use_is_a_clear_error() -> None:
    with serve(Sandbox()) as first, pytest.raises(ZonectlError) as info:
        serve(Sandbox(), port=first.port)
    assert str(info.value) == (
        f"port {first.port} is in use on 127.0.0.1; pick another with --port"
    )


def test_close_joins_threads_even_with_idle_clients() -> None:
    server = serve(Sandbox())
    client: pymongo.MongoClient[dict[str, Any]] = pymongo.MongoClient(server.uri)
    client.admin.command("ping")
    server.close()
    assert server.connection_count == 0
    client.close()
