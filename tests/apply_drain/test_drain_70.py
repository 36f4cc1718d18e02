"""`zonectl apply` removing a shard on 7.0, through the CLI against the sandbox over TCP:
without --migrate it starts the drain and returns, the balancer drains the shard, a later
apply commits; with --migrate one run drains and removes it, keeping every zone range and
the balancing as it was; a jumbo chunk stops the drain naming it until --force-jumbo; a
removal the server would refuse is refused before anything is written."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from drain_kit import JUMBO, chunks_on, kept, owners, policy, shards, zonectl


def test_without_migrate_apply_starts_the_drain_the_balancer_drains_and_a_later_apply_commits(
    served: Any, tmp_path: Path
) -> None:
    sb = served("7.0")
    before = kept(sb.client)
    path = policy(tmp_path)
    code, _, err = zonectl("apply", path, "--uri", sb.uri, "--yes")
    assert code == 0, err
    assert "  done   move the primary of database app from s1 to s0" in err
    assert "  done   drain and remove shard s1" in err
    # 2 chunks of app.users (8 MiB) and 3 of config.system.sessions' 8 (empty).
    assert (
        "zonectl: shard s1 is draining: 5 chunks (~8.0 MiB) left; the balancer drains it; "
        "run `zonectl apply` again (e.g. from cron) to commit the removal once it is empty\n"
    ) in err
    assert "warning" not in err  # the balancer is on, no jumbo chunk: nothing stops it
    assert shards(sb.client)["s1"]["draining"] is True
    assert sb.client.config.databases.find_one({"_id": "app"})["primary"] == "s0"
    # The same plan again only says where the drain stands: nothing commits a shard with data.
    code, _, err = zonectl("apply", path, "--uri", sb.uri, "--yes")
    assert code == 0, err
    assert "  done   continue draining shard s1" in err and "s1 removed" not in err
    sb.sandbox.balancer.run_until_stable(max_rounds=2000)  # the balancer drains s1
    assert chunks_on(sb.client, "s1") == 0
    code, _, err = zonectl("apply", path, "--uri", sb.uri, "--yes")
    assert code == 0, err
    assert "zonectl: shard s1 removed from the cluster" in err
    assert set(shards(sb.client)) == {"s0", "s2"}
    assert kept(sb.client) == before
    code, out, err = zonectl("plan", path, "--uri", sb.uri, "--detailed-exitcode")
    assert code == 0, out + err


def test_apply_migrate_drains_and_removes_the_shard_in_one_run_and_the_next_plan_is_empty(
    served: Any, tmp_path: Path
) -> None:
    sb = served("7.0")
    before = kept(sb.client)
    path = policy(tmp_path)
    code, _, err = zonectl("apply", path, "--uri", sb.uri, "--yes", "--migrate")
    assert code == 0, err
    assert "zonectl: shard s1 removed from the cluster" in err
    assert set(shards(sb.client)) == {"s0", "s2"}
    # Each chunk went to a shard of its zone: [DE, FR) and [FR, US) are eu's, left only to s0.
    assert owners(sb.client, "app.users") == ["s0", "s0", "s0", "s2"]
    assert sb.client.config.databases.find_one({"_id": "app"})["primary"] == "s0"
    assert kept(sb.client) == before  # every zone range; balancing restored as it was
    journal = sb.client.zonectl.journal
    steps = [e["op"] for e in journal.find({"type": "step", "kind": "remove_shard"})]
    assert steps == ["drain and remove shard s1", "continue draining shard s1"]
    code, out, err = zonectl("plan", path, "--uri", sb.uri, "--detailed-exitcode")
    assert code == 0, out + err
    assert "Forecast: nothing to move; every chunk is in its zone." in out


def test_migrate_with_the_balancer_stopped_leaves_it_stopped(served: Any, tmp_path: Path) -> None:
    sb = served("7.0")
    sb.client.admin.command({"balancerStop": 1})
    before = kept(sb.client)
    code, _, err = zonectl("apply", policy(tmp_path), "--uri", sb.uri, "--yes", "--migrate",
                           "--pause", "cluster")  # fmt: skip
    assert code == 0, err
    assert set(shards(sb.client)) == {"s0", "s2"}
    assert kept(sb.client) == before
    assert sb.client.admin.command({"balancerStatus": 1})["mode"] == "off"


def test_a_jumbo_chunk_stops_the_migrate_drain_naming_it_and_force_jumbo_finishes_it(
    served: Any, tmp_path: Path
) -> None:
    sb = served("7.0", JUMBO)
    before = kept(sb.client)
    path = policy(tmp_path)
    code, _, err = zonectl("apply", path, "--uri", sb.uri, "--yes", "--migrate")
    assert code == 1, err
    assert (
        "zonectl: error: the drain of shard s1 would stop: 1 jumbo chunk cannot move without "
        '--force-jumbo: app.users [{ country: "FR" }, { country: "US" })'
    ) in err
    assert "rerun with `--migrate --force-jumbo`, split the chunk" in err
    assert "reshard the collection" in err
    assert "nothing was changed" in err
    # Refused before anything is written: not even the database primary moved.
    assert kept(sb.client) == before
    assert shards(sb.client)["s1"]["draining"] is False
    assert sb.client.config.databases.find_one({"_id": "app"})["primary"] == "s1"
    code, _, err = zonectl("apply", path, "--uri", sb.uri, "--yes", "--migrate", "--force-jumbo")
    assert code == 0, err
    assert set(shards(sb.client)) == {"s0", "s2"}
    assert kept(sb.client) == before


def test_without_migrate_a_jumbo_chunk_is_a_warning_naming_what_stops_the_drain(
    served: Any, tmp_path: Path
) -> None:
    sb = served("7.0", JUMBO)
    code, _, err = zonectl("apply", policy(tmp_path), "--uri", sb.uri, "--yes")
    assert code == 0, err
    warning = next(line for line in err.splitlines() if "warning" in line)
    assert warning.startswith(
        "zonectl: warning: the drain of shard s1 will not progress as things stand: 1 jumbo "
        "chunk on s1 the balancer skips while draining: "
    )
    assert "`zonectl apply --migrate --force-jumbo`" in warning


def test_a_removal_the_server_would_refuse_is_refused_before_anything_is_written(
    served: Any, tmp_path: Path
) -> None:
    sb = served("7.0")
    before = (kept(sb.client), shards(sb.client))
    # s2 alone carries zone us, whose live ranges the policy leaves alone: ZoneStillInUse.
    text = (
        "apiVersion: zonectl/v1\nkind: ZonePolicy\nshards:\n  s0: [eu]\n  s1: [eu]\n"
        "  s2: {state: removed}\n"
    )
    code, _, err = zonectl("apply", policy(tmp_path, text), "--uri", sb.uri, "--yes")
    assert code == 1, err
    assert (
        "zonectl: error: the plan removes a shard the server would refuse to remove; nothing "
        "was changed:"
    ) in err
    assert "  shard s2: shard s2 would still be the only shard of zone us" in err
    assert "fix: give zone us to another shard under `shards`" in err
    assert (kept(sb.client), shards(sb.client)) == before
    assert sb.client.zonectl.journal.count_documents({}) == 0
