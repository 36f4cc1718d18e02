"""`zonectl doctor` (read-only): all ok on the sandbox, and each check failing for the right
reason: missing privileges, a skewed clock, a held lease, a wrong shard key, a standalone."""

from __future__ import annotations

import datetime as dt
import socket
import sys
from pathlib import Path
from typing import Any

import child_procs
import pytest
from doctor_kit import demo_sandbox, doctor_json, snapshot, zonectl
from three_shards import REMOVE_S1, S1_DRAINING, THREE_SHARDS

from zonectl.sandbox.auth.users import AuthConfig, User
from zonectl.sandbox.seed import build as seed
from zonectl.sandbox.seed.schema import load_cluster_file
from zonectl.sandbox.state import Sandbox

DEMO = Path(__file__).resolve().parents[2] / "policies" / "demo"
USERS = AuthConfig(
    users=[
        User("admin", "admin", "s3cret", ("root",)),
        User("ops", "admin", "pw", ("clusterManager", ("readWrite", "zonectl"))),
        User("monitor", "admin", "pw", ("clusterMonitor",)),
        User("appuser", "admin", "pw", (("readWrite", "app"),)),
    ],
    iterations_sha256=4096,
    iterations_sha1=4096,
)


def uri_of(sb: Any, user: str | None = None, password: str = "pw") -> str:
    if user is None:
        return str(sb.uri)
    return str(sb.uri).replace("mongodb://", f"mongodb://{user}:{password}@")


def test_doctor_on_the_sandbox_is_all_ok() -> None:
    result = zonectl("doctor", "--uri", "sandbox:")
    assert result.code == 0, result.out + result.err
    lines = result.out.splitlines()[1:-1]
    assert len(lines) >= 10
    assert all(line.startswith("ok ") for line in lines), result.out
    assert result.out.splitlines()[-1].endswith("0 warn, 0 fail")


def test_doctor_json_is_all_ok_on_every_server_version(
    sandbox_server: Any, server_version: str
) -> None:
    sb = sandbox_server(sandbox=demo_sandbox(server_version))
    doc = doctor_json("--uri", sb.uri, "--strict")
    assert doc["exit"] == 0
    assert doc["format_version"] == 1 and doc["ok"] is True
    assert {c["status"] for c in doc["checks"]} == {"ok"}
    version = next(c for c in doc["checks"] if c["name"] == "version")["detail"]
    mover = "moveChunk" if server_version == "5.0" else "moveRange"
    assert mover in version and server_version in version


def test_a_user_without_the_zone_privileges_fails_naming_the_action(sandbox_server: Any) -> None:
    sb = sandbox_server(sandbox=demo_sandbox(auth=USERS))
    result = zonectl("doctor", "--uri", uri_of(sb, "monitor"))
    assert result.code == 1
    assert result.status("privileges:plan") == "ok"
    apply_line = result.line("privileges:apply")
    assert apply_line.startswith("fail")
    assert "addShardToZone/removeShardFromZone: enableSharding on the cluster" in apply_line
    assert "update on config.collections" in apply_line
    assert "find on zonectl.locks" in apply_line
    assert "pw" not in result.out + result.err


def test_a_user_who_cannot_read_config_still_learns_what_is_missing(sandbox_server: Any) -> None:
    sb = sandbox_server(sandbox=demo_sandbox(auth=USERS))
    result = zonectl("doctor", "--uri", uri_of(sb, "appuser"), "--probe")
    assert result.code == 1
    assert "find on config.shards" in result.line("privileges:plan")
    assert result.line("config").startswith("fail")
    assert "Unauthorized" in result.line("config")
    assert "probe:" not in result.out  # nothing is tried without the config metadata


def test_no_credentials_on_a_cluster_with_access_control(sandbox_server: Any) -> None:
    sb = sandbox_server(sandbox=demo_sandbox(auth=USERS))
    result = zonectl("doctor", "--uri", sb.uri)
    assert result.code == 1
    assert "no user authenticated, and the cluster requires one" in result.line("privileges")


