"""Shard-key rules (ZA101-ZA104): each triggered on a cluster built for it, and silent on a
healthy collection, through `zonectl analyze` against a served sandbox."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.analyze.kit import SHARDS, analyze, collection, rules, serve_cluster

FIREHOSE = """
apiVersion: zonectl/v1
kind: ZonePolicy
shards: {s0: [a], s1: [a], s2: [b]}
collections:
  app.ev:
    firehose: {field: ts, type: date, schedule: "0 0 * * *", keep: 1, hot: a}
"""


def _ev(key: str, extra: str = "") -> str:
    return (
        SHARDS
        + f"""
collections:
  - ns: app.ev
    key: {key}
    chunks: 6
    keys: {{type: date, start: "2026-01-01T00:00:00Z", step: 1d}}
{extra}"""
    )


def test_firehose_on_a_hashed_key_is_an_error(sandbox_server: Any, tmp_path: Path) -> None:
    cluster = (
        SHARDS
        + """
collections:
  - {ns: app.ev, key: {ts: hashed}, chunks: 4}
"""
    )
    handle = serve_cluster(sandbox_server, cluster)
    code, report, err = analyze(handle.uri, tmp_path, FIREHOSE)
    assert code == 0, err
    finding = next(f for f in collection(report, "app.ev")["findings"] if f["rule"] == "ZA101")
    assert finding["severity"] == "error"
    assert "hashed" in finding["evidence"]


def test_firehose_on_an_ascending_date_key_raises_no_key_rule(
    sandbox_server: Any, tmp_path: Path
) -> None:
    handle = serve_cluster(sandbox_server, _ev("{ts: 1, _id: 1}"))
    _, report, _ = analyze(handle.uri, tmp_path, FIREHOSE)
    assert not rules(report, "app.ev") & {"ZA101", "ZA102", "ZA103", "ZA104"}


def test_firehose_on_a_key_with_random_inserts_warns(sandbox_server: Any, tmp_path: Path) -> None:
    handle = serve_cluster(
        sandbox_server, _ev("{ts: 1, _id: 1}", "    documents: {inserts: random}")
    )
    _, report, _ = analyze(handle.uri, tmp_path, FIREHOSE)
    finding = next(f for f in collection(report, "app.ev")["findings"] if f["rule"] == "ZA102")
    assert finding["severity"] == "warning" and finding["source"] == "analyzeShardKey"


def test_a_monotonic_key_without_a_window_warns_and_names_the_top_shard(
    sandbox_server: Any, tmp_path: Path
) -> None:
    handle = serve_cluster(sandbox_server, _ev("{ts: 1}"))
    _, report, _ = analyze(handle.uri, tmp_path)
    finding = next(f for f in collection(report, "app.ev")["findings"] if f["rule"] == "ZA103")
    top = handle.sandbox.cluster.chunks("app.ev").shard_at(5)
    assert f"top chunk on {top}" in finding["evidence"]


def test_a_key_with_random_inserts_raises_no_monotonicity_warning(
    sandbox_server: Any, tmp_path: Path
) -> None:
    cluster = (
        SHARDS
        + """
collections:
  - {ns: app.s, key: {userId: 1}, chunks: 6, keys: {type: int, start: 0, step: 1000}}
"""
    )
    handle = serve_cluster(sandbox_server, cluster)
    _, report, _ = analyze(handle.uri, tmp_path)
    assert "ZA103" not in rules(report, "app.s")
    figures = {f["name"]: f for f in collection(report, "app.s")["figures"]}
    assert figures["monotonicity"]["value"].startswith("not monotonic")
    assert figures["monotonicity"]["source"] == "analyzeShardKey"


LOW = (
    SHARDS
    + """
collections:
  - ns: app.u
    key: {country: 1}
    keys: {type: list, values: [DE, FR, US]}
    chunkSize: {bytes: 335544320, docs: 1000000}
    documents: {distinct: 3, topFrequency: 1000000}
"""
)


def test_a_value_bigger_than_a_chunk_under_zone_ranges_is_an_error(
    sandbox_server: Any, tmp_path: Path
) -> None:
    zones = """
zones:
  - {ns: app.u, min: {country: DE}, max: {country: FR}, zone: a}
"""
    handle = serve_cluster(sandbox_server, LOW + zones)
    _, report, _ = analyze(handle.uri, tmp_path)
    finding = next(f for f in collection(report, "app.u")["findings"] if f["rule"] == "ZA104")
    assert finding["severity"] == "error"
    assert "cannot split" in finding["evidence"]


def test_a_value_bigger_than_a_chunk_without_zones_is_a_warning(
    sandbox_server: Any, tmp_path: Path
) -> None:
    handle = serve_cluster(sandbox_server, LOW)
    _, report, _ = analyze(handle.uri, tmp_path)
    severities = {f["severity"] for f in collection(report, "app.u")["findings"]
                  if f["rule"] == "ZA104"}  # fmt: skip
    assert severities == {"warning"}


def test_a_high_cardinality_key_raises_no_frequency_finding(
    sandbox_server: Any, tmp_path: Path
) -> None:
    handle = serve_cluster(sandbox_server, LOW.replace("distinct: 3, topFrequency: 1000000", ""))
    _, report, _ = analyze(handle.uri, tmp_path)
    assert "ZA104" not in rules(report, "app.u")
