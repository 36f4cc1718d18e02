"""The metrics and the analysis of a cluster caught mid-drain, through the CLI against the
sandbox: remaining chunks and bytes and a blocked flag per reason for each draining shard;
analyze's findings for a drain that cannot finish, with the fix."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from views_kit import CLUSTER, cluster_uri, zonectl

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "metrics"))
from metrics_kit import samples


def _metrics(uri: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    out = zonectl("status", "--uri", uri, "--format", "openmetrics")
    assert out.exit_code == 0, out.stderr
    found: dict[tuple[str, frozenset[tuple[str, str]]], float] = {}
    for (name, labels), v in samples(out.stdout).items():
        if name.startswith("zonectl_shard_draining_"):
            found[(name, frozenset((k, x) for k, x in labels if k != "cluster"))] = v
    return found


def _key(name: str, **labels: str) -> tuple[str, frozenset[tuple[str, str]]]:
    return (f"zonectl_shard_draining_{name}", frozenset(labels.items()))


def test_a_drain_has_its_remaining_chunks_and_bytes_and_a_flag_per_reason(tmp_path: Path) -> None:
    found = _metrics(cluster_uri(tmp_path))
    doc = json.loads(zonectl("status", "--uri", cluster_uri(tmp_path), "-f", "json").stdout)
    [drain] = doc["drains"]
    assert found[_key("remaining_chunks", shard="s1")] == drain["remaining"]["chunks"]
    assert found[_key("remaining_bytes", shard="s1")] == drain["remaining"]["bytes"] > 0
    flags = {
        dict(labels)["reason"]: v
        for (name, labels), v in found.items()
        if name == "zonectl_shard_draining_blocked"
    }
    assert flags == {"balancer-off": 0, "outside-window": 0, "jumbo": 1, "no-recipient": 0}


def test_no_drain_no_draining_series(tmp_path: Path) -> None:
    assert _metrics(cluster_uri(tmp_path, CLUSTER.replace(", draining: true", ""))) == {}


def _findings(uri: str) -> dict[str, dict[str, Any]]:
    out = zonectl("analyze", "--uri", uri, "--format", "json")
    assert out.exit_code in (0, 1, 4), out.stderr
    doc = json.loads(out.stdout)
    return {f["rule"]: f for f in doc["findings"] if f["rule"] in ("ZA112", "ZA113", "ZA114")}


def test_analyze_warns_of_a_drain_a_jumbo_chunk_or_the_balancer_off_will_not_finish(
    tmp_path: Path,
) -> None:
    found = _findings(cluster_uri(tmp_path, CLUSTER + "balancer: {enabled: false}\n"))
    assert sorted(found) == ["ZA112", "ZA114"]
    assert found["ZA112"]["severity"] == "error"
    assert "--force-jumbo" in found["ZA112"]["fix"]
    assert "attemptToBalanceJumboChunks does not help" in found["ZA112"]["fix"]
    assert found["ZA114"]["severity"] == "warning"


def test_a_zone_carried_only_by_draining_shards_is_za108_not_a_second_finding(
    tmp_path: Path,
) -> None:
    # s1 also holds app.users' [US, MaxKey) chunk, zone us, which only s1 carries... once s2
    # leaves zone us: every shard of zone us is then s1, so ZA108 names it instead of ZA113.
    lone = CLUSTER.replace("placement: [s0, s1, s1, s2]", "placement: [s0, s1, s1, s1]")
    lone = lone.replace("{name: s2, zones: [us]}", "{name: s2, zones: []}")
    lone = lone.replace(
        "{name: s1, zones: [eu], draining: true}", "{name: s1, zones: [eu, us], draining: true}"
    )
    out = zonectl("analyze", "--uri", cluster_uri(tmp_path, lone), "--format", "json")
    rules = {f["rule"] for f in json.loads(out.stdout)["findings"]}
    assert "ZA108" in rules and "ZA113" not in rules


def test_analyze_names_a_zone_no_other_shard_carries_with_its_fix(tmp_path: Path) -> None:
    # zone us keeps its range but no shard carries it (config.tags written directly): s1's
    # chunk [US, MaxKey) has nowhere to go.
    lone = CLUSTER.replace("placement: [s0, s1, s1, s2]", "placement: [s0, s1, s1, s1]")
    lone = lone.replace("{name: s2, zones: [us]}", "{name: s2, zones: []}")
    found = _findings(cluster_uri(tmp_path, lone))
    assert found["ZA113"]["evidence"] == (
        "s1 is draining and holds chunks of app.users, whose zone us no other shard carries: "
        "the balancer has nowhere to move them, so the removal never finishes"
    )
    assert found["ZA113"]["fix"].startswith("Give zone us to an active shard")