def test_a_zone_operator_passes_and_warnings_fail_only_with_strict(sandbox_server: Any) -> None:
    sb = sandbox_server(sandbox=demo_sandbox(auth=USERS))
    uri = uri_of(sb, "ops")
    result = zonectl("doctor", "--uri", uri)
    assert result.code == 0, result.out
    for command in ("plan", "apply", "rotate", "export", "recover"):
        assert result.status(f"privileges:{command}") == "ok", result.out
    # clusterManager has no shardedDataDistribution action: status copes, a warning
    assert result.status("privileges:status") == "warn"
    assert "shardedDataDistribution on the cluster" in result.line("privileges:status")
    assert zonectl("doctor", "--uri", uri, "--strict").code == 1


def test_root_may_run_everything(sandbox_server: Any) -> None:
    sb = sandbox_server(sandbox=demo_sandbox(auth=USERS))
    result = zonectl("doctor", "--uri", uri_of(sb, "admin", "s3cret"), "--strict")
    assert result.code == 0, result.out


def test_a_wrong_password_is_one_line_naming_authentication(sandbox_server: Any) -> None:
    sb = sandbox_server(sandbox=demo_sandbox(auth=USERS))
    result = zonectl("doctor", "--uri", uri_of(sb, "ops", "wrong"))
    assert result.code == 1
    assert result.err.splitlines()[0].startswith("zonectl: error: authentication failed for")
    assert "mongodb://***@" in result.err and "wrong" not in result.err and "ops" not in result.err
    assert result.out == ""


@pytest.mark.parametrize(
    ("skew", "status", "code"),
    [(dt.timedelta(minutes=5), "fail", 1), (dt.timedelta(seconds=-8), "warn", 0)],
)
def test_a_skewed_cluster_clock_is_reported(
    sandbox_server: Any, skew: dt.timedelta, status: str, code: int
) -> None:
    sb = sandbox_server(sandbox=demo_sandbox())
    sb.sandbox.clock.set(dt.datetime.now(dt.UTC) + skew)
    result = zonectl("doctor", "--uri", sb.uri)
    assert result.code == code, result.out
    line = result.line("clock")
    assert line.startswith(status)
    assert ("ahead of" if skew.total_seconds() > 0 else "behind") in line
    assert "NTP" in result.out


def test_the_lease_of_a_killed_run_on_this_host_is_a_warning_not_break_lease(
    sandbox_server: Any,
) -> None:
    """After kill -9 the next apply, rotate or recover takes the dead run's lease over at
    once (the holder's pid is gone on this host); doctor failed it and sent the operator
    to --break-lease, the flag the docs warn about."""
    sb = sandbox_server(sandbox=demo_sandbox())
    gone = child_procs.popen([sys.executable, "-c", "pass"])
    gone.wait(timeout=30)
    now = dt.datetime.now(dt.UTC)
    sb.client.zonectl.locks.insert_one(
        {"_id": "apply", "owner": "root@here", "host": socket.gethostname(), "pid": gone.pid,
         "operation": "apply", "token": "t", "acquired": now,
         "expires": now + dt.timedelta(minutes=5)}
    )  # fmt: skip
    result = zonectl("doctor", "--uri", sb.uri)
    assert result.code == 0, result.out
    assert result.line("lease").startswith("warn") and "a run that is gone" in result.line("lease")
    assert "--break-lease" not in result.out


def test_a_held_lease_fails_naming_its_holder(sandbox_server: Any) -> None:
    sb = sandbox_server(sandbox=demo_sandbox())
    now = dt.datetime.now(dt.UTC)
    sb.client.zonectl.locks.insert_one(
        {"_id": "apply", "owner": "cron@ops-3", "pid": 4242, "operation": "rotate",
         "token": "t", "acquired": now, "expires": now + dt.timedelta(minutes=5)}
    )  # fmt: skip
    before = snapshot(sb.client)
    result = zonectl("doctor", "--uri", sb.uri)
    assert result.code == 1
    assert result.line("lease").startswith("fail")
    assert "cron@ops-3 (pid 4242, rotate)" in result.line("lease")
    probe = zonectl("doctor", "--uri", sb.uri, "--probe")
    assert probe.code == 1
    assert "--probe refused: lease held by cron@ops-3" in probe.line("probe")
    assert "probe:shardCollection" not in probe.out
    assert snapshot(sb.client) == before


