"""addShard against a sandbox seeded from a cluster file with spareShards (ports
jstests/sharding/add_invalid_shard.js, addshard2.js; _checkIfShardExists)."""

from __future__ import annotations

from typing import Any

import pytest
from pymongo.errors import OperationFailure

from zonectl.sandbox.seed import persist
from zonectl.sandbox.seed.schema import SeedError, load_cluster_file
from zonectl.sandbox.state import Sandbox

CLUSTER = """\
shards:
  - {name: s0, host: "rs0/h0:27018,h0b:27018"}
  - {name: s1, host: "rs1/h1:27018"}
spareShards:
  - {name: new-hardware, host: "rsNew/n1:27018,n2:27018"}
"""
UNREACHABLE = 'Could not find host matching read preference { mode: "primary" } for set '


def fails(call: Any, code: int) -> str:
    with pytest.raises(OperationFailure) as info:
        call()
    assert info.value.code == code, info.value.details
    return str(info.value.details["errmsg"])


@pytest.mark.parametrize("version", ["5.0", "8.3"])
def test_a_spare_is_added_under_its_replica_set_name(seeded: Any, version: str) -> None:
    c = seeded(CLUSTER, version)
    assert c.admin.command("addShard", "rsNew/n1:27018")["shardAdded"] == "rsNew"
    # Recorded with the set's members, as validateHostAsShard builds it from hello.
    assert c.shard("rsNew")["host"] == "rsNew/n1:27018,n2:27018"
    # The same request again is a no-op answering the existing name (addshard_idempotent.js).
    assert c.admin.command("addShard", "rsNew/n2:27018")["shardAdded"] == "rsNew"


def test_the_name_argument_names_the_shard(seeded: Any) -> None:
    c = seeded(CLUSTER)
    assert c.admin.command("addShard", "rsNew/n1:27018", name="s2")["shardAdded"] == "s2"
    assert c.shard("new-hardware") is None  # the spare's own name is only a label


def test_a_host_the_cluster_file_does_not_declare_does_not_answer(seeded: Any) -> None:
    c = seeded(CLUSTER)
    message = fails(lambda: c.admin.command("addShard", "rsX/x1:27018"), 133)
    assert message == UNREACHABLE + "rsX"
    # A member the spare set does not have does not answer either.
    assert fails(lambda: c.admin.command("addShard", "rsNew/zz:1"), 133) == UNREACHABLE + "rsNew"
    assert [d["_id"] for d in c.client.config.shards.find()] == ["s0", "s1"]


def test_a_replica_set_already_a_shard_is_refused_under_another_name(seeded: Any) -> None:
    c = seeded(CLUSTER)
    message = fails(lambda: c.admin.command("addShard", "rs1/h1:27018", name="other"), 20)
    assert message == "A shard already exists containing the replica set 'rs1'"
    message = fails(lambda: c.admin.command("addShard", "rsY/h0b:27018"), 20)
    assert (
        message
        == "'h0b:27018' is already a member of the existing shard 'rs0/h0:27018,h0b:27018' (s0)."
    )
    message = fails(lambda: c.admin.command("addShard", "rsNew/n1:27018", name="s1"), 20)
    assert message == "A shard named s1 already exists"
    assert c.admin.command("addShard", "rs1/h1:27018")["shardAdded"] == "s1"  # same options


def test_a_removed_shard_comes_back_only_when_declared_spare(seeded: Any) -> None:
    c = seeded(CLUSTER + "databases:\n  - {name: app, primary: s0}\n")
    c.admin.command("removeShard", "s1")
    c.balancer.run_until_stable(max_rounds=1000)  # config.system.sessions has chunks there
    assert c.admin.command("removeShard", "s1")["state"] == "completed"
    assert fails(lambda: c.admin.command("addShard", "rs1/h1:27018"), 133) == UNREACHABLE + "rs1"


def test_spares_survive_save_and_restore(seeded: Any, sandbox_server: Any, tmp_path: Any) -> None:
    c = seeded(CLUSTER)
    path = tmp_path / "state.bin"
    persist.save(c.sandbox, path)
    restored = Sandbox("7.0")
    persist.load(restored, path)
    again = sandbox_server(sandbox=restored).client.admin
    assert again.command("addShard", "rsNew/n1:27018")["shardAdded"] == "rsNew"
    with pytest.raises(OperationFailure) as info:
        again.command("addShard", "rsX/x1:27018")
    assert info.value.code == 133


def test_a_spare_host_must_be_a_replica_set_connection_string(tmp_path: Any) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("shards: [{name: a}]\nspareShards:\n  - {name: b, host: 'h:1'}\n")
    with pytest.raises(SeedError) as info:
        load_cluster_file(path)
    assert f"{path}:3:15: field 'spareShards[0].host'" in str(info.value)
