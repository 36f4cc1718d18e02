"""Issue 31 parts 2-3 through the CLI: a plan's round trips do not grow with the number of
namespaces, and the plan's JSON states the commands it sent (`server_footprint`), against a
sandbox served over TCP. Half the collections are pinned (whole key space), half get a range
that starts inside a chunk (so the straddling chunk is looked up too)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from bson import MaxKey, MinKey
from pymongo import monitoring
from typer.testing import CliRunner

from zonectl.cli.app import app
from zonectl.cli.commands import register
from zonectl.mongo.chunk_batch import SMALL
from zonectl.sandbox.auth.users import AuthConfig, User

if not app.registered_commands:
    register(app)

SHARDS = {"fast-0": "hot", "fast-1": "hot", "std-0": "archive", "std-1": "archive"}
MIB = 1024 * 1024


def _cluster(sandbox_server: Any, n: int, key: str = "x", big_every: int = 0) -> Any:
    """n collections of four chunks; with `big_every`, every big_every-th one has more
    chunks than a plan reads whole (chunk_batch.SMALL), so it is read by targeted queries."""
    sb = sandbox_server("7.0")
    for shard, zone in SHARDS.items():
        sb.sandbox.cluster.add_shard(shard, f"{shard}/{shard}-a:27018", (zone,))
    bounds = [{key: MinKey()}, {key: 100}, {key: 200}, {key: 300}, {key: MaxKey()}]
    many = [{key: MinKey()}, *({key: 5 * j} for j in range(1, SMALL + 8)), {key: MaxKey()}]
    for i in range(n):
        cuts = many if big_every and i % big_every == 0 else bounds
        sb.sandbox.cluster.create_collection(
            f"t.c{i:04d}",
            {key: 1},
            bounds=cuts,
            shards=[list(SHARDS)[j % 4] for j in range(len(cuts) - 1)],
            sizes=[(8 + i % 5) * MIB] * (len(cuts) - 1),
            counts=[100] * (len(cuts) - 1),
        )
    return sb


def _policy(tmp_path: Path, n: int) -> Path:
    text = "apiVersion: zonectl/v1\nkind: ZonePolicy\nshards:\n"
    text += "".join(f"  {s}: [{z}]\n" for s, z in SHARDS.items()) + "collections:\n"
    for i in range(n):
        text += f"  t.c{i:04d}:\n    key: {{x: 1}}\n"
        if i % 2:
            text += "    ranges:\n      - {zone: hot, min: {x: 150}, max: {x: {$maxKey: 1}}}\n"
        else:
            text += "    pin: archive\n"
    path = tmp_path / f"policy-{n}.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def _plan(sandbox_server: Any, tmp_path: Path, n: int, big_every: int = 0) -> dict[str, Any]:
    sb = _cluster(sandbox_server, n, big_every=big_every)
    args = ["plan", str(_policy(tmp_path, n)), "--uri", sb.uri, "-f", "json"]
    result = CliRunner().invoke(app, args, catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    doc: dict[str, Any] = json.loads(result.stdout)
    return doc


def test_a_plans_round_trips_do_not_grow_from_20_to_200_namespaces(
    sandbox_server: Any, tmp_path: Path
) -> None:
    small = _plan(sandbox_server, tmp_path, 20)
    large = _plan(sandbox_server, tmp_path, 200)
    for doc, n in ((small, 20), (large, 200)):
        assert sum(1 for op in doc["ops"] if op.get("impact")) == n  # every namespace planned
        stated = doc["server_footprint"]
        assert stated["round_trips"] == sum(stated["commands"].values())
    # pins move two chunks each, ranges the one on std-0 (split) and the two on archive
    assert large["forecast"]["chunks"] > small["forecast"]["chunks"] > 16
    assert large["server_footprint"]["commands"] == small["server_footprint"]["commands"]
    assert large["server_footprint"]["round_trips"] < 40


def test_with_small_and_big_namespaces_mixed_a_plans_commands_do_not_grow_either(
    sandbox_server: Any, tmp_path: Path
) -> None:
    """Small namespaces are read whole in the first aggregate and answered in memory, big
    ones by targeted sub-pipelines in the same few aggregates: the commands at 20 and at
    200 namespaces are the same, one in five of them big."""
    small = _plan(sandbox_server, tmp_path, 20, big_every=5)
    large = _plan(sandbox_server, tmp_path, 200, big_every=5)
    for doc, n in ((small, 20), (large, 200)):
        assert sum(1 for op in doc["ops"] if op.get("impact")) == n
    # a big namespace's pin moves its chunks off archive: more than four
    assert max(op["impact"]["migrating"] for op in large["ops"] if op.get("impact")) > 4
    assert large["server_footprint"]["commands"] == small["server_footprint"]["commands"]


def test_the_plan_measures_no_more_chunks_than_asked_and_estimates_the_rest(
    sandbox_server: Any, tmp_path: Path
) -> None:
    sb = _cluster(sandbox_server, 6)
    policy = _policy(tmp_path, 6)
    for budget in (0, 3):
        args = ["plan", str(policy), "--uri", sb.uri, "-f", "json", "--measure-chunks", str(budget)]
        result = CliRunner().invoke(app, args, catch_exceptions=False)
        assert result.exit_code == 0, result.stderr
        doc = json.loads(result.stdout)
        sizes = doc["server_footprint"]["chunk_sizes"]
        assert sizes["measured"] == budget == doc["server_footprint"]["commands"].get("dataSize", 0)
        assert sizes["estimated"] == doc["forecast"]["chunks"] - budget
        assert sizes["estimated_from"] == ["$shardedDataDistribution"]


def test_a_plan_without_size_privileges_estimates_and_names_the_missing_privilege(
    sandbox_server: Any, tmp_path: Path
) -> None:
    """A zone operator (clusterManager: reads the config database, runs the zone commands)
    may not run dataSize (find on the collection), $shardedDataDistribution (clusterMonitor)
    or collStats: the plan still plans, sizes chunks at half the maximum chunk size, and
    names each refused command with the privilege it needs."""
    users = AuthConfig(
        users=[User("ops", "admin", "pw", ("clusterManager", ("readWrite", "zonectl")))],
        iterations_sha256=4096,
        iterations_sha1=4096,
    )
    sb = _cluster(lambda version: sandbox_server(version, auth=users), 4)
    uri = str(sb.uri).replace("mongodb://", "mongodb://ops:pw@")
    args = ["plan", str(_policy(tmp_path, 4)), "--uri", uri, "-f", "json"]
    result = CliRunner().invoke(app, args, catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    sizes = doc["server_footprint"]["chunk_sizes"]
    assert sizes["measured"] == sizes["estimated"] == 0
    assert sizes["assumed"] == doc["forecast"]["chunks"] > 0
    refused = sizes["refused"]
    assert refused["dataSize"] == "not authorized: needs the find action on t.c0000"
    assert "shardedDataDistribution cluster action" in refused["$shardedDataDistribution"]
    assert refused["collStats"].startswith("not authorized: needs the collStats action")
    note = doc["forecast"]["notes"][-1]
    assert "dataSize not permitted (not authorized: needs the find action on t.c0000)" in note


class Sent(monitoring.CommandListener):
    """Commands by name sent by every client of this process while `on`."""

    def __init__(self) -> None:
        self.on = False
        self.names: Counter[str] = Counter()

    def started(self, event: monitoring.CommandStartedEvent) -> None:
        if self.on:
            self.names[event.command_name] += 1

    def succeeded(self, event: monitoring.CommandSucceededEvent) -> None:
        pass

    def failed(self, event: monitoring.CommandFailedEvent) -> None:
        pass


@pytest.fixture(scope="module")
def sent() -> Iterator[Sent]:
    listener = Sent()
    monitoring.register(listener)  # registered for the session: off outside these tests
    yield listener
    listener.on = False


def _sent_by(sent: Sent, args: list[str]) -> Counter[str]:
    sent.names.clear()
    sent.on = True
    try:
        result = CliRunner().invoke(app, args, catch_exceptions=False)
    finally:
        sent.on = False
    assert result.exit_code == 0, result.stderr
    return Counter(sent.names)


def test_status_reads_do_not_grow_with_collections(sandbox_server: Any, sent: Sent) -> None:
    """Every collection's chunks in one cursor, and what balancerCollectionStatus would say
    derived from the reads explain makes (issue 41), not asked once per collection."""
    small = _sent_by(sent, ["status", "--uri", _cluster(sandbox_server, 20).uri])
    large = _sent_by(sent, ["status", "--uri", _cluster(sandbox_server, 200).uri])
    assert "balancerCollectionStatus" not in small
    assert large == small


def test_a_cron_rotate_with_nothing_due_sends_the_same_commands_for_20_or_200_windows(
    sandbox_server: Any, tmp_path: Path, sent: Sent
) -> None:
    found = []
    for n in (20, 200):
        sb = _cluster(sandbox_server, n, key="ts")
        for i in range(n):
            for zone, lo, hi in (("archive", MinKey(), 180), ("hot", 180, MaxKey())):
                sb.client.admin.command(
                    {"updateZoneKeyRange": f"t.c{i:04d}", "min": {"ts": lo},
                     "max": {"ts": hi}, "zone": zone}
                )  # fmt: skip
        policy = tmp_path / f"rotate-{n}.yaml"
        policy.write_text(_rotate_policy(n), encoding="utf-8")
        at = "1970-01-01T00:03:30+00:00"  # epoch 210: the boundary is the tick at 180 s
        args = ["rotate", str(policy), "--uri", sb.uri, "--at", at, "--yes"]
        found.append(_sent_by(sent, args))
    assert found[0] == found[1]
    assert "updateZoneKeyRange" not in found[1]  # nothing was due


def _rotate_policy(n: int) -> str:
    text = "apiVersion: zonectl/v1\nkind: ZonePolicy\nshards:\n"
    text += "".join(f"  {s}: [{z}]\n" for s, z in SHARDS.items()) + "collections:\n"
    for i in range(n):
        text += (
            f"  t.c{i:04d}:\n    key: {{ts: 1}}\n    firehose:\n      field: ts\n"
            "      type: epochSeconds\n      schedule: '*/1 * * * *'\n      timezone: UTC\n"
            "      keep: 1\n      hot: hot\n      cold: archive\n"
        )
    return text


def test_analyze_reads_do_not_grow_with_collections_but_the_key_analysis_of_each(
    sandbox_server: Any, sent: Sent
) -> None:
    """Changelog counts in one aggregation, chunks in one cursor; analyzeShardKey has no
    bulk form, so one per collection (sent concurrently)."""
    found = []
    for n in (20, 200):
        names = _sent_by(sent, ["analyze", "--uri", _cluster(sandbox_server, n).uri])
        assert names.pop("analyzeShardKey") == n
        for name in ("hello", "isMaster", "ismaster"):
            names.pop(name, None)
        found.append(names)
    assert found[0] == found[1]