def test_an_expired_lease_and_an_open_journal_are_warnings(sandbox_server: Any) -> None:
    sb = sandbox_server(sandbox=demo_sandbox())
    then = dt.datetime.now(dt.UTC) - dt.timedelta(hours=1)
    sb.client.zonectl.locks.insert_one(
        {"_id": "apply", "owner": "cron@ops-3", "operation": "apply", "token": "t",
         "acquired": then, "expires": then + dt.timedelta(minutes=5)}
    )  # fmt: skip
    sb.client.zonectl.journal.insert_one(
        {"_id": "a1", "type": "apply", "state": "open", "started": then}
    )
    result = zonectl("doctor", "--uri", sb.uri)
    assert result.code == 0, result.out
    assert result.status("lease") == "warn"
    assert result.status("journal") == "warn"
    assert "zonectl recover" in result.out


def write_policy(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "policy.yaml"
    path.write_text("apiVersion: zonectl/v1\nkind: ZonePolicy\n" + body)
    return path


def test_a_policy_key_change_is_reported_at_its_line_with_what_resharding_needs(
    sandbox_server: Any, tmp_path: Path
) -> None:
    sb = sandbox_server(sandbox=demo_sandbox())
    policy = write_policy(
        tmp_path,
        "collections:\n  app.users:\n    key: {country: 1}\n    balancing: true\n"
        "  app.reports:\n    key: {_id: hashed}\n    balancing: false\n",
    )
    result = zonectl("doctor", str(policy), "--uri", sb.uri)
    line = result.line("policy:app.users")
    assert line.startswith("warn") and "reshardCollection copies the collection" in line
    assert "the policy says key {country: 1}" in line
    assert f"{policy}:4:" in line
    assert "the cluster has {country: 1, userId: 1}" in line
    assert result.status("policy:app.reports") == "ok"


def test_an_unknown_shard_and_an_unsharded_namespace(sandbox_server: Any, tmp_path: Path) -> None:
    sb = sandbox_server(sandbox=demo_sandbox())
    policy = write_policy(
        tmp_path,
        "shards:\n  shard-nope: [hot]\ncollections:\n  app.nothere:\n    pin: hot\n",
    )
    result = zonectl("doctor", str(policy), "--uri", sb.uri)
    assert result.code == 1
    assert result.line("policy:shards").startswith("fail")
    assert "shard-nope" in result.line("policy:shards")
    assert result.status("policy:app.nothere") == "warn"


def _three_shards(text: str) -> Sandbox:
    sandbox = Sandbox("7.0")
    seed.seed(sandbox, load_cluster_file("cluster.yaml", text), "cluster.yaml")
    return sandbox


def test_shards_the_policy_adds_drains_or_removed_pass(sandbox_server: Any, tmp_path: Path) -> None:
    """docs/shard-lifecycle.md: doctor before the first apply. A shard the policy adds
    (`host:`), one draining that it removes, and one it has removed are the policy's own
    work, not unknown shards nor a draining shard given zones."""
    grow = write_policy(
        tmp_path,
        "shards:\n  s0: [eu]\n  s1: [eu]\n  s2: [us]\n"
        "  s3: {zones: [us], host: 'rs3/s3-a:27018'}\n",
    )
    sb = sandbox_server(sandbox=_three_shards(THREE_SHARDS))
    result = zonectl("doctor", str(grow), "--uri", sb.uri)
    assert result.code == 0, result.out
    assert "to add (host given): s3" in result.line("policy:shards")
    remove = tmp_path / "remove.yaml"
    remove.write_text(REMOVE_S1)
    sb = sandbox_server(sandbox=_three_shards(S1_DRAINING))
    result = zonectl("doctor", str(remove), "--uri", sb.uri)
    assert result.code == 0, result.out
    assert result.line("draining").startswith("ok") and "the policy removes" in result.out
    # someone else's drain of a shard the policy gives zones to still fails
    keep = write_policy(tmp_path, "shards:\n  s0: [eu]\n  s1: [eu]\n  s2: [us]\n")
    result = zonectl("doctor", str(keep), "--uri", sb.uri)
    assert result.code == 1
    assert "the policy gives zones to s1" in result.line("draining")
    gone = (
        THREE_SHARDS.replace("  - {name: s1, zones: [eu]}\n", "")
        .replace("primary: s1", "primary: s0")
        .replace("placement: [s0, s1, s1, s2]", "placement: [s0, s0, s0, s2]")
    )  # s1 removed: its chunks and database moved to s0
    sb = sandbox_server(sandbox=_three_shards(gone))
    result = zonectl("doctor", str(remove), "--uri", sb.uri)
    assert result.code == 0, result.out
    assert "removed, as the policy says: s1" in result.line("policy:shards")


@pytest.mark.parametrize(
    ("topology", "what"),
    [("standalone", "a standalone mongod"), ("replicaSet", "a member of replica set rs0")],
)
def test_a_standalone_or_replica_set_is_one_clear_line(topology: str, what: str) -> None:
    result = zonectl("doctor", "--uri", f"sandbox:?topology={topology}")
    assert result.code == 1
    first = result.err.splitlines()[0]
    assert "is not a mongos" in first and f"it answers as {what}" in first
    assert result.out == ""


def test_an_unreachable_cluster_is_one_clear_line() -> None:
    result = zonectl("doctor", "--uri", "mongodb://127.0.0.1:9/?serverSelectionTimeoutMS=200")
    assert result.code == 1
    assert result.err.startswith("zonectl: error: cannot reach mongodb://127.0.0.1:9/")
    assert "Topology Description" not in result.err
    assert len(result.err.splitlines()) == 1


def test_jumbo_chunks_and_migrations_in_flight_are_warnings(sandbox_server: Any) -> None:
    sandbox = demo_sandbox()
    store = sandbox.cluster.chunks("app.users")
    assert store is not None
    store.set_jumbo(0, True)
    sb = sandbox_server(sandbox=sandbox)
    sb.client.config.migrations.insert_one({"_id": "m1", "ns": "app.users"})
    result = zonectl("doctor", str(DEMO), "--uri", sb.uri)
    assert result.code == 0, result.out
    assert result.status("jumbo") == "warn"
    assert "app.users 1" in result.line("jumbo")
    assert result.status("migrations") == "warn"
    assert zonectl("doctor", str(DEMO), "--uri", sb.uri, "--strict").code == 1


def test_json_says_not_ok_and_names_the_failing_check(sandbox_server: Any) -> None:
    sb = sandbox_server(sandbox=demo_sandbox())
    sb.sandbox.clock.set(dt.datetime.now(dt.UTC) - dt.timedelta(hours=1))
    doc = doctor_json("--uri", sb.uri)
    assert doc["exit"] == 1 and doc["ok"] is False
    [failed] = [c for c in doc["checks"] if c["status"] == "fail"]
    assert failed["name"] == "clock" and "NTP" in failed["fix"]


def test_an_invalid_policy_exits_3_before_connecting(tmp_path: Path) -> None:
    policy = write_policy(tmp_path, "collections:\n  nodot: {}\n")
    result = zonectl("doctor", str(policy), "--uri", "mongodb://127.0.0.1:9/")
    assert result.code == 3
    assert f"{policy}:4:" in result.err
    assert "cannot reach" not in result.err


def test_doctor_names_the_query_sampling_privileges(sandbox_server: Any) -> None:
    sb = sandbox_server(sandbox=demo_sandbox(auth=USERS))
    ops = zonectl("doctor", "--uri", uri_of(sb, "ops"))
    # clusterManager may configure sampling, but $listSampledQueries is clusterMonitor's
    assert ops.status("privileges:analyze") == "warn"
    assert "listSampledQueries on the cluster" in ops.line("privileges:analyze")
    monitor = zonectl("doctor", str(DEMO), "--uri", uri_of(sb, "monitor"))
    assert "configureQueryAnalyzer on" in monitor.line("privileges:apply")
    assert "analyzeShardKey on" in monitor.line("privileges:analyze")
