"""A firehose window too big for its hot shards (issue 40, item 3): app.events takes in a
1 GiB chunk a day (stored at half), keep 7 on hot0, a 20 GiB volume with 13 GiB of other
data. analyze gives ZA115 with the days until full and the keep that fits; plan warns the
same. The sandbox's clock is pinned (`sandbox:FILE?now=`)."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

from capacity_kit import zonectl

from zonectl.sandbox.auth.users import AuthConfig, User
from zonectl.sandbox.seed import build
from zonectl.sandbox.seed.schema import load_cluster_file
from zonectl.sandbox.state import Sandbox

NOW = "2026-03-02T12:00:00Z"
CLUSTER = """
shards:
  - {name: hot0, zones: [hot], disk: {size: 20GiB, baseline: 13GiB}}
  - {name: cold0, zones: [archive], disk: {size: 1TiB, baseline: 2GiB}}
databases:
  - {name: app, primary: cold0}
collections:
  - ns: app.events
    key: {ts: 1}
    chunks: 30
    keys: {type: date, start: "2026-02-01T00:00:00Z", step: 1d}
    chunkSize: {bytes: 1073741824, docs: 100000}
    compression: 0.5
zones:
  - {ns: app.events, min: {ts: {$minKey: 1}}, max: {ts: {$date: "2026-02-24T00:00:00Z"}},
     zone: archive}
  - {ns: app.events, min: {ts: {$date: "2026-02-24T00:00:00Z"}}, max: {ts: {$maxKey: 1}},
     zone: hot}
"""
POLICY = """apiVersion: zonectl/v1
kind: ZonePolicy
shards:
  hot0: [hot]
  cold0: [archive]
collections:
  app.events:
    key: {ts: 1}
    firehose: {field: ts, type: date, schedule: "0 0 * * *", timezone: UTC, keep: 7,
               hot: hot, cold: archive}
"""
EVIDENCE = (
    "hot zone hot (hot0) takes in about 1.0 GiB a day (518.1 MiB on disk; the last 3 days "
    "measured); keep 7 plus 1 day of headroom need 4.0 GiB on disk, the window holds 3.5 GiB "
    "and its shards have 469.3 MiB left before their disk limits: full in 0.9 days"
)
FIX = (
    "Set keep to 6 (what fits), give zone hot another shard or a larger volume, or compact "
    "its shards (WiredTiger keeps the space chunks left)."
)


def _files(tmp_path: Path, cluster: str = CLUSTER) -> tuple[str, str]:
    (tmp_path / "cluster.yaml").write_text(cluster)
    (tmp_path / "policy.yaml").write_text(POLICY)
    return str(tmp_path / "policy.yaml"), f"sandbox:{tmp_path / 'cluster.yaml'}?now={NOW}"


def _za115(out: str) -> list[dict[str, str]]:
    [events] = json.loads(out)["collections"]
    return [f for f in events["findings"] if f["rule"] == "ZA115"]


def test_analyze_finds_a_window_too_big_for_its_hot_shards(tmp_path: Path) -> None:
    policy, uri = _files(tmp_path)
    code, out, err = zonectl("analyze", policy, "--uri", uri, "--format", "json")
    assert code == 0, err
    [finding] = _za115(out)
    assert (finding["name"], finding["severity"]) == ("firehose-hot-zone-too-small", "warning")
    assert (finding["evidence"], finding["fix"]) == (EVIDENCE, FIX)
    assert finding["source"] == "dataSize and dbStats"
    code, out, err = zonectl("analyze", policy, "--uri", uri)
    assert code == 0, err
    assert f"  warning ZA115 firehose-hot-zone-too-small: {EVIDENCE}" in out.splitlines()


def test_plan_warns_with_the_days_until_full_and_the_keep_that_fits(tmp_path: Path) -> None:
    policy, uri = _files(tmp_path)
    code, out, err = zonectl("plan", policy, "--uri", uri, "--format", "json")
    assert code == 0, err
    warning = f"{policy}:9:15: ZA115 firehose-hot-zone-too-small: {EVIDENCE}; fix: {FIX}"
    assert json.loads(out)["warnings"] == [warning]
    assert f"zonectl: warning: {warning}" in err.splitlines()


def test_a_window_that_fits_its_hot_shards_gets_nothing(tmp_path: Path) -> None:
    roomy = CLUSTER.replace("size: 20GiB, baseline: 13GiB", "size: 200GiB, baseline: 13GiB")
    policy, uri = _files(tmp_path, roomy)
    code, out, err = zonectl("analyze", policy, "--uri", uri, "--format", "json")
    assert code == 0, err
    assert _za115(out) == []
    code, out, err = zonectl("plan", policy, "--uri", uri, "--format", "json")
    assert code == 0, err
    assert "ZA115" not in out + err


def test_a_user_who_may_not_size_the_window_is_told_it_was_not_checked(
    sandbox_server: Any, tmp_path: Path
) -> None:
    """clusterMonitor runs dbStats but has no find on app.events, which dataSize needs."""
    users = AuthConfig(
        users=[User("mon", "admin", "pw", ("clusterMonitor",))],
        iterations_sha256=4096,
        iterations_sha1=4096,
    )
    sandbox = Sandbox("7.0", auth=users)
    sandbox.clock.set(dt.datetime(2026, 3, 2, 12, tzinfo=dt.UTC))
    build.seed(sandbox, load_cluster_file("cluster.yaml", CLUSTER), "cluster.yaml")
    sb = sandbox_server("7.0", sandbox=sandbox)
    uri = str(sb.uri).replace("mongodb://", "mongodb://mon:pw@")
    policy, _ = _files(tmp_path)
    code, out, err = zonectl("analyze", policy, "--uri", uri, "--format", "json")
    assert code == 0, err
    [finding] = _za115(out)
    assert finding["severity"] == "info"
    assert finding["evidence"] == (
        "hot zone hot not checked against its disks: app.events: dataSize refused "
        "(Unauthorized; it needs the find action on app.events)"
    )
