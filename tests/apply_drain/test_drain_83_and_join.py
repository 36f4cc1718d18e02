"""Shards leaving on 8.3 (startShardDraining, shardDrainingStatus, commitShardRemoval,
stopShardDraining) and joining (addShard before the zones it is given), through the CLI
against the sandbox over TCP."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from drain_kit import HEAD, KEEP_S1, chunks_on, kept, policy, shards, zonectl


def _sent(err: str) -> list[str]:
    """The removal commands --verbose shows, in order."""
    names = ("startShardDraining", "shardDrainingStatus", "commitShardRemoval",
             "stopShardDraining", "removeShard")  # fmt: skip
    return [
        n for line in err.splitlines() for n in names if line.startswith(f'  -> admin: {{"{n}"')
    ]


def test_on_8_3_apply_starts_the_drain_and_a_later_apply_commits_it(
    served: Any, tmp_path: Path
) -> None:
    sb = served("8.3")
    before = kept(sb.client)
    path = policy(tmp_path)
    code, _, err = zonectl("apply", path, "--uri", sb.uri, "--yes", "--verbose")
    assert code == 0, err
    assert _sent(err) == ["startShardDraining", "shardDrainingStatus"]
    assert "zonectl: shard s1 is draining: " in err
    assert shards(sb.client)["s1"]["draining"] is True
    sb.sandbox.balancer.run_until_stable(max_rounds=2000)
    assert chunks_on(sb.client, "s1") == 0
    code, _, err = zonectl("apply", path, "--uri", sb.uri, "--yes", "--verbose")
    assert code == 0, err
    # The plan's read of the drain, apply's own check that it is complete, the commit.
    assert _sent(err) == ["shardDrainingStatus", "shardDrainingStatus", "commitShardRemoval"]
    assert "zonectl: shard s1 removed from the cluster" in err
    assert set(shards(sb.client)) == {"s0", "s2"}
    assert kept(sb.client) == before
    code, out, err = zonectl("plan", path, "--uri", sb.uri, "--detailed-exitcode")
    assert code == 0, out + err


def test_on_8_3_a_draining_shard_set_back_to_active_gets_stop_shard_draining(
    served: Any, tmp_path: Path
) -> None:
    sb = served("8.3")
    code, _, err = zonectl("apply", policy(tmp_path), "--uri", sb.uri, "--yes")
    assert code == 0, err
    assert shards(sb.client)["s1"]["draining"] is True
    code, _, err = zonectl("apply", policy(tmp_path, KEEP_S1), "--uri", sb.uri, "--yes",
                           "--verbose")  # fmt: skip
    assert code == 0, err
    assert [n for n in _sent(err) if n != "shardDrainingStatus"] == ["stopShardDraining"]
    assert "  done   stop draining shard s1" in err
    assert shards(sb.client)["s1"]["draining"] is False
    code, out, err = zonectl("plan", policy(tmp_path, KEEP_S1), "--uri", sb.uri,
                             "--detailed-exitcode")  # fmt: skip
    assert code == 0, out + err


ADD_S3 = (
    HEAD + '  s0: [eu]\n  s1: [eu]\n  s2: [us]\n  s3: {zones: [us], host: "s3/s3.sandbox:27021"}\n'
)


def test_a_shard_with_host_is_added_then_given_its_zones(served: Any, tmp_path: Path) -> None:
    sb = served("7.0")
    code, _, err = zonectl("apply", policy(tmp_path, ADD_S3), "--uri", sb.uri, "--yes")
    assert code == 0, err
    done = [line for line in err.splitlines() if line.startswith("  done ")]
    assert done == [
        "  done   add shard s3 (s3/s3.sandbox:27021)",
        "  done   add shard s3 to zone us",
    ]
    assert shards(sb.client)["s3"] == {"draining": False, "tags": ["us"]}
    code, out, err = zonectl("plan", policy(tmp_path, ADD_S3), "--uri", sb.uri,
                             "--detailed-exitcode")  # fmt: skip
    assert code == 0, out + err


def test_a_host_that_does_not_answer_ends_the_run_naming_the_shard_and_host_with_nothing_changed(
    served: Any, tmp_path: Path
) -> None:
    sb = served("7.0")
    before = (kept(sb.client), shards(sb.client))
    text = ADD_S3.replace("s3/s3.sandbox:27021", "s9/s9.example:27017")
    code, _, err = zonectl("apply", policy(tmp_path, text), "--uri", sb.uri, "--yes")
    assert code == 1, err
    assert (
        "zonectl: error: shard s3 could not be added from s9/s9.example:27017: "
        "FailedToSatisfyReadPreference: Could not find host matching read preference "
        '{ mode: "primary" } for set s9; nothing was changed'
    ) in err
    assert "hint: check that the replica set s9/s9.example:27017 is running" in err
    assert (kept(sb.client), shards(sb.client)) == before


def test_a_replica_set_already_a_shard_under_another_name_is_refused_naming_the_fix(
    served: Any, tmp_path: Path
) -> None:
    sb = served("7.0")
    before = (kept(sb.client), shards(sb.client))
    text = ADD_S3.replace("s3/s3.sandbox:27021", "s2/s2.sandbox:27020")
    code, _, err = zonectl("apply", policy(tmp_path, text), "--uri", sb.uri, "--yes")
    assert code == 1, err
    assert (
        "zonectl: error: shard s3 could not be added from s2/s2.sandbox:27020: "
        "IllegalOperation: A shard already exists containing the replica set 's2'" in err
    )
    assert "is already a shard, or the name s3 is taken" in err
    assert (kept(sb.client), shards(sb.client)) == before
