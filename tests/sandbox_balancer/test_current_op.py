"""`$currentOp` through the mongos shows a chunk migration in flight as the shards report it:
the donor's command from the config server (`moveChunk` on 5.0, `_shardsvrMoveRange` from
6.0), the donor's `MoveChunk` client at "step 3 of 6" and the recipient's `migrateThread`
at "step 3 of 8" while the range is cloned; only with `allUsers: true`, which needs the
`inprog` privilege (sources in zonectl/sandbox/commands/current_op.py)."""

from __future__ import annotations

from typing import Any

import pytest
from pymongo.errors import OperationFailure

ALL = [{"$currentOp": {"allUsers": True, "idleConnections": False}}]


@pytest.mark.parametrize(("version", "command"), [
    ("5.0", "moveChunk"),
    ("6.0", "_shardsvrMoveRange"),
    ("7.0", "_shardsvrMoveRange"),
    ("8.0", "_shardsvrMoveRange"),
])  # fmt: skip
def test_a_migration_in_flight_shows_on_its_donor_and_its_recipient(
    make_cluster: Any, version: str, command: str
) -> None:
    c = make_cluster(version, points=[10, 20, 30], chunk_mb=1)
    assert list(c.admin.aggregate(ALL)) == []
    flight = c.balancer.run_round().migrations[0]
    ops = list(c.admin.aggregate(ALL))
    by_desc = {op["desc"]: op for op in ops if not op["desc"].startswith("conn")}
    (sent,) = [op for op in ops if op["desc"].startswith("conn")]
    assert (sent["shard"], sent["op"], sent["ns"]) == (flight.donor, "command", "db.c")
    assert sent["command"][command] == "db.c"
    assert (sent["command"]["min"], sent["command"]["max"]) == (flight.min, flight.max)
    assert sent["command"]["toShard"] == flight.recipient
    donor, recipient = by_desc["MoveChunk"], by_desc["migrateThread"]
    assert (donor["shard"], donor["msg"]) == (flight.donor, "step 3 of 6")
    assert (recipient["shard"], recipient["msg"]) == (flight.recipient, "step 3 of 8")
    for op in ops:
        assert op["type"] == "op" and op["active"] is True
        assert op["opid"].startswith(op["shard"] + ":")
    # The stage's own $match works on these documents, as the jstests' helpers use it.
    assert [o["msg"] for o in c.admin.aggregate([*ALL, {"$match": {"desc": "MoveChunk"}}])] == [
        "step 3 of 6"
    ]
    c.balancer.complete_migrations()
    assert list(c.admin.aggregate(ALL)) == []


def test_without_all_users_a_caller_sees_only_its_own_operations(make_cluster: Any) -> None:
    c = make_cluster("7.0", points=[10, 20, 30], chunk_mb=1)
    c.balancer.run_round()
    assert list(c.admin.aggregate([{"$currentOp": {}}])) == []


def test_all_users_needs_the_inprog_privilege(sandbox_server: Any) -> None:
    from zonectl.sandbox.seed.build import auth_config, seed
    from zonectl.sandbox.seed.schema import load_cluster_file
    from zonectl.sandbox.state import Sandbox

    text = """
shards:
  - {name: s0}
  - {name: s1}
collections:
  - {ns: db.c, key: {x: 1}, chunks: 4}
users:
  - {user: reader, pwd: pw, roles: [{role: read, db: db}]}
  - {user: monitor, pwd: pw, roles: [clusterMonitor]}
"""
    spec = load_cluster_file("cluster.yaml", text)
    sandbox = Sandbox("7.0", auth=auth_config(spec))
    seed(sandbox, spec)
    reader = sandbox_server("7.0", sandbox=sandbox, client_options={
        "username": "reader", "password": "pw"
    }).client  # fmt: skip
    with pytest.raises(OperationFailure) as denied:
        list(reader.admin.aggregate(ALL))
    assert denied.value.code == 13
    assert list(reader.admin.aggregate([{"$currentOp": {}}])) == []
    monitor = sandbox_server("7.0", sandbox=sandbox, client_options={
        "username": "monitor", "password": "pw"
    }).client  # fmt: skip
    assert list(monitor.admin.aggregate(ALL)) == []
