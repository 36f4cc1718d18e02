"""status (text, JSON, HTML, OpenMetrics) shows each shard's disk now and once what the
cluster still has to move has arrived: app.events' 128 chunks (8 GiB) sit on s0 while its
range belongs to zone small on the 20 GiB shard s1 (14 GiB used), the balancer off. One or
two dbStats whatever the number of collections; a user without dbStats gets a note."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from bson.max_key import MaxKey
from bson.min_key import MinKey
from capacity_kit import GIB, cluster, make_sandbox, zonectl
from wire_count import Sent, counting, registered

from zonectl.sandbox.auth.users import AuthConfig, User

S1 = (
    "  s1: volume 20.0 GiB, 14.0 GiB used (70.0%); after pending moves 18.1 GiB (90.5%); "
    "limit 85% (17.0 GiB): PAST ITS LIMIT after the pending moves"
)


def _zoned(sandbox_server: Any, text: str | None = None, **kwargs: Any) -> Any:
    """The cluster served, then app.events' whole range given to zone small (s1) with the
    balancer off: every chunk is out of its zone, nothing moved yet."""
    text = text or cluster() + "balancer: {enabled: false}\n"
    handle = sandbox_server("8.0", sandbox=make_sandbox("8.0", text, **kwargs))
    client = handle.client
    if "auth" in kwargs:  # the test's root user sets the zones up
        client = handle.new_client(username="root", password="pw", authSource="admin")
    admin = client.admin
    admin.command("addShardToZone", "s1", zone="small")
    admin.command("addShardToZone", "s2", zone="big")
    admin.command(
        "updateZoneKeyRange", "app.events", min={"x": MinKey()}, max={"x": MaxKey()}, zone="small"
    )
    return handle


def test_status_shows_each_shards_disk_now_and_after_the_pending_moves(
    sandbox_server: Any,
) -> None:
    sb = _zoned(sandbox_server)
    code, out, err = zonectl("status", "--uri", sb.uri)
    assert code == 0, err
    lines = out.splitlines()
    at = lines.index("disk (now, and after the pending moves)")
    assert lines[at + 1].startswith("  s0: volume 400.0 GiB, 6.1 GiB used (1.5%); after pending")
    assert lines[at + 2] == S1
    assert lines[at + 3] == (
        "    pending zone ranges (apply --migrate or the balancer): +4.1 GiB on disk "
        "(8.0 GiB of app.events)"
    )
    assert lines[at + 4].startswith("  s2: volume 500.0 GiB, 2.0 GiB used (0.4%)")
    code, out, err = zonectl("status", "--uri", sb.uri, "--format", "json")
    assert code == 0, err
    disk = json.loads(out)["disk"]
    assert (disk["database"], disk["blocked"], disk["over_before"]) == ("app", ["s1"], [])
    s1 = next(s for s in disk["shards"] if s["shard"] == "s1")
    assert (s1["total_bytes"], s1["used_bytes"], s1["used_ratio"]) == (20 * GIB, 14 * GIB, 0.7)
    assert (s1["limit"], s1["projected_ratio"]) == ("85%", 0.9047)
    assert [r["route"] for r in s1["routes"]] == ["ranges"]
    # what arrives is status's own out-of-zone estimate ($shardedDataDistribution)
    [events] = json.loads(out)["namespaces"]
    outside = events["compliance"]["bytesOutsideZoneEstimate"]
    assert s1["routes"][0]["incoming_bytes"] == outside > 8 * 10**9
    s0 = next(s for s in disk["shards"] if s["shard"] == "s0")
    assert s0["projected_bytes"] == s0["used_bytes"]  # a donor keeps its files' space


def test_status_uses_the_policys_disk_limit(sandbox_server: Any, tmp_path: Path) -> None:
    sb = _zoned(sandbox_server)
    path = tmp_path / "policy.yaml"
    path.write_text(
        "apiVersion: zonectl/v1\nkind: ZonePolicy\ndisk: {limit: '95%'}\n"
        "shards:\n  s1: [small]\n  s2: [big]\ncollections:\n  app.events: {pin: small}\n"
    )
    code, out, err = zonectl("status", str(path), "--uri", sb.uri, "--format", "json")
    assert code == 0, err
    disk = json.loads(out)["disk"]
    s1 = next(s for s in disk["shards"] if s["shard"] == "s1")
    assert (s1["limit"], s1["blocked"], disk["blocked"]) == ("95%", False, [])


def test_metrics_give_each_shards_used_projected_and_limit_ratios(sandbox_server: Any) -> None:
    sb = _zoned(sandbox_server)
    code, out, err = zonectl("status", "--uri", sb.uri, "--format", "openmetrics")
    assert code == 0, err
    s1 = {
        line.split("{")[0]: float(line.split()[-1])
        for line in out.splitlines()
        if line.startswith("zonectl_shard_disk_") and 'shard="s1"' in line
    }
    assert s1["zonectl_shard_disk_used_ratio"] == 0.7
    assert round(s1["zonectl_shard_disk_projected_ratio"], 4) == 0.9047
    assert s1["zonectl_shard_disk_limit_ratio"] == 0.85


def test_the_html_page_has_a_disk_table(sandbox_server: Any) -> None:
    sb = _zoned(sandbox_server)
    code, out, err = zonectl("status", "--uri", sb.uri, "--format", "html")
    assert code == 0, err
    assert "<h2>Per shard: disk</h2>" in out
    assert (
        '<tr><td>s1</td><td class="n">20.0 GiB</td><td class="n">14.0 GiB (70.0%)</td>'
        '<td class="n">18.1 GiB (90.5%)</td><td>85% (17.0 GiB)</td>'
        "<td>PAST ITS LIMIT after the pending moves</td></tr>"
    ) in out


def test_a_user_without_dbstats_gets_a_note_and_no_disk_figures(sandbox_server: Any) -> None:
    users = AuthConfig(
        users=[
            User("ops", "admin", "pw", ("clusterManager", ("readWrite", "zonectl"))),
            User("root", "admin", "pw", ("root",)),
        ],
        iterations_sha256=4096,
        iterations_sha1=4096,
    )
    sb = _zoned(sandbox_server, auth=users)
    uri = str(sb.uri).replace("mongodb://", "mongodb://ops:pw@")
    code, out, err = zonectl("status", "--uri", uri, "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["disk"] is None
    assert (
        # this user may not read $shardedDataDistribution either: nothing pending is sized,
        # so the volumes are asked of admin
        "disk use not read: dbStats on admin is not allowed for this user (Unauthorized; the "
        "dbStats action, e.g. the clusterMonitor role)"
    ) in doc["notes"]
    code, out, err = zonectl("status", "--uri", uri, "--format", "openmetrics")
    assert code == 0, err
    assert "zonectl_shard_disk" not in out  # unknown, not 0


@pytest.fixture(scope="module")
def sent() -> Iterator[Sent]:
    yield from registered()  # for the session: counting only inside `counting`


def _many(n: int) -> str:
    text = cluster()
    for i in range(n):
        text += f"  - {{ns: shop.c{i:03d}, key: {{k: 1}}, chunks: 2, shard: s2}}\n"
    return text + "balancer: {enabled: false}\n"


def test_status_reads_the_volumes_in_two_dbstats_whatever_the_collections(
    sandbox_server: Any, sent: Sent
) -> None:
    counts = []
    for n in (2, 40):
        sb = _zoned(sandbox_server, _many(n))
        with counting(sent):
            code, out, err = zonectl("status", "--uri", sb.uri, "--format", "json")
        assert code == 0, err
        assert len(json.loads(out)["disk"]["shards"]) == 3
        counts.append(sent.names["dbStats"])
    # app's dbStats, then admin's for the shard holding none of app (s2)
    assert counts == [2, 2]
