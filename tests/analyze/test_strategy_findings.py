"""The strategy findings through the CLI against sandboxes built for each case
(tests/analyze/clusters/): insert points per shard and the zones that spread them (ZA131),
a GridFS chunks collection on its ascending default key (ZA132), a key with fewer values
than shards (ZA133); and the cases where they do not apply."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

from tests.analyze.kit import analyze, collection, rules, serve_cluster
from zonectl.policy import load_policy

CLUSTERS = Path(__file__).parent / "clusters"


def _serve(sandbox_server: Any, name: str) -> Any:
    return serve_cluster(sandbox_server, (CLUSTERS / f"{name}.yaml").read_text())


def _finding(report: dict[str, Any], ns: str, rule: str) -> dict[str, Any]:
    return next(f for f in collection(report, ns)["findings"] if f["rule"] == rule)


def test_top_chunks_on_two_of_four_shards_are_named_with_a_spreading_snippet(
    sandbox_server: Any, tmp_path: Path
) -> None:
    handle = _serve(sandbox_server, "multi-hotspot")
    code, report, err = analyze(handle.uri, tmp_path, None, "-n", "app.events")
    assert code == 0, err
    found = _finding(report, "app.events", "ZA131")
    assert found["severity"] == "warning"
    assert "4 bucket value(s) sit on 2 of 4 shards: s0 (2), s1 (2)" in found["evidence"]
    assert "s2, s3 take no inserts" in found["evidence"]
    figures = {f["name"]: f["value"] for f in collection(report, "app.events")["figures"]}
    assert figures["insert points"] == (
        "top chunks of 4 bucket value(s): s0 2, s1 2; no inserts on s2, s3"
    )
    # The snippet is a policy fragment that validates as it stands, one zone per shard.
    snippet = found["snippet"]
    path = tmp_path / "spread.yaml"
    path.write_text("apiVersion: zonectl/v1\nkind: ZonePolicy\n" + snippet, encoding="utf-8")
    desired = load_policy([path]).desired
    ranges = desired.collections["app.events"].ranges
    assert [r.zone for r in ranges] == ["bucket-s0", "bucket-s1", "bucket-s2", "bucket-s3"]
    assert [r.min["bucket"] for r in ranges[1:]] == [2, 3, 4]
    assert {s: set(z) for s, z in desired.shards.items()} == {
        f"s{i}": {f"bucket-s{i}"} for i in range(4)
    }


def test_the_snippet_applied_with_migrate_leaves_no_idle_shard(
    sandbox_server: Any, tmp_path: Path
) -> None:
    handle = _serve(sandbox_server, "multi-hotspot")
    _, report, _ = analyze(handle.uri, tmp_path, None, "-n", "app.events")
    snippet = _finding(report, "app.events", "ZA131")["snippet"]
    policy = tmp_path / "spread.yaml"
    policy.write_text("apiVersion: zonectl/v1\nkind: ZonePolicy\n" + snippet, encoding="utf-8")
    from typer.testing import CliRunner

    from tests.analyze.kit import app

    done = CliRunner().invoke(app, ["apply", str(policy), "--uri", handle.uri, "--yes",
                                    "--migrate"])  # fmt: skip
    assert done.exit_code == 0, done.stderr
    _, after, _ = analyze(handle.uri, tmp_path, None, "-n", "app.events")
    assert "ZA131" not in rules(after, "app.events")
    figures = {f["name"]: f["value"] for f in collection(after, "app.events")["figures"]}
    assert figures["insert points"] == "top chunks of 4 bucket value(s): s0 1, s1 1, s2 1, s3 1"


def test_a_gridfs_chunks_collection_is_told_the_hashed_key(
    sandbox_server: Any, tmp_path: Path
) -> None:
    handle = _serve(sandbox_server, "gridfs")
    code, report, err = analyze(handle.uri, tmp_path, None, "-n", "media.fs.chunks")
    assert code == 0, err
    found = _finding(report, "media.fs.chunks", "ZA132")
    assert found["severity"] == "warning"
    assert "ObjectId files_id values" in found["evidence"]
    assert '{files_id: "hashed"}' in found["fix"]
    assert "resharding" in found["fix"] and "new bucket" in found["fix"]
    # The ascending key's one insert point is the MaxKey chunk.
    figures = {f["name"]: f["value"] for f in collection(report, "media.fs.chunks")["figures"]}
    assert figures["insert points"].startswith("the MaxKey chunk, on s3; no inserts on s0, s1, s2")


def test_three_values_on_four_shards_name_the_count_the_idle_shard_and_the_refine(
    sandbox_server: Any, tmp_path: Path
) -> None:
    handle = _serve(sandbox_server, "low-cardinality")
    code, report, err = analyze(handle.uri, tmp_path, None, "-n", "app.logs")
    assert code == 0, err
    found = _finding(report, "app.logs", "ZA133")
    assert found["evidence"].startswith("3 distinct value(s) of {level: 1}")
    assert (
        "at most 3 chunk(s) can ever hold data, and 1 of 4 shards gets nothing"
        in (found["evidence"])
    )
    assert "(s3 holds none now)" in found["evidence"]
    assert "Refine the key to {level: 1, _id: 1}" in found["fix"]
    assert 'getCollection("logs").createIndex({ level: 1, _id: 1 })' in found["fix"]
    assert 'refineCollectionShardKey: "app.logs"' in found["fix"]


def test_text_output_shows_the_snippet_under_the_fix(sandbox_server: Any, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from tests.analyze.kit import app

    handle = _serve(sandbox_server, "multi-hotspot")
    result = CliRunner().invoke(app, ["analyze", "--uri", handle.uri, "-n", "app.events"])
    assert result.exit_code == 0, result.stderr
    text = result.stdout
    assert "warning ZA131 insert-points-on-few-shards" in text
    assert (
        "        collections:\n          app.events:\n            key: {bucket: 1, ts: 1}" in text
    )
    assert "            partition: bucket\n" in text


def _variant(name: str, change: Any) -> str:
    """Cluster file `name` with `change(spec)` applied (JSON is YAML, and keeps order)."""
    spec = YAML(typ="safe", pure=True).load((CLUSTERS / f"{name}.yaml").read_text())
    change(spec)
    return json.dumps(spec, default=str)


def _on_one_shard(spec: dict[str, Any]) -> None:
    spec["shards"] = spec["shards"][:1]
    for coll in spec["collections"]:
        coll["placement"] = ["s0"] * len(coll["placement"])


def test_on_one_shard_the_spread_rules_do_not_apply(sandbox_server: Any, tmp_path: Path) -> None:
    for name, ns in (("multi-hotspot", "app.events"), ("low-cardinality", "app.logs")):
        handle = serve_cluster(sandbox_server, _variant(name, _on_one_shard))
        code, report, err = analyze(handle.uri, tmp_path, None, "-n", ns)
        assert code == 0 and "Traceback" not in err, err
        assert not {"ZA131", "ZA133"} & rules(report, ns)


def _single_bucket(spec: dict[str, Any]) -> None:
    coll = spec["collections"][0]
    coll["keys"]["values"] = coll["keys"]["values"][:2]
    coll["placement"] = ["s2", "s2", "s0"]


def test_a_prefix_with_one_value_says_one_value_cannot_keep_the_shards_writing(
    sandbox_server: Any, tmp_path: Path
) -> None:
    handle = serve_cluster(sandbox_server, _variant("multi-hotspot", _single_bucket))
    code, report, err = analyze(handle.uri, tmp_path, None, "-n", "app.events")
    assert code == 0, err
    found = _finding(report, "app.events", "ZA131")
    assert "1 bucket value(s) sit on 1 of 4 shards: s0 (1)" in found["evidence"]
    assert "1 value(s) of bucket cannot keep 4 shards writing" in found["evidence"]
    assert "bucket-s0" in found["snippet"] and "bucket-s1" not in found["snippet"]


def _empty(spec: dict[str, Any]) -> None:
    spec["collections"][0]["chunkSize"] = {"bytes": 0, "docs": 0}


def test_an_empty_collection_is_a_note_not_a_division_by_zero(
    sandbox_server: Any, tmp_path: Path
) -> None:
    for name, ns in (("low-cardinality", "app.logs"), ("multi-hotspot", "app.events")):
        handle = serve_cluster(sandbox_server, _variant(name, _empty))
        code, report, err = analyze(handle.uri, tmp_path, None, "-n", ns)
        assert code == 0 and "Traceback" not in err, err
        assert "ZA133" not in rules(report, ns)
        assert "ZA004" in rules(report, ns)  # analyzeShardKey refuses an empty collection


def test_markdown_carries_the_snippet_in_a_yaml_block(sandbox_server: Any, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from tests.analyze.kit import app

    handle = _serve(sandbox_server, "multi-hotspot")
    args = ["analyze", "--uri", handle.uri, "-n", "app.events", "--format", "markdown"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.stderr
    assert "```yaml\nshards:\n  s0: [bucket-s0]\n" in result.stdout


def _pinned_to(shards: list[str], ns: str) -> Any:
    def change(spec: dict[str, Any]) -> None:
        for shard in spec["shards"]:
            shard["zones"] = ["mine"] if shard["name"] in shards else []
        spec["zones"] = [{"ns": ns, "min": {"x": "MinKey"}, "max": {"x": "MaxKey"}, "zone": "mine"}]
        key = spec["collections"][0]["key"]
        spec["zones"][0]["min"] = {f: {"$minKey": 1} for f in key}
        spec["zones"][0]["max"] = {f: {"$maxKey": 1} for f in key}

    return change


def test_a_collection_pinned_to_some_shards_counts_only_those(
    sandbox_server: Any, tmp_path: Path
) -> None:
    # Pinned to s0 and s1, the buckets' newest chunks on s0 and s1 leave no shard idle;
    # three values pinned to three shards fill them all.
    cases = (
        ("multi-hotspot", "app.events", ["s0", "s1"], "ZA131"),
        ("low-cardinality", "app.logs", ["s0", "s1", "s2"], "ZA133"),
    )
    for name, ns, shards, rule in cases:
        handle = serve_cluster(sandbox_server, _variant(name, _pinned_to(shards, ns)))
        code, report, err = analyze(handle.uri, tmp_path, None, "-n", ns)
        assert code == 0, err
        assert rule not in rules(report, ns), name


def test_a_gridfs_finding_replaces_the_firehose_advice(sandbox_server: Any, tmp_path: Path) -> None:
    handle = _serve(sandbox_server, "gridfs")
    _, report, _ = analyze(handle.uri, tmp_path, None, "-n", "media.fs.chunks")
    assert "ZA132" in rules(report, "media.fs.chunks")
    assert "ZA103" not in rules(report, "media.fs.chunks")


def test_an_application_files_id_of_another_type_is_no_gridfs_finding(
    sandbox_server: Any, tmp_path: Path
) -> None:
    def strings(spec: dict[str, Any]) -> None:
        spec["collections"][0]["keys"] = {"type": "list", "values": ["f-100", "f-200", "f-300"]}

    handle = serve_cluster(sandbox_server, _variant("gridfs", strings))
    _, report, _ = analyze(handle.uri, tmp_path, None, "-n", "media.fs.chunks")
    assert "ZA132" not in rules(report, "media.fs.chunks")
