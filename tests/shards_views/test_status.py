"""`zonectl status` of a cluster caught mid-drain, through the CLI against the sandbox: each
draining shard with what it still holds (per collection in JSON), jumbo chunks, unsharded
data and primaries, orphans, the ETA and the blockers, in text, JSON and HTML."""

from __future__ import annotations

import json
from pathlib import Path

from views_kit import CLUSTER, cluster_uri, zonectl


def _status(uri: str, *more: str) -> str:
    out = zonectl("status", "--uri", uri, *more)
    assert out.exit_code == 0, out.stderr
    return str(out.stdout)


def _drain(doc: dict, shard: str) -> dict:
    return next(d for d in doc["drains"] if d["shard"] == shard)


def test_the_json_view_has_each_drain_per_collection_with_its_blockers(tmp_path: Path) -> None:
    doc = json.loads(_status(cluster_uri(tmp_path), "--format", "json"))
    assert [d["shard"] for d in doc["drains"]] == ["s1"]
    drain = _drain(doc, "s1")
    remaining = drain["remaining"]
    users = next(c for c in remaining["collections"] if c["namespace"] == "app.users")
    assert (users["chunks"], len(users["jumbo"])) == (2, 1)
    assert users["jumbo"][0]["min"] == {"country": "FR"}
    assert remaining["jumboChunks"] == 1
    assert remaining["chunks"] == sum(c["chunks"] for c in remaining["collections"])
    assert remaining["databases"] == ["app"]
    assert [b["code"] for b in drain["blockers"]] == ["jumbo"]
    assert drain["blocked"] is True
    assert "--force-jumbo" in drain["blockers"][0]["fix"]


def test_the_text_view_names_the_drain_and_each_blocker_with_its_fix(tmp_path: Path) -> None:
    out = _status(cluster_uri(tmp_path))
    lines = out.splitlines()
    head = lines.index("draining shards")
    assert lines[head + 1].startswith("  s1: ")
    block = "\n".join(lines[head : head + 12])
    assert "    BLOCKED (jumbo): 1 jumbo chunk on s1 the balancer skips while draining" in block
    assert "      fix: `zonectl apply --migrate --force-jumbo`" in block
    assert "    primary of (movePrimary): app" in block


def test_the_balancer_off_and_a_closed_window_block_the_drain(tmp_path: Path) -> None:
    off = CLUSTER + "balancer: {enabled: false}\n"
    doc = json.loads(_status(cluster_uri(tmp_path, off), "--format", "json"))
    assert [b["code"] for b in _drain(doc, "s1")["blockers"]] == ["balancer-off", "jumbo"]
    closed = CLUSTER + 'balancer: {activeWindow: {start: "01:00", stop: "05:00"}}\n'
    doc = json.loads(_status(cluster_uri(tmp_path, closed), "--format", "json"))
    blockers = _drain(doc, "s1")["blockers"]
    assert [b["code"] for b in blockers] == ["outside-window", "jumbo"]
    assert "window 01:00-05:00 is closed" in blockers[0]["message"]
    # The same window read in a zone where it is 02:00 now: open, no blocker.
    doc = json.loads(
        _status(cluster_uri(tmp_path, closed), "--format", "json", "--balancer-tz", "Asia/Tokyo")
    )  # 10:00Z is 19:00 in Tokyo: still closed
    assert "outside-window" in [b["code"] for b in _drain(doc, "s1")["blockers"]]
    doc = json.loads(
        _status(
            cluster_uri(tmp_path, closed), "--format", "json", "--balancer-tz", "America/Chicago"
        )
    )  # 10:00Z is 04:00 in Chicago: open
    assert "outside-window" not in [b["code"] for b in _drain(doc, "s1")["blockers"]]


def test_a_zone_whose_other_shards_all_drain_has_no_recipient(tmp_path: Path) -> None:
    both = CLUSTER.replace("{name: s2, zones: [us]}", "{name: s2, zones: [us], draining: true}")
    both = both.replace(
        "{name: s1, zones: [eu], draining: true}", "{name: s1, zones: [eu, us], draining: true}"
    )
    doc = json.loads(_status(cluster_uri(tmp_path, both), "--format", "json"))
    assert [d["shard"] for d in doc["drains"]] == ["s1", "s2"]
    s1 = _drain(doc, "s1")["blockers"]
    assert [b["code"] for b in s1] == ["jumbo", "no-recipient"]
    assert s1[1]["message"] == (
        "zone us (ranges of app.users) has no shard that can receive s1's chunks in it: "
        "its other shard (s2) is draining"
    )
    assert [b["code"] for b in _drain(doc, "s2")["blockers"]] == ["no-recipient"]


def test_the_html_page_has_a_section_per_drain(tmp_path: Path) -> None:
    page = _status(cluster_uri(tmp_path), "--format", "html")
    assert "<h2>Shards being drained</h2>" in page
    assert '<h3 data-shard="s1">s1</h3>' in page
    assert 'data-blocker="jumbo"' in page


def test_no_shard_draining_no_drain_section(tmp_path: Path) -> None:
    calm = CLUSTER.replace(", draining: true", "")
    doc = json.loads(_status(cluster_uri(tmp_path, calm), "--format", "json"))
    assert doc["drains"] == []
    assert "draining shards" not in _status(cluster_uri(tmp_path, calm))


def test_the_eta_is_the_drain_forecasts_balancer_route(tmp_path: Path) -> None:
    free = CLUSTER.replace("    jumbo: [2]\n", "")  # nothing stops the balancer
    doc = json.loads(_status(cluster_uri(tmp_path, free), "--format", "json"))
    drain = _drain(doc, "s1")
    [route] = doc["forecast"]["drains"]
    assert route["shard"] == "s1"
    finish = route["balancer"]["at"]
    assert drain["eta"] is not None and drain["eta"] == finish
    assert drain["blocked"] is False and drain["etaNote"] is None
    text = _status(cluster_uri(tmp_path, free))
    shown = f"{finish[:10]} {finish[11:16]} UTC"
    assert f"    ETA: empty by {shown} (forecast, by the balancer)" in text.splitlines()


def test_a_blocked_drain_has_no_eta_and_says_why(tmp_path: Path) -> None:
    doc = json.loads(_status(cluster_uri(tmp_path), "--format", "json"))
    drain = _drain(doc, "s1")
    assert drain["eta"] is None
    assert drain["etaNote"].startswith("never by the balancer: 1 jumbo chunk stays")
    text = _status(cluster_uri(tmp_path)).splitlines()
    assert "    ETA: never by the balancer as things stand (BLOCKED below)" in text
