"""A cluster file's unsharded collection on a shard other than its database's primary
(`shard:`): what an 8.0 moveCollection leaves (a tracked, unsplittable collection with one
chunk there), so a plan pinning it to that shard's zone has nothing to move; refused where
no moveCollection could have put it (before 8.0, a view, a time-series collection, an
unknown shard), naming the file and the entry."""

from __future__ import annotations

from pathlib import Path

import pytest
from unsharded_kit import CLUSTER, PIN_POLICY, zonectl

MOVED = CLUSTER.replace(
    "{ns: shop.orders, bytes: 3221225472, docs: 100000}",
    "{ns: shop.orders, bytes: 3221225472, docs: 100000, shard: s1}",
)


def test_a_collection_moved_in_the_cluster_file_is_where_the_pin_wants_it(tmp_path: Path) -> None:
    (tmp_path / "cluster.yaml").write_text(MOVED)
    policy = tmp_path / "policy.yaml"
    policy.write_text(PIN_POLICY)
    uri = f"sandbox:{tmp_path / 'cluster.yaml'}?version=8.0"
    code, out, err = zonectl("plan", str(policy), "--uri", uri, "--detailed-exitcode")
    assert code == 0, out + err
    code, out, _ = zonectl("status", "--uri", uri, "--format", "json")
    assert code == 0 and '"s1"' in out


@pytest.mark.parametrize(
    ("version", "ns", "fields", "said"),
    [
        ("7.0", "shop.orders", "shard: s1", "only moveCollection (8.0+)"),
        ("8.0", "shop.report_view", "type: view, shard: s1", "a view cannot be moved"),
        ("8.0", "shop.metrics", "type: timeseries, shard: s2", "a timeseries cannot be moved"),
        ("8.0", "shop.orders", "shard: s9", "unknown shard 's9'"),
    ],
)
def test_a_place_no_move_could_give_is_refused(
    tmp_path: Path, version: str, ns: str, fields: str, said: str
) -> None:
    lines = CLUSTER.splitlines()
    (at,) = [i for i, line in enumerate(lines) if f"{{ns: {ns}," in line or f"{{ns: {ns}}}" in line]
    lines[at] = f"  - {{ns: {ns}, {fields}}}"
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text("\n".join(lines) + "\n")
    code, _, err = zonectl("status", "--uri", f"sandbox:{cluster}?version={version}")
    assert code == 1 and said in err and f"unsharded: {ns}" in err and str(cluster) in err, err
