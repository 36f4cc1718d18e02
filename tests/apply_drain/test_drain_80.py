"""On 8.0 a shard's unsharded collections leave by moveCollection and its databases by
movePrimary, in the relocate stage before the drain; --dry-run lists them and the removal's
first command."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from drain_kit import CLUSTER, kept, policy, shards, zonectl

WITH_UNSHARDED = CLUSTER + "unsharded:\n  - {ns: app.settings}\n"


def test_on_8_0_apply_migrate_moves_the_unsharded_collection_and_primary_then_removes_the_shard(
    served: Any, tmp_path: Path
) -> None:
    sb = served("8.0", WITH_UNSHARDED)
    before = kept(sb.client)
    path = policy(tmp_path)
    code, out, err = zonectl("apply", path, "--uri", sb.uri, "--dry-run")
    assert code == 0, err
    assert out.splitlines()[-3:] == [
        'admin: {"moveCollection": "app.settings", "toShard": "s0"}',
        'admin: {"movePrimary": "app", "to": "s2"}',
        'admin: {"removeShard": "s1"}',
    ]
    code, _, err = zonectl("apply", path, "--uri", sb.uri, "--yes", "--migrate")
    assert code == 0, err
    done = [line for line in err.splitlines() if line.startswith("  done ")]
    assert done[:2] == [
        "  done   move collection app.settings from s1 to s0 (shard s1 is removed)",
        "  done   move the primary of database app from s1 to s2",
    ]
    assert "zonectl: shard s1 removed from the cluster" in err
    assert set(shards(sb.client)) == {"s0", "s2"}
    assert sb.client.config.databases.find_one({"_id": "app"})["primary"] == "s2"
    after = kept(sb.client)
    assert (after["tags"], after["balancer"]) == (before["tags"], before["balancer"])
    # moveCollection tracks app.settings (config.collections); nothing is left paused.
    assert after["noBalance"] == {**before["noBalance"], "app.settings": False}
    code, out, err = zonectl("plan", path, "--uri", sb.uri, "--detailed-exitcode")
    assert code == 0, out + err
